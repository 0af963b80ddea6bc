//! Broker faults, each on 10,000 messages with exact accounting at the end (every item applied
//! once, in order, none lost, the queue empty): the connection cut several times mid-stream by
//! a TCP proxy inside the test; the consumer's process killed with SIGKILL at 20 points and
//! restarted each time; the broker unreachable for the first 10 s.
//!
//! The consumer process is this test binary run again on the ignored test
//! `child_tally_process`, which hosts a tally until SIGTERM (or SIGKILL).

#[path = "support/broker.rs"]
mod broker;
#[path = "support/proxy.rs"]
mod proxy;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_contracts::Message;
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};
use arcade_runtime::testkit::{self, Emit, Emitter, ItemEmitted, ItemTallied, Tally, TallyState};
use arcade_runtime::{Bus, Clock, Host, HostConfig, Store, SubscriptionSpec};
use futures::StreamExt;
use lapin::options::{BasicAckOptions, QueueDeclareOptions};
use lapin::types::FieldTable;
use lapin::{Connection, ConnectionProperties};
use proxy::{Proxy, upstream};
use rand::SeedableRng;

const TOTAL: u64 = 10_000;
const PRODUCERS: [&str; 3] = ["a", "b", "c"];

fn expected() -> BTreeMap<String, u64> {
    PRODUCERS
        .iter()
        .enumerate()
        .map(|(i, p)| (p.to_string(), (TOTAL + 2 - i as u64) / 3))
        .collect()
}

fn assert_exactly_once(state: &TallyState) {
    assert!(
        state.applied_twice().is_empty(),
        "applied twice: {:?}",
        state.applied_twice()
    );
    assert_eq!(state.out_of_order, 0, "items came out of order");
    assert_eq!(state.applied.len() as u64, TOTAL, "items lost");
    assert_eq!(state.last, expected());
}

/// Feeds the emitter `TOTAL` items, round robin over the producers.
fn feed(emitter: &arcade_runtime::HostHandle<Emitter>) -> tokio::task::JoinHandle<()> {
    let local = emitter.local();
    tokio::spawn(async move {
        for k in 0..TOTAL {
            let producer = PRODUCERS[(k % 3) as usize].to_string();
            let emit = Emit {
                producer,
                note: "x".repeat(64),
            };
            if local.send(emit).await.is_err() {
                break;
            }
        }
    })
}

/// Logs to the test's output when `RUST_LOG` is set.
fn logs() {
    if let Ok(filter) = std::env::var("RUST_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_test_writer()
            .try_init();
    }
}

async fn within<T>(what: &str, seconds: u64, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(seconds), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// Ready messages in a queue, seen by a plain client (consumers gone, unacked ones are back).
async fn depth(url: &str, queue: &str) -> u32 {
    let connection = Connection::connect(url, ConnectionProperties::default())
        .await
        .unwrap();
    let channel = connection.create_channel().await.unwrap();
    let queue = channel
        .queue_declare(
            queue.to_string().into(),
            QueueDeclareOptions {
                passive: true,
                ..QueueDeclareOptions::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    let _ = connection.close(200, "done".into()).await;
    queue.message_count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_cut_several_times_mid_stream_loses_nothing() {
    let Some(url) = broker::url() else { return };
    logs();
    assert!(
        url.starts_with("amqp://"),
        "the proxy test needs a plain amqp:// URL"
    );
    let proxy = Proxy::start(upstream(&url), true).await;
    let bus = AmqpBus::new(broker::config(&proxy.url(&url))).unwrap();
    bus.connect_now().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runtime =
        testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(testkit::batches(128, 256));
    let suffix = broker::random();
    let tally_name = format!("tally.{suffix}");
    let tally = runtime
        .start(Tally {
            name: tally_name.clone(),
        })
        .unwrap();
    broker::wait_for_consumer(&url, &tally_name).await;
    let emitter = runtime
        .start(Emitter {
            name: format!("emitter.{suffix}"),
        })
        .unwrap();
    let feeder = feed(&emitter);
    for target in [1_000, 3_000, 5_500, 8_000] {
        within("the tally to progress", 40, tally.wait_for_events(target)).await;
        proxy.cut();
    }
    within("the whole stream", 180, tally.wait_for_events(TOTAL)).await;
    feeder.await.unwrap();
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    assert_exactly_once(host.state());
    bus.close().await;
    assert_eq!(depth(&url, &tally_name).await, 0, "every delivery acked");
    assert_eq!(
        depth(&url, &bus.config().dead_letters).await,
        0,
        "no dead letters"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broker_unreachable_for_ten_seconds_at_start_loses_nothing() {
    let Some(url) = broker::url() else { return };
    logs();
    assert!(
        url.starts_with("amqp://"),
        "the proxy test needs a plain amqp:// URL"
    );
    let started = Instant::now();
    let proxy = Proxy::start(upstream(&url), false).await;
    let mut config = broker::config(&url);
    let suffix = broker::random();
    let tally_name = format!("tally.{suffix}");
    // The tally's queue exists on the broker beforehand (as the ops definitions declare it in a
    // deployment), so what the emitter publishes first is kept for it.
    let direct = AmqpBus::new(config.clone()).unwrap();
    let spec = SubscriptionSpec::durable(&tally_name, vec![ItemEmitted::TYPE.to_string()]);
    drop(direct.subscribe(&spec).await.unwrap());
    direct.close().await;
    config.url = proxy.url(&url);
    let bus = AmqpBus::new(config).unwrap();
    assert!(bus.connect_now().await.is_err(), "the broker is away");
    let dir = tempfile::tempdir().unwrap();
    let runtime =
        testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(testkit::batches(128, 256));
    let tally = runtime
        .start(Tally {
            name: tally_name.clone(),
        })
        .unwrap();
    let emitter = runtime
        .start(Emitter {
            name: format!("emitter.{suffix}"),
        })
        .unwrap();
    let feeder = feed(&emitter);
    // The producing service runs without the broker: its whole stream is in its log.
    within("the emitter's log", 60, emitter.wait_for_events(TOTAL)).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the emitter did not wait for the broker"
    );
    tokio::time::sleep(Duration::from_secs(10).saturating_sub(started.elapsed())).await;
    proxy.set_open(true);
    within("the whole stream", 180, tally.wait_for_events(TOTAL)).await;
    feeder.await.unwrap();
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    assert_exactly_once(host.state());
    bus.close().await;
    assert_eq!(depth(&url, &tally_name).await, 0, "every delivery acked");
}

const CHILD_DIR: &str = "ARCADE_FAULT_CHILD_DIR";
const CHILD_TALLY: &str = "ARCADE_FAULT_CHILD_TALLY";
const CHILD_EVENTS: &str = "ARCADE_FAULT_CHILD_EVENTS";
const CHILD_DEAD: &str = "ARCADE_FAULT_CHILD_DEAD";

fn child_config(url: &str, events: &str, dead: &str) -> AmqpConfig {
    let mut config = AmqpConfig::new(url);
    config.events_exchange = events.to_string();
    config.dead_letters = dead.to_string();
    config.expire_after = Some(Duration::from_secs(30));
    config.backoff = (Duration::from_millis(50), Duration::from_millis(500));
    config
}

/// Not a test on its own: the consumer process of `consumer_process_killed_and_restarted`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by consumer_process_killed_and_restarted as its child process"]
async fn child_tally_process() {
    // Listening first: a SIGTERM that comes while the tally starts is a clean stop too.
    let stop = arcade_runtime::shutdown::signal();
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} unset"));
    let url = var("ARCADE_AMQP_URL");
    let bus = AmqpBus::new(child_config(&url, &var(CHILD_EVENTS), &var(CHILD_DEAD))).unwrap();
    let runtime = testkit::runtime(Arc::new(bus.clone()), var(CHILD_DIR))
        .with_config(testkit::batches(128, 256));
    let tally = runtime
        .start(Tally {
            name: var(CHILD_TALLY),
        })
        .unwrap();
    stop.await;
    tally.stop(Duration::from_secs(5)).await.unwrap();
    bus.close().await;
}

fn spawn_child(
    url: &str,
    dir: &std::path::Path,
    tally: &str,
    config: &AmqpConfig,
) -> std::process::Child {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "child_tally_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("ARCADE_AMQP_URL", url)
        .env(CHILD_DIR, dir)
        .env(CHILD_TALLY, tally)
        .env(CHILD_EVENTS, &config.events_exchange)
        .env(CHILD_DEAD, &config.dead_letters)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the test binary runs again as the consumer")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumer_process_killed_and_restarted_loses_nothing() {
    let Some(url) = broker::url() else { return };
    logs();
    let config = broker::config(&url);
    let bus = AmqpBus::new(config.clone()).unwrap();
    bus.connect_now().await.unwrap();
    let suffix = broker::random();
    let tally_name = format!("tally.{suffix}");

    // Watch what the tally publishes, as any other consumer would.
    let connection = Connection::connect(&url, ConnectionProperties::default())
        .await
        .unwrap();
    let (_channel, mut tallied) =
        broker::observe(&connection, &config.events_exchange, &[ItemTallied::TYPE]).await;

    let child_dir = tempfile::tempdir().unwrap();
    let mut child = spawn_child(&url, child_dir.path(), &tally_name, &config);
    // The emitter runs here, once the tally's queue is bound (or its first items go nowhere).
    broker::wait_for_consumer(&url, &tally_name).await;
    let dir = tempfile::tempdir().unwrap();
    let runtime =
        testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(testkit::batches(128, 256));
    let emitter = runtime
        .start(Emitter {
            name: format!("emitter.{suffix}"),
        })
        .unwrap();
    let feeder = feed(&emitter);

    let mut seen: BTreeSet<(String, u64)> = BTreeSet::new();
    // 20 points over the stream, each somewhere in its twentieth.
    const KILLS: usize = 20;
    let mut rng = rand::rngs::StdRng::seed_from_u64(20261202);
    let step = TOTAL as usize / (KILLS + 1);
    let mut kills = (1..=KILLS)
        .map(|k| k * step + rand::Rng::random_range(&mut rng, 0..step / 2))
        .peekable();
    let mut killed = 0;
    while seen.len() < TOTAL as usize {
        let delivery = within("the tally's events", 120, tallied.next())
            .await
            .unwrap()
            .unwrap();
        let event: ItemTallied = serde_json::from_slice(&delivery.data).unwrap();
        delivery.ack(BasicAckOptions::default()).await.unwrap();
        seen.insert((event.producer, event.n));
        if kills.peek().is_some_and(|k| seen.len() >= *k) {
            kills.next();
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            killed += 1;
            child = spawn_child(&url, child_dir.path(), &tally_name, &config);
        }
    }
    assert_eq!(killed, KILLS);
    feeder.await.unwrap();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    // A clean stop: the child finishes its batch, acks and exits.
    broker::wait_for_consumer(&url, &tally_name).await;
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "the child stopped cleanly: {exit}");

    let store = Arc::new(Store::open(&child_dir.path().join(&tally_name)).unwrap());
    let host = Host::open(
        Arc::new(Tally {
            name: tally_name.clone(),
        }),
        store,
        Arc::new(testkit::catalog()),
        Default::default(),
        Clock::system(),
        HostConfig::default(),
    )
    .unwrap();
    assert_exactly_once(host.state());
    assert_eq!(depth(&url, &tally_name).await, 0, "every delivery acked");
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}
