//! Interop with producers and consumers that know nothing of Rust: a plain AMQP client that
//! sends only a `type` header and a JSON body (as Symfony Messenger's interop serializer does)
//! is consumed, and deduplicated when it sends the same message twice; a message Arcade
//! publishes carries every property and header DESIGN.md lists.

#[path = "support/broker.rs"]
mod broker;

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::testkit::{self, Emit, Emitter, ItemEmitted, ItemTallied, Tally};
use futures::StreamExt;
use lapin::options::{BasicAckOptions, BasicPublishOptions, ConfirmSelectOptions};
use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};
use lapin::{BasicProperties, Connection, ConnectionProperties};

fn header<'a>(properties: &'a BasicProperties, key: &str) -> Option<&'a AMQPValue> {
    properties
        .headers()
        .as_ref()
        .and_then(|h| h.inner().get(key))
}

fn header_text(properties: &BasicProperties, key: &str) -> Option<String> {
    match header(properties, key)? {
        AMQPValue::LongString(s) => Some(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        AMQPValue::ShortString(s) => Some(s.as_str().to_string()),
        _ => None,
    }
}

fn text(value: &Option<ShortString>) -> Option<&str> {
    value.as_ref().map(|s| s.as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bare_type_header_message_is_consumed_once_even_sent_twice() {
    let Some(url) = broker::url() else { return };
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    let exchange = bus.config().events_exchange.clone();
    let dir = tempfile::tempdir().unwrap();
    let runtime =
        testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(testkit::batches(64, 64));
    let name = format!("tally.{}", broker::random());
    let tally = runtime.start(Tally { name: name.clone() }).unwrap();

    broker::wait_for_consumer(&url, &name).await;
    let connection = Connection::connect(&url, ConnectionProperties::default())
        .await
        .unwrap();
    let channel = connection.create_channel().await.unwrap();
    channel
        .confirm_select(ConfirmSelectOptions::default())
        .await
        .unwrap();

    let body = br#"{"producer":"php","n":1}"#;
    for _ in 0..2 {
        let mut headers = FieldTable::default();
        headers.insert(
            "type".into(),
            AMQPValue::LongString(LongString::from(ItemEmitted::TYPE)),
        );
        let confirm = channel
            .basic_publish(
                exchange.clone().into(),
                ItemEmitted::TYPE.into(),
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

    tokio::time::timeout(Duration::from_secs(20), tally.wait_for_events(1))
        .await
        .expect("the tally applied the bare message");
    let counters = runtime.metrics().service(&name);
    tokio::time::timeout(Duration::from_secs(20), async {
        while counters
            .deduplicated
            .load(std::sync::atomic::Ordering::SeqCst)
            < 1
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the second copy was deduplicated");
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    assert_eq!(host.state().applied.len(), 1);
    assert_eq!(
        host.state().applied.get(&("php".to_string(), 1)),
        Some(&1),
        "applied exactly once"
    );
    assert_eq!(
        counters
            .dead_lettered
            .load(std::sync::atomic::Ordering::SeqCst),
        0
    );
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_arcade_publishes_carries_every_property_and_header() {
    let Some(url) = broker::url() else { return };
    // A tracer, so handled messages carry a W3C traceparent.
    let _telemetry = arcade_runtime::telemetry::init("amqp-interop");
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    bus.connect_now().await.unwrap();
    let exchange = bus.config().events_exchange.clone();

    // A non-Rust consumer's queue, bound to what the tally publishes.
    let connection = Connection::connect(&url, ConnectionProperties::default())
        .await
        .unwrap();
    let (_channel, mut deliveries) = broker::observe(
        &connection,
        &exchange,
        &[ItemEmitted::TYPE, ItemTallied::TYPE],
    )
    .await;

    let dir = tempfile::tempdir().unwrap();
    let runtime =
        testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(testkit::batches(64, 64));
    let tally_name = format!("tally.{}", broker::random());
    let emitter_name = format!("emitter.{}", broker::random());
    let tally = runtime
        .start(Tally {
            name: tally_name.clone(),
        })
        .unwrap();
    broker::wait_for_consumer(&url, &tally_name).await;
    let emitter = runtime
        .start(Emitter {
            name: emitter_name.clone(),
        })
        .unwrap();
    emitter
        .local()
        .send(Emit {
            producer: "p".into(),
            note: String::new(),
        })
        .await
        .unwrap();

    let mut item = None;
    let mut tallied = None;
    while item.is_none() || tallied.is_none() {
        let delivery = tokio::time::timeout(Duration::from_secs(20), deliveries.next())
            .await
            .expect("both messages observed")
            .unwrap()
            .unwrap();
        delivery.ack(BasicAckOptions::default()).await.unwrap();
        match text(delivery.properties.kind()) {
            Some(ItemEmitted::TYPE) => item = Some(delivery),
            Some(ItemTallied::TYPE) => tallied = Some(delivery),
            other => panic!("unexpected type {other:?}"),
        }
    }
    let (item, tallied) = (item.unwrap(), tallied.unwrap());

    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for (delivery, message_type, producer) in [
        (&item, ItemEmitted::TYPE, &emitter_name),
        (&tallied, ItemTallied::TYPE, &tally_name),
    ] {
        let p = &delivery.properties;
        let id = text(p.message_id()).expect("message_id");
        let uuid = uuid::Uuid::parse_str(id).expect("message_id is a UUID");
        assert_eq!(uuid.get_version_num(), 7, "message_id is a UUIDv7");
        assert!(text(p.correlation_id()).is_some(), "correlation_id");
        assert_eq!(text(p.kind()), Some(message_type), "type property");
        assert_eq!(
            header_text(p, "type").as_deref(),
            Some(message_type),
            "type header"
        );
        assert_eq!(text(p.app_id()), Some(producer.as_str()), "app_id");
        let timestamp = p.timestamp().expect("timestamp");
        assert!(
            timestamp.abs_diff(now) < 120,
            "timestamp {timestamp} near {now}"
        );
        assert_eq!(
            text(p.content_type()),
            Some("application/json"),
            "content_type"
        );
        assert_eq!(*p.delivery_mode(), Some(2), "delivery_mode persistent");
        let occurred_at = header_text(p, "occurred_at").expect("occurred_at header");
        let parsed = chrono::DateTime::parse_from_rfc3339(&occurred_at).expect("RFC 3339");
        assert_eq!(
            occurred_at.len(),
            "2026-11-29T15:30:12.123Z".len(),
            "milliseconds: {occurred_at}"
        );
        assert_eq!(u64::try_from(parsed.timestamp()).unwrap(), timestamp);
        let body: serde_json::Value = serde_json::from_slice(&delivery.data).expect("JSON body");
        assert_eq!(body["producer"], "p", "the body is the payload only");
        assert!(body.get("message_id").is_none() && body.get("payload").is_none());
    }
    // The flow: the tally's event is caused by the item and inherits its correlation.
    let item_id = text(item.properties.message_id()).unwrap();
    assert_eq!(
        text(item.properties.correlation_id()),
        Some(item_id),
        "a flow's first message is its own correlation"
    );
    assert_eq!(header(&item.properties, "causation_id"), None);
    assert_eq!(
        header_text(&tallied.properties, "causation_id").as_deref(),
        Some(item_id)
    );
    assert_eq!(text(tallied.properties.correlation_id()), Some(item_id));
    assert_ne!(text(tallied.properties.message_id()), Some(item_id));
    let traceparent = header_text(&tallied.properties, "traceparent").expect("traceparent");
    let parts: Vec<&str> = traceparent.split('-').collect();
    assert_eq!(parts.len(), 4, "W3C traceparent: {traceparent}");
    assert_eq!((parts[0], parts[1].len(), parts[2].len()), ("00", 32, 16));

    emitter.stop(Duration::from_secs(5)).await.unwrap();
    tally.stop(Duration::from_secs(5)).await.unwrap();
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}
