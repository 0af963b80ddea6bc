//! Faults of a 3-node RabbitMQ cluster (quorum queues), each on 10,000 messages through two
//! services (the testkit's emitter and tally, each on its own connection) with exact accounting
//! at the end: every item applied once, in order per producer, none lost, the queues empty.
//!
//! 1. The node hosting the tally queue's leader is killed with SIGKILL mid-stream, the stream
//!    goes on over the other two, and the node is started again.
//! 2. One node is stopped gracefully, later another is killed with SIGKILL (the queues lose
//!    their majority and wait), then both are started again.
//!
//! Every fault strikes mid-stream whatever the stream's speed: the feeder holds the last 4,000
//! items until the fault has struck.
//!
//! The test starts its own cluster with `ops/cluster/cluster.sh` (own node names, ports and
//! data dir, random base port) and stops it at the end, also on failure. It runs where the
//! broker tests run (`ARCADE_AMQP_URL` set, or `ARCADE_REQUIRE_BROKER=1`, when it fails rather
//! than skips); it needs `rabbitmq-server` installed.

#[path = "support/broker.rs"]
mod broker;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::testkit::{self, Emit, Emitter, Tally, TallyState};
use lapin::options::QueueDeclareOptions;
use lapin::types::FieldTable;
use lapin::{Connection, ConnectionProperties};
use tokio::sync::Notify;

const TOTAL: u64 = 10_000;
/// The feeder holds the items after this one until the faults release it: whatever the speed of
/// the stream, every fault strikes while items are still to come.
const HELD_AFTER: u64 = 6_000;
const PRODUCERS: [&str; 3] = ["a", "b", "c"];

/// A cluster of `ops/cluster/cluster.sh`, stopped when dropped.
struct Cluster {
    dir: tempfile::TempDir,
    base: u16,
    urls: Vec<String>,
}

impl Cluster {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ops/cluster/cluster.sh")
    }

    fn run(&self, args: &[&str]) -> String {
        run_script(self.dir.path(), self.base, args)
    }

    fn start() -> Cluster {
        let dir = tempfile::Builder::new()
            .prefix("arcade-cluster-")
            .tempdir()
            .unwrap();
        // A base port of its own: two runs of the test on one machine do not meet.
        let base = 6000 + 10 * (std::process::id() % 300) as u16;
        let out = run_script(dir.path(), base, &["start"]);
        let urls = out
            .trim()
            .split(',')
            .map(str::to_string)
            .collect::<Vec<_>>();
        assert_eq!(urls.len(), 3, "three node URLs: {out}");
        Cluster { dir, base, urls }
    }

    /// The URL list starting at node `first` (1-3).
    fn list_from(&self, first: usize) -> String {
        (0..3)
            .map(|k| self.urls[(first - 1 + k) % 3].clone())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The node (1-3) hosting the leader of quorum queue `queue`, once one is known.
    fn leader_of(&self, queue: &str) -> usize {
        self.leader_other_than(queue, None)
    }

    /// The node (1-3) hosting the leader of `queue`, waiting (up to a minute) until the
    /// management API names one that is not `old`: right after a node's death the queue may
    /// have no leader yet (an election), or still show the dead one.
    fn leader_other_than(&self, queue: &str, old: Option<usize>) -> usize {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let leaders = self.run(&["leaders"]);
            let node = leaders
                .lines()
                .filter_map(|line| line.split_once('\t'))
                .find(|(name, _)| *name == queue)
                .map(|(_, node)| node.to_string());
            if let Some(node) = node {
                let number: usize = self.run(&["node-of", &node]).trim().parse().unwrap();
                if Some(number) != old {
                    return number;
                }
            }
            assert!(
                Instant::now() < deadline,
                "no leader of {queue} other than {old:?} within a minute: {leaders:?}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(Self::script())
            .arg("stop")
            .arg(self.dir.path())
            .env("ARCADE_CLUSTER_BASE_PORT", self.base.to_string())
            .status();
    }
}

fn run_script(dir: &Path, base: u16, args: &[&str]) -> String {
    let (command, rest) = args.split_first().unwrap();
    let output = Command::new(Cluster::script())
        .arg(command)
        .arg(dir)
        .args(rest)
        .env("ARCADE_CLUSTER_BASE_PORT", base.to_string())
        .output()
        .expect("ops/cluster/cluster.sh runs");
    assert!(
        output.status.success(),
        "cluster.sh {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Whether this machine runs the test: broker tests on, and RabbitMQ installed.
fn enabled() -> bool {
    if broker::url().is_none() {
        return false;
    }
    let installed = Path::new("/usr/lib/rabbitmq/bin/rabbitmq-server").exists();
    assert!(
        installed || std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
        "ARCADE_REQUIRE_BROKER=1 but rabbitmq-server is not installed: the cluster test must run"
    );
    if !installed {
        eprintln!("skipped: rabbitmq-server is not installed");
    }
    installed
}

fn assert_exactly_once(state: &TallyState) {
    let expected: BTreeMap<String, u64> = PRODUCERS
        .iter()
        .enumerate()
        .map(|(i, p)| (p.to_string(), (TOTAL + 2 - i as u64) / 3))
        .collect();
    assert!(
        state.applied_twice().is_empty(),
        "applied twice: {:?}",
        state.applied_twice()
    );
    assert_eq!(state.applied.len() as u64, TOTAL, "items lost");
    assert_eq!(state.out_of_order, 0, "items came out of order");
    assert_eq!(state.last, expected);
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

/// One run: the emitter on a connection to node 1 first, the tally to node 2 first (so it
/// declares its queue there: its leader). `faults` runs while items flow: the feeder sends the
/// first `HELD_AFTER` items, then waits for `faults` to release the rest.
async fn stream_through(
    cluster: &Cluster,
    faults: impl AsyncFnOnce(&Cluster, &str, &arcade_runtime::HostHandle<Tally>, &Notify),
) {
    let suffix = broker::random();
    let mut emitter_config = broker::config(&cluster.list_from(1));
    emitter_config.events_exchange = format!("test.events.{suffix}");
    emitter_config.dead_letters = format!("test.dead.{suffix}");
    // Nobody consumes the dead letters: they must outlive the faults to be counted.
    emitter_config.expire_after = Some(Duration::from_secs(900));
    let mut tally_config = emitter_config.clone();
    tally_config.url = cluster.list_from(2);
    let emitter_bus = AmqpBus::new(emitter_config).unwrap();
    let tally_bus = AmqpBus::new(tally_config).unwrap();
    tally_bus.connect_now().await.unwrap();
    emitter_bus.connect_now().await.unwrap();
    let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let tally_runtime = testkit::runtime(Arc::new(tally_bus.clone()), dirs.0.path())
        .with_config(testkit::batches(128, 256));
    let emitter_runtime = testkit::runtime(Arc::new(emitter_bus.clone()), dirs.1.path())
        .with_config(testkit::batches(128, 256));
    let tally_name = format!("tally.{suffix}");
    let tally = tally_runtime
        .start(Tally {
            name: tally_name.clone(),
        })
        .unwrap();
    broker::wait_for_consumer(&cluster.urls[1], &tally_name).await;
    let emitter = emitter_runtime
        .start(Emitter {
            name: format!("emitter.{suffix}"),
        })
        .unwrap();
    let local = emitter.local();
    let release = Arc::new(Notify::new());
    let held = release.clone();
    let feeder = tokio::spawn(async move {
        for k in 0..TOTAL {
            if k == HELD_AFTER {
                held.notified().await;
            }
            let emit = Emit {
                producer: PRODUCERS[(k % 3) as usize].to_string(),
                note: "x".repeat(64),
            };
            if local.send(emit).await.is_err() {
                break;
            }
        }
    });
    faults(cluster, &tally_name, &tally, &release).await;
    // In case the faults did not release it (a permit left over is never taken).
    release.notify_one();
    within("the whole stream", 240, tally.wait_for_events(TOTAL)).await;
    feeder.await.unwrap();
    let host = tally.stop(Duration::from_secs(10)).await.unwrap();
    emitter.stop(Duration::from_secs(10)).await.unwrap();
    assert_exactly_once(host.state());
    let dead = tally_bus.config().dead_letters.clone();
    tally_bus.close().await;
    emitter_bus.close().await;
    assert_eq!(
        depth(&cluster.urls[0], &tally_name).await,
        0,
        "every delivery acked"
    );
    assert_eq!(depth(&cluster.urls[0], &dead).await, 0, "no dead letters");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_faults_of_a_three_node_cluster_lose_nothing() {
    if !enabled() {
        return;
    }
    logs();
    let cluster = Cluster::start();

    // 1. SIGKILL of the node hosting the tally queue's leader, mid-stream; later a restart.
    stream_through(&cluster, async |cluster, queue, tally, release| {
        within("the tally to start", 90, tally.wait_for_events(2_000)).await;
        let leader = cluster.leader_of(queue);
        cluster.run(&["node-kill", &leader.to_string()]);
        release.notify_one();
        // The stream goes on over the two others (a new leader, the clients on another node).
        within(
            "progress without the leader",
            120,
            tally.wait_for_events(5_000),
        )
        .await;
        // A new leader was elected (waits until the API names one other than the dead node).
        cluster.leader_other_than(queue, Some(leader));
        cluster.run(&["node-start", &leader.to_string()]);
    })
    .await;

    // 2. One node stopped gracefully, then another killed: no majority until both are back.
    stream_through(&cluster, async |cluster, queue, tally, release| {
        within("the tally to start", 90, tally.wait_for_events(2_000)).await;
        let leader = cluster.leader_of(queue);
        cluster.run(&["node-stop", &leader.to_string()]);
        within("progress with two nodes", 120, tally.wait_for_events(4_000)).await;
        let other = cluster.leader_other_than(queue, Some(leader));
        // Mid-stream: 4,000 items are still held by the feeder, and go once the node is dead.
        cluster.run(&["node-kill", &other.to_string()]);
        release.notify_one();
        cluster.run(&["node-start", &leader.to_string()]);
        cluster.run(&["node-start", &other.to_string()]);
    })
    .await;
}
