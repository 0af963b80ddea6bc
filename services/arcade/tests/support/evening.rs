//! An evening with something on every console page: `arcade run` of every service (port 0
//! style free addresses, a data directory of the test's own), a table game with goals, a bingo
//! game of numbers dealt, called, won and printed, a game with no batch printed, a finished race
//! with two teams' cars, simulated puzzle sessions and a board two pulses in. [`Evening::pages`]
//! lists every console page with the path that shows it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The operator's token of the evening.
pub const TOKEN: &str = "console-a11y-operator-token";
/// How long the evening may take to show a state (a loaded CI machine is slow).
pub const PATIENCE: Duration = Duration::from_secs(90);

/// A child killed when the test ends, however it ends.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `arcade` without the developer's broker or log settings.
pub fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command.env_remove("ARCADE_AMQP_URL").env_remove("RUST_LOG");
    command
}

fn free_addr() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}")
}

fn http() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// The view of a console page, as JSON.
pub fn view(console: &str, path: &str) -> Value {
    let frame: Value = http()
        .get(format!("http://{console}{path}"))
        .header("Accept", "application/json")
        .send()
        .unwrap()
        .json()
        .unwrap();
    frame["view"].clone()
}

/// Polls the view of `path` until `done` holds (a deadline as a safety net).
pub fn view_when(console: &str, path: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let view = view(console, path);
        if done(&view) {
            return view;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not seen within {PATIENCE:?}; the view is {view}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An operator's action on the console; returns the status and the answer.
pub fn act(console: &str, path: &str, body: Value) -> (u16, Value) {
    let response = http()
        .post(format!("http://{console}{path}"))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().unwrap_or(Value::Null))
}

/// The running evening.
pub struct Evening {
    _run: Guard,
    _cars: Vec<Guard>,
    /// The console's address.
    pub console: String,
    /// The admin endpoint's address.
    pub admin: String,
    /// A team's name and token.
    pub team: (String, String),
    /// Every console page: a name and its path.
    pub pages: Vec<(String, String)>,
}

/// `arcade run` of every service on `data`, once it logs that it is ready.
pub fn start(data: &Path) -> (Guard, String, String) {
    let console = free_addr();
    let admin = free_addr();
    let mut child = arcade()
        .args(["run", "--data"])
        .arg(data)
        .args(["--admin", &admin, "--console", &console])
        .args([
            "--race-seed",
            "8123456789012345677",
            "--puzzle-stats-every",
            "200ms",
        ])
        .env("ARCADE_ADMIN_TOKEN", TOKEN)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("arcade ready") {
                let _ = tx.send(());
            }
        }
    });
    let run = Guard(child);
    rx.recv_timeout(PATIENCE)
        .expect("arcade run logs that it is ready");
    (run, console, admin)
}

/// Starts a game on table t1 (the bar's rules); returns its id.
pub fn table_game(console: &str) -> String {
    let rules: Value =
        serde_json::from_str(include_str!("../../../referee/examples/bar.rules.json")).unwrap();
    let (status, answer) = act(console, "/tables/t1/games", json!({ "rules": rules }));
    assert_eq!(status, 202, "{answer}");
    let game_id = answer["gameId"].as_str().unwrap().to_string();
    view_when(console, "/tables/t1", "the game started", |v| {
        v["table"]["game"]["gameId"] == game_id.as_str()
    });
    game_id
}

/// Reports a goal on t1 and waits until the console counts `balls` balls.
pub fn goal(console: &str, side: &str, balls: u64) {
    let (status, answer) = act(console, "/tables/t1/goals", json!({ "side": side }));
    assert_eq!(status, 202, "{answer}");
    view_when(console, "/tables/t1", "the goal counted", |v| {
        v["table"]["game"]["balls"].as_u64().unwrap_or(0) >= balls
    });
}

impl Evening {
    /// Plays the evening up to the point where every page shows something.
    pub fn new(data: &Path) -> Evening {
        let (run, console, admin) = start(data);
        table_game(&console);
        for (n, side) in ["hinge", "lock", "hinge"].into_iter().enumerate() {
            goal(&console, side, n as u64 + 1);
        }
        let card = bingo(&console);
        let (team, cars) = race(&console, &admin);
        let board = puzzle(&console, &admin);
        let duel = view(&console, "/race")["duels"]
            .as_array()
            .and_then(|d| d.iter().max_by_key(|d| d["steps"].as_u64().unwrap_or(0)))
            .expect("a duel in the race")["duelId"]
            .clone();
        let duel = duel
            .as_str()
            .map_or_else(|| duel.to_string(), str::to_string);
        let pages = [
            ("home", "/".to_string()),
            ("tables", "/tables".to_string()),
            ("table", "/tables/t1".to_string()),
            ("scoreboard", "/tables/t1/scoreboard".to_string()),
            ("bingo", "/bingo".to_string()),
            ("bingo-game", "/bingo/numbers".to_string()),
            ("bingo-card", card),
            ("bingo-print", "/bingo/numbers/print".to_string()),
            ("bingo-print-none", "/bingo/unprinted/print".to_string()),
            ("race", "/race".to_string()),
            ("race-turn", "/race/turns/1".to_string()),
            ("race-duel", format!("/race/duels/{duel}")),
            ("race-team", format!("/race/teams/{}", team.0)),
            ("puzzle", "/puzzle".to_string()),
            ("puzzle-play", "/puzzle/play".to_string()),
            ("puzzle-board", board),
        ];
        Evening {
            _run: run,
            _cars: cars,
            console,
            admin,
            team,
            pages: pages.map(|(n, p)| (n.to_string(), p)).into(),
        }
    }
}

/// A bingo game of numbers (5×5, called): three cards, a row of one called, her claim won, a
/// batch printed; and a game with nothing printed. Returns the path of a card not won.
fn bingo(console: &str) -> String {
    let squares: Vec<String> = (1..=40).map(|n| n.to_string()).collect();
    for game in ["numbers", "unprinted"] {
        let (status, answer) = act(
            console,
            "/bingo",
            json!({"gameId": game, "tickMode": "called", "size": 5,
                "squares": squares.join("\n"), "patterns": ["line"]}),
        );
        assert_eq!(status, 202, "{answer}");
        view_when(console, &format!("/bingo/{game}"), "the game open", |v| {
            v["game"].is_object()
        });
    }
    for player in ["alice", "bob", "zoé"] {
        let (status, _) = act(console, "/bingo/numbers/cards", json!({"player": player}));
        assert_eq!(status, 202);
    }
    let game = view_when(console, "/bingo/numbers", "three cards", |v| {
        v["game"]["players"]
            .as_array()
            .is_some_and(|p| p.len() == 3)
    });
    let serial = |name: &str| {
        game["game"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["player"] == name)
            .unwrap()["serial"]
            .as_u64()
            .unwrap()
    };
    let alice = format!("/bingo/numbers/cards/{}", serial("alice"));
    let card = view(console, &alice);
    let row: Vec<u64> = (0..5)
        .filter_map(|cell| card["card"]["cells"][cell]["squareId"].as_u64())
        .collect();
    for square in &row {
        let (status, _) = act(console, "/bingo/numbers/calls", json!({"squareId": square}));
        assert_eq!(status, 202);
    }
    view_when(console, "/bingo/numbers", "the calls", |v| {
        v["game"]["called"]
            .as_array()
            .is_some_and(|c| c.len() == row.len())
    });
    let (status, _) = act(console, &format!("{alice}/claim"), json!({}));
    assert_eq!(status, 202);
    view_when(console, &alice, "her win", |v| v["card"]["win"].is_object());
    let (status, _) = act(console, "/bingo/numbers/prints", json!({"count": 2}));
    assert_eq!(status, 202);
    view_when(console, "/bingo/numbers", "the batch", |v| {
        v["game"]["batches"]
            .as_array()
            .is_some_and(|b| !b.is_empty())
    });
    format!("/bingo/numbers/cards/{}", serial("bob"))
}

/// Two teams with two cars each race 6 turns to the finish; returns a team and the cars.
fn race(console: &str, admin: &str) -> ((String, String), Vec<Guard>) {
    let mut cars = Vec::new();
    let mut first = None;
    for (team, strategy, seed) in [("red", "aggressive", "1"), ("blue", "random", "2")] {
        let added = arcade()
            .args(["race", "team", "add", team, "--admin", admin])
            .env("ARCADE_ADMIN_TOKEN", TOKEN)
            .output()
            .unwrap();
        assert!(added.status.success(), "{added:?}");
        let token = String::from_utf8(added.stdout).unwrap().trim().to_string();
        cars.push(Guard(
            arcade()
                .args(["car", "--team", team, "--strategy", strategy, "--cars", "2"])
                .args(["--seed", seed, "--admin", admin, "--token", &token])
                .env_remove("ARCADE_ADMIN_TOKEN")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        ));
        first.get_or_insert((team.to_string(), token));
    }
    view_when(console, "/race", "the cars registered", |v| {
        v["cars"].as_array().is_some_and(|c| c.len() == 4)
    });
    let (status, answer) = act(
        console,
        "/race/start",
        json!({"turns": 6, "turnIntervalMs": 100,
            "distribution": {"nothing": 30, "pirates": 40, "garage": 10, "wreck": 10, "mineField": 10}}),
    );
    assert_eq!(status, 202, "{answer}");
    view_when(console, "/race", "the race over", |v| {
        v["status"] == "finished" && v["duels"].as_array().is_some_and(|d| !d.is_empty())
    });
    (first.unwrap(), cars)
}

/// Simulated sessions in the statistics and a board two pulses in; returns the board's path.
fn puzzle(console: &str, admin: &str) -> String {
    let simulated = arcade()
        .args(["puzzle", "simulate", "--admin", admin, "--contract", "v2"])
        .args(["--sessions", "60", "--seed", "7"])
        .env("ARCADE_ADMIN_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert!(simulated.status.success(), "{simulated:?}");
    view_when(console, "/puzzle", "the sessions counted", |v| {
        v["stats"]["sessions"].as_u64().unwrap_or(0) + v["stats"]["flagged"].as_u64().unwrap_or(0)
            == 60
    });
    new_board(console, 4_242, 4, 2)
}

/// A board of `seed` at `stage` with `pulses` of its witness played; returns its path.
pub fn new_board(console: &str, seed: i64, stage: i64, pulses: usize) -> String {
    use arcade_strata_relay::{Puzzle, Stage};
    let board = Puzzle::generate(seed, Stage::new(stage).unwrap()).unwrap();
    let response = http()
        .post(format!("http://{console}/puzzle/play"))
        .json(&json!({"seed": seed, "stage": stage}))
        .send()
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let game: Value = response.json().unwrap();
    let path = game["path"].as_str().unwrap().to_string();
    for cell in board.witness().take(pulses) {
        let response = http()
            .post(format!("http://{console}{path}/pulses"))
            .json(&json!({"x": cell.x, "y": cell.y}))
            .send()
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
    }
    path
}
