//! The embedded pipeline, durable end to end: an emitter service appends each event to its sled
//! log; its relay publishes the durable log to the embedded bus (which writes the messages to
//! its own sled store and flushes before confirming); the bus delivers them to a tally service,
//! which dedupes, decides, appends and records each in its inbox in one sled transaction per
//! batch, flushes, and only then acks.
//!
//! - `durable_end_to_end_20k`: a running pipeline is handed 20,000 inputs at once; an
//!   iteration ends when the tally's flush covering the last of them returns. The pipeline is
//!   started once and kept across iterations, as a service runs; its logs grow as it goes.
//! - latency (printed): inputs paced at a steady rate for 3 s; p50 / p99 / max of the time from
//!   handing an input to the emitter until the tally's commit covering it is durable.
//! - the handle-latency histogram's cost (printed): two pipelines, one whose services keep the
//!   `arcade_handle_duration_seconds` histogram (as every service does) and one without, each
//!   handed 20,000 inputs in turn, alternately, 12 rounds each after one round of warm-up;
//!   the throughput of each and their ratio.
//! - `store_commit/with_20k_blob_files` (`commit_with_many_blob_files`): one small commit and
//!   its flush to stable storage, in a store whose `blobs/` holds 20,000 files, as a log
//!   holds after tens of millions of events (sled writes a blob file every few thousand events
//!   of this bench's size); beside it the same in an empty store. Each sync must find the
//!   blob files sled created or finished since the last one.
//!
//! Every payload carries 96 random characters, so compression gains only what real traffic
//! offers (the envelope's repeated names), not a repeated filler. The allocator is mimalloc, as
//! in the `arcade` binary.
//!
//! Run: `cargo bench -p arcade-runtime --bench pipeline`

use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::counters::Metrics;
use arcade_runtime::testkit::{self, Emit, Emitter, Tally};
use arcade_runtime::{HostConfig, HostHandle, Store};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const MESSAGES: u64 = 20_000;

struct Pipeline {
    _dir: tempfile::TempDir,
    emitter: HostHandle<Emitter>,
    tally: HostHandle<Tally>,
    /// Inputs handed to the emitter so far.
    sent: u64,
}

impl Pipeline {
    fn start() -> Self {
        Self::start_with(Metrics::default())
    }

    fn start_with(metrics: Metrics) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
        let runtime = testkit::runtime(bus, dir.path())
            .with_metrics(metrics)
            .with_config(HostConfig::default());
        let tally = runtime
            .start(Tally {
                name: "tally".into(),
            })
            .unwrap();
        let emitter = runtime
            .start(Emitter {
                name: "emitter".into(),
            })
            .unwrap();
        Pipeline {
            _dir: dir,
            emitter,
            tally,
            sent: 0,
        }
    }

    /// Hands `count` inputs to the emitter at once; returns when the tally has them durably.
    async fn saturate(&mut self, count: u64) -> Duration {
        let local = self.emitter.local();
        let started = Instant::now();
        tokio::spawn(async move {
            for _ in 0..count {
                local.send(emit()).await.unwrap();
            }
        });
        self.sent += count;
        self.tally.wait_for_events(self.sent).await;
        started.elapsed()
    }

    async fn stop(self) {
        self.emitter.stop(Duration::from_secs(5)).await.unwrap();
        self.tally.stop(Duration::from_secs(5)).await.unwrap();
    }
}

/// An input with a payload of about the size of a real event's, its note random.
fn emit() -> Emit {
    let note: String = (0..3)
        .map(|_| uuid::Uuid::new_v4().simple().to_string())
        .collect();
    Emit {
        producer: "bench".into(),
        note,
    }
}

/// Submits `rate` messages per second for `seconds` to a fresh pipeline; returns each
/// message's latency.
async fn paced(rate: u64, seconds: u64) -> Vec<Duration> {
    let pipeline = Pipeline::start();
    let total = rate * seconds;
    let local = pipeline.emitter.local();
    let sent: Arc<std::sync::Mutex<Vec<Instant>>> =
        Arc::new(std::sync::Mutex::new(Vec::with_capacity(total as usize)));
    let sent_by_feeder = sent.clone();
    let feeder = tokio::spawn(async move {
        let per_tick = (rate / 1000).max(1);
        let mut interval = tokio::time::interval(Duration::from_millis(1));
        let mut n = 0;
        while n < total {
            interval.tick().await;
            for _ in 0..per_tick.min(total - n) {
                let input = emit();
                sent_by_feeder.lock().unwrap().push(Instant::now());
                local.send(input).await.unwrap();
                n += 1;
            }
        }
    });
    let mut durable = pipeline.tally.durable_end();
    let mut committed_at = Vec::with_capacity(total as usize);
    while (committed_at.len() as u64) < total {
        durable.changed().await.unwrap();
        let end = *durable.borrow_and_update() - 1;
        let now = Instant::now();
        while (committed_at.len() as u64) < end {
            committed_at.push(now);
        }
    }
    feeder.await.unwrap();
    pipeline.stop().await;
    let sent = sent.lock().unwrap();
    sent.iter()
        .zip(&committed_at)
        .map(|(s, c)| c.saturating_duration_since(*s))
        .collect()
}

/// The benches' runtime: two workers, as on the machine they were measured on.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}

fn pipeline(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("embedded_pipeline");
    group.sample_size(10);
    group.throughput(Throughput::Elements(MESSAGES));
    let mut running = Some(rt.block_on(async { Pipeline::start() }));
    group.bench_function("durable_end_to_end_20k", |b| {
        b.iter_custom(|iters| {
            let pipeline = running.as_mut().expect("the pipeline runs");
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                total += rt.block_on(pipeline.saturate(MESSAGES));
            }
            total
        })
    });
    group.finish();
    if let Some(pipeline) = running.take() {
        println!(
            "embedded_pipeline: {} messages through one pipeline in all",
            pipeline.sent
        );
        rt.block_on(pipeline.stop());
    }

    for rate in [10_000u64, 25_000, 40_000] {
        let mut latencies = rt.block_on(paced(rate, 3));
        latencies.sort();
        println!(
            "embedded_pipeline/latency at {rate} msg/s over 3 s: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} messages)",
            percentile(&latencies, 0.50).as_secs_f64() * 1e3,
            percentile(&latencies, 0.99).as_secs_f64() * 1e3,
            latencies.last().unwrap().as_secs_f64() * 1e3,
            latencies.len()
        );
    }
}

/// The handle-latency histogram's cost: pipelines with and without it, alternately.
fn histogram_cost(_: &mut Criterion) {
    const ROUNDS: usize = 12;
    let rt = runtime();
    let mut with = rt.block_on(async { Pipeline::start() });
    let mut without =
        rt.block_on(async { Pipeline::start_with(Metrics::without_handle_latency()) });
    rt.block_on(with.saturate(MESSAGES));
    rt.block_on(without.saturate(MESSAGES));
    let (mut with_time, mut without_time) = (Duration::ZERO, Duration::ZERO);
    for round in 0..ROUNDS {
        // Each goes first in every other round, so neither always runs after the other.
        if round % 2 == 0 {
            with_time += rt.block_on(with.saturate(MESSAGES));
            without_time += rt.block_on(without.saturate(MESSAGES));
        } else {
            without_time += rt.block_on(without.saturate(MESSAGES));
            with_time += rt.block_on(with.saturate(MESSAGES));
        }
    }
    let rate = |time: Duration| (MESSAGES * ROUNDS as u64) as f64 / time.as_secs_f64();
    let (with_rate, without_rate) = (rate(with_time), rate(without_time));
    println!(
        "embedded_pipeline/handle-latency histogram, {ROUNDS} alternating rounds of {MESSAGES}: with {with_rate:.0} msg/s, without {without_rate:.0} msg/s: cost {:.1} % of the throughput",
        (1.0 - with_rate / without_rate) * 100.0
    );
    rt.block_on(with.stop());
    rt.block_on(without.stop());
}

/// A small commit and its flush, in an empty store and in one whose `blobs/` holds 20,000
/// files. The files stand for those a long log keeps (sled reads a blob file only through the
/// log records that point to it, so these are never read); named above any log sequence
/// number sled reaches here.
fn commit_with_many_blob_files(c: &mut Criterion) {
    const BLOB_FILES: u64 = 20_000;
    let rt = runtime();
    let mut group = c.benchmark_group("store_commit");
    group.sample_size(20);
    for blob_files in [0, BLOB_FILES] {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for n in 0..blob_files {
            let name = (1u64 << 50) + n;
            std::fs::write(dir.path().join("blobs").join(name.to_string()), b"").unwrap();
        }
        // The first sync after they appeared syncs them; the runs measure the ones after.
        rt.block_on(store.flush()).unwrap();
        let mut value = 0;
        group.bench_function(format!("with_{}k_blob_files", blob_files / 1000), |b| {
            b.iter(|| {
                value += 1;
                store.set_cursor("bench", value).unwrap();
                rt.block_on(store.flush()).unwrap();
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    pipeline,
    histogram_cost,
    commit_with_many_blob_files
);
criterion_main!(benches);
