//! The organiser's bingo tools against a real `arcade run bingo`: `arcade bingo open` from a
//! squares file, `arcade bingo print` through the service (refused up front when the game
//! cannot make the cards, verified by label afterwards, JSON lines or an HTML sheet),
//! `arcade bingo show` and the admin reads `GET /bingo/games/…`, and a repeated call answered
//! `already-called`.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

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

fn start(data: &std::path::Path, admin: &str) -> Running {
    let mut child = arcade()
        .args(["run", "bingo", "--data"])
        .arg(data)
        .args(["--admin", admin])
        .env("ARCADE_BINGO_SECRET", "bingo-tools-test-secret-0123456789")
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

fn bingo(admin: &str, args: &[&str]) -> Output {
    arcade()
        .arg("bingo")
        .args(args)
        .args(["--admin", admin])
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A client presenting the tests' operator token.
fn authorized() -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        "Bearer arcade-test-operator-token".parse().unwrap(),
    );
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

/// The admin endpoint over HTTP, on a runtime of the test's own.
struct Http {
    rt: tokio::runtime::Runtime,
    base: String,
    client: reqwest::Client,
}

impl Http {
    fn new(admin: &str) -> Http {
        Http {
            rt: tokio::runtime::Runtime::new().unwrap(),
            base: format!("http://{admin}"),
            client: authorized(),
        }
    }

    fn get(&self, path: &str) -> (u16, Value) {
        self.rt.block_on(async {
            let response = self
                .client
                .get(format!("{}{path}", self.base))
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.json().await.unwrap())
        })
    }

    /// Sends a request and returns the service's answer: the first bingo fact echoing
    /// `requestId`.
    fn ask(&self, message_type: &str, payload: Value) -> Value {
        let request_id = payload["requestId"].as_str().unwrap().to_string();
        self.rt.block_on(async {
            let mut stream = self
                .client
                .get(format!("{}/stream", self.base))
                .query(&[("pattern", "bingo.#")])
                .send()
                .await
                .unwrap();
            let sent = self
                .client
                .post(format!("{}/messages/{message_type}", self.base))
                .json(&payload)
                .send()
                .await
                .unwrap();
            assert!(
                sent.status().is_success(),
                "{message_type} was not accepted"
            );
            let mut pending = Vec::new();
            let wait = async {
                loop {
                    while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                        let line: Vec<u8> = pending.drain(..=end).collect();
                        let envelope: Value = serde_json::from_slice(&line).unwrap();
                        if envelope["payload"]["requestId"] == request_id.as_str() {
                            return envelope;
                        }
                    }
                    pending.extend_from_slice(&stream.chunk().await.unwrap().unwrap());
                }
            };
            tokio::time::timeout(Duration::from_secs(30), wait)
                .await
                .expect("the service answers within 30 s")
        })
    }
}

#[test]
fn open_print_verify_and_show_a_called_game_through_the_service() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let _run = start(data.path(), &admin);
    let http = Http::new(&admin);

    let shown = bingo(&admin, &["show", "--game", "quiz"]);
    assert_eq!(shown.status.code(), Some(1));
    assert_eq!(text(&shown.stderr), "error: there is no game \"quiz\"\n");

    let squares = data.path().join("squares.txt");
    std::fs::write(
        &squares,
        "Ada\nBabbage\nCurie\n\nDarwin\nEuler\nFaraday\nGauss\nHopper\n",
    )
    .unwrap();
    let squares = squares.to_str().unwrap();
    let opened = bingo(
        &admin,
        &[
            "open",
            "--game",
            "quiz",
            "--grid",
            "3",
            "--squares",
            squares,
            "--patterns",
            "line,full",
        ],
    );
    assert_eq!(
        (opened.status.code(), text(&opened.stdout).as_str()),
        (
            Some(0),
            "opened game \"quiz\": called, 3×3 (free centre) cards from 8 squares, won by line, then full\n"
        ),
        "{}",
        text(&opened.stderr)
    );
    let again = bingo(
        &admin,
        &[
            "open",
            "--game",
            "quiz",
            "--grid",
            "3",
            "--squares",
            squares,
            "--patterns",
            "line",
        ],
    );
    assert_eq!(again.status.code(), Some(1), "{}", text(&again.stderr));
    let refused = text(&again.stderr);
    assert!(
        refused.starts_with("error: the bingo service refused bingo.game.open.v1 ")
            && refused
                .ends_with(" (game-exists): a game \"quiz\" already exists: choose another id\n"),
        "{refused}"
    );

    // 8 squares make 40,320 distinct 3×3 cards, of which the game prints 39,690.
    let too_many = bingo(&admin, &["print", "--game", "quiz", "--count", "40000"]);
    assert_eq!(too_many.status.code(), Some(1));
    assert!(too_many.stdout.is_empty(), "nothing is written");
    assert!(
        text(&too_many.stderr).starts_with(
            "error: game \"quiz\" can print 39690 more cards, not 40000: it holds 0 cards"
        ),
        "{}",
        text(&too_many.stderr)
    );
    assert_eq!(
        http.get("/bingo/games/quiz").1["cards"],
        0,
        "nothing was dealt"
    );

    let printed = bingo(&admin, &["print", "--game", "quiz", "--count", "1200"]);
    assert_eq!(printed.status.code(), Some(0), "{}", text(&printed.stderr));
    assert_eq!(text(&printed.stderr), "", "no progress bar off a terminal");
    let cards: Vec<Value> = text(&printed.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(cards.len(), 1200);
    let serials: Vec<u64> = cards
        .iter()
        .map(|c| c["serial"].as_u64().unwrap())
        .collect();
    assert!(serials.windows(2).all(|w| w[0] < w[1]));

    // The service knows every printed card by its label.
    let last = cards.last().unwrap();
    let answer = http.ask(
        "bingo.card.verify.v1",
        json!({"requestId": "v-1", "gameId": "quiz", "serial": last["serial"], "label": last["label"]}),
    );
    assert_eq!(answer["type"], "bingo.claim.answered.v1", "{answer}");
    assert_eq!(answer["payload"]["check"], "verifyLabel");

    let html = bingo(
        &admin,
        &[
            "print", "--game", "quiz", "--count", "2", "--format", "html",
        ],
    );
    assert_eq!(html.status.code(), Some(0));
    let sheet = text(&html.stdout);
    assert!(sheet.starts_with("<!DOCTYPE html>") && sheet.contains("size: A4"));
    assert_eq!(sheet.matches("<section class=\"card\">").count(), 2);
    assert!(sheet.contains("<td class=\"free\">FREE</td>") && sheet.contains("Hopper"));

    // Calls: the first is announced, the repeated one refused.
    let call = |id: &str, square: u32| {
        http.ask(
            "bingo.square.call.v1",
            json!({"requestId": id, "gameId": "quiz", "squareId": square}),
        )
    };
    assert_eq!(call("c-1", 3)["type"], "bingo.square.called.v1");
    let repeated = call("c-2", 3);
    assert_eq!(repeated["type"], "bingo.request.rejected.v1");
    assert_eq!(repeated["payload"]["code"], "already-called");
    for (n, square) in [1, 2, 4, 5, 6, 7, 8].into_iter().enumerate() {
        assert_eq!(
            call(&format!("c-{}", n + 3), square)["type"],
            "bingo.square.called.v1"
        );
    }
    // Every square is called: the cards verified win, in the order verified.
    for (id, serial) in [("w-1", 5), ("w-2", 3)] {
        let won = http.ask(
            "bingo.card.verify.v1",
            json!({"requestId": id, "gameId": "quiz", "serial": serial}),
        );
        assert_eq!(won["payload"]["pattern"], "line", "{won}");
    }

    let (status, game) = http.get("/bingo/games/quiz");
    assert_eq!(status, 200);
    assert_eq!(game["tickMode"], "called");
    assert_eq!(game["status"], "open");
    assert_eq!(game["cards"], 1202);
    assert_eq!(game["calledSquares"], json!([3, 1, 2, 4, 5, 6, 7, 8]));
    let winners: Vec<(u64, u64)> = game["winners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["place"].as_u64().unwrap(), w["serial"].as_u64().unwrap()))
        .collect();
    assert_eq!(winners, vec![(1, 5), (2, 3)]);
    let (status, card) = http.get("/bingo/games/quiz/cards/5");
    assert_eq!(status, 200);
    assert_eq!(card["player"], Value::Null);
    assert_eq!(card["win"]["place"], 1);
    assert_eq!(card["tickedCells"].as_array().unwrap().len(), 9);
    assert_eq!(http.get("/bingo/games/quiz/cards/99999").0, 404);
    assert_eq!(http.get("/bingo/games/quiz/cards/five").0, 400);
    assert_eq!(http.get("/bingo/games/nope").0, 404);

    let shown = bingo(&admin, &["show", "--game", "quiz"]);
    assert_eq!(shown.status.code(), Some(0));
    let shown = text(&shown.stdout);
    assert!(shown.starts_with("game \"quiz\": called, open; 3×3 (free centre) cards from 8 squares; patterns line, fullCard\ncards: 1202 (38488 more can be printed)\ncalled (8): Curie, Ada, Babbage, Darwin, Euler, Faraday, Gauss, Hopper\nwinners (2):\n  1. card 5 (printed) by line at "), "{shown}");
    let card = bingo(&admin, &["show", "--game", "quiz", "--serial", "5"]);
    assert_eq!(card.status.code(), Some(0));
    let card = text(&card.stdout);
    assert!(
        card.starts_with("card 5 of game \"quiz\", printed card\n"),
        "{card}"
    );
    assert!(
        card.contains("FREE") && card.contains("won by line (place 1)"),
        "{card}"
    );
}
