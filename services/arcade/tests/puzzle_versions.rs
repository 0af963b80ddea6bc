//! A mixed run of producers on two contract versions, end to end through `arcade run` and
//! `arcade puzzle simulate`: 10,000 sessions, half published as `game.session.completed.v1` and
//! half as `.v2`; 500 v2 sessions whose moves were tampered with (one move changed); 500
//! sessions sent twice, once as v1 and once as v2, under the same `gameId`. The statistics count
//! each session once, every tampered session is flagged naming the move that disagrees, and no
//! honest one is.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arcade_contracts::game::{GameSessionCompletedV2, Outcome, Pulse};
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::strata::{Cell, Puzzle, Stage};

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

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
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

/// `arcade run puzzle-telemetry` on `data` and `admin`, ready; with `rate`, its requests a
/// second per client address (`ARCADE_CLIENT_RATE`).
fn run_telemetry(data: &std::path::Path, admin: &str, rate: Option<&str>) -> Running {
    let mut command = arcade();
    command
        .args(["run", "puzzle-telemetry", "--data"])
        .arg(data)
        .args(["--admin", admin])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(rate) = rate {
        command.env("ARCADE_CLIENT_RATE", rate);
    }
    let mut child = command.spawn().unwrap();
    wait_ready(&mut child);
    Running(child)
}

fn simulate(admin: &str, sessions: u32, seed: u32, contract: &str) {
    let output = arcade()
        .args([
            "puzzle",
            "simulate",
            "--admin",
            admin,
            "--contract",
            contract,
        ])
        .args([
            "--sessions",
            &sessions.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "simulate failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        text.contains(&format!(
            "published {sessions} sessions as game.session.completed.{contract}"
        )),
        "{text}"
    );
}

/// The test's own oracle: the 1-based index of the first move that disagrees with the claimed
/// outcome (a refused pulse, or the last move when the end differs), or `None`.
fn first_disagreement(puzzle: &Puzzle, moves: &[Cell], outcome: Outcome) -> Option<u8> {
    let mut state = puzzle.start();
    for (i, &cell) in moves.iter().enumerate() {
        match state.pulse(cell) {
            Ok(pulsed) => state = pulsed.state,
            Err(_) => return Some(i as u8 + 1),
        }
    }
    let agrees = match outcome {
        Outcome::Won => state.is_won(),
        Outcome::Failed => state.is_failed(),
        Outcome::Abandoned => !state.is_finished(),
    };
    (!agrees).then_some(moves.len() as u8)
}

/// 500 won v2 sessions, each with one move changed so that the moves no longer give a win,
/// and the move each flag must name.
fn tampered() -> Vec<(GameSessionCompletedV2, u8)> {
    let mut simulator = Simulator::new(4_242);
    let mut out = Vec::new();
    while out.len() < 500 {
        let played = simulator.play(None);
        let mut session = played.v2("tamperer 1");
        if session.outcome != Outcome::Won {
            continue;
        }
        session.game_id = format!("tampered-{}", out.len());
        let stage = Stage::new(session.stage.into()).unwrap();
        let puzzle = Puzzle::generate(session.seed, stage).unwrap();
        let cells: Vec<Cell> = session
            .moves
            .iter()
            .map(|Pulse([x, y])| Cell::new(*x, *y))
            .collect();
        let k = out.len() % cells.len();
        let found = (0..25u8).map(|i| Cell::new(i % 5, i / 5)).find_map(|cell| {
            let mut moves = cells.clone();
            (moves[k] != cell).then(|| {
                moves[k] = cell;
                first_disagreement(&puzzle, &moves, Outcome::Won).map(|at| (cell, at))
            })?
        });
        if let Some((cell, at)) = found {
            session.moves[k] = Pulse([cell.x, cell.y]);
            assert!(
                usize::from(at) > k,
                "the moves before the changed one still agree"
            );
            out.push((session, at));
        }
    }
    out
}

fn get(client: &reqwest::blocking::Client, url: &str) -> serde_json::Value {
    client.get(url).send().unwrap().json().unwrap()
}

#[test]
fn a_mixed_run_of_v1_and_v2_counts_each_session_once_and_flags_every_tampered_one() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    // 11,000 sessions from one address: the operator's bulk load, beyond the default 200
    // requests a second per address (a tool would wait and resend; the test need not wait).
    let _run = run_telemetry(data.path(), &admin, Some("100000"));

    let mut flags = arcade()
        .args([
            "tap",
            "puzzle.session.flagged.v1",
            "--count",
            "500",
            "--admin",
            &admin,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let flag_lines = {
        let stdout = flags.stdout.take().unwrap();
        std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .collect::<Vec<_>>()
        })
    };

    simulate(&admin, 5_000, 1, "v1");
    simulate(&admin, 5_000, 2, "v2");
    // The same 500 sessions (same seed, so the same gameIds), first as v1, then as v2.
    simulate(&admin, 500, 3, "v1");
    simulate(&admin, 500, 3, "v2");
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        "Bearer arcade-test-operator-token".parse().unwrap(),
    );
    let client = reqwest::blocking::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    let expected = tampered();
    let url = format!("http://{admin}/messages/game.session.completed.v2?producer=tamperer");
    for (session, _) in &expected {
        let response = client.post(&url).json(session).send().unwrap();
        assert!(response.status().is_success(), "{:?}", response.text());
    }

    let deadline = Instant::now() + Duration::from_secs(180);
    let (stats, counters) = loop {
        let stats = get(&client, &format!("http://{admin}/puzzle/stats"));
        let counters = get(&client, &format!("http://{admin}/counters"));
        let consumed = counters["puzzle-telemetry"]["consumed"]
            .as_u64()
            .unwrap_or(0);
        let counted =
            stats["sessions"].as_u64().unwrap_or(0) + stats["flagged"].as_u64().unwrap_or(0);
        if consumed >= 11_500 && counted >= 11_000 {
            break (stats, counters);
        }
        assert!(
            Instant::now() < deadline,
            "11,500 messages not consumed in 180 s: {counters}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let telemetry = &counters["puzzle-telemetry"];
    assert_eq!(
        telemetry["deduplicated"], 500,
        "the 500 resent as v2: {telemetry}"
    );
    assert_eq!(telemetry["dead_lettered"], 0, "{telemetry}");
    assert_eq!(stats["sessions"], 10_500, "every honest session once");
    assert_eq!(
        stats["flagged"], 500,
        "the tampered ones, and no honest one"
    );
    let stages = stats["stages"].as_array().unwrap();
    let sum = |field: &str| {
        stages
            .iter()
            .map(|s| s[field].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(
        sum("v1Sessions"),
        5_500,
        "5,000 v1 and the first copy of the 500 twice-sent"
    );
    assert_eq!(sum("v2Sessions"), 5_500, "5,000 v2 and the 500 tampered");
    assert_eq!(
        sum("verified"),
        5_000,
        "every honest v2 session was replayed and agrees"
    );

    let lines = flag_lines.join().unwrap();
    assert_eq!(lines.len(), 500);
    let _ = flags.wait();
    let flagged: BTreeMap<String, serde_json::Value> = lines
        .iter()
        .map(|line| {
            let message: serde_json::Value = serde_json::from_str(line).unwrap();
            let payload = message["payload"].clone();
            (payload["gameId"].as_str().unwrap().to_string(), payload)
        })
        .collect();
    for (session, at) in &expected {
        let flag = flagged
            .get(&session.game_id)
            .unwrap_or_else(|| panic!("{} was not flagged", session.game_id));
        assert_eq!(flag["moveIndex"], *at, "{flag}");
        let [x, y] = session.moves[usize::from(*at) - 1].0;
        assert_eq!(flag["moveCell"], serde_json::json!([x, y]), "{flag}");
        assert!(
            ["moveOnImmutable", "moveAfterEnd", "movesDisagree"]
                .contains(&flag["reason"].as_str().unwrap()),
            "{flag}"
        );
        assert!(
            flag["detail"]
                .as_str()
                .unwrap()
                .starts_with(&format!("move {at} ")),
            "{flag}"
        );
    }
}

/// `arcade puzzle simulate` draws its progress on stderr when stderr is a terminal (here a
/// pseudo-terminal made by util-linux's `script`), and nothing when it is a pipe.
#[test]
fn puzzle_simulate_shows_its_progress_on_a_terminal_only() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let _run = run_telemetry(data.path(), &admin, None);

    let command = format!(
        "'{}' puzzle simulate --admin {admin} --sessions 300 --seed 11",
        env!("CARGO_BIN_EXE_arcade")
    );
    let on_terminal = Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .env_remove("ARCADE_AMQP_URL")
        .env_remove("RUST_LOG")
        .env("ARCADE_ADMIN_TOKEN", "arcade-test-operator-token")
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .output()
        .expect("util-linux's `script` runs");
    let screen = String::from_utf8_lossy(&on_terminal.stdout);
    assert!(on_terminal.status.success(), "{screen}");
    assert!(
        screen.contains("/300 sessions"),
        "no progress bar drawn: {screen:?}"
    );
    assert!(screen.contains("published 300 sessions"), "{screen:?}");

    let piped = arcade()
        .args(["puzzle", "simulate", "--admin", &admin])
        .args(["--sessions", "300", "--seed", "12"])
        .output()
        .unwrap();
    assert!(piped.status.success());
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(
        !stderr.contains("sessions"),
        "a bar drawn into a pipe: {stderr:?}"
    );
}

#[test]
fn a_tool_over_its_addresss_request_rate_waits_and_resends() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    // 10 requests a second (20 at once) for this address: 80 sessions meet 429s on the way.
    let _run = run_telemetry(data.path(), &admin, Some("10"));
    simulate(&admin, 80, 4, "v2");
}
