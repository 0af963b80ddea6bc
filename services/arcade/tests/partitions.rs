//! Partitioned bingo on RabbitMQ: `arcade run bingo --partition 0/2` and `1/2`, each with its
//! own data dir, admin endpoint and queue (`bingo.p0`, `bingo.p1`), share the games the
//! broker's consistent-hash exchange `bingo.partitions` hashes to each by `gameId`.
//!
//! The broker test runs in a vhost of its own (made with `rabbitmqctl`, deleted after), so the
//! `bingo.*` names it declares meet no other test's. Twenty games are opened and played through
//! one instance's admin endpoint (commands go to queue `bingo`, whichever process sends them);
//! every game's messages are handled by exactly one partition (its events are in exactly one
//! log), both partitions get some, the claims are checked right, and after both instances
//! restart a game's next command reaches the partition that holds it.
//! Skipped without `ARCADE_AMQP_URL` unless `ARCADE_REQUIRE_BROKER=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/broker.rs"]
mod broker;
use broker::{Vhost, broker_url_with_plugin};

const TOKEN: &str = "arcade-test-operator-token";
const GAMES: usize = 20;

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command.env("ARCADE_CONSOLE_ADDR", "127.0.0.1:0");
    command
        .env_remove("ARCADE_AMQP_URL")
        .env_remove("ARCADE_PARTITION")
        .env_remove("RUST_LOG")
        .env("ARCADE_ADMIN_TOKEN", TOKEN);
    command
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// An `arcade run bingo --partition K/2`, killed when the test ends however it ends.
struct Instance(Child);

impl Instance {
    fn start(url: &str, partition: &str, data: &Path, admin: &str) -> Instance {
        Instance::run(&["bingo", "--partition", partition], url, data, admin)
    }

    /// `arcade run ARGS --amqp URL --data DATA --admin ADMIN`, once it says it is ready.
    fn run(args: &[&str], url: &str, data: &Path, admin: &str) -> Instance {
        let what = args.join(" ");
        let mut child = arcade()
            .arg("run")
            .args(args)
            .args(["--amqp", url])
            .arg("--data")
            .arg(data)
            .args(["--admin", admin])
            .env("ARCADE_BINGO_SECRET", "bingo-partitions-test-secret-0123")
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
        rx.recv_timeout(Duration::from_secs(90))
            .unwrap_or_else(|_| panic!("arcade run {what} is not ready within 90 s"));
        Instance(child)
    }

    /// Stops it with SIGTERM (a clean stop: logs flushed and closed) and waits for it.
    fn stop(mut self) {
        let killed = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                assert!(status.success(), "arcade run exits 0 on SIGTERM: {status}");
                return;
            }
            assert!(Instant::now() < deadline, "arcade run did not stop in 60 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The admin endpoint of one instance over HTTP.
struct Http {
    rt: tokio::runtime::Runtime,
    base: String,
    client: reqwest::Client,
}

impl Http {
    fn new(admin: &str) -> Http {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {TOKEN}").parse().unwrap(),
        );
        Http {
            rt: tokio::runtime::Runtime::new().unwrap(),
            base: format!("http://{admin}"),
            client: reqwest::Client::builder()
                .default_headers(headers)
                .build()
                .unwrap(),
        }
    }

    /// Sends a command (published on the broker, to queue `bingo`).
    fn send(&self, message_type: &str, payload: Value) {
        self.rt.block_on(async {
            let sent = self
                .client
                .post(format!("{}/messages/{message_type}", self.base))
                .json(&payload)
                .send()
                .await
                .unwrap();
            let status = sent.status();
            assert!(
                status.is_success(),
                "{message_type} was not accepted: {status} {}",
                sent.text().await.unwrap_or_default()
            );
        });
    }

    /// Sends requests and returns the service's answers: for each, the first bingo fact
    /// echoing its `requestId` (from whichever partition).
    fn ask_all(&self, requests: &[(&str, Value)]) -> BTreeMap<String, Value> {
        self.rt.block_on(async {
            let mut stream = self
                .client
                .get(format!("{}/stream", self.base))
                .query(&[("pattern", "bingo.#")])
                .send()
                .await
                .unwrap();
            let mut waiting: BTreeSet<String> = BTreeSet::new();
            for (message_type, payload) in requests {
                waiting.insert(payload["requestId"].as_str().unwrap().to_string());
                let sent = self
                    .client
                    .post(format!("{}/messages/{message_type}", self.base))
                    .json(payload)
                    .send()
                    .await
                    .unwrap();
                assert!(sent.status().is_success(), "{message_type} not accepted");
            }
            let mut answers = BTreeMap::new();
            let mut pending = Vec::new();
            let wait = async {
                while !waiting.is_empty() {
                    while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                        let line: Vec<u8> = pending.drain(..=end).collect();
                        let envelope: Value = serde_json::from_slice(&line).unwrap();
                        let id = envelope["payload"]["requestId"].as_str().unwrap_or("");
                        if waiting.remove(id) {
                            answers.insert(id.to_string(), envelope);
                        }
                    }
                    if waiting.is_empty() {
                        break;
                    }
                    pending.extend_from_slice(&stream.chunk().await.unwrap().unwrap());
                }
            };
            tokio::time::timeout(Duration::from_secs(120), wait)
                .await
                .unwrap_or_else(|_| panic!("no answer within 120 s to {waiting:?}"));
            answers
        })
    }
}

/// The games whose events partition `instance`'s log holds, and how many events each.
fn games_in_log(data: &Path, instance: &str) -> BTreeMap<String, usize> {
    let out = arcade()
        .args(["log", instance, "--data"])
        .arg(data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "arcade log {instance}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut games = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let entry: Value = serde_json::from_str(line).unwrap();
        let envelope = &entry["envelope"];
        assert_eq!(
            envelope["producer"], instance,
            "events are produced under the instance name"
        );
        if let Some(game) = envelope["payload"]["gameId"].as_str() {
            *games.entry(game.to_string()).or_insert(0) += 1;
        }
    }
    games
}

/// Verifies one card of every game (`serials[game]`): each is answered by the game's
/// partition, won by a line.
fn verify(http: &Http, serials: &BTreeMap<String, u64>, round: &str) {
    let requests: Vec<(&str, Value)> = serials
        .iter()
        .map(|(g, serial)| {
            (
                "bingo.card.verify.v1",
                json!({"requestId": format!("{round}-{g}"), "gameId": g, "serial": serial}),
            )
        })
        .collect();
    let answers = http.ask_all(&requests);
    for game in serials.keys() {
        let answer = &answers[&format!("{round}-{game}")];
        assert_eq!(
            answer["type"], "bingo.claim.answered.v1",
            "{game}: {answer}"
        );
        assert_eq!(answer["payload"]["gameId"], game.as_str(), "{answer}");
        assert_eq!(answer["payload"]["pattern"], "line", "{game}: {answer}");
    }
}

fn open(game: &str) -> Value {
    let pool: Vec<Value> = [
        "Ada", "Babbage", "Curie", "Darwin", "Euler", "Faraday", "Gauss", "Hopper",
    ]
    .iter()
    .enumerate()
    .map(|(i, label)| json!({"id": i + 1, "label": label}))
    .collect();
    json!({
        "requestId": format!("open-{game}"),
        "gameId": game,
        "tickMode": "called",
        "grid": {"size": 3},
        "pool": pool,
        "patterns": [{"kind": "line"}],
    })
}

#[test]
fn two_bingo_partitions_share_the_games_and_each_game_stays_on_one() {
    let Some(url) = broker_url_with_plugin("rabbitmq_consistent_hash_exchange") else {
        return;
    };
    let vhost = Vhost::new("partitions", &url);
    let dir = tempfile::tempdir().unwrap();
    let data = [dir.path().join("p0"), dir.path().join("p1")];
    let admins = [
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    ];
    let start = |k: usize| Instance::start(&vhost.url, &format!("{k}/2"), &data[k], &admins[k]);
    let instances = [start(0), start(1)];
    let http = Http::new(&admins[0]);

    let games: Vec<String> = (0..GAMES).map(|i| format!("party-{i}")).collect();
    // Open every game, print two cards of each, then call every square: a game's commands are
    // handled in order by its one partition, so both cards win by a line.
    let opened = http.ask_all(
        &games
            .iter()
            .map(|g| ("bingo.game.open.v1", open(g)))
            .collect::<Vec<_>>(),
    );
    for game in &games {
        let answer = &opened[&format!("open-{game}")];
        assert_eq!(answer["type"], "bingo.game.opened.v1", "{answer}");
    }
    let printed = http.ask_all(
        &games
            .iter()
            .map(|g| {
                (
                    "bingo.cards.print.v1",
                    json!({"requestId": format!("print-{g}"), "gameId": g, "count": 2}),
                )
            })
            .collect::<Vec<_>>(),
    );
    let mut first = BTreeMap::new();
    let mut second = BTreeMap::new();
    for game in &games {
        let answer = &printed[&format!("print-{game}")];
        assert_eq!(answer["type"], "bingo.cards.printed.v1", "{answer}");
        let serials: Vec<u64> = answer["payload"]["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["serial"].as_u64().unwrap())
            .collect();
        assert_eq!(serials.len(), 2, "{answer}");
        first.insert(game.clone(), serials[0]);
        second.insert(game.clone(), serials[1]);
        for square in 1..=8 {
            http.send(
                "bingo.square.call.v1",
                json!({"requestId": format!("call-{game}-{square}"), "gameId": game, "squareId": square}),
            );
        }
    }
    verify(&http, &first, "verify-1");

    // Both instances restart; each game's next command reaches the partition holding it (a
    // partition without the game would answer that there is no such game).
    let [p0, p1] = instances;
    p0.stop();
    p1.stop();
    let before: Vec<BTreeMap<String, usize>> = [0, 1]
        .iter()
        .map(|&k| games_in_log(&data[k], &format!("bingo.p{k}")))
        .collect();
    let instances = [start(1), start(0)];
    let http = Http::new(&admins[0]);
    verify(&http, &second, "verify-2");
    let [p1, p0] = instances;
    p0.stop();
    p1.stop();

    let after: Vec<BTreeMap<String, usize>> = [0, 1]
        .iter()
        .map(|&k| games_in_log(&data[k], &format!("bingo.p{k}")))
        .collect();
    for game in &games {
        let holders: Vec<usize> = (0..2).filter(|&k| after[k].contains_key(game)).collect();
        assert_eq!(
            holders.len(),
            1,
            "{game} is in exactly one partition's log: {holders:?}"
        );
        let k = holders[0];
        assert!(
            before[k].contains_key(game),
            "{game} was in partition {k} before the restart too"
        );
        // Opened, 2 cards printed, 8 calls, 2 verifications: all there, after the restart too.
        assert!(
            after[k][game] > before[k][game],
            "{game}: its command after the restart was handled by partition {k}"
        );
    }
    for (k, log) in after.iter().enumerate() {
        assert!(
            !log.is_empty(),
            "partition {k} got some of the {GAMES} games: {after:?}"
        );
    }
    let total: usize = after.iter().map(BTreeMap::len).sum();
    assert_eq!(total, GAMES);
}

/// What one telemetry instance has counted, from its admin endpoint (`GET /puzzle/stats`).
fn puzzle_stats(http: &Http) -> Value {
    http.rt.block_on(async {
        let response = http
            .client
            .get(format!("{}/puzzle/stats", http.base))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "GET /puzzle/stats");
        response.json().await.unwrap()
    })
}

fn counted(stats: &Value) -> u64 {
    stats["sessions"].as_u64().unwrap() + stats["flagged"].as_u64().unwrap()
}

/// The gameIds of the sessions instance `instance` recorded or flagged, from its log.
fn sessions_in_log(data: &Path, instance: &str) -> BTreeSet<String> {
    games_in_log(data, instance).into_keys().collect()
}

/// Waits (at most `patience`) until `done` holds of `probe`'s answer; returns the last answer.
fn wait_until<T: std::fmt::Debug>(
    patience: Duration,
    what: &str,
    mut probe: impl FnMut() -> T,
    done: impl Fn(&T) -> bool,
) -> T {
    let deadline = Instant::now() + patience;
    loop {
        let value = probe();
        if done(&value) {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not within {patience:?}; last: {value:?}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// The figures of a `puzzle.stats.updated.v1` payload, without its publication time.
fn figures(stats: &Value) -> Value {
    let mut figures = stats.clone();
    figures.as_object_mut().unwrap().remove("publishedAtMs");
    figures
}

const SESSIONS: u64 = 20_000;

#[test]
fn two_telemetry_partitions_merge_into_what_one_instance_counts() {
    let Some(url) = broker_url_with_plugin("rabbitmq_consistent_hash_exchange") else {
        return;
    };
    let vhost = Vhost::new("partitions", &url);
    let dir = tempfile::tempdir().unwrap();
    let data = [
        dir.path().join("p0"),
        dir.path().join("p1"),
        dir.path().join("whole"),
    ];
    let admins: Vec<String> = (0..3)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let every = ["--puzzle-stats-every", "1s"];
    let run = |k: usize, extra: &[&str]| {
        let mut args = vec!["puzzle-telemetry"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&every);
        Instance::run(&args, &vhost.url, &data[k], &admins[k])
    };
    let instances = [
        run(0, &["--partition", "0/2"]),
        run(1, &["--partition", "1/2"]),
        run(2, &[]),
    ];

    // The same 20,000 sessions reach the unpartitioned instance's queue and, through the
    // consistent-hash exchange, one partition each.
    let sessions = SESSIONS.to_string();
    let simulated = arcade()
        .args([
            "puzzle",
            "simulate",
            "--seed",
            "19",
            "--sessions",
            &sessions,
        ])
        .args(["--amqp", &vhost.url])
        .output()
        .unwrap();
    assert!(
        simulated.status.success(),
        "arcade puzzle simulate: {}",
        String::from_utf8_lossy(&simulated.stderr)
    );

    let http: Vec<Http> = admins.iter().map(|a| Http::new(a)).collect();
    let patience = Duration::from_secs(300);
    let whole = wait_until(
        patience,
        "the unpartitioned instance counts every session",
        || puzzle_stats(&http[2]),
        |stats| counted(stats) == SESSIONS,
    );
    let parts: Vec<u64> = wait_until(
        patience,
        "the two partitions count every session between them",
        || {
            [0, 1]
                .iter()
                .map(|&k| counted(&puzzle_stats(&http[k])))
                .collect::<Vec<u64>>()
        },
        |parts| parts.iter().sum::<u64>() == SESSIONS,
    );
    assert!(
        parts.iter().all(|&n| n > SESSIONS / 4),
        "both partitions got a fair share: {parts:?}"
    );

    // `arcade puzzle stats --partitions 2` merges the partitions' newest figures; they publish
    // every second, so it is asked until the merged view covers every session.
    let merged = wait_until(
        patience,
        "arcade puzzle stats --partitions 2 covers every session",
        || {
            let out = arcade()
                .args(["puzzle", "stats", "--partitions", "2", "--json"])
                .args(["--amqp", &vhost.url, "--timeout", "60s"])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "arcade puzzle stats --partitions 2: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice::<Value>(&out.stdout).unwrap()
        },
        |merged| counted(merged) == SESSIONS,
    );
    // Counts, histograms and sums are exact; the percentiles too (the sketches merge bucket
    // by bucket, so the merged sketch is the one a single instance builds).
    assert_eq!(figures(&merged), figures(&whole));

    for instance in instances {
        instance.stop();
    }
    let p0 = sessions_in_log(&data[0], "puzzle-telemetry.p0");
    let p1 = sessions_in_log(&data[1], "puzzle-telemetry.p1");
    let both: Vec<&String> = p0.intersection(&p1).collect();
    assert!(both.is_empty(), "games in both partitions: {both:?}");
    assert_eq!(p0.len() + p1.len(), SESSIONS as usize);
}
