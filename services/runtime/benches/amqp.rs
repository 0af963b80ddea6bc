//! Arcade on RabbitMQ against raw lapin, in the same run, with the same broker settings.
//!
//! - `arcade`: an emitter appends each item to its sled log; its relay publishes the log in
//!   order (persistent, publisher confirms; batches of 512, up to four awaiting their confirms);
//!   the tally consumes (prefetch 1024, manual acks), dedupes, decides, commits to sled,
//!   flushes, then acks the batch (one `multiple` ack); its relay publishes its own events
//!   (which only the history stream takes). A run ends when the tally's log holds every item
//!   durably. Arcade also bounds a consumer's unacked deliveries in bytes (128 MiB by default,
//!   so 256 deliveries of the broker's largest message): the bench lifts that bound to
//!   1,024 of them, raw lapin's prefetch; `ARCADE_BENCH_CONSUMER_MEMORY_MIB=128` measures the
//!   default (`--consumer-memory-mib` of `arcade run`).
//! - `raw_lapin`: one channel publishes the same bodies and properties (persistent, confirms
//!   awaited per batch of 512) to a topic exchange, another consumes the bound durable queue
//!   (prefetch 1024) and acks each delivery. A run ends when the last one is acked.
//!
//! - `pg-outbox` (the peer, when present): the classic transactional inbox/outbox on PostgreSQL
//!   next to RabbitMQ, doing the same job with the same bodies, properties, counts, batch sizes
//!   and durability (`../shared/peers/pg-outbox-baseline`, its own crate, built with cargo into
//!   its own target dir and run as a child process, one run per invocation).
//!
//! Prints both rates (msg/s, median over the runs) and Arcade's share of raw, once from the
//! criterion groups and once from runs taken in alternation (the figure to trust: the machine's
//! speed drifts) — raw, Arcade, then the peer in each round — with the CPU per message of each
//! in its own process (user + system time of the bench process during its runs), the broker's
//! (every `beam.smp` on this machine), the peer's as it reports it, and the ratios Arcade /
//! peer and Arcade / raw.
//!
//! Settings: `ARCADE_BENCH_QUEUE_TYPES` (`quorum,classic`), `ARCADE_BENCH_PAIRS` (9),
//! `ARCADE_BENCH_ONLY=arcade` (Arcade's runs alone, to profile it), the bound above.
//!
//! Run: `ARCADE_AMQP_URL=amqp://guest:guest@127.0.0.1:5672/%2f cargo bench -p arcade-runtime
//! --bench amqp -- --warm-up-time 1 --measurement-time 3`. Skipped when the URL is unset.
//!
//! The peer is looked for in `ARCADE_PEER_DIR` (relative to the workspace root, default
//! `../shared/peers/pg-outbox-baseline`), then beside the main checkout when the workspace is a
//! git worktree; it is built into `ARCADE_PEER_TARGET` (default `target/peers`) and run with
//! `--pg ARCADE_PEER_PG` when that is set. It is left out, saying why, when it is absent, does
//! not build, or PostgreSQL does not answer on 127.0.0.1:5432 (or `ARCADE_PEER_PG_ADDR`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arcade_contracts::Message;
use arcade_runtime::bus::amqp::topology::{self, QueueType};
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};
use arcade_runtime::relay::publication;
use arcade_runtime::testkit::{self, Emit, Emitter, ItemEmitted, Tally};
use arcade_runtime::{HostConfig, LogRecord};
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicPublishOptions, BasicQosOptions,
    ConfirmSelectOptions, ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions,
    QueueDeleteOptions,
};
use lapin::types::FieldTable;
use lapin::{Connection, ConnectionProperties, ExchangeKind};

/// The allocator the `arcade` binary runs with (and the pipeline bench), for both contenders.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const MESSAGES: u64 = 5_000;
const BATCH: usize = 512;
const PREFETCH: u16 = 1024;
/// Runs of each, taken in alternation after the criterion groups (`ARCADE_BENCH_PAIRS`).
const PAIRS: usize = 9;

fn pairs() -> usize {
    std::env::var("ARCADE_BENCH_PAIRS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(PAIRS)
}

/// CPU time (user + system) a process has used so far, from its `/proc/…/stat` (in clock
/// ticks of 10 ms: a run of Arcade uses about a hundred); zero when it cannot be read.
fn stat_cpu_time(stat: &std::path::Path) -> Duration {
    let stat = std::fs::read_to_string(stat).unwrap_or_default();
    // Fields after the command name (which is in parentheses): state is the first, utime the
    // 12th and stime the 13th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// CPU time (user + system) this process has used so far.
fn cpu_time() -> Duration {
    stat_cpu_time(std::path::Path::new("/proc/self/stat"))
}

/// CPU time (user + system) the RabbitMQ node(s) on this machine have used so far: every
/// `beam.smp` process, from `/proc` (zero when there is none, or the broker is elsewhere).
fn broker_cpu_time() -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            std::fs::read_to_string(path.join("comm")).is_ok_and(|comm| comm.trim() == "beam.smp")
        })
        .map(|path| stat_cpu_time(&path.join("stat")))
        .sum()
}

/// Waits until this process and the broker have been idle for a moment (at most 10 s): what a
/// run leaves behind (a relay publishing the rest of its log, stores closing, the broker
/// deleting the run's queues) must not be counted against the next run, whichever it is.
async fn settle() {
    const WINDOW: Duration = Duration::from_millis(250);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (cpu, broker) = (cpu_time(), broker_cpu_time());
        tokio::time::sleep(WINDOW).await;
        let busy = cpu_time().saturating_sub(cpu) + broker_cpu_time().saturating_sub(broker);
        // Two clock ticks in a quarter of a second: background noise, not a run's leftovers.
        if busy <= Duration::from_millis(20) || Instant::now() > deadline {
            return;
        }
    }
}

/// The workspace root (two levels above this crate).
fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where the peer's crate is, or why it is not there.
fn peer_dir() -> Result<std::path::PathBuf, String> {
    let root = workspace_root();
    let relative = std::env::var("ARCADE_PEER_DIR")
        .unwrap_or_else(|_| "../shared/peers/pg-outbox-baseline".into());
    let mut candidates = vec![root.join(&relative)];
    // A git worktree: the same relative path from the main checkout.
    if let Ok(out) = std::process::Command::new("git")
        .args(["rev-parse", "--path-format=absolute", "--git-common-dir"])
        .current_dir(&root)
        .output()
        && out.status.success()
        && let Some(main) =
            std::path::Path::new(String::from_utf8_lossy(&out.stdout).trim()).parent()
    {
        candidates.push(main.join(&relative));
    }
    candidates
        .iter()
        .find(|dir| dir.join("Cargo.toml").is_file())
        .cloned()
        .ok_or_else(|| {
            let looked: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
            format!("not found (looked in {})", looked.join(", "))
        })
}

/// Builds the peer; its binary, or why not.
fn build_peer() -> Result<std::path::PathBuf, String> {
    let dir = peer_dir()?;
    let address = std::env::var("ARCADE_PEER_PG_ADDR").unwrap_or_else(|_| "127.0.0.1:5432".into());
    let answers = address
        .parse()
        .ok()
        .is_some_and(|a| std::net::TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok());
    if !answers {
        return Err(format!("PostgreSQL does not answer at {address}"));
    }
    let target = std::env::var("ARCADE_PEER_TARGET")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target/peers"));
    // The toolchain this bench was built with: one of the peer's dependencies (`flagset`)
    // ships a `rust-toolchain.toml` naming 1.65, which rustup obeys in that crate's directory
    // unless `RUSTUP_TOOLCHAIN` is set (it is under `cargo bench`, not for the bench's binary
    // run on its own).
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN")
        .ok()
        .or(option_env!("RUSTUP_TOOLCHAIN").map(str::to_string));
    let mut cargo = std::process::Command::new(env!("CARGO"));
    if let Some(toolchain) = toolchain {
        cargo.env("RUSTUP_TOOLCHAIN", toolchain);
    }
    let status = cargo
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .map_err(|e| format!("cargo: {e}"))?;
    if !status.success() {
        return Err(format!("{} does not build", dir.display()));
    }
    Ok(target.join("release/pg-outbox-baseline"))
}

/// One run of the peer: its rate (msg/s) and its CPU per message in its own process (µs).
fn peer(binary: &std::path::Path, url: &str) -> Result<(f64, f64), String> {
    let mut command = std::process::Command::new(binary);
    command.args(["--runs", "1", "--amqp", url]);
    if let Ok(pg) = std::env::var("ARCADE_PEER_PG") {
        command.args(["--pg", &pg]);
    }
    let out = command.output().map_err(|e| format!("peer: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "peer failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // "run 1: 9975 msg/s (…); CPU per msg: peer 54 us, postgres 37 us, rabbitmq 90 us"
    let line = stdout
        .lines()
        .find(|l| l.starts_with("run 1:"))
        .ok_or_else(|| format!("peer printed no run: {stdout}"))?;
    let number_after = |label: &str| -> Option<f64> {
        let rest = &line[line.find(label)? + label.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    match (number_after("run 1:"), number_after("peer")) {
        (Some(rate), Some(cpu)) => Ok((rate, cpu)),
        _ => Err(format!("peer's line unreadable: {line}")),
    }
}

fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut values = values.to_vec();
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn emit() -> Emit {
    Emit {
        producer: "bench".into(),
        note: "n".repeat(96),
    }
}

fn random() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

fn config(url: &str, kind: QueueType) -> AmqpConfig {
    let id = random();
    let mut config = AmqpConfig::new(url);
    config.queue_type = kind;
    config.events_exchange = format!("bench.events.{id}");
    config.dead_letters = format!("bench.dead.{id}");
    config.expire_after = Some(Duration::from_secs(60));
    // The same prefetch as raw lapin's (1,024): Arcade bounds a consumer's unacked deliveries in
    // bytes too, 128 MiB by default (256 deliveries of the broker's largest message);
    // `ARCADE_BENCH_CONSUMER_MEMORY_MIB=128` measures that default.
    config.prefetch_bytes = std::env::var("ARCADE_BENCH_CONSUMER_MEMORY_MIB")
        .map(|mib| {
            mib.parse::<u32>()
                .expect("ARCADE_BENCH_CONSUMER_MEMORY_MIB: a number of MiB")
                * 1024
                * 1024
        })
        .unwrap_or(u32::from(PREFETCH) * config.max_message_bytes);
    config
}

async fn wait_for_consumer(url: &str, queue: &str) {
    let connection = Connection::connect(url, ConnectionProperties::default())
        .await
        .unwrap();
    loop {
        let channel = connection.create_channel().await.unwrap();
        let passive = channel
            .queue_declare(
                queue.to_string().into(),
                QueueDeclareOptions {
                    passive: true,
                    ..QueueDeclareOptions::default()
                },
                FieldTable::default(),
            )
            .await;
        if passive.is_ok_and(|q| q.consumer_count() > 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = connection.close(200, "ready".into()).await;
}

/// One run of Arcade's full path; the time from the first input to the last durable commit.
async fn arcade(url: &str, kind: QueueType) -> Duration {
    arcade_with_cpu(url, kind).await.0
}

/// What a run cost: its time, the CPU time of this process and of the broker meanwhile.
struct Cost {
    elapsed: Duration,
    cpu: Duration,
    broker: Duration,
}

/// One run of Arcade's full path: the time from the first input to the last durable commit, and
/// the CPU time the process and the broker used meanwhile.
async fn arcade_with_cpu(url: &str, kind: QueueType) -> (Duration, Cost) {
    let bus = AmqpBus::new(config(url, kind)).unwrap();
    bus.connect_now().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runtime = testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(HostConfig {
        batch: BATCH,
        prefetch: PREFETCH,
        relay_batch: BATCH,
        ..HostConfig::default()
    });
    let id = random();
    let tally_name = format!("tally.{id}");
    let tally = runtime
        .start(Tally {
            name: tally_name.clone(),
        })
        .unwrap();
    wait_for_consumer(url, &tally_name).await;
    let emitter = runtime
        .start(Emitter {
            name: format!("emitter.{id}"),
        })
        .unwrap();
    let local = emitter.local();
    let started = Instant::now();
    let cpu_started = cpu_time();
    let broker_started = broker_cpu_time();
    tokio::spawn(async move {
        for _ in 0..MESSAGES {
            local.send(emit()).await.unwrap();
        }
    });
    tally.wait_for_events(MESSAGES).await;
    let elapsed = started.elapsed();
    let cost = Cost {
        elapsed,
        cpu: cpu_time().saturating_sub(cpu_started),
        broker: broker_cpu_time().saturating_sub(broker_started),
    };
    if std::env::var("ARCADE_BENCH_METRICS").is_ok() {
        for line in arcade_runtime::metrics::encode(&runtime).unwrap().lines() {
            if line.starts_with("arcade_batch_size") || line.starts_with("arcade_relay") {
                println!("{line}");
            }
        }
    }
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    tally.stop(Duration::from_secs(5)).await.unwrap();
    bus.close().await;
    (elapsed, cost)
}

/// The message Arcade would publish for item `n`: same body, properties and headers.
fn sample(n: u64) -> (Vec<u8>, lapin::BasicProperties) {
    let envelope = arcade_contracts::Envelope {
        message_id: uuid::Uuid::now_v7().to_string(),
        correlation_id: uuid::Uuid::now_v7().to_string(),
        causation_id: None,
        message_type: ItemEmitted::TYPE.to_string(),
        producer: "raw".into(),
        sender: None,
        occurred_at: "2026-11-29T15:30:12.123Z".into(),
        payload: serde_json::to_value(ItemEmitted {
            producer: "bench".into(),
            n,
            note: "n".repeat(96),
        })
        .unwrap(),
    };
    let record = LogRecord {
        envelope,
        queue: None,
        traceparent: None,
    };
    let message = publication(&record).message;
    let properties = arcade_runtime::bus::amqp::properties::to_properties(&message);
    (message.body, properties)
}

/// One run of raw lapin with the same settings, on a queue of type `kind` declared with the
/// same arguments as Arcade's service queues (quorum: delivery limit, at-least-once
/// dead-lettering, reject-publish overflow, single active consumer).
async fn raw(url: &str, kind: QueueType) -> Duration {
    raw_with_cpu(url, kind).await.elapsed
}

/// One run of raw lapin, and what it cost.
async fn raw_with_cpu(url: &str, kind: QueueType) -> Cost {
    let connection = Connection::connect(url, ConnectionProperties::default())
        .await
        .unwrap();
    let id = random();
    let exchange = format!("bench.raw.{id}");
    let queue = format!("bench.raw.{id}");
    let setup = connection.create_channel().await.unwrap();
    setup
        .exchange_declare(
            exchange.clone().into(),
            ExchangeKind::Topic,
            ExchangeDeclareOptions {
                durable: true,
                auto_delete: true,
                ..ExchangeDeclareOptions::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    setup
        .queue_declare(
            queue.clone().into(),
            QueueDeclareOptions {
                durable: true,
                ..QueueDeclareOptions::default()
            },
            // A service queue's settings as arguments (no policy on a bench broker): what a
            // production queue gets from the definitions' policy.
            topology::earlier_arguments(
                kind,
                Some(&format!("bench.raw.dead.{id}")),
                Some(Duration::from_secs(60)),
            ),
        )
        .await
        .unwrap();
    setup
        .queue_bind(
            queue.clone().into(),
            exchange.clone().into(),
            ItemEmitted::TYPE.into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap();
    let publisher = connection.create_channel().await.unwrap();
    publisher
        .confirm_select(ConfirmSelectOptions::default())
        .await
        .unwrap();
    let consumer_channel = connection.create_channel().await.unwrap();
    consumer_channel
        .basic_qos(PREFETCH, BasicQosOptions::default())
        .await
        .unwrap();
    let mut consumer = consumer_channel
        .basic_consume(
            queue.clone().into(),
            "raw".into(),
            BasicConsumeOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap();
    let messages: Vec<_> = (1..=MESSAGES).map(sample).collect();
    let started = Instant::now();
    let cpu_started = cpu_time();
    let broker_started = broker_cpu_time();
    let publishing = tokio::spawn(async move {
        for chunk in messages.chunks(BATCH) {
            let mut confirms = Vec::with_capacity(chunk.len());
            for (body, properties) in chunk {
                confirms.push(
                    publisher
                        .basic_publish(
                            exchange.clone().into(),
                            ItemEmitted::TYPE.into(),
                            BasicPublishOptions::default(),
                            body,
                            properties.clone(),
                        )
                        .await
                        .unwrap(),
                );
            }
            for confirm in confirms {
                assert!(confirm.await.unwrap().is_ack());
            }
        }
    });
    for _ in 0..MESSAGES {
        let delivery = consumer.next().await.unwrap().unwrap();
        delivery.ack(BasicAckOptions::default()).await.unwrap();
    }
    let cost = Cost {
        elapsed: started.elapsed(),
        cpu: cpu_time().saturating_sub(cpu_started),
        broker: broker_cpu_time().saturating_sub(broker_started),
    };
    publishing.await.unwrap();
    let _ = setup
        .queue_delete(queue.into(), QueueDeleteOptions::default())
        .await;
    let _ = connection.close(200, "done".into()).await;
    cost
}

fn median_rate(runs: &[Duration]) -> f64 {
    if runs.is_empty() {
        return f64::NAN;
    }
    let mut rates: Vec<f64> = runs
        .iter()
        .map(|d| MESSAGES as f64 / d.as_secs_f64())
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

/// The queue types to measure, from `ARCADE_BENCH_QUEUE_TYPES` (comma-separated; default
/// `quorum,classic`: quorum is what Arcade declares by default, classic the edge's setting).
fn queue_types() -> Vec<QueueType> {
    let text =
        std::env::var("ARCADE_BENCH_QUEUE_TYPES").unwrap_or_else(|_| "quorum,classic".into());
    text.split(',')
        .map(|kind| {
            kind.trim()
                .parse()
                .unwrap_or_else(|e| panic!("ARCADE_BENCH_QUEUE_TYPES: {e}"))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let Ok(url) = std::env::var("ARCADE_AMQP_URL") else {
        eprintln!("skipped: ARCADE_AMQP_URL unset");
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut peer_binary = build_peer();
    if let Err(why) = &peer_binary {
        println!("amqp: the pg-outbox peer is left out: {why}");
    }
    for kind in queue_types() {
        let arcade_runs = Arc::new(Mutex::new(Vec::new()));
        let raw_runs = Arc::new(Mutex::new(Vec::new()));
        let mut group = c.benchmark_group(format!("amqp_{kind}"));
        group
            .throughput(Throughput::Elements(MESSAGES))
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat);
        group.bench_function("raw_lapin", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    rt.block_on(settle());
                    let elapsed = rt.block_on(raw(&url, kind));
                    raw_runs.lock().unwrap().push(elapsed);
                    total += elapsed;
                }
                total
            })
        });
        group.bench_function("arcade", |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    rt.block_on(settle());
                    let elapsed = rt.block_on(arcade(&url, kind));
                    arcade_runs.lock().unwrap().push(elapsed);
                    total += elapsed;
                }
                total
            })
        });
        group.finish();
        let arcade_rate = median_rate(&arcade_runs.lock().unwrap());
        let raw_rate = median_rate(&raw_runs.lock().unwrap());
        println!(
            "amqp {kind}: arcade {arcade_rate:.0} msg/s, raw lapin {raw_rate:.0} msg/s, ratio {:.0} % (criterion groups, one after the other)",
            100.0 * arcade_rate / raw_rate
        );
        // The machine's speed drifts between the two groups above; runs taken in alternation
        // share its mood, so their ratio is the one to trust.
        let (mut arcade_paired, mut raw_paired) = (Vec::new(), Vec::new());
        let (mut arcade_cpu, mut peer_rates, mut peer_cpu) = (Vec::new(), Vec::new(), Vec::new());
        let per_message = |d: Duration| d.as_secs_f64() * 1e6 / MESSAGES as f64;
        let mut broker_cpu = (Vec::new(), Vec::new());
        for round in 1..=pairs() {
            // `ARCADE_BENCH_ONLY=arcade`: Arcade's runs alone (to profile the process).
            let raw_cost =
                (std::env::var("ARCADE_BENCH_ONLY").as_deref() != Ok("arcade")).then(|| {
                    rt.block_on(settle());
                    rt.block_on(raw_with_cpu(&url, kind))
                });
            rt.block_on(settle());
            if let Some(cost) = &raw_cost {
                raw_paired.push(cost.elapsed);
                broker_cpu.1.push(per_message(cost.broker));
            }
            let (elapsed, cost) = rt.block_on(arcade_with_cpu(&url, kind));
            arcade_paired.push(elapsed);
            arcade_cpu.push(per_message(cost.cpu));
            broker_cpu.0.push(per_message(cost.broker));
            let mut line = format!(
                "{kind} round {round}: raw lapin {:.0} msg/s (CPU {:.0} us/msg, broker {:.0}), arcade {:.0} msg/s (CPU {:.0} us/msg in its process, broker {:.0})",
                raw_cost
                    .as_ref()
                    .map_or(f64::NAN, |c| MESSAGES as f64 / c.elapsed.as_secs_f64()),
                raw_cost.as_ref().map_or(f64::NAN, |c| per_message(c.cpu)),
                raw_cost
                    .as_ref()
                    .map_or(f64::NAN, |c| per_message(c.broker)),
                MESSAGES as f64 / elapsed.as_secs_f64(),
                per_message(cost.cpu),
                per_message(cost.broker),
            );
            // The peer declares classic queues of its own: it runs beside the classic rounds.
            if kind == QueueType::Classic
                && let Ok(binary) = &peer_binary
            {
                rt.block_on(settle());
                match peer(binary, &url) {
                    Ok((rate, cpu)) => {
                        line += &format!(", pg-outbox {rate:.0} msg/s (CPU {cpu:.0} us/msg)");
                        peer_rates.push(rate);
                        peer_cpu.push(cpu);
                    }
                    Err(why) => {
                        println!("amqp: the pg-outbox peer is left out: {why}");
                        peer_binary = Err(why);
                    }
                }
            }
            println!("{line}");
        }
        let arcade_rate = median_rate(&arcade_paired);
        let raw_rate = median_rate(&raw_paired);
        let target = match kind {
            QueueType::Quorum => "target >= 80 %",
            QueueType::Classic => "target >= 90 %",
        };
        println!(
            "amqp {kind} (alternating, {} pairs): arcade {arcade_rate:.0} msg/s, raw lapin {raw_rate:.0} msg/s, ratio {:.0} % ({target}); arcade CPU {:.0} us/msg in its process (median; target <= 45); broker CPU per message: {:.0} us with arcade, {:.0} with raw lapin",
            pairs(),
            100.0 * arcade_rate / raw_rate,
            median(&arcade_cpu),
            median(&broker_cpu.0),
            median(&broker_cpu.1),
        );
        if !peer_rates.is_empty() {
            let peer_rate = median(&peer_rates);
            println!(
                "amqp {kind} (alternating, {} rounds): pg-outbox peer {peer_rate:.0} msg/s, CPU {:.0} us/msg in its process (median); arcade / peer {:.2}x (target >= 1.3x), arcade / raw lapin {:.2}",
                peer_rates.len(),
                median(&peer_cpu),
                arcade_rate / peer_rate,
                arcade_rate / raw_rate,
            );
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
