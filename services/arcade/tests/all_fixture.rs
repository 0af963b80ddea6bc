//! A data dir of every service written by an older `arcade` (commit a052907,
//! `tests/fixtures/all-a052907.tar.gz`: a bingo game won, a race finished, puzzle sessions, all
//! seen by the console) opens with this one: the state is what it was (the console's pages say
//! so), every input it took sent again with the same message id applies nothing (no service's
//! log gains an entry from it), and new inputs still work: a card dealt, a session counted,
//! the finished race read by its number after race 2 starts.

#[path = "support/process.rs"]
mod process;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use process::{Killed, free_port};

const TOKEN: &str = "fixture-operator-token";
/// The bingo secret the fixture was written with (cards and labels derive from it).
const BINGO_SECRET: &str = "fixture-bingo-secret-a052907";
/// Every service's log in the data dir.
const SERVICES: [&str; 5] = [
    "bingo",
    "console",
    "puzzle-telemetry",
    "race-master",
    "referee.t1",
];
const PATIENCE: Duration = Duration::from_secs(90);

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn arcade() -> Command {
    let mut command = process::arcade(TOKEN);
    command
        .env("ARCADE_BINGO_SECRET", BINGO_SECRET)
        .env_remove("ARCADE_BINGO_SECRET_FILE");
    command
}

/// Every service's log on a stopped data dir.
fn logs(data: &Path) -> BTreeMap<&'static str, Vec<Value>> {
    SERVICES
        .into_iter()
        .map(|service| (service, process::envelopes(TOKEN, service, data)))
        .collect()
}

fn of<'a>(log: &'a [Value], message_type: &str) -> Vec<&'a Value> {
    log.iter().filter(|e| e["type"] == message_type).collect()
}

fn send(admin: &str, message_type: &str, id: &str, payload: &Value) {
    let mut child = arcade()
        .args(["send", message_type, "-", "--id", id, "--admin", admin])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(child.stdin.take().unwrap(), payload).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{message_type} {id}: {out:?}");
}

/// The console's view of `path`, as JSON, once `done` holds.
fn view_when(console: &str, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        let frame: Value = client
            .get(format!("http://{console}{path}"))
            .header("Accept", "application/json")
            .send()
            .unwrap()
            .json()
            .unwrap();
        if done(&frame["view"]) {
            return frame["view"].clone();
        }
        assert!(
            Instant::now() < deadline,
            "{path}: not as expected within {PATIENCE:?}: {}",
            frame["view"]
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The tapped messages: waits for one caused by `id` of type `message_type`.
fn caused(tapped: &mpsc::Receiver<Value>, message_type: &str, id: &str) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = tapped
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no {message_type} caused by {id} within {PATIENCE:?}"));
        if message["type"] == message_type && message["causation_id"] == id {
            return message;
        }
    }
}

#[test]
fn a_data_dir_of_every_service_of_a052907_dedupes_its_inputs_and_goes_on() {
    let data = process::unpacked("all-a052907.tar.gz");

    // What was played: alice's line won, bob's claim did not; a race of two turns finished;
    // four sessions recorded and one flagged; the console saw it all.
    let before = logs(data.path());
    let bingo = &before["bingo"];
    assert_eq!(of(bingo, "bingo.card.dealt.v1").len(), 2);
    let won = of(bingo, "bingo.card.won.v1");
    assert_eq!(won.len(), 1);
    assert_eq!(won[0]["payload"]["player"], "alice");
    assert_eq!(of(bingo, "bingo.cards.printed.v1").len(), 1);
    let race = &before["race-master"];
    assert_eq!(of(race, "race.finished.v1").len(), 1);
    let old_report = &race
        .iter()
        .find(|e| e["causation_id"] == "fx-state-red")
        .expect("the state query's answer")["payload"];
    let puzzle = &before["puzzle-telemetry"];
    assert_eq!(of(puzzle, "puzzle.session.recorded.v1").len(), 4);
    assert_eq!(of(puzzle, "puzzle.session.flagged.v1").len(), 1);
    assert!(!before["console"].is_empty());

    let admin = format!("127.0.0.1:{}", free_port());
    let console = format!("127.0.0.1:{}", free_port());
    let mut run = arcade()
        .args(["run", "--data"])
        .arg(data.path())
        .args(["--admin", &admin, "--console", &console])
        .args(["--race-seed", "907", "--puzzle-stats-every", "200ms"])
        // The fixture's inputs and sessions are older than the default windows of 7 days.
        .args([
            "--dedupe-window",
            "36500d",
            "--puzzle-session-window",
            "36500d",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (ready, logs_seen) = mpsc::channel();
    let stderr = run.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("arcade ready") {
                let _ = ready.send(());
            }
        }
    });
    let run = Killed(run);
    logs_seen
        .recv_timeout(PATIENCE)
        .expect("arcade run is ready");
    let mut tap = arcade()
        .args(["tap", "#", "--admin", &admin])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut tapping = BufReader::new(tap.stderr.take().unwrap()).lines();
    while !tapping.next().unwrap().unwrap().contains("tapping") {}
    let (tx, tapped) = mpsc::channel();
    let stdout = tap.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx
                .send(serde_json::from_str::<Value>(&line).unwrap())
                .is_err()
            {
                break;
            }
        }
    });
    let _tap = Killed(tap);

    // The state is what it was.
    let game = view_when(&console, "/bingo/fx-bingo", |v| v["game"].is_object());
    let players = game["game"]["players"].as_array().unwrap();
    assert_eq!(players.len(), 2, "{game}");
    let alice = players.iter().find(|p| p["player"] == "alice").unwrap();
    let card = view_when(
        &console,
        &format!("/bingo/fx-bingo/cards/{}", alice["serial"]),
        |v| v["card"].is_object(),
    );
    assert!(card["card"]["win"].is_object(), "{card}");
    assert_eq!(
        game["game"]["called"].as_array().map(Vec::len),
        Some(2),
        "{game}"
    );
    let race_view = view_when(&console, "/race", |v| v["status"].is_string());
    assert_eq!(race_view["status"], "finished", "{race_view}");
    let stats = view_when(&console, "/puzzle", |v| v["stats"].is_object());
    assert_eq!(stats["stats"]["sessions"], 4, "{stats}");
    assert_eq!(stats["stats"]["flagged"], 1, "{stats}");

    // Every input sent again, with its id.
    let inputs = std::fs::read_to_string(fixture("all-a052907.inputs.jsonl")).unwrap();
    let mut old_ids = BTreeSet::new();
    for line in inputs.lines() {
        let input: Value = serde_json::from_str(line).unwrap();
        let id = input["id"].as_str().unwrap();
        send(
            &admin,
            input["type"].as_str().unwrap(),
            id,
            &input["payload"],
        );
        old_ids.insert(id.to_string());
    }
    assert_eq!(old_ids.len(), 18);

    // New inputs, each after the duplicates on its service's queue.
    send(
        &admin,
        "bingo.card.deal.v1",
        "fx-new-deal-carol",
        &json!({"gameId": "fx-bingo", "player": "carol", "requestId": "fx-new-deal-carol"}),
    );
    let dealt = caused(&tapped, "bingo.card.dealt.v1", "fx-new-deal-carol");
    assert_eq!(dealt["payload"]["player"], "carol");
    send(
        &admin,
        "game.session.completed.v1",
        "fx-new-session",
        &json!({"gameId": "fx-s6", "seed": 81, "stage": 1, "outcome": "abandoned",
            "turns": 0, "durationMs": 700}),
    );
    caused(&tapped, "puzzle.session.recorded.v1", "fx-new-session");
    // An old session's gameId under a new message id: still counted once.
    send(
        &admin,
        "game.session.completed.v1",
        "fx-new-session-again",
        &json!({"gameId": "fx-s3", "seed": 78, "stage": 2, "outcome": "abandoned",
            "turns": 0, "durationMs": 1500}),
    );
    let start = json!({"turns": 1, "turnIntervalMs": 200, "decisionTimeoutMs": 100});
    send(&admin, "race.start.v1", "fx-new-race-start", &start);
    caused(&tapped, "race.started.v1", "fx-new-race-start");
    // Race 1, asked by its number once race 2 runs; then a command whose answer is tapped.
    send(
        &admin,
        "race.state.query.v1",
        "fx-new-state-red",
        &json!({"team": "red", "raceId": 1}),
    );
    send(
        &admin,
        "race.hint.publish.v1",
        "fx-new-hint",
        &json!({"achievement": "stratege"}),
    );
    let hint = tapped
        .iter()
        .find(|m| m["causation_id"] == "fx-new-hint")
        .expect("the hint's answer");
    assert!(
        hint["type"].as_str().unwrap().starts_with("race."),
        "{hint}"
    );
    let game = view_when(&console, "/bingo/fx-bingo", |v| {
        v["game"]["players"].as_array().map(Vec::len) == Some(3)
    });
    assert_eq!(game["game"]["called"].as_array().map(Vec::len), Some(2));
    view_when(&console, "/puzzle", |v| v["stats"]["sessions"] == 5);

    let stopped = Command::new("kill")
        .args(["-TERM", &run.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let mut run = run;
    assert!(run.0.wait().unwrap().success());

    // No log lost or changed an entry; nothing the duplicates caused was added.
    let after = logs(data.path());
    for service in SERVICES {
        let (old, new) = (&before[service], &after[service]);
        assert_eq!(&new[..old.len()], &old[..], "{service}'s old log");
        for entry in &new[old.len()..] {
            let cause = entry["causation_id"].as_str().unwrap_or_default();
            assert!(
                !old_ids.contains(cause),
                "{service} applied {cause} again: {entry}"
            );
        }
    }
    assert_eq!(after["referee.t1"].len(), before["referee.t1"].len());
    // The console records each event it observes once (its entry caused by the event's id).
    let observed: BTreeSet<&str> = before["console"]
        .iter()
        .filter_map(|e| e["causation_id"].as_str())
        .collect();
    for entry in &after["console"][before["console"].len()..] {
        let cause = entry["causation_id"].as_str().unwrap_or_default();
        assert!(!observed.contains(cause), "observed again: {entry}");
    }
    let new_bingo = &after["bingo"][before["bingo"].len()..];
    assert!(
        new_bingo
            .iter()
            .all(|e| e["causation_id"] == "fx-new-deal-carol"),
        "{new_bingo:?}"
    );
    let new_puzzle = &after["puzzle-telemetry"][before["puzzle-telemetry"].len()..];
    assert_eq!(
        new_puzzle
            .iter()
            .filter(|e| e["type"] != "puzzle.stats.updated.v1")
            .map(|e| e["causation_id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["fx-new-session"],
        "one new session; its gameId's resend counted nothing"
    );
    let report = &after["race-master"]
        .iter()
        .find(|e| e["causation_id"] == "fx-new-state-red")
        .expect("race 1's report")["payload"];
    let mut expected = old_report.clone();
    expected["raceId"] = json!(1);
    assert_eq!(report, &expected, "race 1 as it finished");
}
