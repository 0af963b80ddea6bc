//! The observability routes of a process, over real HTTP: `/metrics` parsed by Prometheus's own
//! Python parsers (`prometheus_client`: OpenMetrics, and the classic text format) with no
//! error, its counters moving as messages flow, the `process_*` metrics and
//! `arcade_build_info` there, and every metric the Grafana dashboard reads (the dashboard
//! checked as Grafana loads it); and on RabbitMQ through a TCP proxy this test
//! cuts, `/ready` 503 naming the broker while it is away and `/health` 200, the relay backlog
//! growing meanwhile and draining after, both 200 once it is back.

#[path = "support/broker.rs"]
mod broker;
#[path = "support/dashboard.rs"]
mod dashboard;
#[path = "support/proxy.rs"]
mod proxy;

use std::sync::Arc;
use std::time::Duration;

use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit::{self, Emit, Emitter, Tally};
use arcade_runtime::{Bus, HostHandle, Runtime};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// Reads Prometheus text on stdin with both of `prometheus_client`'s parsers; prints every
/// sample of the OpenMetrics parse as JSON.
const PARSE: &str = r#"
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
from prometheus_client.parser import text_string_to_metric_families as classic
text = sys.stdin.read()
list(classic(text))
samples = []
for family in openmetrics(text):
    for s in family.samples:
        samples.append({"name": s.name, "labels": s.labels, "value": s.value, "type": family.type})
print(json.dumps(samples))
"#;

#[derive(Debug)]
struct Metrics(Vec<Value>);

impl Metrics {
    fn get(&self, name: &str, service: &str) -> Option<f64> {
        self.0
            .iter()
            .find(|s| s["name"] == name && s["labels"]["service"] == service)
            .and_then(|s| s["value"].as_f64())
    }

    fn value(&self, name: &str, service: &str) -> f64 {
        self.get(name, service)
            .unwrap_or_else(|| panic!("no sample {name}{{service={service:?}}} in {:?}", self.0))
    }

    fn process(&self, name: &str) -> Option<f64> {
        self.0
            .iter()
            .find(|s| s["name"] == name)
            .and_then(|s| s["value"].as_f64())
    }
}

/// The broker's metrics, which a process on the embedded bus does not have.
const BROKER_METRICS: [&str; 2] = ["arcade_broker_connected", "arcade_broker_reconnects_total"];

/// Every metric an Arcade process exports that the shipped Grafana dashboard reads (the
/// dashboard checked as Grafana loads it first); RabbitMQ's plugin's are not Arcade's.
fn dashboard_metrics() -> std::collections::BTreeSet<String> {
    let board = dashboard::load();
    dashboard::check(&board);
    dashboard::metrics(&board)
        .into_iter()
        .filter(|name| !name.starts_with(dashboard::RABBITMQ_PREFIX))
        .collect()
}

/// Whether python3 with `prometheus_client` is there (CI installs it; elsewhere the test says
/// it is skipped, and fails when `ARCADE_REQUIRE_BROKER=1`).
fn parser_available() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import prometheus_client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
            "python3 with prometheus_client is needed (apt-get install python3-prometheus-client)"
        );
        eprintln!("skipped: python3 with prometheus_client is not available");
    }
    ok
}

fn parse(text: &str) -> Metrics {
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .args(["-c", PARSE])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "Prometheus's parser refused /metrics: {}\n{text}",
        String::from_utf8_lossy(&output.stderr)
    );
    Metrics(serde_json::from_slice::<Vec<Value>>(&output.stdout).unwrap())
}

/// `GET path` over HTTP/1.0: the status and the body.
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {response}"));
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

async fn scrape(addr: std::net::SocketAddr) -> Metrics {
    let (status, body) = get(addr, "/metrics").await;
    assert_eq!(status, 200, "{body}");
    parse(&body)
}

/// Scrapes until `done` holds (at most 60 s; the process gives no signal to wait on).
async fn scrape_until(
    addr: std::net::SocketAddr,
    what: &str,
    done: impl Fn(&Metrics) -> bool,
) -> Metrics {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let metrics = scrape(addr).await;
        if done(&metrics) {
            return metrics;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {metrics:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Asks `path` until it answers `status` (at most 60 s); returns the body.
async fn answer_until(addr: std::net::SocketAddr, path: &str, status: u16) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (got, body) = get(addr, path).await;
        if got == status {
            return body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{path} still answers {got} ({body}), not {status}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

struct Process {
    addr: std::net::SocketAddr,
    emitter: HostHandle<Emitter>,
    tally: HostHandle<Tally>,
    shutdown: CancellationToken,
    runtime: Runtime,
}

async fn start(bus: Arc<dyn Bus>, dir: &std::path::Path, suffix: &str) -> Process {
    let runtime = testkit::runtime(bus, dir).with_config(arcade_runtime::HostConfig {
        snapshots: arcade_runtime::SnapshotPolicy {
            every: 100,
            interval: None,
        },
        ..arcade_runtime::HostConfig::default()
    });
    let tally = runtime
        .start(Tally {
            name: format!("tally.{suffix}"),
        })
        .unwrap();
    let emitter = runtime
        .start(Emitter {
            name: format!("emitter.{suffix}"),
        })
        .unwrap();
    let shutdown = CancellationToken::new();
    let router = arcade_runtime::http::router(runtime.clone(), 1_000);
    let (addr, _) = arcade_runtime::http::serve(
        "127.0.0.1:0".parse().unwrap(),
        "test",
        router,
        shutdown.clone(),
    )
    .await
    .unwrap();
    Process {
        addr,
        emitter,
        tally,
        shutdown,
        runtime,
    }
}

async fn feed(emitter: &HostHandle<Emitter>, count: u64) {
    let local = emitter.local();
    for _ in 0..count {
        let emit = Emit {
            producer: "p".into(),
            note: "x".repeat(32),
        };
        local.send(emit).await.unwrap();
    }
}

impl Process {
    async fn stop(self) {
        self.shutdown.cancel();
        self.emitter.stop(Duration::from_secs(5)).await.unwrap();
        self.tally.stop(Duration::from_secs(5)).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_parse_and_move_as_messages_flow() {
    if !parser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let process = start(bus.clone(), dir.path(), "m").await;
    let (tally, emitter) = ("tally.m", "emitter.m");
    let before = scrape(process.addr).await;
    assert_eq!(before.value("arcade_messages_consumed_total", tally), 0.0);
    assert_eq!(
        before.value("arcade_handle_duration_seconds_count", tally),
        0.0
    );
    assert_eq!(
        before.value("arcade_last_commit_timestamp_seconds", tally),
        0.0
    );
    assert_eq!(before.process("arcade_broker_connected"), None, "no broker");
    assert_eq!(
        before.get("arcade_snapshot_seq", tally),
        None,
        "no snapshot yet"
    );

    feed(&process.emitter, 300).await;
    process.tally.wait_for_events(300).await;
    let after = scrape_until(process.addr, "the tally to ack every item", |m| {
        m.get("arcade_messages_consumed_total", tally) == Some(300.0)
            && m.get("arcade_handle_duration_seconds_count", tally) == Some(300.0)
            && m.get("arcade_consumer_lag_messages", tally) == Some(0.0)
    })
    .await;
    assert_eq!(
        after.value("arcade_messages_published_total", emitter),
        300.0
    );
    assert_eq!(after.value("arcade_events_appended_total", emitter), 300.0);
    assert_eq!(after.value("arcade_events_appended_total", tally), 300.0);
    assert_eq!(after.value("arcade_relay_backlog_messages", emitter), 0.0);
    assert_eq!(after.value("arcade_inbox_keys", tally), 300.0);
    assert_eq!(
        after.value("arcade_messages_deduplicated_total", tally),
        0.0
    );
    assert_eq!(after.value("arcade_consuming", tally), 1.0);
    assert!(after.value("arcade_batch_size_count", tally) >= 1.0);
    assert_eq!(after.value("arcade_batch_size_sum", tally), 300.0);
    let committed = after.value("arcade_last_commit_timestamp_seconds", tally);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        (now - committed).abs() < 120.0,
        "last commit {committed}, now {now}"
    );
    for metric in dashboard_metrics() {
        assert!(
            BROKER_METRICS.contains(&metric.as_str())
                || after.0.iter().any(|s| s["name"] == *metric),
            "ops/grafana/arcade.json plots {metric}, which /metrics does not export"
        );
    }
    // The process metrics of the Prometheus client conventions, and the build.
    for name in [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_virtual_memory_bytes",
        "process_open_fds",
        "process_max_fds",
        "process_start_time_seconds",
    ] {
        let sample = after
            .0
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in /metrics"));
        let value = sample["value"].as_f64().unwrap();
        assert!(value >= 0.0, "{name} = {value}");
        let kind = if name.ends_with("_total") {
            "counter"
        } else {
            "gauge"
        };
        assert_eq!(sample["type"], kind, "{name}");
    }
    assert!(after.process("process_resident_memory_bytes").unwrap() > 1e6);
    let started = after.process("process_start_time_seconds").unwrap();
    assert!(
        (now - started) >= 0.0 && (now - started) < 3600.0,
        "started {started}, now {now}"
    );
    let build = after
        .0
        .iter()
        .find(|s| s["name"] == "arcade_build_info")
        .expect("arcade_build_info in /metrics");
    assert_eq!(build["value"], 1.0);
    assert_eq!(build["labels"]["version"], env!("CARGO_PKG_VERSION"));
    let commit = build["labels"]["commit"].as_str().unwrap();
    assert!(
        commit == "unknown" || (commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "commit {commit:?}"
    );
    // Snapshots every 100 entries: the tally's newest covers at least entry 100, and is fresh.
    let first = scrape_until(process.addr, "a first snapshot", |m| {
        m.get("arcade_snapshot_seq", tally)
            .is_some_and(|s| s >= 100.0)
    })
    .await;
    let age = first.value("arcade_snapshot_age_seconds", tally);
    assert!((0.0..120.0).contains(&age), "snapshot age {age}");
    let seq = first.value("arcade_snapshot_seq", tally);
    feed(&process.emitter, 300).await;
    process.tally.wait_for_events(600).await;
    scrape_until(process.addr, "a newer snapshot", |m| {
        m.get("arcade_snapshot_seq", tally)
            .is_some_and(|s| s >= seq + 100.0)
    })
    .await;
    let (status, body) = get(process.addr, "/ready").await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = get(process.addr, "/health").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""status":"ok""#), "{body}");
    process.stop().await;
    bus.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_and_backlog_follow_the_broker() {
    let Some(url) = broker::url() else { return };
    if !parser_available() {
        return;
    }
    assert!(url.starts_with("amqp://"), "the proxy test needs amqp://");
    let proxy = proxy::Proxy::start(proxy::upstream(&url), true).await;
    let bus = AmqpBus::new(broker::config(&proxy.url(&url))).unwrap();
    bus.connect_now().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let suffix = broker::random();
    let process = start(Arc::new(bus.clone()), dir.path(), &suffix).await;
    let (tally, emitter) = (format!("tally.{suffix}"), format!("emitter.{suffix}"));
    answer_until(process.addr, "/ready", 200).await;
    feed(&process.emitter, 50).await;
    scrape_until(process.addr, "the first items", |m| {
        m.get("arcade_messages_consumed_total", &tally) == Some(50.0)
            && m.get("arcade_relay_backlog_messages", &emitter) == Some(0.0)
    })
    .await;

    proxy.set_open(false);
    proxy.cut();
    let body = answer_until(process.addr, "/ready", 503).await;
    let readiness: Value = serde_json::from_str(&body).unwrap();
    let broker_failure = readiness["failing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "broker")
        .unwrap_or_else(|| panic!("/ready does not name the broker: {body}"));
    let reason = broker_failure["reason"].as_str().unwrap();
    assert!(reason.contains(&proxy.addr.to_string()), "{reason}");
    assert!(
        !reason.contains("guest:guest"),
        "no password in /ready: {reason}"
    );
    let (status, body) = get(process.addr, "/health").await;
    assert_eq!(status, 200, "/health while the broker is away: {body}");

    feed(&process.emitter, 200).await;
    let away = scrape_until(process.addr, "the backlog to grow", |m| {
        m.get("arcade_relay_backlog_messages", &emitter) == Some(200.0)
    })
    .await;
    assert_eq!(away.process("arcade_broker_connected"), Some(0.0));

    proxy.set_open(true);
    answer_until(process.addr, "/ready", 200).await;
    let back = scrape_until(process.addr, "the backlog to drain", |m| {
        m.get("arcade_relay_backlog_messages", &emitter) == Some(0.0)
            && m.get("arcade_events_appended_total", &tally) == Some(250.0)
    })
    .await;
    assert_eq!(back.process("arcade_broker_connected"), Some(1.0));
    for metric in BROKER_METRICS {
        assert!(
            dashboard_metrics().contains(metric),
            "the dashboard shows {metric}"
        );
    }
    assert!(back.process("arcade_broker_reconnects_total").unwrap() >= 1.0);
    assert_eq!(
        back.value("arcade_messages_published_total", &emitter),
        250.0
    );
    let (status, _) = get(process.addr, "/health").await;
    assert_eq!(status, 200);
    process.stop().await;
    bus.close().await;
}

/// On RabbitMQ the consumer lag is the broker's own count of a service queue's ready messages,
/// asked by a passive declare: it grows while nothing consumes the queue, and falls back to 0
/// once a consumer drains it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumer_lag_is_the_brokers_count_of_the_queue() {
    let Some(url) = broker::url() else { return };
    if !parser_available() {
        return;
    }
    let mut config = broker::config(&url);
    config.lag_interval = Duration::from_millis(200);
    let bus = AmqpBus::new(config).unwrap();
    bus.connect_now().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let suffix = broker::random();
    let process = start(Arc::new(bus.clone()), dir.path(), &suffix).await;
    let tally = format!("tally.{suffix}");
    let lag = |m: &Metrics| {
        m.0.iter()
            .find(|s| {
                s["name"] == "arcade_consumer_lag_messages"
                    && s["labels"]["service"] == tally.as_str()
            })
            .map(|s| {
                assert_eq!(s["labels"]["queue"], tally.as_str(), "{s}");
                s["value"].as_f64().unwrap()
            })
    };
    answer_until(process.addr, "/ready", 200).await;
    feed(&process.emitter, 20).await;
    within("the first items", process.tally.wait_for_events(20)).await;
    scrape_until(process.addr, "a lag of 0 once the tally is idle", |m| {
        lag(m) == Some(0.0)
    })
    .await;

    // Nothing consumes the tally's queue now: what the emitter publishes waits in it.
    let Process {
        addr,
        emitter,
        tally: host,
        shutdown,
        runtime,
    } = process;
    let stopped = within("the tally to stop", host.stop(Duration::from_secs(5)))
        .await
        .unwrap();
    drop(stopped);
    within("the emitter to take 150 items", feed(&emitter, 150)).await;
    scrape_until(addr, "the lag to count the 150 waiting messages", |m| {
        lag(m) == Some(150.0)
    })
    .await;

    // A consumer again: the queue drains and the lag falls to 0.
    let again = runtime
        .start(Tally {
            name: tally.clone(),
        })
        .unwrap();
    within("the tally to catch up", again.wait_for_events(170)).await;
    scrape_until(addr, "the lag to fall back to 0", |m| lag(m) == Some(0.0)).await;
    shutdown.cancel();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    again.stop(Duration::from_secs(5)).await.unwrap();
    bus.close().await;
}

/// `future`, or a failure naming `what` after 60 s.
async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}
