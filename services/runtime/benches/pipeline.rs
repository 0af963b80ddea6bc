//! The embedded pipeline, durable end to end: an emitter service appends an event to its sled
//! log, its relay publishes it to the embedded bus (flushed before the confirm), the bus
//! delivers it to a tally service, which dedupes, decides, appends and records it in one sled
//! transaction, flushes the batch and acks.
//!
//! `throughput`: 20,000 messages pushed at once; a message counts when the tally's flush
//! covering it returns. `latency` (printed): messages paced at a steady rate, p50/p99 of the
//! time from submitting an input to the emitter until the tally's commit covering it is durable.
//!
//! Run: `cargo bench -p arcade-runtime --bench pipeline`

use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit::{self, Emit, Emitter, Tally};
use arcade_runtime::{HostConfig, Runtime};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const MESSAGES: u64 = 20_000;

struct Pipeline {
    _dir: tempfile::TempDir,
    emitter: arcade_runtime::HostHandle<Emitter>,
    tally: arcade_runtime::HostHandle<Tally>,
}

fn start() -> Pipeline {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = Runtime::new(bus)
        .with_data_dir(dir.path())
        .with_catalog(testkit::catalog())
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
    }
}

fn emit() -> Emit {
    // About the size of a real event payload.
    Emit {
        producer: "bench".into(),
        note: "n".repeat(96),
    }
}

async fn saturate(messages: u64) -> Duration {
    let pipeline = start();
    let local = pipeline.emitter.local();
    let started = Instant::now();
    tokio::spawn(async move {
        for _ in 0..messages {
            local.send(emit()).await.unwrap();
        }
    });
    pipeline.tally.wait_for_events(messages).await;
    let elapsed = started.elapsed();
    pipeline.emitter.stop(Duration::from_secs(5)).await.unwrap();
    pipeline.tally.stop(Duration::from_secs(5)).await.unwrap();
    elapsed
}

/// Submits `rate` messages per second for `seconds`; returns each message's latency.
async fn paced(rate: u64, seconds: u64) -> Vec<Duration> {
    let pipeline = start();
    let total = rate * seconds;
    let local = pipeline.emitter.local();
    let sent: Arc<std::sync::Mutex<Vec<Instant>>> =
        Arc::new(std::sync::Mutex::new(Vec::with_capacity(total as usize)));
    let sent_by_feeder = sent.clone();
    let feeder = tokio::spawn(async move {
        let tick = Duration::from_millis(1);
        let per_tick = (rate / 1000).max(1);
        let mut interval = tokio::time::interval(tick);
        let mut n = 0;
        while n < total {
            interval.tick().await;
            for _ in 0..per_tick.min(total - n) {
                sent_by_feeder.lock().unwrap().push(Instant::now());
                local.send(emit()).await.unwrap();
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
    pipeline.emitter.stop(Duration::from_secs(5)).await.unwrap();
    pipeline.tally.stop(Duration::from_secs(5)).await.unwrap();
    let sent = sent.lock().unwrap();
    sent.iter()
        .zip(&committed_at)
        .map(|(s, c)| c.saturating_duration_since(*s))
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}

fn pipeline(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("embedded_pipeline");
    group.sample_size(10);
    group.throughput(Throughput::Elements(MESSAGES));
    group.bench_function("durable_end_to_end_20k", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                total += rt.block_on(saturate(MESSAGES));
            }
            total
        })
    });
    group.finish();

    for rate in [10_000u64, 25_000] {
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

criterion_group!(benches, pipeline);
criterion_main!(benches);
