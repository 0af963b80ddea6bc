//! A full room: 1,000 live clients on the console while events come at 1,000 a second.
//!
//! Starts the release `arcade` binary as users run it (`arcade run console`, the embedded bus),
//! opens the clients' server-sent event streams over TCP from loopback addresses 127.0.0.2
//! onwards (`--per-address` each, as phones on a room's network), publishes the events through
//! the admin endpoint at `--rate` a second, and prints, per scenario:
//!
//! - latency: from sending an event to the first frame at each client that shows it (p50 /
//!   p99 / max over every event and client). The events a frame shows: in `bingo`, each
//!   client holds a card of one activity game and follows its page; every event ticks a cell
//!   of a card, and its frame shows the card's ticked count. In `race`, every client follows
//!   `/race`; the race's facts come 200 a turn, and a frame shows the turn.
//! - staleness: every 100 ms, for each client, how long ago the oldest event it should show
//!   and does not yet was sent (0 when it shows everything sent).
//! - the process's peak resident memory (`VmHWM`) and its CPU time.
//!
//! `cargo bench -p arcade --bench room [-- --scenario bingo|race|both --clients 1000 --rate
//! 1000 --secs 20 --per-address 10]`; `ARCADE_ROOM_BIN` runs another build of `arcade`.

mod clients;
mod figures;
mod load;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clients::Shows;
use load::Admin;

const TOKEN: &str = "arc_bench_room_operator_token_0123456789";

struct Args {
    scenarios: Vec<&'static str>,
    clients: usize,
    rate: u64,
    secs: u64,
    per_address: usize,
}

fn args() -> Args {
    let mut args = Args {
        scenarios: vec!["bingo", "race"],
        clients: 1_000,
        rate: 1_000,
        secs: 20,
        per_address: 10,
    };
    let given: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < given.len() {
        let value = || {
            given
                .get(i + 1)
                .unwrap_or_else(|| panic!("{} needs a value", given[i]))
        };
        let number = |what: &str| -> u64 {
            value()
                .parse()
                .unwrap_or_else(|_| panic!("{what} {:?}: not a whole number", value()))
        };
        match given[i].as_str() {
            "--scenario" => {
                args.scenarios = match value().as_str() {
                    "bingo" => vec!["bingo"],
                    "race" => vec!["race"],
                    "both" => vec!["bingo", "race"],
                    other => panic!("--scenario {other:?}: bingo, race or both"),
                }
            }
            "--clients" => args.clients = number("--clients") as usize,
            "--rate" => args.rate = number("--rate"),
            "--secs" => args.secs = number("--secs"),
            "--per-address" => args.per_address = number("--per-address") as usize,
            // What `cargo bench` passes.
            "--bench" => {
                i += 1;
                continue;
            }
            other => panic!("unknown argument {other:?}"),
        }
        i += 2;
    }
    args
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `VmHWM`, `VmRSS` of `pid` in kB, and its CPU time (user + system).
fn process_figures(pid: u32) -> (u64, u64, Duration) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    // The kernel's USER_HZ is 100 on Linux.
    (
        kb("VmHWM:"),
        kb("VmRSS:"),
        Duration::from_millis(ticks * 10),
    )
}

struct Arcade {
    child: Child,
    admin: Admin,
    console: String,
    _data: tempfile::TempDir,
}

async fn start_arcade() -> Arcade {
    let data = tempfile::tempdir().expect("a data dir");
    let (admin_port, console_port) = (free_port(), free_port());
    let log = std::fs::File::create(data.path().join("arcade.log")).expect("a log file");
    // Another build of `arcade` to compare with: `ARCADE_ROOM_BIN`.
    let binary = std::env::var("ARCADE_ROOM_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_arcade").to_string());
    let child = Command::new(binary)
        .args(["run", "console", "--data"])
        .arg(data.path().join("data"))
        .args(["--admin", &format!("127.0.0.1:{admin_port}")])
        .args(["--console", &format!("127.0.0.1:{console_port}")])
        .env("ARCADE_ADMIN_TOKEN", TOKEN)
        // The events come through the admin endpoint from one address, standing in for the
        // services that publish them on the bus: that one producer may send 1,000 a second
        // over up to 64 requests in flight (the defaults: 200 a second, 64 connections per
        // address). The live clients keep every default limit.
        .env("ARCADE_CLIENT_RATE", "5000")
        .env("ARCADE_CLIENT_CONNECTIONS", "256")
        .env("RUST_LOG", "warn")
        .env_remove("ARCADE_AMQP_URL")
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("the log"))
        .stderr(log)
        .spawn()
        .expect("arcade run console");
    let admin = Admin {
        http: reqwest::Client::new(),
        base: format!("http://127.0.0.1:{admin_port}"),
        token: TOKEN.into(),
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let ready = admin.http.get(format!("{}/ready", admin.base)).send().await;
        if ready.is_ok_and(|r| r.status().is_success()) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "arcade run console: not ready in 120 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Arcade {
        child,
        admin,
        console: format!("http://127.0.0.1:{console_port}"),
        _data: data,
    }
}

async fn run(scenario: &'static str, args: &Args) -> String {
    let mut arcade = start_arcade().await;
    let pid = arcade.child.id();
    let (setup, sequences, shows) = match scenario {
        "bingo" => (
            load::bingo_setup(args.clients),
            args.clients,
            Shows::CardTicks,
        ),
        _ => (load::race_setup(), 1, Shows::RaceTurn),
    };
    for event in &setup {
        arcade.admin.publish(event).await;
    }
    let total = args.rate * args.secs;
    let (last, paths): (u64, Vec<(String, usize)>) = match scenario {
        "bingo" => {
            let full_rounds = (total / args.clients as u64).clamp(1, 24);
            let paths = (0..args.clients)
                .map(|i| load::bingo_path(i, args.clients))
                .collect();
            (full_rounds.max(1), paths)
        }
        _ => (
            total.div_ceil(load::PER_TURN),
            vec![("/race".to_string(), 0); args.clients],
        ),
    };
    // The clients, every one following its page before the load starts.
    let (ready, mut following) = tokio::sync::mpsc::channel(args.clients);
    let deadline = Instant::now() + Duration::from_secs(args.secs + 120);
    let mut tasks = Vec::new();
    let mut http = None;
    for (i, (path, seq)) in paths.into_iter().enumerate() {
        if i % args.per_address == 0 {
            http = Some(
                reqwest::Client::builder()
                    .local_address(clients::address(i, args.per_address))
                    .build()
                    .expect("a client"),
            );
        }
        let url = format!("{}{path}", arcade.console);
        let client = http.clone().expect("built");
        tasks.push((
            seq,
            tokio::spawn(clients::follow(
                client,
                url,
                shows,
                last,
                ready.clone(),
                deadline,
            )),
        ));
    }
    let connecting = Instant::now();
    for _ in 0..args.clients {
        tokio::time::timeout(Duration::from_secs(120), following.recv())
            .await
            .expect("every client's first frame within 120 s");
    }
    let connected_in = connecting.elapsed();
    let (rss_before, _, cpu_before) = process_figures(pid);
    let sampler = tokio::spawn(async move {
        let mut peak = 0;
        loop {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let (hwm, rss, _) = process_figures(pid);
            if hwm == 0 {
                return peak;
            }
            peak = peak.max(rss);
        }
    });
    let started = Instant::now();
    let (marks, sent, took) = match scenario {
        "bingo" => {
            let cards = args.clients;
            let ticks = (total / cards as u64).clamp(1, 24) * cards as u64;
            load::publish_at(&arcade.admin, args.rate, move |k| {
                (k < ticks).then(|| load::bingo_tick(k, cards)).flatten()
            })
            .await
        }
        _ => {
            load::publish_at(&arcade.admin, args.rate, move |k| {
                (k < total).then(|| load::race_fact(k))
            })
            .await
        }
    };
    let ended = Instant::now();
    let mut seen = Vec::new();
    let mut failed = Vec::new();
    for (seq, task) in tasks {
        match task.await.expect("a client task") {
            Ok(s) => seen.push((seq, s)),
            Err(why) => failed.push(why),
        }
    }
    let (hwm, rss_after, cpu_after) = process_figures(pid);
    sampler.abort();
    let _ = arcade.child.kill();
    let _ = arcade.child.wait();
    let (latency, missed) = figures::latencies(&marks, &seen, sequences);
    let stale = figures::staleness(
        &marks,
        &seen,
        sequences,
        (started, ended, Duration::from_millis(100)),
    );
    let cpu = cpu_after.saturating_sub(cpu_before).as_secs_f64() / took.as_secs_f64();
    if let Some(first) = failed.first() {
        eprintln!(
            "room {scenario}: {} clients failed, first: {first}",
            failed.len()
        );
    }
    format!(
        "| {scenario} | {} clients ({} failed), {sent} events in {:.1} s ({:.0}/s), connected in {:.1} s | {} | {} | {} | {:.0} MB (before the load {:.0} MB, after {:.0} MB) | {:.0} % of a core |",
        args.clients,
        failed.len(),
        took.as_secs_f64(),
        sent as f64 / took.as_secs_f64(),
        connected_in.as_secs_f64(),
        figures::summary(&latency),
        if missed == 0 {
            "0".to_string()
        } else {
            format!("{missed} never shown")
        },
        figures::summary(&stale),
        hwm as f64 / 1024.0,
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
        cpu * 100.0,
    )
}

fn main() {
    let args = args();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut rows = Vec::new();
    for scenario in &args.scenarios {
        rows.push(runtime.block_on(run(scenario, &args)));
    }
    println!(
        "\n| scenario | load | latency p50 / p99 / max | missed | staleness p50 / p99 / max | console peak RSS | console CPU |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
}
