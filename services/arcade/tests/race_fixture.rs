//! A race master data dir written by an older `arcade` (commit 601f48f, one race per data dir,
//! `tests/fixtures/race-601f48f.tar.gz`: a race of one turn played to its finish, a snapshot
//! after every entry) opens with this one: the finished race is restored as it was (nothing
//! re-applied, its inputs still deduplicated, its budget still answered), and a new
//! `race.start.v1` starts race 2 with its own seed.

#[path = "support/process.rs"]
mod process;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use process::{Killed, free_port};

const TOKEN: &str = "fixture-operator-token";

fn arcade() -> Command {
    process::arcade(TOKEN)
}

/// The race master's log on a stopped data dir: its envelopes, in order.
fn log(data: &Path) -> Vec<Value> {
    process::envelopes(TOKEN, "race-master", data)
}

fn of<'a>(log: &'a [Value], message_type: &str) -> Vec<&'a Value> {
    log.iter().filter(|e| e["type"] == message_type).collect()
}

fn send(admin: &str, message_type: &str, id: &str, payload: &str) {
    let mut child = arcade()
        .args(["send", message_type, "-", "--id", id, "--admin", admin])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), payload.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "{message_type} {id}");
}

#[test]
fn a_race_data_dir_of_601f48f_keeps_its_finished_race_and_starts_the_next() {
    let data = process::unpacked("race-601f48f.tar.gz");
    let before = log(data.path());
    assert_eq!(of(&before, "race.finished.v1").len(), 1);
    assert_eq!(of(&before, "race.started.v1").len(), 1);

    let admin = format!("127.0.0.1:{}", free_port());
    let mut child = arcade()
        .args(["run", "race-master", "--race-seed", "601", "--data"])
        .arg(data.path())
        // The fixture's inputs are older than the default window of 7 days.
        .args(["--admin", &admin, "--dedupe-window", "36500d"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut logs = BufReader::new(child.stderr.take().unwrap()).lines();
    let run = Killed(child);
    while !logs.next().unwrap().unwrap().contains("arcade ready") {}
    std::thread::spawn(move || logs.for_each(drop));
    let mut tap = arcade()
        .args(["tap", "race.started.v1", "--count", "1", "--admin", &admin])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut tapping = BufReader::new(tap.stderr.take().unwrap()).lines();
    while !tapping.next().unwrap().unwrap().contains("tapping") {}

    // The finished race is answered as before; its start, sent again, is deduplicated.
    send(
        &admin,
        "race.budget.query.v1",
        "fx-after-red",
        r#"{"team":"red"}"#,
    );
    let start = r#"{"turns":1,"turnIntervalMs":1000,"decisionTimeoutMs":100}"#;
    send(&admin, "race.start.v1", "fx-start", start);
    // A new start: race 2.
    send(&admin, "race.start.v1", "fx-start-2", start);
    // Race 2's start, within a generous minute (a refused start never comes).
    let deadline = Instant::now() + Duration::from_secs(60);
    while tap.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = tap.kill();
            panic!("no race.started.v1 after the new start");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let started = tap.wait_with_output().unwrap();
    let started: Value = serde_json::from_slice(&started.stdout).unwrap();
    assert_eq!(started["causation_id"], "fx-start-2", "{started}");
    drop(run);

    let after = log(data.path());
    assert_eq!(
        after[..before.len()],
        before[..],
        "the old log is kept as it was"
    );
    let new = &after[before.len()..];
    let answered = new
        .iter()
        .find(|e| e["causation_id"] == "fx-after-red")
        .unwrap_or_else(|| panic!("no answer to the budget query: {new:?}"));
    assert_eq!(answered["type"], "race.budget.reported.v1", "{answered}");
    let old_budget = of(&before, "race.car.registered.v1")
        .into_iter()
        .find(|e| e["payload"]["team"] == "red")
        .unwrap()["payload"]["budgetLeft"]
        .clone();
    assert_eq!(answered["payload"]["cars"][0], "red-1", "{answered}");
    assert!(answered["payload"]["budget"].as_u64().unwrap() <= old_budget.as_u64().unwrap());
    assert!(
        new.iter().all(|e| e["causation_id"] != "fx-start"),
        "the old start was applied again: {new:?}"
    );
    let starts = of(&after, "race.started.v1");
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[1]["causation_id"], "fx-start-2");
    assert_ne!(
        starts[0]["payload"]["seedSha256"], starts[1]["payload"]["seedSha256"],
        "race 2 draws from a seed of its own"
    );
    assert!(
        of(new, "race.command.rejected.v1").is_empty(),
        "nothing refused: {new:?}"
    );
}
