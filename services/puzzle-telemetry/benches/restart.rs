//! Time to ready after a long history: from opening the data dir (the embedded bus and the
//! service's store) to the puzzle telemetry consuming again — its newest snapshot loaded and the
//! log after it replayed (snapshots on), or the whole log replayed (snapshots off) — after
//! 100,000 and after 1,000,000 handled sessions.
//!
//! The data dirs are made once per run (or reused from `target/bench-data/` when a previous run
//! left them complete) by ingesting that many simulated `game.session.completed.v1` sessions
//! through the embedded bus, durable, as `arcade run` does, with the default snapshot policy:
//! the state is what ingesting those sessions gives, inbox included.
//!
//! Target: with snapshots, the 1,000,000 figure is at most 2× the 100,000 one and under 1 s.
//! Run: `cargo bench -p arcade-puzzle-telemetry --bench restart`

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_contracts::Message;
use arcade_contracts::game::GameSessionCompleted;
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::service::TelemetryService;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{
    Bus, Destination, HostConfig, Publication, Runtime, Service, SnapshotPolicy, SubscriptionSpec,
    WireMessage,
};
use criterion::{Criterion, criterion_group, criterion_main};

/// mimalloc, as in the `arcade` binary that hosts the service.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Sessions per confirmed publication.
const PUBLISH_BATCH: usize = 1_000;

fn data_dir(sessions: usize) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target
        .join("bench-data")
        .join(format!("puzzle-restart-v1-{sessions}"))
}

fn runtime(dir: &Path, snapshots: SnapshotPolicy) -> (Arc<EmbeddedBus>, Runtime) {
    let bus = Arc::new(EmbeddedBus::open(&dir.join("bus")).unwrap());
    let runtime = Runtime::new(bus.clone())
        .with_data_dir(dir)
        .with_config(HostConfig {
            snapshots,
            ..HostConfig::default()
        });
    (bus, runtime)
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
    let (bus, runtime) = runtime(&dir, SnapshotPolicy::DEFAULT);
    let spec = TelemetryService::new(5_000).spec();
    let queue = spec.queue.clone();
    drop(
        bus.subscribe(&SubscriptionSpec::durable(spec.queue, spec.bindings))
            .await
            .unwrap(),
    );
    let handle = runtime.start(TelemetryService::new(5_000)).unwrap();
    let live = {
        let mut subscribed = handle.subscribed();
        let _ = subscribed.wait_for(|s| *s).await;
        handle.store().clone()
    };
    let mut simulator = Simulator::new(1_000_000);
    let mut k = 0;
    while k < sessions {
        let batch: Vec<Publication> = (k..(k + PUBLISH_BATCH).min(sessions))
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
    // Every session handled: one recorded or flagged event each, plus the statistics.
    let mut durable = handle.durable_end();
    let _ = durable
        .wait_for(|end| {
            let inbox = live.inbox_len();
            *end > sessions as u64 && inbox >= sessions
        })
        .await;
    handle.stop(Duration::from_secs(30)).await.unwrap();
    drop(runtime);
    drop(bus);
    std::fs::write(&done, b"").unwrap();
    eprintln!(
        "prepared {sessions} sessions in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    dir
}

/// From opening the data dir to the service consuming again.
async fn start_to_ready(dir: &Path, snapshots: SnapshotPolicy) -> Duration {
    let started = Instant::now();
    let (bus, runtime) = runtime(dir, snapshots);
    let handle = runtime.start(TelemetryService::new(5_000)).unwrap();
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
                        total += rt.block_on(start_to_ready(&dir, policy));
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
