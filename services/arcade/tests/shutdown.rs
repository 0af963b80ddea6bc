//! Shutdown that always finishes, through the binary: `arcade run` with ten `arcade tap`
//! clients and a race team stream connected exits 0 within 2 s of SIGTERM, the taps' streams
//! end, and a second `arcade run` on the same data directory is ready right after (its
//! embedded bus and stores open: no `could not acquire lock`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Generous deadlines: CI shares two cores with other work. The 2 s bound is the property.
const PATIENCE: Duration = Duration::from_secs(60);
const STOP_WITHIN: Duration = Duration::from_secs(2);

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    // The console on a port of its own: tests run `arcade run` side by side.
    command.env("ARCADE_CONSOLE_ADDR", "127.0.0.1:0");
    command
        .env_remove("ARCADE_AMQP_URL")
        .env_remove("RUST_LOG")
        .env("ARCADE_ADMIN_TOKEN", OPERATOR);
    command
}

/// The operator's token of the `arcade run` under test (the clients read it from the same
/// variable).
const OPERATOR: &str = "shutdown-test-operator-token";

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child killed (SIGKILL) if the test fails before it stops it.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run(data: &std::path::Path, admin: &str) -> Guard {
    Guard(
        arcade()
            .args(["run", "--data"])
            .arg(data)
            .args(["--admin", admin])
            .args(["--race-seed", "7"])
            .env(
                "ARCADE_BINGO_SECRET",
                "shutdown-test-secret-0123456789abcdef",
            )
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// Polls `GET /ready` until it answers 200; fails if the process exits first.
fn wait_ready(child: &mut Guard, admin: &str) {
    let client = reqwest::blocking::Client::new();
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            panic!("arcade run exited before it was ready: {status}");
        }
        if let Ok(response) = client.get(format!("http://{admin}/ready")).send()
            && response.status().is_success()
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "/ready not 200 within {PATIENCE:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Guard, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits for the child to exit, at most `within`; returns its status and how long it took.
fn exited(child: &mut Guard, within: Duration) -> (std::process::ExitStatus, Duration) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            return (status, start.elapsed());
        }
        assert!(
            start.elapsed() < within,
            "still running {within:?} after the signal"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// An `arcade tap` whose stdout lines come through a channel.
fn tap(admin: &str) -> (Guard, mpsc::Receiver<String>) {
    let mut child = arcade()
        .args(["tap", "#", "--admin", admin])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (Guard(child), rx)
}

#[test]
fn run_with_taps_and_a_team_stream_stops_within_two_seconds_and_restarts_at_once() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut first = run(data.path(), &admin);
    wait_ready(&mut first, &admin);

    // A race team's stream, held open with the team's own token (the headers say it is
    // established).
    let added = arcade()
        .args(["race", "team", "add", "red", "--admin", &admin])
        .output()
        .unwrap();
    assert!(
        added.status.success(),
        "team add: {}",
        String::from_utf8_lossy(&added.stderr)
    );
    let red = String::from_utf8_lossy(&added.stdout).trim().to_string();
    let mut team = TcpStream::connect(&admin).unwrap();
    team.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(
        team,
        "GET /race/teams/red/stream HTTP/1.1\r\nHost: {admin}\r\nAuthorization: Bearer {red}\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(team.read(&mut byte).unwrap(), 1, "the team stream answered");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");

    // Ten taps, each known to be connected once it has printed a message sent after it started.
    let client = reqwest::blocking::Client::new();
    let mut taps = Vec::new();
    for _ in 0..10 {
        taps.push(tap(&admin));
    }
    let mut sent_count = 0;
    for (i, (_, lines)) in taps.iter().enumerate() {
        let deadline = Instant::now() + PATIENCE;
        loop {
            sent_count += 1;
            let sent = client
                .post(format!("http://{admin}/messages/game.session.completed.v1"))
                .bearer_auth(OPERATOR)
                .json(&serde_json::json!({
                    "gameId": format!("shutdown-{sent_count}"),
                    "seed": 7, "stage": 2, "outcome": "abandoned", "turns": 1, "durationMs": 1500
                }))
                .send()
                .unwrap();
            assert!(sent.status().is_success(), "send: {}", sent.status());
            if lines.recv_timeout(Duration::from_millis(500)).is_ok() {
                break;
            }
            assert!(Instant::now() < deadline, "tap {i} saw nothing");
        }
    }

    signal(&first, "TERM");
    let (status, took) = exited(&mut first, PATIENCE);
    assert_eq!(status.code(), Some(0), "a clean stop exits 0: {status}");
    assert!(
        took < STOP_WITHIN,
        "arcade run took {took:?} to stop with 10 taps and a team stream connected"
    );
    eprintln!("arcade run stopped in {took:?}");

    // The streams were ended, not cut by the process's death only: every tap sees its end.
    for (mut tap, _) in taps {
        let (status, _) = exited(&mut tap, PATIENCE);
        assert!(
            status.code().is_some(),
            "the tap exited by itself: {status}"
        );
    }
    let mut rest = Vec::new();
    let _ = team.read_to_end(&mut rest);

    // The same data directory, at once.
    let admin = format!("127.0.0.1:{}", free_port());
    let mut second = run(data.path(), &admin);
    wait_ready(&mut second, &admin);
    signal(&second, "INT");
    let (status, took) = exited(&mut second, PATIENCE);
    assert_eq!(status.code(), Some(0), "Ctrl-C stops cleanly too: {status}");
    assert!(took < STOP_WITHIN, "the second run took {took:?} to stop");
}

#[test]
fn a_bad_dedupe_window_is_refused_naming_the_setting() {
    let data = tempfile::tempdir().unwrap();
    for (flag, env) in [(Some("7"), None), (None, Some("7w")), (Some("0s"), None)] {
        let mut command = arcade();
        command.args(["run", "--data"]).arg(data.path());
        if let Some(value) = flag {
            command.args(["--dedupe-window", value]);
        }
        if let Some(value) = env {
            command.env("ARCADE_DEDUPE_WINDOW", value);
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{flag:?} {env:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--dedupe-window"), "{stderr}");
    }
}
