//! A referee data dir written by an older `arcade` (commit a052907, `tests/fixtures/`) opens
//! with this one: its log says what was played, every input it took sent again with the same
//! message id applies nothing, and a new goal continues the game it left in progress.

#[path = "support/process.rs"]
mod process;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use process::{Killed, free_port};

const TOKEN: &str = "fixture-operator-token";

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn arcade() -> Command {
    process::arcade(TOKEN)
}

/// The referee's log on a stopped data dir: its envelopes, in order.
fn log(data: &Path) -> Vec<Value> {
    process::envelopes(TOKEN, "referee.t1", data)
}

fn last<'a>(log: &'a [Value], message_type: &str, game: &str) -> &'a Value {
    &log.iter()
        .rev()
        .find(|e| e["type"] == message_type && e["payload"]["gameId"] == game)
        .unwrap_or_else(|| panic!("no {message_type} of {game}"))["payload"]
}

#[test]
fn a_referee_data_dir_of_a052907_replays_dedupes_and_continues_its_game() {
    let data = process::unpacked("referee-a052907.tar.gz");

    // What was played: g1 won 5–1 by hinge, g2 in progress at 2–2, two refusals.
    let before = log(data.path());
    let finished = last(&before, "table.game.finished.v1", "g1");
    assert_eq!(finished["winner"], "hinge");
    assert_eq!(
        finished["score"],
        serde_json::json!({"hinge": 5, "lock": 1})
    );
    let scored = last(&before, "table.goal.scored.v1", "g2");
    assert_eq!(scored["score"], serde_json::json!({"hinge": 2, "lock": 2}));
    assert_eq!(scored["ball"], 4, "the rehearsal ball counts as a ball");
    let refusals = before
        .iter()
        .filter(|e| e["type"].as_str().unwrap().ends_with(".rejected.v1"))
        .count();
    assert_eq!(
        refusals, 2,
        "a goal with no game, an abort of a finished game"
    );

    let admin = format!("127.0.0.1:{}", free_port());
    let mut run = arcade()
        .args(["run", "referee", "--table", "t1", "--data"])
        .arg(data.path())
        .args(["--admin", &admin, "--dedupe-window", "36500d"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, logs) = mpsc::channel();
    let stderr = run.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let run = Killed(run);
    while !logs
        .recv_timeout(Duration::from_secs(60))
        .expect("arcade run is ready within 60 s")
        .contains("arcade ready")
    {}

    // Every input sent again, with its id: each is a duplicate.
    let inputs = std::fs::read_to_string(fixture("referee-a052907.inputs.jsonl")).unwrap();
    let mut sent = 0;
    for line in inputs.lines() {
        let input: Value = serde_json::from_str(line).unwrap();
        let mut send = arcade()
            .args(["send", input["type"].as_str().unwrap(), "-"])
            .args(["--id", input["id"].as_str().unwrap(), "--admin", &admin])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        serde_json::to_writer(send.stdin.take().unwrap(), &input["payload"]).unwrap();
        let out = send.wait_with_output().unwrap();
        assert!(out.status.success(), "{line}: {out:?}");
        sent += 1;
    }
    assert_eq!(sent, 14);

    // A new goal continues g2; the answer is its goal, after every duplicate was handled.
    let goal = arcade()
        .args([
            "referee", "goal", "--table", "t1", "--side", "lock", "--kind", "goal",
        ])
        .args(["--player", "erin", "--id", "fx-new-goal", "--admin", &admin])
        .output()
        .unwrap();
    assert!(goal.status.success(), "{goal:?}");
    let answer: Value = serde_json::from_slice(&goal.stdout).unwrap();
    assert_eq!(answer["type"], "table.goal.scored.v1");
    assert_eq!(answer["payload"]["gameId"], "g2");
    assert_eq!(
        answer["payload"]["score"],
        serde_json::json!({"hinge": 2, "lock": 3})
    );
    assert_eq!(answer["payload"]["ball"], 5);

    let stopped = Command::new("kill")
        .args(["-TERM", &run.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let mut run = run;
    assert!(run.0.wait().unwrap().success());

    // The log grew by the new goal's events only: nothing the duplicates caused.
    let after = log(data.path());
    assert_eq!(&after[..before.len()], &before[..]);
    let added = &after[before.len()..];
    assert!(!added.is_empty());
    for event in added {
        assert_eq!(event["causation_id"], "fx-new-goal", "{event}");
    }
}
