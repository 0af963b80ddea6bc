//! The deployment files say what operators rely on: docker-compose.yml passes the static check
//! of `ops/ci/check-compose.py` (the compose file is run for real by `ops/containers/smoke.sh`),
//! Prometheus scrapes every Arcade process the compose file starts, and the referee's systemd
//! unit keeps restarting, reads its env file and keeps its data on the SD card.

use std::process::Command;

use arcade_ops_tests::deployment::ops_dir;
use arcade_ops_tests::settings::python_for_test;

#[test]
fn docker_compose_passes_its_static_check() {
    if !python_for_test("docker_compose_passes_its_static_check", &["yaml"]) {
        return;
    }
    let root = ops_dir()
        .parent()
        .expect("ops/ is in the repository")
        .to_path_buf();
    let output = Command::new("python3")
        .arg(root.join("ops/ci/check-compose.py"))
        .current_dir(&root)
        .output()
        .expect("python3 runs ops/ci/check-compose.py");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_check_catches_a_service_without_its_own_volume() {
    if !python_for_test(
        "the_check_catches_a_service_without_its_own_volume",
        &["yaml"],
    ) {
        return;
    }
    let root = ops_dir().parent().unwrap().to_path_buf();
    let compose = std::fs::read_to_string(root.join("docker-compose.yml")).unwrap();
    let broken = compose.replace("bingo-data:/var/lib/arcade", "referee-data:/var/lib/arcade");
    assert_ne!(broken, compose);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docker-compose.yml");
    std::fs::write(&path, broken).unwrap();
    let output = Command::new("python3")
        .arg(root.join("ops/ci/check-compose.py"))
        .arg(&path)
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("share a data volume"), "{stderr}");
}

#[test]
fn prometheus_scrapes_every_arcade_process_of_the_compose_file_the_console_included() {
    let test = "prometheus_scrapes_every_arcade_process_of_the_compose_file_the_console_included";
    if !python_for_test(test, &["yaml"]) {
        return;
    }
    let root = ops_dir().parent().unwrap().to_path_buf();
    let scrape = std::fs::read_to_string(root.join("ops/prometheus/prometheus.yml")).unwrap();
    let compose = std::fs::read_to_string(root.join("docker-compose.yml")).unwrap();
    for service in [
        "referee",
        "bingo",
        "race-master",
        "puzzle-telemetry",
        "console",
    ] {
        assert!(
            compose.contains(&format!("command: [\"{service}\"]")),
            "docker-compose.yml runs no {service}"
        );
        assert!(
            scrape.contains(&format!("- {service}:9464")),
            "ops/prometheus/prometheus.yml does not scrape {service}"
        );
    }
    // The check refuses a configuration that leaves one out.
    let without_console = scrape.replace("- console:9464", "");
    assert_ne!(without_console, scrape);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prometheus.yml");
    std::fs::write(&path, without_console).unwrap();
    let output = Command::new("python3")
        .arg(root.join("ops/ci/check-compose.py"))
        .arg("docker-compose.yml")
        .arg(&path)
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("job arcade scrapes") && stderr.contains("console:9464"),
        "{stderr}"
    );
}

#[test]
fn the_referee_unit_restarts_reads_its_env_file_and_writes_on_the_sd_card() {
    let unit = std::fs::read_to_string(ops_dir().join("edge/arcade-referee.service")).unwrap();
    let lines: Vec<&str> = unit.lines().map(str::trim).collect();
    for expected in [
        "ExecStart=/usr/local/bin/arcade-referee",
        "Environment=ARCADE_TABLE_HARDWARE=i2c",
        "Restart=always",
        "StartLimitIntervalSec=0",
        "EnvironmentFile=/etc/arcade/referee.env",
        "Environment=ARCADE_DATA_DIR=/media/sdcard/arcade",
        "RequiresMountsFor=/media/sdcard",
        "ReadWritePaths=/media/sdcard/arcade",
        "KillSignal=SIGTERM",
        "User=arcade",
        // The goal sensors: the I2C bus (MCP23017) or the GPIO character device.
        "DeviceAllow=char-i2c rw",
        "DeviceAllow=char-gpiochip rw",
        "SupplementaryGroups=i2c gpio",
    ] {
        assert!(lines.contains(&expected), "the unit lacks {expected:?}");
    }
}
