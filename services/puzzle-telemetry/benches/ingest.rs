//! Telemetry ingest on the embedded transport, durable end to end: 20,000 simulated
//! `game.session.completed.v1` (or `.v2`, whose moves the service replays to verify each
//! session) are published on the bus (each publication confirmed once the
//! bus's sled store is flushed); the telemetry service receives them, validates each against
//! its puzzle, appends its recorded/flagged event and the inbox entry in one atomic sled batch,
//! flushes per batch, then acks. A session counts once the flush covering it returned (the live
//! view follows durable events only).
//!
//! - `publish_and_ingest_20k`: producer and consumer at once, timed from the first publication.
//! - `ingest_backlog_20k`: the sessions wait in the queue; timed from the service's start.
//! - `…_v2`: the same with v2 sessions, every one verified by replaying its moves.
//!
//! Target: ≥ 20,000 sessions/s. Run: `cargo bench -p arcade-puzzle-telemetry --bench ingest`

use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_contracts::Message;
use arcade_contracts::game::{GameSessionCompleted, GameSessionCompletedV2};
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::service::{LiveStats, TelemetryService};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit;
use arcade_runtime::{
    Bus, Destination, HostHandle, Publication, Runtime, Service, SubscriptionSpec, WireMessage,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// mimalloc, as in the `arcade` binary that hosts the service.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SESSIONS: usize = 20_000;
/// Sessions per confirmed publication (a producer batching its confirms).
const PUBLISH_BATCH: usize = 500;

fn sessions(v2: bool) -> Vec<Publication> {
    let mut simulator = Simulator::new(20_000);
    (0..SESSIONS)
        .map(|k| {
            let played = simulator.play(None);
            let (message_type, body) = if v2 {
                let body = serde_json::to_vec(&played.v2("bench 1")).unwrap();
                (GameSessionCompletedV2::TYPE, body)
            } else {
                (
                    GameSessionCompleted::TYPE,
                    serde_json::to_vec(&played.v1).unwrap(),
                )
            };
            Publication {
                destination: Destination::Topic,
                message: WireMessage {
                    message_type: Some(message_type.into()),
                    message_id: Some(format!("bench-{k}")),
                    app_id: Some("bench".into()),
                    body,
                    ..Default::default()
                },
            }
        })
        .collect()
}

struct Setup {
    _dir: tempfile::TempDir,
    bus: Arc<EmbeddedBus>,
    runtime: Runtime,
}

/// A bus with the service's queue declared and bound (the service subscribes in the
/// background once started; a session published before would be routed nowhere).
async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let spec = TelemetryService::new(0).spec();
    drop(
        bus.subscribe(&SubscriptionSpec::durable(spec.queue, spec.bindings))
            .await
            .unwrap(),
    );
    let runtime = testkit::runtime(bus.clone(), dir.path());
    Setup {
        _dir: dir,
        bus,
        runtime,
    }
}

fn start(runtime: &Runtime) -> (HostHandle<TelemetryService>, LiveStats) {
    // Statistics every 5 s (the default): a handful of publications during the run.
    let service = TelemetryService::new(5_000);
    let live = service.live();
    (runtime.start(service).unwrap(), live)
}

async fn all_counted(live: &LiveStats) {
    while live.counted() < SESSIONS as u64 {
        tokio::time::sleep(Duration::from_micros(500)).await;
    }
}

async fn publish_and_ingest(publications: Arc<Vec<Publication>>) -> Duration {
    let s = setup().await;
    let (host, live) = start(&s.runtime);
    let bus = s.bus.clone();
    let started = Instant::now();
    let producer = tokio::spawn(async move {
        for chunk in publications.chunks(PUBLISH_BATCH) {
            bus.publish(chunk).await.unwrap();
        }
    });
    all_counted(&live).await;
    let elapsed = started.elapsed();
    producer.await.unwrap();
    host.stop(Duration::from_secs(5)).await.unwrap();
    elapsed
}

async fn ingest_backlog(publications: Arc<Vec<Publication>>) -> Duration {
    let s = setup().await;
    // Fill the service's queue while nobody consumes.
    for chunk in publications.chunks(PUBLISH_BATCH) {
        s.bus.publish(chunk).await.unwrap();
    }
    let started = Instant::now();
    let (host, live) = start(&s.runtime);
    all_counted(&live).await;
    let elapsed = started.elapsed();
    host.stop(Duration::from_secs(5)).await.unwrap();
    elapsed
}

fn ingest(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("telemetry_ingest");
    group.sample_size(10);
    group.throughput(Throughput::Elements(SESSIONS as u64));
    for (suffix, v2) in [("", false), ("_v2", true)] {
        let publications = Arc::new(sessions(v2));
        group.bench_function(format!("publish_and_ingest_20k{suffix}"), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| rt.block_on(publish_and_ingest(publications.clone())))
                    .sum()
            })
        });
        group.bench_function(format!("ingest_backlog_20k{suffix}"), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| rt.block_on(ingest_backlog(publications.clone())))
                    .sum()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
