//! Time to ready after a long history: from opening the data dir (the embedded bus and the
//! service's store) to the puzzle telemetry consuming again — its newest snapshot loaded and the
//! log after it replayed (snapshots on), or the whole log replayed (snapshots off) — after
//! 100,000 and after 1,000,000 handled sessions.
//!
//! The data dirs are made once per run (or reused from `target/bench-data/` when a previous run
//! left them complete) by ingesting that many simulated `game.session.completed.v1` sessions
//! through the embedded bus, durable, as `arcade run` does, with the default snapshot policy.
//! The history is spread over time as a service's is: [`SESSIONS_PER_DAY`] sessions a day
//! (a puzzle played all day long, one session every 4.3 s), each day ingested by a runtime
//! whose clock reads that day (the service restarted daily), so 100,000 sessions span 5 days
//! — within the 7-day `gameId` window and dedupe window — and 1,000,000 span 50 days, of which
//! the windows hold the last 7 to 8. The state is what ingesting those sessions gives, inbox
//! included; the restart measured happens an hour after the last day's sessions, on a clock
//! reading that time.
//!
//! Target: with snapshots, the 1,000,000 figure is at most 2× the 100,000 one and under 1 s.
//! Run: `cargo bench -p arcade-puzzle-telemetry --bench restart`

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_contracts::Message;
use arcade_contracts::game::GameSessionCompleted;
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::service::{LiveStats, TelemetryService};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit;
use arcade_runtime::{
    Bus, Clock, Destination, HostConfig, HostHandle, Publication, Runtime, Service, SnapshotPolicy,
    SubscriptionSpec, WireMessage,
};
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};

/// mimalloc, as in the `arcade` binary that hosts the service.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Sessions per confirmed publication.
const PUBLISH_BATCH: usize = 1_000;

/// Sessions a simulated day.
const SESSIONS_PER_DAY: usize = 20_000;

const DAY_MS: u64 = 24 * 3_600 * 1_000;

/// The first simulated day (2026-09-21T14:13:20Z).
const FIRST_DAY_MS: u64 = 1_790_000_000_000;

fn days(sessions: usize) -> u64 {
    sessions.div_ceil(SESSIONS_PER_DAY) as u64
}

/// When the measured restart happens: an hour after the last day began.
fn restart_ms(sessions: usize) -> u64 {
    FIRST_DAY_MS + (days(sessions) - 1) * DAY_MS + 3_600_000
}

fn data_dir(sessions: usize) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target
        .join("bench-data")
        .join(format!("puzzle-restart-v2-{sessions}"))
}

fn runtime(bus: &Arc<EmbeddedBus>, dir: &Path, snapshots: SnapshotPolicy, now_ms: u64) -> Runtime {
    testkit::runtime(bus.clone(), dir)
        .with_clock(Clock::starting_at(now_ms))
        .with_config(HostConfig {
            snapshots,
            ..HostConfig::default()
        })
}

/// Starts the service, waiting for the store a previous instance of this process held: sled
/// releases its lock when its background flusher has finished, shortly after it is dropped.
async fn start(runtime: &Runtime) -> (HostHandle<TelemetryService>, LiveStats) {
    for _ in 0..600 {
        let service = TelemetryService::new(5_000);
        let live = service.live();
        match runtime.start(service) {
            Ok(handle) => return (handle, live),
            Err(e) if e.to_string().contains("in use by a running process") => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("the store stayed locked for 30 s")
}

/// Ingests `sessions` sessions into a fresh data dir, unless a complete one is there.
async fn prepare(sessions: usize) -> PathBuf {
    let dir = data_dir(sessions);
    let done = dir.join("complete");
    if done.exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let started = Instant::now();
    let bus = Arc::new(EmbeddedBus::open(&dir.join("bus")).unwrap());
    let spec = TelemetryService::new(5_000).spec();
    let queue = spec.queue.clone();
    drop(
        bus.subscribe(&SubscriptionSpec::durable(spec.queue, spec.bindings))
            .await
            .unwrap(),
    );
    let mut simulator = Simulator::new(1_000_000);
    let mut k = 0;
    let mut held = 0;
    for day in 0..days(sessions) {
        let runtime = runtime(
            &bus,
            &dir,
            SnapshotPolicy::DEFAULT,
            FIRST_DAY_MS + day * DAY_MS,
        );
        let (handle, live) = start(&runtime).await;
        let mut subscribed = handle.subscribed();
        let _ = subscribed.wait_for(|s| *s).await;
        let today = (k + SESSIONS_PER_DAY).min(sessions);
        while k < today {
            let batch: Vec<Publication> = (k..(k + PUBLISH_BATCH).min(today))
                .map(|i| Publication {
                    destination: Destination::Topic,
                    message: WireMessage {
                        message_type: Some(GameSessionCompleted::TYPE.into()),
                        message_id: Some(format!("restart-{i}")),
                        app_id: Some("bench".into()),
                        body: serde_json::to_vec(&simulator.session(None)).unwrap(),
                        ..Default::default()
                    },
                })
                .collect();
            k += batch.len();
            bus.publish(&batch).await.unwrap();
            // Keep the queue short: the producer waits for the service to keep up.
            while bus.depth(&queue) > 20 * PUBLISH_BATCH {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        // Every session so far handled and durable: one recorded or flagged event each.
        while live.counted() < k as u64 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let host = handle.stop(Duration::from_secs(30)).await.unwrap();
        let state = host.state();
        assert_eq!(
            state.stats().sessions() + state.stats().flagged(),
            k as u64,
            "every session of days 1 to {} counted",
            day + 1
        );
        held = state.sessions().len();
        drop(host);
        drop(runtime);
    }
    drop(bus);
    std::fs::write(&done, b"").unwrap();
    eprintln!(
        "prepared {sessions} sessions over {} days in {:.1} s; {held} gameIds in the window",
        days(sessions),
        started.elapsed().as_secs_f64()
    );
    dir
}

/// From opening the data dir to the service consuming again, `now_ms` by the runtime's clock.
async fn start_to_ready(dir: &Path, snapshots: SnapshotPolicy, now_ms: u64) -> Duration {
    let started = Instant::now();
    let bus = Arc::new(EmbeddedBus::open(&dir.join("bus")).unwrap());
    let runtime = runtime(&bus, dir, snapshots, now_ms);
    let (handle, _) = start(&runtime).await;
    let mut subscribed = handle.subscribed();
    let _ = subscribed.wait_for(|s| *s).await;
    let ready = started.elapsed();
    handle.stop(Duration::from_secs(5)).await.unwrap();
    drop(runtime);
    drop(bus);
    ready
}

fn restart(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("puzzle_restart");
    group.sample_size(10);
    // Ten restarts per figure (seconds each without snapshots), not 55 as linear sampling has.
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(1));
    for sessions in [100_000, 1_000_000] {
        let dir = rt.block_on(prepare(sessions));
        for (label, policy) in [
            ("snapshots_on", SnapshotPolicy::DEFAULT),
            ("snapshots_off", SnapshotPolicy::OFF),
        ] {
            group.bench_function(format!("{label}_{sessions}"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += rt.block_on(start_to_ready(&dir, policy, restart_ms(sessions)));
                    }
                    total
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, restart);
criterion_main!(benches);
