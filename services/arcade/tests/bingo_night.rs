//! An organiser's bingo night from the command line alone, against a real `arcade run bingo`
//! on the embedded transport: `arcade bingo open`, `deal` to three players, `call` until a
//! claim wins (the claims before it refused, exit 1), `print` and `verify` a printed card by
//! its label, `close`; each exits 0 and prints the service's answer; a refusal exits 1, no
//! answer in time or an unreachable broker 3 (the cause said once). And a game ticked by
//! another service's events opened with `--tick-from`.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

const OPERATOR: &str = "arcade-test-operator-token";

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

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(data: &std::path::Path, admin: &str) -> Running {
    let mut child = arcade()
        .args(["run", "bingo", "--data"])
        .arg(data)
        .args(["--admin", admin])
        .env("ARCADE_BINGO_SECRET", "bingo-night-test-secret-0123456789")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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
    Running(child)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `arcade bingo ARGS --admin ADMIN`, with `token` (the operator's by default).
fn bingo_as(admin: &str, token: &str, args: &[&str]) -> Output {
    arcade()
        .env("ARCADE_ADMIN_TOKEN", token)
        .arg("bingo")
        .args(args)
        .args(["--admin", admin])
        .output()
        .unwrap()
}

fn bingo(admin: &str, args: &[&str]) -> Output {
    bingo_as(admin, OPERATOR, args)
}

/// The answer a command printed, after checking it exited 0 with an answer of `answer_type`.
fn answered(output: &Output, answer_type: &str) -> Value {
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["type"], answer_type, "{answer}");
    answer["payload"].clone()
}

#[test]
fn an_organisers_bingo_night_from_the_command_line() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let _run = start(data.path(), &admin);
    let squares = data.path().join("squares.txt");
    std::fs::write(
        &squares,
        "Ada\nBabbage\nCurie\nDarwin\nEuler\nFaraday\nGauss\nHopper\n",
    )
    .unwrap();
    let squares = squares.to_str().unwrap();

    let opened = bingo(
        &admin,
        &[
            "open",
            "--game",
            "night",
            "--grid",
            "3",
            "--squares",
            squares,
            "--patterns",
            "line",
        ],
    );
    assert_eq!(opened.status.code(), Some(0), "{}", text(&opened.stderr));
    assert_eq!(
        text(&opened.stdout),
        "opened game \"night\": called, 3×3 (free centre) cards from 8 squares, won by line\n"
    );

    // Three players, three cards.
    let mut cards = Vec::new();
    for player in ["alice", "bob", "carol"] {
        let dealt = answered(
            &bingo(&admin, &["deal", "--game", "night", "--player", player]),
            "bingo.card.dealt.v1",
        );
        assert_eq!(dealt["player"], player);
        assert_eq!(dealt["firstDeal"], true);
        cards.push(dealt);
    }
    let alice = &cards[0];
    let serial = alice["serial"].as_u64().unwrap().to_string();
    // A player's token sends only messages: it reads no answers, so the organiser claims
    // here with the operator's token, as the console lets the operator do.
    let bob_token = arcade()
        .args(["bingo", "player", "add", "bob", "--admin", &admin])
        .output()
        .unwrap();
    assert_eq!(
        bob_token.status.code(),
        Some(0),
        "{}",
        text(&bob_token.stderr)
    );
    let bob_token = text(&bob_token.stdout).trim().to_string();
    let claim = |token: &str| {
        bingo_as(
            &admin,
            token,
            &[
                "claim", "--game", "night", "--serial", &serial, "--player", "alice",
            ],
        )
    };

    // Bob may not claim alice's card.
    let stolen = claim(&bob_token);
    assert_eq!(stolen.status.code(), Some(1), "{stolen:?}");
    assert!(
        text(&stolen.stderr).contains("bingo-player-bob"),
        "{}",
        text(&stolen.stderr)
    );

    // Call alice's top row, claiming after each call: refused until the line is complete.
    let row: Vec<String> = alice["cells"].as_array().unwrap()[..3]
        .iter()
        .map(|cell| cell.as_u64().unwrap().to_string())
        .collect();
    let mut refused = 0;
    let mut won = None;
    for (n, square) in row.iter().enumerate() {
        let called = answered(
            &bingo(&admin, &["call", "--game", "night", "--square", square]),
            "bingo.square.called.v1",
        );
        assert_eq!(called["callNumber"], n as u64 + 1);
        let claimed = claim(OPERATOR);
        match claimed.status.code() {
            Some(0) => {
                won = Some(answered(&claimed, "bingo.claim.answered.v1"));
                break;
            }
            Some(1) => {
                refused += 1;
                assert!(
                    text(&claimed.stderr).contains(&format!(
                        "card {serial} of game \"night\" has not won: no pattern is complete"
                    )),
                    "{}",
                    text(&claimed.stderr)
                );
                let answer: Value = serde_json::from_slice(&claimed.stdout).unwrap();
                assert_eq!(answer["payload"]["pattern"], Value::Null);
            }
            other => panic!("claim exited {other:?}: {}", text(&claimed.stderr)),
        }
    }
    let won = won.expect("alice's claim wins once her top row is called");
    assert_eq!(refused, 2, "two calls make no line on a 3×3 card");
    assert_eq!(
        (won["pattern"].as_str(), won["place"].as_u64()),
        (Some("line"), Some(1))
    );

    // A square called again is refused, with the service's reason.
    let again = bingo(&admin, &["call", "--game", "night", "--square", &row[0]]);
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    assert!(again.stdout.is_empty());
    assert!(
        text(&again.stderr).contains("(already-called)"),
        "{}",
        text(&again.stderr)
    );
    // The service draws the next one.
    let drawn = answered(
        &bingo(&admin, &["call", "--game", "night", "--draw"]),
        "bingo.square.called.v1",
    );
    assert_eq!(drawn["callNumber"], 4);

    // A printed card, verified by its label; a forged label is refused.
    let printed = bingo(&admin, &["print", "--game", "night", "--count", "1"]);
    assert_eq!(printed.status.code(), Some(0), "{}", text(&printed.stderr));
    let card: Value = serde_json::from_slice(&printed.stdout).unwrap();
    let printed_serial = card["serial"].as_u64().unwrap().to_string();
    let verified = answered(
        &bingo(
            &admin,
            &[
                "verify",
                "--game",
                "night",
                "--serial",
                &printed_serial,
                "--label",
                card["label"].as_str().unwrap(),
            ],
        ),
        "bingo.claim.answered.v1",
    );
    assert_eq!(verified["check"], "verifyLabel");
    let forged = bingo(
        &admin,
        &[
            "verify",
            "--game",
            "night",
            "--serial",
            &printed_serial,
            "--label",
            "0000-0000-0000-0000",
        ],
    );
    assert_eq!(forged.status.code(), Some(1), "{forged:?}");
    assert!(
        text(&forged.stderr).contains("(bad-label)"),
        "{}",
        text(&forged.stderr)
    );

    let closed = answered(
        &bingo(&admin, &["close", "--game", "night", "--id", "close-night"]),
        "bingo.game.closed.v1",
    );
    // Alice's card won first (the printed card may have won when verified).
    assert_eq!(closed["winners"][0], alice["serial"], "{closed}");
    assert_eq!(closed["cards"], 4);
    // The same close again, under the same id: applied once, so no new answer comes.
    let repeated = bingo(
        &admin,
        &[
            "close",
            "--game",
            "night",
            "--id",
            "close-night",
            "--timeout",
            "1",
        ],
    );
    assert_eq!(repeated.status.code(), Some(3), "{repeated:?}");
    assert!(
        text(&repeated.stderr).contains("no answer to close-night within 1s"),
        "{}",
        text(&repeated.stderr)
    );
    let late = bingo(&admin, &["deal", "--game", "night", "--player", "dave"]);
    assert_eq!(late.status.code(), Some(1), "{late:?}");
    assert!(
        text(&late.stderr).contains("(game-closed)"),
        "{}",
        text(&late.stderr)
    );

    // Bad usage is exit 2, and nothing is sent.
    let neither = bingo(&admin, &["call", "--game", "night"]);
    assert_eq!(neither.status.code(), Some(2), "{neither:?}");
    let timeout = bingo(&admin, &["close", "--game", "night", "--timeout", "-1"]);
    assert_eq!(timeout.status.code(), Some(2), "{timeout:?}");
}

#[test]
fn a_game_ticked_by_another_services_events_opens_from_the_command_line() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let _run = start(data.path(), &admin);
    let squares = data.path().join("goals.txt");
    let lines: Vec<String> = (1..=8)
        .map(|t| format!("a goal at table {t} | table.goal | t{t}"))
        .collect();
    std::fs::write(&squares, lines.join("\n")).unwrap();
    let squares = squares.to_str().unwrap();
    let open = |game: &str, extra: &[&str]| {
        let mut args = vec![
            "open",
            "--game",
            game,
            "--grid",
            "3",
            "--squares",
            squares,
            "--patterns",
            "line",
        ];
        args.extend_from_slice(extra);
        bingo(&admin, &args)
    };
    let source = [
        "--tick-from",
        "table.goal.scored.v1",
        "--verb",
        "table.goal",
        "--member",
        "/player",
        "--object",
        "/tableId",
        "--where",
        "/counted=true",
        "--where-or-missing",
        "/ownGoal=false",
    ];
    let opened = open("goals", &source);
    assert_eq!(opened.status.code(), Some(0), "{}", text(&opened.stderr));
    assert_eq!(
        text(&opened.stdout),
        "opened game \"goals\": ticked by activity, 3×3 (free centre) cards from 8 squares, \
         won by line; table.goal.scored.v1 counts as table.goal\n"
    );
    let shown = bingo(&admin, &["show", "--game", "goals", "--json"]);
    let game: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(game["tickMode"], "activity");

    // alice's card holds every square (8 squares, 8 cells): her goal at table t3 ticks it,
    // an own goal does not.
    let dealt = answered(
        &bingo(&admin, &["deal", "--game", "goals", "--player", "alice"]),
        "bingo.card.dealt.v1",
    );
    let serial = dealt["serial"].as_u64().unwrap().to_string();
    let send = |payload: Value| {
        let mut child = arcade()
            .args(["send", "table.goal.scored.v1", "-", "--admin", &admin])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
    };
    let goal = |table: &str, own: bool| {
        let mut payload = serde_json::json!({
            "ball": 1, "clockMs": 1000, "counted": true, "gameId": "g1", "kind": "goal",
            "phase": "default", "player": "alice", "score": {"hinge": 1, "lock": 0},
            "side": "hinge", "tableId": table,
        });
        if own {
            payload["ownGoal"] = Value::Bool(true);
        }
        payload
    };
    send(goal("t5", true));
    send(goal("t3", false));
    // The square of table 3 (id 3) ticks; table 5's own goal, sent first, ticked nothing. The
    // card is read until it shows a tick (each read a process of its own).
    let card = |serial: &str| {
        let shown = bingo(
            &admin,
            &["show", "--game", "goals", "--serial", serial, "--json"],
        );
        let card: Value = serde_json::from_slice(&shown.stdout).unwrap();
        card
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let ticked = loop {
        let card = card(&serial);
        let ticked: Vec<u64> = card["tickedCells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        if ticked.len() > 1 || std::time::Instant::now() > deadline {
            break (card, ticked);
        }
        std::thread::yield_now();
    };
    let (card, ticked) = ticked;
    assert_eq!(
        ticked.len(),
        2,
        "the free centre and table 3's square: {card}"
    );
    let cells = dealt["cells"].as_array().unwrap();
    let ticked_squares: Vec<&Value> = ticked.iter().map(|i| &cells[*i as usize]).collect();
    assert!(ticked_squares.contains(&&Value::from(3)), "{card}");
    assert!(!ticked_squares.contains(&&Value::from(5)), "{card}");

    // Bad usage: exit 2, with what is wrong.
    let no_source = open("g2", &["--verb", "table.goal"]);
    assert_eq!(no_source.status.code(), Some(2), "{no_source:?}");
    assert!(
        text(&no_source.stderr).contains("--tick-from"),
        "{}",
        text(&no_source.stderr)
    );
    let mut bad_filter = source.to_vec();
    bad_filter[9] = "counted=true";
    let bad = open("g3", &bad_filter);
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert!(
        text(&bad.stderr).contains("JSON Pointer"),
        "{}",
        text(&bad.stderr)
    );
    let mut called = source.to_vec();
    called.extend(["--mode", "called"]);
    let contradiction = open("g4", &called);
    assert_eq!(contradiction.status.code(), Some(2), "{contradiction:?}");

    // Refused by the service: a source on its own activity types.
    let mut own = source.to_vec();
    own[1] = "bingo.card.won.v1";
    let refused = open("g5", &own);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
}

#[test]
fn an_unreachable_broker_exits_3_saying_why_once() {
    let port = free_port();
    let output = bingo(
        &format!("127.0.0.1:{}", free_port()),
        &[
            "deal",
            "--game",
            "night",
            "--player",
            "alice",
            "--amqp",
            &format!("amqp://127.0.0.1:{port}"),
        ],
    );
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let error = text(&output.stderr);
    assert!(
        error.starts_with(&format!(
            "error: --amqp / ARCADE_AMQP_URL: broker unavailable: amqp://127.0.0.1:{port}: "
        )),
        "{error}"
    );
    assert_eq!(error.matches("broker unavailable").count(), 1, "{error}");
}
