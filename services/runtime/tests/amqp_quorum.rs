//! Quorum queues on RabbitMQ: service queues are declared as quorum queues with no argument but
//! their type and single active consumer (the broker's policy gives the rest), a queue an
//! earlier release declared with its settings as arguments is used as it is (a classic declare
//! over one is refused by the broker), a message requeued past its delivery limit ends in the
//! dead letters, a queue of the other type is refused with what to do, and the classic setting
//! keeps classic queues.

#[path = "support/broker.rs"]
mod broker;

use std::time::Duration;

use arcade_runtime::bus::amqp::topology::{DELIVERY_LIMIT, durable_arguments, earlier_arguments};
use arcade_runtime::bus::amqp::{AmqpBus, QueueType};
use arcade_runtime::{Bus, BusError, Destination, Publication, SubscriptionSpec, WireMessage};
use lapin::options::{BasicGetOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable, LongString};
use lapin::{Connection, ConnectionProperties};

async fn raw(url: &str) -> Connection {
    Connection::connect(url, ConnectionProperties::default())
        .await
        .expect("RabbitMQ at ARCADE_AMQP_URL answers")
}

/// Declares `queue` durable with only `x-queue-type: kind` (and a 30 s expiry), as a client
/// that does not know Arcade's arguments would.
async fn declare_raw(connection: &Connection, queue: &str, kind: &str) -> Result<(), lapin::Error> {
    let channel = connection.create_channel().await.unwrap();
    let mut arguments = FieldTable::default();
    arguments.insert("x-expires".into(), AMQPValue::LongLongInt(30_000));
    arguments.insert(
        "x-queue-type".into(),
        AMQPValue::LongString(LongString::from(kind.to_string())),
    );
    channel
        .queue_declare(
            queue.into(),
            QueueDeclareOptions {
                durable: true,
                ..QueueDeclareOptions::default()
            },
            arguments,
        )
        .await
        .map(|_| ())
}

/// Declares `queue` durable with `arguments`, on a channel of its own.
async fn declare_with(
    connection: &Connection,
    queue: &str,
    arguments: FieldTable,
) -> Result<(), lapin::Error> {
    let channel = connection.create_channel().await.unwrap();
    let options = QueueDeclareOptions {
        durable: true,
        ..QueueDeclareOptions::default()
    };
    channel
        .queue_declare(queue.into(), options, arguments)
        .await
        .map(|_| ())
}

fn config_of(bus: &AmqpBus) -> arcade_runtime::bus::amqp::AmqpConfig {
    bus.config().clone()
}

fn command(queue: &str, id: &str) -> Publication {
    Publication {
        destination: Destination::Queue(queue.to_string()),
        message: WireMessage {
            message_type: Some("test.item.emit.v1".into()),
            message_id: Some(id.to_string()),
            app_id: Some("test".into()),
            body: br#"{"n":1}"#.to_vec(),
            ..Default::default()
        },
    }
}

#[tokio::test]
async fn service_queues_are_quorum_queues_and_an_earlier_release_s_keep_their_delivery_limit() {
    let Some(url) = broker::url() else { return };
    let config = broker::config(&url);
    let dead = config.dead_letters.clone();
    let expiry = config.expire_after;
    let bus = AmqpBus::new(config).unwrap();
    let connection = raw(&url).await;

    // A queue of this release: its type and single active consumer, nothing the policy gives.
    let fresh = format!("test.quorum.{}", broker::random());
    bus.declare(&SubscriptionSpec::durable(fresh.clone(), vec![]))
        .await
        .unwrap();
    let minimal = durable_arguments(QueueType::Quorum, Some(&dead), expiry);
    declare_with(&connection, &fresh, minimal).await.unwrap();
    let earlier = earlier_arguments(QueueType::Quorum, Some(&dead), expiry);
    let text = declare_with(&connection, &fresh, earlier.clone())
        .await
        .expect_err("declared without the policy's settings")
        .to_string();
    assert!(text.contains("inequivalent arg"), "{text}");

    // A queue an earlier release declared, settings as arguments: used as it is.
    let queue = format!("test.quorum.{}", broker::random());
    declare_with(&connection, &queue, earlier).await.unwrap();
    let spec = SubscriptionSpec::durable(queue.clone(), vec![]);
    bus.declare(&spec).await.unwrap();

    // The broker holds it as a quorum queue: Arcade set to classic queues says so.
    let mut classic_config = config_of(&bus);
    classic_config.queue_type = QueueType::Classic;
    let classic = AmqpBus::new(classic_config).unwrap();
    let Err(BusError::Refused(text)) = classic.declare(&spec).await else {
        panic!("a classic declare over a quorum queue is refused");
    };
    assert!(text.contains("already exists as a quorum queue"), "{text}");
    assert!(text.contains("ARCADE_QUEUE_TYPE=quorum"), "{text}");
    classic.close().await;
    // So is the dead-letter queue (no dead-letter exchange of its own: the type differs).
    let text = declare_raw(&connection, &dead, "classic")
        .await
        .expect_err("the dead letters are a quorum queue")
        .to_string();
    assert!(text.contains("x-queue-type"), "{text}");

    // A message that keeps coming back ends in the dead letters once past the limit.
    bus.publish(&[command(&queue, "poison-1")]).await.unwrap();
    let mut consumer = bus.subscribe(&spec).await.unwrap();
    let mut deliveries = 0;
    loop {
        let next = tokio::time::timeout(Duration::from_secs(5), consumer.next()).await;
        let Ok(delivery) = next else { break };
        deliveries += 1;
        assert!(deliveries <= DELIVERY_LIMIT + 1, "delivered past the limit");
        delivery.unwrap().requeue().await.unwrap();
    }
    assert_eq!(
        deliveries,
        DELIVERY_LIMIT + 1,
        "delivered up to the limit, then no more"
    );
    let channel = connection.create_channel().await.unwrap();
    let mut letter = None;
    for _ in 0..100 {
        letter = channel
            .basic_get(dead.as_str().into(), BasicGetOptions { no_ack: true })
            .await
            .unwrap();
        if letter.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let letter = letter.expect("the poison message in the dead letters");
    let properties = &letter.delivery.properties;
    assert_eq!(
        properties.message_id().as_ref().map(|id| id.as_str()),
        Some("poison-1")
    );
    let headers = properties.headers().clone().unwrap_or_default();
    let reason = match headers.inner().get("x-first-death-reason") {
        Some(AMQPValue::LongString(reason)) => {
            String::from_utf8_lossy(reason.as_bytes()).into_owned()
        }
        other => panic!("a death reason, got {other:?}"),
    };
    assert_eq!(reason, "delivery_limit");
    bus.close().await;
}

#[tokio::test]
async fn a_classic_queue_in_the_way_is_refused_saying_what_to_do() {
    let Some(url) = broker::url() else { return };
    let connection = raw(&url).await;
    // A deployment of before: its queue declared classic by Arcade.
    let mut before = broker::config(&url);
    before.queue_type = QueueType::Classic;
    let old = AmqpBus::new(before.clone()).unwrap();
    let queue = format!("test.classic.{}", broker::random());
    let spec = SubscriptionSpec::durable(queue.clone(), vec!["test.#".into()]);
    old.declare(&spec).await.unwrap();
    old.close().await;

    let mut now = before.clone();
    now.queue_type = QueueType::Quorum;
    let bus = AmqpBus::new(now).unwrap();
    for result in [
        bus.declare(&spec).await.err(),
        bus.subscribe(&spec).await.err(),
    ] {
        let Some(BusError::Refused(text)) = result else {
            panic!("refused, got {result:?}");
        };
        assert!(text.contains(&queue), "{text}");
        assert!(text.contains("already exists as a classic queue"), "{text}");
        assert!(text.contains("cannot change in place"), "{text}");
        assert!(text.contains("ops/RUNBOOK.md"), "{text}");
        assert!(text.contains("ARCADE_QUEUE_TYPE=classic"), "{text}");
    }
    bus.close().await;

    // A queue of someone else's arguments: the type is not guessed, the way out is the same.
    let bare = format!("test.bare.{}", broker::random());
    let mut foreign = FieldTable::default();
    foreign.insert("x-expires".into(), AMQPValue::LongLongInt(30_000));
    foreign.insert("x-max-length".into(), AMQPValue::LongLongInt(1_000));
    declare_with(&connection, &bare, foreign).await.unwrap();
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    let bare_spec = SubscriptionSpec::durable(bare.clone(), vec![]);
    let Err(BusError::Refused(text)) = bus.declare(&bare_spec).await else {
        panic!("refused");
    };
    assert!(
        text.contains("already exists with other arguments"),
        "{text}"
    );
    assert!(text.contains("cannot change in place"), "{text}");
    bus.close().await;

    // With the classic setting, Arcade goes on using the classic queue as it is.
    let classic = AmqpBus::new(before).unwrap();
    let own = queue;
    let own_spec = spec;
    classic.declare(&own_spec).await.unwrap();
    classic.publish(&[command(&own, "c-1")]).await.unwrap();
    let mut consumer = classic.subscribe(&own_spec).await.unwrap();
    let delivery = tokio::time::timeout(Duration::from_secs(10), consumer.next())
        .await
        .expect("a delivery")
        .unwrap();
    assert_eq!(delivery.message.message_id.as_deref(), Some("c-1"));
    delivery.ack().await.unwrap();
    let quorum = declare_raw(&connection, &own, "quorum").await;
    assert!(
        quorum.is_err(),
        "the classic setting declares classic queues"
    );
    classic.close().await;
}
