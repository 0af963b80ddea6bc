//! Arcade on RabbitMQ against raw lapin, in the same run, with the same broker settings.
//!
//! - `arcade`: an emitter appends each item to its sled log; its relay publishes the log in
//!   order (persistent, publisher confirms; batches of 512, up to four awaiting their confirms);
//!   the tally consumes (prefetch 1024, manual acks), dedupes, decides, commits to sled,
//!   flushes, then acks the batch (one `multiple` ack). A run
//!   ends when the tally's log holds every item durably.
//! - `raw_lapin`: one channel publishes the same bodies and properties (persistent, confirms
//!   awaited per batch of 512) to a topic exchange, another consumes the bound durable queue
//!   (prefetch 1024) and acks each delivery. A run ends when the last one is acked.
//!
//! Prints both rates (msg/s, median over the runs) and Arcade's share of raw, once from the
//! criterion groups and once from runs taken in alternation (the figure to trust: the machine's
//! speed drifts). Target: ≥ 70 %.
//!
//! Run: `ARCADE_AMQP_URL=amqp://guest:guest@127.0.0.1:5672/%2f cargo bench -p arcade-runtime
//! --bench amqp -- --warm-up-time 1 --measurement-time 3`. Skipped when the URL is unset.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arcade_contracts::Message;
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};
use arcade_runtime::relay::publication;
use arcade_runtime::testkit::{self, Emit, Emitter, ItemEmitted, Tally};
use arcade_runtime::{HostConfig, LogRecord, Runtime};
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicPublishOptions, BasicQosOptions,
    ConfirmSelectOptions, ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions,
    QueueDeleteOptions,
};
use lapin::types::FieldTable;
use lapin::{Connection, ConnectionProperties, ExchangeKind};

const MESSAGES: u64 = 5_000;
const BATCH: usize = 512;
const PREFETCH: u16 = 1024;
/// Runs of each, taken in alternation after the criterion groups.
const PAIRS: usize = 9;

fn emit() -> Emit {
    Emit {
        producer: "bench".into(),
        note: "n".repeat(96),
    }
}

fn random() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

fn config(url: &str) -> AmqpConfig {
    let id = random();
    let mut config = AmqpConfig::new(url);
    config.events_exchange = format!("bench.events.{id}");
    config.dead_letters = format!("bench.dead.{id}");
    config.expire_after = Some(Duration::from_secs(60));
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
async fn arcade(url: &str) -> Duration {
    let bus = AmqpBus::new(config(url)).unwrap();
    bus.connect_now().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runtime = Runtime::new(Arc::new(bus.clone()))
        .with_data_dir(dir.path())
        .with_catalog(testkit::catalog())
        .with_config(HostConfig {
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
    tokio::spawn(async move {
        for _ in 0..MESSAGES {
            local.send(emit()).await.unwrap();
        }
    });
    tally.wait_for_events(MESSAGES).await;
    let elapsed = started.elapsed();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    tally.stop(Duration::from_secs(5)).await.unwrap();
    bus.close().await;
    elapsed
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

/// One run of raw lapin with the same settings.
async fn raw(url: &str) -> Duration {
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
            FieldTable::default(),
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
    let elapsed = started.elapsed();
    publishing.await.unwrap();
    let _ = setup
        .queue_delete(queue.into(), QueueDeleteOptions::default())
        .await;
    let _ = connection.close(200, "done".into()).await;
    elapsed
}

fn median_rate(runs: &[Duration]) -> f64 {
    let mut rates: Vec<f64> = runs
        .iter()
        .map(|d| MESSAGES as f64 / d.as_secs_f64())
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
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
    let arcade_runs = Arc::new(Mutex::new(Vec::new()));
    let raw_runs = Arc::new(Mutex::new(Vec::new()));
    let mut group = c.benchmark_group("amqp");
    group
        .throughput(Throughput::Elements(MESSAGES))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat);
    group.bench_function("raw_lapin", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let elapsed = rt.block_on(raw(&url));
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
                let elapsed = rt.block_on(arcade(&url));
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
        "amqp: arcade {arcade_rate:.0} msg/s, raw lapin {raw_rate:.0} msg/s, ratio {:.0} % (target >= 70 %)",
        100.0 * arcade_rate / raw_rate
    );
    // The machine's speed drifts between the two groups above; runs taken in alternation share
    // its mood, so their ratio is the one to trust.
    let (mut arcade_paired, mut raw_paired) = (Vec::new(), Vec::new());
    for _ in 0..PAIRS {
        raw_paired.push(rt.block_on(raw(&url)));
        arcade_paired.push(rt.block_on(arcade(&url)));
    }
    let arcade_rate = median_rate(&arcade_paired);
    let raw_rate = median_rate(&raw_paired);
    println!(
        "amqp (alternating, {PAIRS} pairs): arcade {arcade_rate:.0} msg/s, raw lapin {raw_rate:.0} msg/s, ratio {:.0} % (target >= 70 %)",
        100.0 * arcade_rate / raw_rate
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
