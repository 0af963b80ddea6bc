//! Replayable history: on RabbitMQ every event also lands in the stream `arcade.history`, and
//! `arcade tap PATTERN --from first|last|TIMESTAMP|OFFSET` replays it, then follows.
//!
//! The broker test runs `arcade demo --amqp` in a vhost of its own (made with `rabbitmqctl`,
//! deleted after), then taps with `--from first` after the demo has finished: every event the
//! services logged comes, each service's in its log order, and then a new one sent afterwards.
//! Skipped without `ARCADE_AMQP_URL` unless `ARCADE_REQUIRE_BROKER=1`.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/broker.rs"]
mod broker;
use broker::{Vhost, broker_url};

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    // The console on a port of its own: tests run `arcade run` side by side.
    command.env("ARCADE_CONSOLE_ADDR", "127.0.0.1:0");
    command.env_remove("ARCADE_AMQP_URL").env_remove("RUST_LOG");
    command
}

/// A child killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `arcade tap ARGS` in the background, and its output lines (parsed) as they come.
fn tap(url: &str, args: &[&str]) -> (Killed, mpsc::Receiver<Value>) {
    let mut child = arcade()
        .arg("tap")
        .args(args)
        .args(["--amqp", url])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let value: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("tap printed a line that is not JSON ({e}): {line}"));
            if tx.send(value).is_err() {
                break;
            }
        }
    });
    (Killed(child), rx)
}

fn next(lines: &mpsc::Receiver<Value>, what: &str) -> Value {
    lines
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("the tap printed no {what} within 30 s"))
}

/// Lines until none comes for `quiet`.
fn drain(lines: &mpsc::Receiver<Value>, quiet: Duration) -> Vec<Value> {
    let mut out = Vec::new();
    while let Ok(line) = lines.recv_timeout(quiet) {
        out.push(line);
    }
    out
}

fn id(line: &Value) -> String {
    line["message_id"]
        .as_str()
        .expect("a message_id")
        .to_string()
}

/// The ids of the events `service` logged for the events exchange, in log order.
fn logged_events(data: &Path, service: &str) -> Vec<String> {
    let out = arcade()
        .args(["log", service, "--data"])
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "arcade log {service}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|entry| entry.get("queue").is_none_or(Value::is_null))
        .map(|entry| id(&entry["envelope"]))
        .collect()
}

/// Sends one `game.session.completed.v1` through the broker; returns its id.
fn send_one(url: &str, dir: &Path, game: &str) -> String {
    let file = dir.join(format!("{game}.json"));
    let payload = serde_json::json!({
        "gameId": game, "seed": 11, "stage": 1, "outcome": "won", "turns": 4, "durationMs": 900
    });
    std::fs::write(&file, payload.to_string()).unwrap();
    let out = arcade()
        .args(["send", "game.session.completed.v1"])
        .arg(&file)
        .args(["--amqp", url])
        .output()
        .unwrap();
    assert!(out.status.success(), "arcade send: {out:?}");
    let envelope: Value = serde_json::from_slice(&out.stdout).unwrap();
    id(&envelope)
}

/// Lines until one with id `wanted`; returns those before it.
fn until_id(lines: &mpsc::Receiver<Value>, wanted: &str) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut before = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("the tap never printed {wanted}"));
        if id(&line) == wanted {
            return before;
        }
        before.push(line);
    }
}

#[test]
fn tap_from_first_after_a_demo_replays_every_event_in_log_order_then_follows() {
    let Some(url) = broker_url() else { return };
    let vhost = Vhost::new("history", &url);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("demo");
    let demo = arcade()
        .args(["demo", "--amqp", &vhost.url, "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(demo.status.success(), "arcade demo --amqp: {demo:?}");

    const SERVICES: [&str; 4] = [
        "race-master",
        "bingo",
        "puzzle-telemetry",
        "referee.demo-table",
    ];
    let logs: Vec<Vec<String>> = SERVICES.iter().map(|s| logged_events(&data, s)).collect();
    let mut missing: HashSet<&String> = logs.iter().flatten().collect();

    // Started after the demo finished: the whole history, then what comes.
    let (_first, lines) = tap(&vhost.url, &["#", "--from", "first"]);
    let mut history = Vec::new();
    while !missing.is_empty() {
        let line = next(&lines, &format!("of {} logged events", missing.len()));
        missing.remove(&id(&line));
        history.push(line);
    }
    history.extend(drain(&lines, Duration::from_secs(2)));
    let printed: Vec<String> = history.iter().map(id).collect();
    assert_eq!(
        printed.iter().collect::<HashSet<_>>().len(),
        printed.len(),
        "no event twice"
    );
    let mut logged = 0;
    for (service, expected) in SERVICES.iter().zip(logs) {
        assert!(!expected.is_empty(), "{service} logged events");
        let wanted: HashSet<&String> = expected.iter().collect();
        let seen: Vec<String> = printed
            .iter()
            .filter(|id| wanted.contains(id))
            .cloned()
            .collect();
        assert_eq!(
            seen, expected,
            "{service}: every event it logged, in its log order"
        );
        logged += expected.len();
    }
    let race = history
        .iter()
        .filter(|l| l["type"].as_str().is_some_and(|t| t.starts_with("race.")))
        .count();
    assert!(
        history.iter().any(|l| l["type"] == "race.finished.v1"),
        "the race's end is in the history"
    );
    eprintln!(
        "history: {} events ({logged} from the services' logs, {race} of the race)",
        history.len()
    );

    // It follows: an event published afterwards comes next.
    let sent = send_one(&vhost.url, dir.path(), "after-the-race");
    let before = until_id(&lines, &sent);
    assert!(before.is_empty(), "nothing new came before it: {before:?}");

    // An offset reads from that position of the stream (0 is its first event).
    let (_at, at) = tap(&vhost.url, &["#", "--from", "100", "--count", "3"]);
    let from_offset: Vec<String> = (0..3)
        .map(|_| id(&next(&at, "event at offset 100")))
        .collect();
    assert_eq!(from_offset, printed[100..103], "--from 100");

    // The pattern applies to the replay too.
    let (_race, race_lines) = tap(&vhost.url, &["race.#", "--from", "first", "--count", "5"]);
    let race_ids: Vec<String> = (0..5)
        .map(|_| id(&next(&race_lines, "race event")))
        .collect();
    let race_history: Vec<String> = history
        .iter()
        .filter(|l| l["type"].as_str().is_some_and(|t| t.starts_with("race.")))
        .take(5)
        .map(id)
        .collect();
    assert_eq!(race_ids, race_history, "race.# --from first");

    // `last`: from the newest chunk, which is after the race.
    let settled = drain(&lines, Duration::from_secs(2));
    let (_last, last) = tap(&vhost.url, &["#", "--from", "last", "--count", "1"]);
    let newest = id(&next(&last, "event from last"));
    let after: Vec<String> = std::iter::once(sent.clone())
        .chain(settled.iter().map(id))
        .collect();
    assert!(
        after.contains(&newest),
        "--from last starts after the race: {newest} not in {after:?}"
    );

    // A timestamp: one in the past replays from the start, one ahead waits for what comes.
    let (_past, past) = tap(
        &vhost.url,
        &["#", "--from", "2000-01-01T00:00:00Z", "--count", "2"],
    );
    let from_past: Vec<String> = (0..2)
        .map(|_| id(&next(&past, "event since 2000")))
        .collect();
    assert_eq!(from_past, printed[..2], "--from 2000-01-01T00:00:00Z");
    // The next whole second: everything so far was written before it (the broker compares
    // with second precision), and what is sent once the clock passed it comes after.
    let ahead = chrono::DateTime::from_timestamp(chrono::Utc::now().timestamp() + 1, 0).unwrap();
    let (_ahead, ahead_lines) = tap(&vhost.url, &["#", "--from", &ahead.to_rfc3339()]);
    while chrono::Utc::now() <= ahead {
        std::thread::sleep(Duration::from_millis(50));
    }
    let later = send_one(&vhost.url, dir.path(), "later");
    let first_ahead = id(&next(&ahead_lines, "event after the timestamp"));
    assert_eq!(first_ahead, later, "--from {ahead} skips everything older");
}

#[test]
fn bad_from_values_are_refused_naming_the_flag() {
    for bad in ["yesterday", "2026-12-02", "12:00", "-3", "1.5"] {
        let out = arcade()
            .args(["tap", "#", &format!("--from={bad}")])
            .args(["--amqp", "amqp://guest:guest@127.0.0.1:1/%2f"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(
            stderr.contains("--from") && stderr.contains(bad) && stderr.contains("RFC 3339"),
            "{bad}: {stderr}"
        );
    }
}

#[test]
fn from_on_the_embedded_bus_says_it_needs_rabbitmq() {
    let out = arcade()
        .args(["tap", "#", "--from", "first", "--admin", "127.0.0.1:1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("--from needs RabbitMQ") && stderr.contains("ARCADE_AMQP_URL"),
        "{stderr}"
    );
    let help = arcade().args(["tap", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("--from") && help.contains("RabbitMQ"),
        "{help}"
    );
}

#[test]
fn bad_retention_settings_are_refused_naming_them() {
    let out = arcade()
        .args(["run", "--history-max-age", "7days"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--history-max-age") && stderr.contains("Y, M, D, h, m, s"),
        "{stderr}"
    );
    let out = arcade()
        .arg("run")
        .env("ARCADE_HISTORY_MAX_BYTES", "lots")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--history-max-bytes"), "{stderr}");
}
