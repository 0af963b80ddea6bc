//! Every systemd unit in `ops/` rates at most 2.0 in `systemd-analyze security` (offline, on the
//! unit file: no running systemd needed), where `systemd-analyze` exists; the same unit without
//! its hardening rates above that, so the check can fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use arcade_ops_tests::deployment::ops_dir;

/// The highest exposure a unit of `ops/` may have ("OK" in systemd's words is below 4.0).
const MAX_EXPOSURE: f64 = 2.0;

/// Every `.service` file under `ops/`.
fn units(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() && path.file_name().is_some_and(|n| n != "target") {
            found.extend(units(&path));
        } else if path.extension().is_some_and(|e| e == "service") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// `systemd-analyze`, or `None` after printing that `test` was skipped.
fn systemd_analyze(test: &str) -> Option<&'static str> {
    let path = "systemd-analyze";
    match Command::new(path).arg("--version").output() {
        Ok(output) if output.status.success() => Some(path),
        _ => {
            eprintln!(
                "{test}: skipped, systemd-analyze is not installed (Debian: package systemd)"
            );
            None
        }
    }
}

/// The overall exposure `systemd-analyze security --offline=true` gives the unit file `unit`.
fn exposure(analyze: &str, unit: &Path) -> f64 {
    let output = Command::new(analyze)
        .args(["security", "--offline=true", "--no-pager"])
        .arg(unit)
        .env("SYSTEMD_COLORS", "0")
        .output()
        .unwrap_or_else(|e| panic!("running {analyze} security on {}: {e}", unit.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    stdout
        .lines()
        .find_map(|line| {
            let (_, rest) = line.split_once("Overall exposure level for ")?;
            let (_, score) = rest.split_once(": ")?;
            score.split_whitespace().next()?.parse::<f64>().ok()
        })
        .unwrap_or_else(|| {
            panic!(
                "{analyze} security {}: no overall exposure level in its output\n{stdout}{stderr}",
                unit.display()
            )
        })
}

#[test]
fn every_unit_rates_at_most_2_in_systemd_analyze_security() {
    let Some(analyze) = systemd_analyze("every_unit_rates_at_most_2_in_systemd_analyze_security")
    else {
        return;
    };
    let units = units(&ops_dir());
    assert!(
        units
            .iter()
            .any(|u| u.ends_with("edge/arcade-referee.service")),
        "no unit found under ops/: {units:?}"
    );
    for unit in units {
        let score = exposure(analyze, &unit);
        println!("{}: {score}", unit.display());
        assert!(
            score <= MAX_EXPOSURE,
            "{}: systemd-analyze security rates it {score}, over {MAX_EXPOSURE}",
            unit.display()
        );
    }
}

#[test]
fn the_referee_unit_without_its_hardening_rates_above_2() {
    let Some(analyze) = systemd_analyze("the_referee_unit_without_its_hardening_rates_above_2")
    else {
        return;
    };
    let unit = std::fs::read_to_string(ops_dir().join("edge/arcade-referee.service")).unwrap();
    let (head, tail) = unit
        .split_once("NoNewPrivileges=yes")
        .expect("the unit's hardening starts with NoNewPrivileges=yes");
    let install = tail
        .find("[Install]")
        .expect("the unit has an [Install] section");
    let bare = format!("{head}{}", &tail[install..]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("arcade-referee.service");
    std::fs::write(&path, bare).unwrap();
    let score = exposure(analyze, &path);
    assert!(score > MAX_EXPOSURE, "the bare unit rates {score}");
}

#[test]
fn the_referee_unit_keeps_its_devices_data_dir_and_network() {
    let unit = std::fs::read_to_string(ops_dir().join("edge/arcade-referee.service")).unwrap();
    let lines: Vec<&str> = unit.lines().map(str::trim).collect();
    for expected in [
        "DevicePolicy=closed",
        "DeviceAllow=char-i2c rw",
        "DeviceAllow=char-gpiochip rw",
        "SupplementaryGroups=i2c gpio",
        "ReadWritePaths=/media/sdcard/arcade",
        "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
    ] {
        assert!(lines.contains(&expected), "the unit lacks {expected:?}");
    }
    for forbidden in [
        "PrivateNetwork=yes",
        "PrivateDevices=yes",
        "PrivateUsers=yes",
    ] {
        assert!(
            !lines.contains(&forbidden),
            "{forbidden} would cut the referee off its broker or its bus"
        );
    }
}
