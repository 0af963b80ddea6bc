//! The `arcade` binary from the outside: help on every subcommand, `send` refusing an invalid
//! payload with the field named, `types`, and `run` serving `tap` and `send` and stopping
//! cleanly on Ctrl-C.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    // The console on a port of its own: tests run `arcade run` side by side.
    command.env("ARCADE_CONSOLE_ADDR", "127.0.0.1:0");
    command
        .env_remove("ARCADE_AMQP_URL")
        .env_remove("RUST_LOG")
        .env("ARCADE_ADMIN_TOKEN", "arcade-test-operator-token");
    command
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn every_subcommand_has_help() {
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["tap", "--help"],
        vec!["send", "--help"],
        vec!["demo", "--help"],
        vec!["types", "--help"],
        vec!["referee", "--help"],
        vec!["bingo", "--help"],
        vec!["bingo", "open", "--help"],
        vec!["bingo", "print", "--help"],
        vec!["bingo", "show", "--help"],
        vec!["race", "--help"],
        vec!["puzzle", "--help"],
        vec!["referee", "start", "--help"],
        vec!["referee", "abort", "--help"],
        vec!["referee", "goal", "--help"],
        vec!["referee", "cancel", "--help"],
        vec!["completions", "--help"],
        vec!["man", "--help"],
    ] {
        let output = arcade().args(&args).output().unwrap();
        assert!(output.status.success(), "arcade {args:?} failed");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains("Usage: arcade"), "arcade {args:?}: {text}");
    }
}

#[test]
fn send_refuses_an_invalid_payload_naming_the_field_and_publishes_nothing() {
    let mut child = arcade()
        .args(["send", "game.session.completed.v1", "-"])
        // Nothing listens here: had the payload been accepted, sending would fail differently.
        .args(["--admin", &format!("127.0.0.1:{}", free_port())])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        br#"{"gameId":"g1","seed":7,"stage":9,"outcome":"won","turns":3,"durationMs":1000}"#,
    )
    .unwrap();
    drop(child.stdin.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("stage"),
        "the error names the field: {stderr}"
    );
    assert!(
        stderr.contains('9'),
        "the error shows the bad value: {stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn send_refuses_an_unknown_type_and_bad_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.json");
    std::fs::write(&file, "{\"gameId\": ").unwrap();
    let output = arcade()
        .args(["send", "game.session.completed.v1"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not JSON"));

    std::fs::write(&file, "{}").unwrap();
    let output = arcade()
        .args(["send", "game.session.exploded.v1"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("game.session.exploded.v1"));
}

#[test]
fn types_lists_the_contract_and_prints_schemas_and_examples() {
    let output = arcade().arg("types").output().unwrap();
    assert!(output.status.success());
    let list = String::from_utf8(output.stdout).unwrap();
    assert!(
        list.lines()
            .any(|l| l.split_whitespace().next() == Some("game.session.completed.v1")),
        "{list}"
    );

    let output = arcade()
        .args(["types", "--schema", "game.session.completed.v1"])
        .output()
        .unwrap();
    let schema: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(schema["properties"]["stage"]["maximum"], 5);

    let output = arcade()
        .args(["types", "--example", "game.session.completed.v1"])
        .output()
        .unwrap();
    let example: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(example["gameId"].is_string());
}

struct Running {
    child: Child,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_ready(child: &mut Child) {
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("arcade ready") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("arcade run logs that it is ready within 60 s");
}

#[test]
fn run_serves_tap_and_send_and_stops_on_ctrl_c() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut child = arcade()
        .args(["run", "--data"])
        .arg(data.path())
        .args(["--admin", &admin])
        .env("ARCADE_BINGO_SECRET", "cli-test-secret-0123456789abcdef")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_ready(&mut child);
    let mut run = Running { child };

    let mut tap = arcade()
        .args(["tap", "game.#", "--count", "1", "--admin", &admin])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The tap subscribes before it prints anything; give it a moment, then send.
    std::thread::sleep(Duration::from_millis(500));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    std::fs::write(
        &file,
        r#"{"gameId":"cli-1","seed":7,"stage":2,"outcome":"abandoned","turns":1,"durationMs":1500}"#,
    )
    .unwrap();
    let sent = arcade()
        .args(["send", "game.session.completed.v1"])
        .arg(&file)
        .args(["--admin", &admin])
        .output()
        .unwrap();
    assert!(
        sent.status.success(),
        "send failed: {}",
        String::from_utf8_lossy(&sent.stderr)
    );
    let envelope: serde_json::Value = serde_json::from_slice(&sent.stdout).unwrap();

    let deadline = Instant::now() + Duration::from_secs(30);
    while tap.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the tap saw nothing in 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut line = String::new();
    tap.stdout
        .take()
        .unwrap()
        .read_to_string(&mut line)
        .unwrap();
    let seen: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(seen["type"], "game.session.completed.v1");
    assert_eq!(seen["message_id"], envelope["message_id"]);
    assert_eq!(seen["payload"]["gameId"], "cli-1");

    // Ctrl-C: a clean stop, exit 0.
    let pid = run.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = run.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "arcade run did not stop in 30 s");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "arcade run exited with {status}");
}

#[test]
fn run_refuses_a_non_loopback_admin_address_without_a_token() {
    let data = tempfile::tempdir().unwrap();
    let output = arcade()
        .env_remove("ARCADE_ADMIN_TOKEN")
        .args(["run", "puzzle-telemetry", "--data"])
        .arg(data.path())
        .args(["--admin", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not a loopback address") && stderr.contains("ARCADE_ADMIN_TOKEN"),
        "{stderr}"
    );
}

#[test]
fn amqp_ca_names_a_ca_file_it_cannot_read() {
    let missing = tempfile::tempdir().unwrap().path().join("no-such-ca.pem");
    let output = arcade()
        .args([
            "tap",
            "#",
            "--amqp",
            "amqps://guest:guest@127.0.0.1:1/%2f",
            "--amqp-ca",
        ])
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("CA file") && stderr.contains("no-such-ca.pem"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("guest:guest"),
        "the password shown: {stderr}"
    );
}

#[test]
fn help_never_shows_the_values_of_secret_settings() {
    for args in [
        vec!["run", "--help"],
        vec!["tap", "--help"],
        vec!["send", "--help"],
    ] {
        let output = arcade()
            .args(&args)
            .env(
                "ARCADE_AMQP_URL",
                "amqp://arcade:hunter2-password@127.0.0.1:1/%2f",
            )
            .env("ARCADE_RACE_SEED", "918273645546372819")
            .env("ARCADE_ADMIN_TOKEN", "arc_token_that_must_not_show")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{args:?}");
        for secret in [
            "hunter2",
            "918273645546372819",
            "arc_token_that_must_not_show",
        ] {
            assert!(!help.contains(secret), "{args:?} shows {secret}:\n{help}");
        }
    }
}

/// Without ARCADE_ADMIN_TOKEN, `arcade run` generates the operator's token into the data
/// directory (0600); a request without it is refused with a 401 naming that file, and the
/// clients find it there through ARCADE_DATA_DIR.
#[test]
fn the_generated_token_is_private_and_named_by_the_401() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut child = arcade()
        .env_remove("ARCADE_ADMIN_TOKEN")
        .args(["run", "puzzle-telemetry", "--data"])
        .arg(data.path())
        .args(["--admin", &admin])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_ready(&mut child);
    let _run = Running { child };
    let token_file = data.path().join("admin-token");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let answer = reqwest::blocking::get(format!("http://{admin}/counters")).unwrap();
    assert_eq!(answer.status().as_u16(), 401);
    let text = answer.text().unwrap();
    assert!(text.contains("admin-token"), "{text}");
    let token = std::fs::read_to_string(&token_file).unwrap();
    assert!(!text.contains(token.trim()));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    std::fs::write(
        &file,
        r#"{"gameId":"tok-1","seed":7,"stage":2,"outcome":"abandoned","turns":1,"durationMs":1500}"#,
    )
    .unwrap();
    let sent = arcade()
        .env_remove("ARCADE_ADMIN_TOKEN")
        .env("ARCADE_DATA_DIR", data.path())
        .args(["send", "game.session.completed.v1"])
        .arg(&file)
        .args(["--admin", &admin, "--id", "tok-1-id"])
        .output()
        .unwrap();
    assert!(
        sent.status.success(),
        "{}",
        String::from_utf8_lossy(&sent.stderr)
    );
    assert!(String::from_utf8_lossy(&sent.stdout).contains("\"message_id\":\"tok-1-id\""));
}
