//! An organiser runs a table from the command line against `arcade run`: `arcade referee
//! start|goal|cancel|abort` reach the referee through the admin endpoint and print its answer, and a
//! command no referee consumes is reported with exit code 3 instead of vanishing.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

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

/// A child killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The lines a child writes on `stream`, as they come.
fn lines(stream: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn wait_for(lines: &mpsc::Receiver<String>, what: &str) -> String {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no line with {what:?} within 60 s"));
        if line.contains(what) {
            return line;
        }
    }
}

fn referee(admin: &str, args: &[&str]) -> Output {
    arcade()
        .arg("referee")
        .args(args)
        .args(["--admin", admin])
        .output()
        .unwrap()
}

#[test]
fn an_organiser_starts_scores_and_aborts_a_game_and_is_told_when_nobody_listens() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut run = arcade()
        .args(["run", "referee", "--table", "t9", "--data"])
        .arg(data.path())
        .args(["--admin", &admin])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let logs = lines(run.stderr.take().unwrap());
    let _run = Killed(run);
    wait_for(&logs, "arcade ready");

    let mut tap = arcade()
        .args(["tap", "table.#", "--admin", &admin])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let seen = lines(tap.stdout.take().unwrap());
    // It says so once its subscription is in place.
    wait_for(&lines(tap.stderr.take().unwrap()), "tapping");
    let _tap = Killed(tap);

    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../referee/examples/bar.rules.json");
    let rules = rules.to_str().unwrap();
    let started = referee(
        &admin,
        &[
            "start", "--table", "t9", "--game", "g1", "--rules", rules, "--hinge", "alice",
            "carol", "--lock", "bob",
        ],
    );
    assert!(started.status.success(), "{started:?}");
    // The referee's answer: the game it started, its rules in plain words.
    let envelope: Value = serde_json::from_slice(&started.stdout).unwrap();
    assert_eq!(envelope["type"], "table.game.started.v1");
    assert_eq!(
        envelope["payload"]["players"],
        serde_json::json!({"hinge": ["alice", "carol"], "lock": ["bob"]})
    );
    assert_eq!(
        envelope["payload"]["rulesText"][0],
        "default: wins with 5 or more and a lead of 2 or more"
    );
    let goal = referee(
        &admin,
        &[
            "goal", "--table", "t9", "--side", "hinge", "--kind", "goal", "--player", "carol",
        ],
    );
    assert!(goal.status.success(), "{goal:?}");
    let answer: Value = serde_json::from_slice(&goal.stdout).unwrap();
    assert_eq!(answer["type"], "table.goal.scored.v1");
    assert_eq!(
        answer["payload"]["score"],
        serde_json::json!({"hinge": 1, "lock": 0})
    );
    // bob plays lock: a goal he gives hinge is an own goal; dave is not in the game.
    let own = referee(
        &admin,
        &[
            "goal", "--table", "t9", "--side", "hinge", "--kind", "goal", "--player", "bob",
        ],
    );
    assert!(own.status.success(), "{own:?}");
    let own: Value = serde_json::from_slice(&own.stdout).unwrap();
    assert_eq!(own["payload"]["ownGoal"], true);
    let stranger = referee(
        &admin,
        &[
            "goal", "--table", "t9", "--side", "hinge", "--kind", "goal", "--player", "dave",
        ],
    );
    assert_eq!(stranger.status.code(), Some(1), "{stranger:?}");
    assert!(
        String::from_utf8_lossy(&stranger.stderr)
            .contains(r#""dave" does not play in game "g1" (hinge: alice, carol; lock: bob)"#),
        "{stranger:?}"
    );
    assert!(stranger.stdout.is_empty());
    // The own goal was a mistake: cancelled, the score is as it was before it; only once.
    let cancel = ["cancel", "--table", "t9", "--game", "g1"];
    let cancelled = referee(&admin, &[&cancel[..], &["--ball", "2"]].concat());
    assert!(cancelled.status.success(), "{cancelled:?}");
    let answer: Value = serde_json::from_slice(&cancelled.stdout).unwrap();
    assert_eq!(answer["type"], "table.goal.cancelled.v1");
    assert_eq!(answer["payload"]["ball"], 2);
    assert_eq!(
        answer["payload"]["score"],
        serde_json::json!({"hinge": 1, "lock": 0})
    );
    let twice = referee(&admin, &cancel);
    assert_eq!(twice.status.code(), Some(1), "{twice:?}");
    assert!(
        String::from_utf8_lossy(&twice.stderr).contains(r#"game "g1" has no ball to cancel"#),
        "{twice:?}"
    );
    let aborted = referee(
        &admin,
        &[
            "abort",
            "--table",
            "t9",
            "--game",
            "g1",
            "--reason",
            "the bar closes",
        ],
    );
    assert!(aborted.status.success(), "{aborted:?}");
    let answer: Value = serde_json::from_slice(&aborted.stdout).unwrap();
    assert_eq!(answer["type"], "table.game.finished.v1");
    // Refused by the referee: exit 1 with its reason.
    let again = referee(&admin, &["abort", "--table", "t9", "--game", "g1"]);
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains(r#"cannot abort: game "g1" is finished"#),
        "{again:?}"
    );
    let late = referee(&admin, &cancel);
    assert_eq!(late.status.code(), Some(1), "{late:?}");
    assert!(
        String::from_utf8_lossy(&late.stderr).contains(r#"cannot cancel: game "g1" is finished"#),
        "{late:?}"
    );

    let scored: Value = serde_json::from_str(&wait_for(&seen, "table.goal.scored.v1")).unwrap();
    assert_eq!(scored["payload"]["player"], "carol");
    assert_eq!(scored["payload"]["gameId"], "g1");
    let finished: Value = serde_json::from_str(&wait_for(&seen, "table.game.finished.v1")).unwrap();
    assert_eq!(finished["payload"]["reason"], "aborted");
    assert_eq!(finished["payload"]["abortReason"], "the bar closes");
    assert!(finished["payload"].get("winner").is_none(), "{finished}");

    // No referee for table t404: the command is not lost silently.
    let nobody = referee(
        &admin,
        &[
            "goal", "--table", "t404", "--side", "lock", "--kind", "inout",
        ],
    );
    assert_eq!(nobody.status.code(), Some(3), "{nobody:?}");
    let error = String::from_utf8_lossy(&nobody.stderr);
    assert!(
        error.contains("referee.t404") && error.contains("unroutable"),
        "{error}"
    );
    assert!(nobody.stdout.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("goal.json");
    std::fs::write(
        &file,
        r#"{"tableId":"t404","gameId":"g1","side":"hinge","kind":"goal"}"#,
    )
    .unwrap();
    let sent = arcade()
        .args(["send", "table.goal.report.v1"])
        .arg(&file)
        .args(["--admin", &admin])
        .output()
        .unwrap();
    assert_eq!(sent.status.code(), Some(3), "{sent:?}");

    // Bad rules are refused before anything is sent, naming the file and the path.
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"initial_score":{"hinge":9},"conditions":{"default":{"win_rule":{"$geq":["$score",5]}}}}"#,
    )
    .unwrap();
    let refused = referee(
        &admin,
        &[
            "start",
            "--table",
            "t9",
            "--game",
            "g2",
            "--rules",
            bad.to_str().unwrap(),
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("initial_score: hinge already wins"),
        "{refused:?}"
    );
}
