//! One game across the table referee and bingo is one trace, after the OpenTelemetry messaging
//! semantic conventions, as a real OTLP/HTTP receiver decodes it: the sender's producer span
//! `publish arcade.commands` of the game's start (the trace's root), the referee's consumer span
//! of it, a producer span `publish <exchange>` for each goal it publishes (child
//! of that span: goals come from the table's sensors and join the game's trace), and bingo's
//! consumer span `process table.goal.scored.v1` of each goal, child of its producer span; every
//! span with the attributes operators filter on. On the embedded bus, and on RabbitMQ
//! (`ARCADE_AMQP_URL`) on a private topology.
//!
//! The process's telemetry is global: both tests share one exporter and one receiver, and
//! tell their games apart by correlation id.

#[path = "../../runtime/tests/support/broker.rs"]
mod broker;
#[path = "support/otlp.rs"]
mod otlp;

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use arcade_bingo::{Binder, BingoService, Secret};
use arcade_contracts::bingo::QUEUE as BINGO_QUEUE;
use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::bus::{BrokerStatus, Confirms, Consumer};
use arcade_runtime::telemetry::{self, Export, Protocol, Telemetry, TelemetryConfig};
use arcade_runtime::testkit;
use arcade_runtime::{
    Bus, BusError, Destination, Publication, SubscriptionSpec, inbound::lossy_envelope,
};
use clap::Parser;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use serde_json::json;

const RULES: &str = include_str!("../../referee/examples/bar.rules.json");
const GOALS: usize = 5;

struct Harness {
    spans: otlp::Spans,
    telemetry: Telemetry,
}

/// The receiver (on a thread of its own, outliving each test's runtime) and the telemetry
/// exporting to it.
fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let receiver = otlp::http().await;
                tx.send((receiver.addr, receiver.spans.clone())).unwrap();
                std::future::pending::<()>().await
            });
        });
        let (addr, spans) = rx.recv().unwrap();
        let telemetry = telemetry::init_with(TelemetryConfig {
            service_name: "arcade".into(),
            export: Some(Export {
                endpoint: format!("http://{addr}/v1/traces"),
                protocol: Protocol::HttpProtobuf,
            }),
            log_filter: std::env::var("RUST_LOG").ok(),
            default_logs: "off",
            log_format: telemetry::LogFormat::Text,
        })
        .unwrap();
        Harness { spans, telemetry }
    })
}

#[derive(Debug, Parser)]
struct Table {
    #[command(flatten)]
    settings: arcade_referee::settings::TableSettings,
}

/// What a game left: its correlation id, the referee's name and queue, bingo's queue.
struct Game {
    correlation: String,
    commands: String,
    referee: String,
    referee_queue: String,
    bingo_queue: String,
}

/// A bingo game mapping the referee's goals, then a table game won 5–0 by its sensors.
async fn play(bus: Arc<dyn Bus>, dir: &std::path::Path, queue_of: impl Fn(&str) -> String) -> Game {
    let runtime = testkit::runtime(bus, dir);
    let secret = Secret::new(*b"observability-test-bingo-secret").unwrap();
    let (binder, mut bound) = Binder::spawn(runtime.bus().clone(), BINGO_QUEUE);
    let bingo = runtime
        .start(BingoService::new(&secret).with_binder(binder))
        .unwrap();
    let table_id = format!("obs-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    let table = Table::try_parse_from([
        "test",
        "--table",
        &table_id,
        "--sim-balls",
        "hinge,hinge,hinge,hinge,hinge",
        "--sensor-poll-ms",
        "20",
    ])
    .unwrap();
    let referee = arcade_referee::settings::launch(&runtime, &table.settings).unwrap();
    let referee_name = referee.name().to_string();
    for mut subscribed in [referee.subscribed(), bingo.subscribed()] {
        within("the services to subscribe", subscribed.wait_for(|s| *s))
            .await
            .unwrap();
    }
    let mut finished = runtime
        .bus()
        .subscribe(&SubscriptionSpec::temporary(
            format!("obs.tap.{}", uuid::Uuid::new_v4().simple()),
            vec!["table.game.finished.v1".into()],
        ))
        .await
        .unwrap();

    let pool: Vec<_> = (1..=8)
        .map(|i| json!({"id": i, "label": format!("goal {i}"), "trigger": {"verb": "table.goal"}}))
        .collect();
    let bingo_game = format!("obs-party-{table_id}");
    runtime
        .send(
            "bingo.game.open.v1",
            json!({"gameId": bingo_game, "grid": {"size": 3}, "pool": pool,
                   "patterns": [{"kind": "line"}],
                   "activitySources": [{"messageType": "table.goal.scored.v1", "verb": "table.goal",
                                        "memberField": "/side", "objectField": "/tableId"}]}),
            "obs-test",
        )
        .await
        .unwrap();
    within(
        "bingo to bind the referee's goals",
        bound.wait_for(|types: &BTreeSet<String>| types.contains("table.goal.scored.v1")),
    )
    .await
    .unwrap();

    let game_id = format!("{table_id}-game");
    let rules: serde_json::Value = serde_json::from_str(RULES).unwrap();
    let start = runtime
        .send(
            "table.game.start.v1",
            json!({"tableId": table_id, "gameId": game_id, "rules": rules,
                   "players": {"hinge": ["alice"], "lock": ["bob"]}}),
            "obs-test",
        )
        .await
        .unwrap();
    loop {
        let delivery = within("the game to finish", finished.next()).await.unwrap();
        let envelope = lossy_envelope(&delivery.message);
        delivery.ack().await.unwrap();
        if envelope.payload["gameId"] == game_id.as_str() {
            assert_eq!(envelope.payload["winner"], "hinge");
            break;
        }
    }
    drop(finished);
    // Bingo has the goals once its consumer spans are exported; then stop.
    wait_for_bingo_spans(&start.correlation_id).await;
    referee.stop_boxed(Duration::from_secs(5)).await.unwrap();
    bingo.stop(Duration::from_secs(5)).await.unwrap();
    Game {
        correlation: start.correlation_id,
        commands: runtime.bus().commands_exchange().to_string(),
        referee_queue: queue_of(&referee_name),
        referee: referee_name,
        bingo_queue: queue_of(BINGO_QUEUE),
    }
}

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

fn bingo_goal_spans(spans: &[otlp::Received], correlation: &str) -> usize {
    spans
        .iter()
        .filter(|s| s.name() == "process table.goal.scored.v1")
        .filter(|s| s.attribute("arcade.service").as_deref() == Some("bingo"))
        .filter(|s| {
            s.attribute("messaging.message.conversation_id").as_deref() == Some(correlation)
        })
        .count()
}

async fn wait_for_bingo_spans(correlation: &str) {
    let harness = harness();
    for _ in 0..120 {
        flush().await;
        let spans = harness
            .spans
            .wait_until(Duration::from_millis(500), |spans| {
                bingo_goal_spans(spans, correlation) >= GOALS
            })
            .await;
        if bingo_goal_spans(&spans, correlation) >= GOALS {
            return;
        }
    }
    panic!("bingo's consumer spans of the {GOALS} goals were not exported within 60 s");
}

async fn flush() {
    tokio::task::spawn_blocking(|| harness().telemetry.flush())
        .await
        .unwrap();
}

fn attr(span: &otlp::Received, key: &str) -> String {
    span.attribute(key).unwrap_or_else(|| {
        panic!(
            "{} has no attribute {key}: {:?}",
            span.name(),
            span.span.attributes
        )
    })
}

/// The trace of `game` as the receiver has it, checked link by link.
async fn check_trace(game: &Game, system: &str, exchange: &str) {
    flush().await;
    let spans: Vec<otlp::Received> = harness()
        .spans
        .all()
        .into_iter()
        .filter(|s| {
            s.attribute("messaging.message.conversation_id").as_deref() == Some(&game.correlation)
        })
        .collect();
    let traces: BTreeSet<String> = spans.iter().map(|s| s.trace_id()).collect();
    assert_eq!(traces.len(), 1, "one game, one trace: {traces:?}");
    for span in &spans {
        assert_eq!(
            span.service_name, "arcade",
            "a process hosting several services is `arcade`"
        );
        assert_eq!(attr(span, "messaging.system"), system);
    }
    let by_id = |id: &str| spans.iter().find(|s| s.span_id() == id);

    let starts: Vec<&otlp::Received> = spans
        .iter()
        .filter(|s| s.name() == "process table.game.start.v1")
        .collect();
    assert_eq!(starts.len(), 1, "the referee handled the start once");
    let start = starts[0];
    assert_eq!(start.span.kind, SpanKind::Consumer as i32);
    assert_eq!(attr(start, "arcade.service"), game.referee);
    assert_eq!(
        attr(start, "messaging.consumer.group.name"),
        game.referee_queue
    );
    assert_eq!(
        attr(start, "messaging.destination.name"),
        game.commands,
        "a command goes to its queue through the commands exchange"
    );
    assert_eq!(
        attr(start, "messaging.rabbitmq.destination.routing_key"),
        game.referee_queue
    );
    assert_eq!(attr(start, "messaging.operation.type"), "process");
    let sent = by_id(&start.parent_id())
        .expect("the parent of the start's span, the sender's producer span, is in the trace");
    assert_eq!(sent.name(), format!("publish {}", game.commands));
    assert_eq!(sent.span.kind, SpanKind::Producer as i32);
    assert_eq!(attr(sent, "messaging.destination.name"), game.commands);
    assert_eq!(
        attr(sent, "messaging.rabbitmq.destination.routing_key"),
        game.referee,
        "a command's routing key is its queue"
    );
    assert_eq!(attr(sent, "arcade.service"), "obs-test");
    assert!(
        sent.parent_id().is_empty(),
        "the organiser's command is the trace's root"
    );

    let goals: Vec<&otlp::Received> = spans
        .iter()
        .filter(|s| s.name() == "process table.goal.scored.v1")
        .filter(|s| s.attribute("arcade.service").as_deref() == Some("bingo"))
        .collect();
    let ids: BTreeSet<String> = goals
        .iter()
        .map(|s| attr(s, "messaging.message.id"))
        .collect();
    assert_eq!(ids.len(), GOALS, "bingo handled each goal");
    for goal in goals {
        assert_eq!(goal.span.kind, SpanKind::Consumer as i32);
        assert_eq!(attr(goal, "messaging.destination.name"), exchange);
        assert_eq!(
            attr(goal, "messaging.rabbitmq.destination.routing_key"),
            "table.goal.scored.v1"
        );
        assert_eq!(
            attr(goal, "messaging.consumer.group.name"),
            game.bingo_queue
        );
        assert_eq!(attr(goal, "messaging.operation.type"), "process");
        assert_eq!(attr(goal, "messaging.operation.name"), "process");
        let producer = by_id(&goal.parent_id()).unwrap_or_else(|| {
            panic!(
                "the parent of bingo's span is not in the game's trace: {}",
                goal.parent_id()
            )
        });
        assert_eq!(producer.name(), format!("publish {exchange}"));
        assert_eq!(producer.span.kind, SpanKind::Producer as i32);
        assert_eq!(
            attr(producer, "messaging.message.id"),
            attr(goal, "messaging.message.id")
        );
        assert_eq!(attr(producer, "messaging.destination.name"), exchange);
        assert_eq!(
            attr(producer, "messaging.rabbitmq.destination.routing_key"),
            "table.goal.scored.v1"
        );
        assert_eq!(attr(producer, "messaging.operation.type"), "send");
        assert_eq!(attr(producer, "messaging.operation.name"), "publish");
        assert_eq!(attr(producer, "arcade.service"), game.referee);
        assert_eq!(
            producer.parent_id(),
            start.span_id(),
            "a goal from the table's sensors is published in the game's trace"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_game_is_one_trace_on_the_embedded_bus() {
    harness();
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let game = play(bus.clone(), dir.path(), str::to_string).await;
    bus.close().await.unwrap();
    check_trace(&game, "arcade.embedded", "arcade.events").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_game_is_one_trace_on_rabbitmq() {
    let Some(url) = broker::url() else { return };
    harness();
    let config = broker::config(&url);
    let exchange = config.events_exchange.clone();
    let amqp = AmqpBus::new(config).unwrap();
    amqp.connect_now().await.unwrap();
    let bus = Arc::new(Private {
        prefix: format!("obs.{}.", broker::random()),
        inner: amqp.clone(),
    });
    let prefix = bus.prefix.clone();
    let dir = tempfile::tempdir().unwrap();
    let game = play(bus, dir.path(), |queue| format!("{prefix}{queue}")).await;
    amqp.close().await;
    check_trace(&game, "rabbitmq", &exchange).await;
}

/// RabbitMQ with every queue name prefixed: the services' fixed queues (`bingo`) are this
/// test's own on a shared broker.
struct Private {
    inner: AmqpBus,
    prefix: String,
}

impl Private {
    fn rename(&self, messages: &[Publication]) -> Vec<Publication> {
        messages
            .iter()
            .map(|p| Publication {
                destination: match &p.destination {
                    Destination::Topic => Destination::Topic,
                    Destination::Queue(q) => Destination::Queue(format!("{}{q}", self.prefix)),
                },
                message: p.message.clone(),
            })
            .collect()
    }
}

#[async_trait::async_trait]
impl Bus for Private {
    async fn publish(
        &self,
        messages: &[Publication],
    ) -> Result<arcade_runtime::Published, BusError> {
        self.inner.publish(&self.rename(messages)).await
    }

    async fn start_publish(&self, messages: &[Publication]) -> Result<Confirms, BusError> {
        self.inner.start_publish(&self.rename(messages)).await
    }

    fn publish_window(&self) -> usize {
        self.inner.publish_window()
    }

    async fn subscribe(&self, spec: &SubscriptionSpec) -> Result<Box<dyn Consumer>, BusError> {
        let mut spec = spec.clone();
        spec.queue = format!("{}{}", self.prefix, spec.queue);
        self.inner.subscribe(&spec).await
    }

    fn declare_now(&self, spec: &SubscriptionSpec) -> Result<bool, BusError> {
        let mut spec = spec.clone();
        spec.queue = format!("{}{}", self.prefix, spec.queue);
        self.inner.declare_now(&spec)
    }

    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn events_exchange(&self) -> &str {
        self.inner.events_exchange()
    }

    fn commands_exchange(&self) -> &str {
        self.inner.commands_exchange()
    }

    fn broker_status(&self) -> Option<BrokerStatus> {
        self.inner.broker_status()
    }
}
