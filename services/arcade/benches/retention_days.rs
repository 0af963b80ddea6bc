//! Log retention over simulated days (issue 40): puzzle telemetry consumes
//! `game.session.completed.v1` sessions and the console consumes its events, both hosted
//! in-process on the embedded bus with the shipped defaults (snapshots every 10,000 entries or
//! minute, 7-day dedupe window) and a manual clock moved one day after each day's sessions, so
//! that snapshots and the background log pruner run as they would over real days.
//!
//! Each day (every `--every` days) prints the data directory's size (the sum of its files'
//! sizes, bus included) and the records each log holds; at the end, the plateau and the check
//! that it is no larger than what the retention keeps:
//! `bound = per_day × (min(days, max(history, dedupe window)) + 2)`, where `per_day` is what the
//! first day added to the data directory (log records, inbox keys, bus store, snapshots): the
//! retention keeps `history` days of log, plus up to a day behind the older kept snapshot and
//! the pruner's pass, plus the day being written, and the inbox keeps its window.
//!
//! Run: `cargo bench -p arcade --bench retention_days -- --days 50 --sessions 20000 --history 7d`
//! (defaults: 50 days, 20,000 sessions a day, the shipped `--log-history` of 120d).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use arcade_console::ConsoleService;
use arcade_contracts::Message;
use arcade_contracts::game::GameSessionCompleted;
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::service::{LiveStats, TelemetryService};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::store::retention::{DEFAULT_HISTORY, Retention, parse_history};
use arcade_runtime::store::{DEFAULT_DEDUPE_WINDOW, RELAY_CURSOR, Store};
use arcade_runtime::{
    Bus, Clock, Destination, Publication, Service, SubscriptionSpec, WireMessage, testkit,
};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DAY: Duration = Duration::from_secs(86_400);
const PUBLISH_BATCH: usize = 500;

struct Options {
    days: u64,
    sessions: u64,
    history: Duration,
    every: u64,
}

fn options() -> anyhow::Result<Options> {
    let mut options = Options {
        days: 50,
        sessions: 20_000,
        history: DEFAULT_HISTORY,
        every: 5,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--days" => options.days = value("--days")?.parse().context("--days")?,
            "--sessions" => {
                options.sessions = value("--sessions")?.parse().context("--sessions")?
            }
            "--every" => options.every = value("--every")?.parse().context("--every")?,
            "--history" => {
                let text = value("--history")?;
                options.history = parse_history(&text)
                    .map_err(|e| anyhow::anyhow!("--history {text}: {e}"))?
                    .with_context(|| {
                        format!("--history {text}: this bench measures a retention")
                    })?;
            }
            // What `cargo bench` passes to every bench.
            "--bench" => {}
            other => bail!(
                "unknown argument {other:?} (--days N, --sessions N, --history 7d, --every N)"
            ),
        }
    }
    if options.days == 0 || options.sessions == 0 || options.every == 0 {
        bail!("--days, --sessions and --every must be at least 1");
    }
    Ok(options)
}

/// The sum of the sizes of the files under `dir`.
fn size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => size(&entry.path()),
            Ok(meta) => meta.len(),
            Err(_) => 0,
        })
        .sum()
}

fn records(store: &Store) -> anyhow::Result<u64> {
    Ok(store.end() - store.first()?)
}

/// Moves tokio's clock (and so the runtime's) forward by `by`, at once.
async fn advance(by: Duration) {
    tokio::time::pause();
    tokio::time::advance(by).await;
    tokio::time::resume();
}

/// Waits (real time) until `store`'s relay has published its whole log and its end stays put
/// for a moment: the day's work is done.
async fn settled(stores: &[&Store]) {
    let mut last = Vec::new();
    loop {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let now: Vec<(u64, u64)> = stores
            .iter()
            .map(|s| (s.end(), s.cursor(RELAY_CURSOR).unwrap_or(0)))
            .collect();
        if now == last && now.iter().all(|(end, relayed)| relayed >= end) {
            return;
        }
        last = now;
    }
}

async fn counted(live: &LiveStats, total: u64) {
    while live.counted() < total {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

async fn run(o: Options) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus"))?);
    for spec in [
        TelemetryService::new(0).spec(),
        ConsoleService::default().spec(),
    ] {
        drop(
            bus.subscribe(&SubscriptionSpec::durable(spec.queue, spec.bindings))
                .await?,
        );
    }
    let runtime = testkit::runtime(bus.clone(), dir.path())
        .with_clock(Clock::starting_at(1_800_000_000_000))
        .with_log_retention(Retention {
            history: Some(o.history),
            archive: None,
        });
    let telemetry = TelemetryService::new(5_000);
    let live = telemetry.live();
    let telemetry = runtime.start(telemetry)?;
    let console = runtime.start(ConsoleService::default())?;
    let history_days = o.history.as_secs().div_ceil(86_400);
    let window_days = DEFAULT_DEDUPE_WINDOW.as_secs().div_ceil(86_400);
    println!(
        "{} days x {} sessions a day, --log-history {history_days}d, dedupe window {window_days}d",
        o.days, o.sessions
    );
    println!("day  data dir    puzzle-telemetry log  console log  (first seq)");
    let mut simulator = Simulator::new(20_000);
    let started = Instant::now();
    let mut per_day = 0;
    let mut sizes = Vec::new();
    for day in 1..=o.days {
        let publications: Vec<Publication> = (0..o.sessions)
            .map(|k| {
                let session = simulator.session(None);
                Publication {
                    destination: Destination::Topic,
                    message: WireMessage {
                        message_type: Some(GameSessionCompleted::TYPE.into()),
                        message_id: Some(format!("day{day}-{k}")),
                        app_id: Some("bench".into()),
                        body: serde_json::to_vec(&session).expect("a session serialises"),
                        ..Default::default()
                    },
                }
            })
            .collect();
        for chunk in publications.chunks(PUBLISH_BATCH) {
            bus.publish(chunk).await?;
        }
        counted(&live, day * o.sessions).await;
        settled(&[telemetry.store(), console.store()]).await;
        // The day passes: snapshot intervals, the inbox's window and the pruner see it.
        advance(DAY).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        telemetry.store().flush().await?;
        console.store().flush().await?;
        let bytes = size(dir.path());
        if day == 1 {
            per_day = bytes;
        }
        sizes.push(bytes);
        if day % o.every == 0 || day == 1 || day == o.days {
            println!(
                "{day:>3}  {:>9}  {:>10} ({:>8})  {:>8} ({:>8})",
                mb(bytes),
                records(telemetry.store())?,
                telemetry.store().first()?,
                records(console.store())?,
                console.store().first()?,
            );
        }
    }
    let kept_days = o.days.min(history_days.max(window_days)) + 2;
    let bound = per_day * kept_days;
    let tail = &sizes[sizes.len().saturating_sub(5)..];
    let plateau = tail.iter().copied().max().unwrap_or(0);
    println!(
        "plateau (largest of the last {} days): {}; bound: {} a day x {kept_days} days = {}; {:.0} s",
        tail.len(),
        mb(plateau),
        mb(per_day),
        mb(bound),
        started.elapsed().as_secs_f64()
    );
    telemetry.stop(Duration::from_secs(10)).await?;
    console.stop(Duration::from_secs(10)).await?;
    drop(runtime);
    if plateau > bound {
        bail!(
            "the data dir ({}) is larger than what the retention keeps ({})",
            mb(plateau),
            mb(bound)
        );
    }
    println!("within the bound: met");
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let options = options()?;
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(run(options))
}
