//! The telemetry on RabbitMQ, fed by a plain AMQP client that knows nothing of Rust and sends
//! only a `type` header and a JSON body (as Symfony Messenger's interop serializer does): a v1
//! session is still consumed now that v2 exists, a resend of the same body is absorbed, and the
//! same session sent again as v2 is counted once, as a duplicate.

#[path = "../../runtime/tests/support/broker.rs"]
mod broker;

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::game::{GameSessionCompleted, GameSessionCompletedV2};
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::strata::Stage;
use arcade_puzzle_telemetry::service::TelemetryService;
use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::testkit;
use lapin::options::{BasicPublishOptions, ConfirmSelectOptions};
use lapin::types::{AMQPValue, FieldTable, LongString};
use lapin::{BasicProperties, Connection, ConnectionProperties};

async fn publish_bare(channel: &lapin::Channel, exchange: &str, message_type: &str, body: &[u8]) {
    let mut headers = FieldTable::default();
    headers.insert(
        "type".into(),
        AMQPValue::LongString(LongString::from(message_type)),
    );
    let confirm = channel
        .basic_publish(
            exchange.to_string().into(),
            message_type.to_string().into(),
            BasicPublishOptions::default(),
            body,
            BasicProperties::default().with_headers(headers),
        )
        .await
        .unwrap()
        .await
        .unwrap();
    assert!(confirm.is_ack());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bare_v1_session_is_consumed_and_its_v2_copy_counted_once() {
    let Some(url) = broker::url() else { return };
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    let exchange = bus.config().events_exchange.clone();
    let dir = tempfile::tempdir().unwrap();
    let runtime = testkit::runtime(Arc::new(bus.clone()), dir.path());
    let name = format!("puzzle-telemetry.{}", broker::random());
    let service = TelemetryService::named(name.clone(), 60_000);
    let live = service.live();
    let host = runtime.start(service).unwrap();
    broker::wait_for_consumer(&url, &name).await;

    let connection = Connection::connect(&url, ConnectionProperties::default())
        .await
        .unwrap();
    let channel = connection.create_channel().await.unwrap();
    channel
        .confirm_select(ConfirmSelectOptions::default())
        .await
        .unwrap();
    let played = Simulator::new(8).play(Some(Stage::new(4).unwrap()));
    let v1 = serde_json::to_vec(&played.v1).unwrap();
    let v2 = serde_json::to_vec(&played.v2("strata-web 2.4.1")).unwrap();
    publish_bare(&channel, &exchange, GameSessionCompleted::TYPE, &v1).await;
    publish_bare(&channel, &exchange, GameSessionCompleted::TYPE, &v1).await;
    publish_bare(&channel, &exchange, GameSessionCompletedV2::TYPE, &v2).await;

    let counters = runtime.metrics().service(&name);
    tokio::time::timeout(Duration::from_secs(30), async {
        while counters.consumed.load(std::sync::atomic::Ordering::SeqCst) < 3 || live.counted() < 1
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the three deliveries consumed and the session counted");
    let host = host.stop(Duration::from_secs(5)).await.unwrap();
    let stage = host.state().stats().stage(Stage::new(4).unwrap()).clone();
    assert_eq!(stage.sessions + stage.flagged, 1, "{stage:?}");
    assert_eq!(stage.flagged, 0, "an honest session");
    assert_eq!((stage.v1, stage.v2, stage.verified), (1, 0, 0));
    let snapshot = counters.snapshot();
    assert_eq!(
        snapshot.deduplicated, 2,
        "the resent body and the v2 copy: {snapshot:?}"
    );
    assert_eq!(snapshot.dead_lettered, 0);
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}
