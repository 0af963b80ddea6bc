//! Attacks on the RabbitMQ transport, each refused: a message published under a routing key
//! the publisher may use, with the type of another (the forged bingo win), is dead-lettered
//! with reason `type does not match routing key`; a message sent first under another message's
//! id (the squatted id) no longer makes the genuine one vanish: the genuine one, same sender,
//! other body, is dead-lettered with reason `message id reused with a different body`, and a
//! different sender's id is its own; a message with no proven sender (no `user_id`) naming a
//! proven sender's producer and id costs that sender nothing (its scope is the anonymous one),
//! and `require_proven_sender` dead-letters it. Arcade publishes with the connection's
//! `user_id`, and the broker refuses a forged one. A producer with no broker user of its own
//! that signs as Symfony Messenger does (the vectors of `tests/fixtures/symfony-sign`) is proven
//! (`signed:<app_id>`) and applied under `require_proven_sender`; a tampered, unverified,
//! body-only or md5-signed message is dead-lettered with what failed; a key removed from the
//! keys no longer verifies. Reads `ARCADE_AMQP_URL`; skipped when unset unless
//! `ARCADE_REQUIRE_BROKER=1`.

#[path = "support/broker.rs"]
mod broker;
#[path = "support/signing.rs"]
mod signing;

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_runtime::HostConfig;
use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::testkit::{self, ItemEmitted, Tally};
use arcade_runtime::wire::HEADER_DEAD_REASON;
use futures::StreamExt;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicPublishOptions, ConfirmSelectOptions,
    QueueBindOptions,
};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{BasicProperties, Channel, Connection, ConnectionProperties};

const WAIT: Duration = Duration::from_secs(30);

/// A confirm-mode channel of a plain client.
async fn channel(url: &str) -> (Connection, Channel) {
    let connection = Connection::connect(url, ConnectionProperties::default())
        .await
        .unwrap();
    let channel = connection.create_channel().await.unwrap();
    channel
        .confirm_select(ConfirmSelectOptions::default())
        .await
        .unwrap();
    (connection, channel)
}

/// Publishes `body` on `exchange` under `key` with the given `type`, `message_id` and `app_id`.
async fn publish(
    channel: &Channel,
    exchange: &str,
    key: &str,
    message_type: &str,
    id: &str,
    app: &str,
    body: &[u8],
) {
    let properties = BasicProperties::default()
        .with_type(message_type.into())
        .with_message_id(id.into())
        .with_app_id(app.into())
        .with_delivery_mode(2);
    let confirm = channel
        .basic_publish(
            exchange.into(),
            key.into(),
            BasicPublishOptions::default(),
            body,
            properties,
        )
        .await
        .unwrap()
        .await
        .unwrap();
    assert!(confirm.is_ack());
}

/// The next dead letter of `bus`: its reason and message id.
async fn next_dead_letter(
    consumer: &mut lapin::Consumer,
) -> (Option<String>, Option<String>, Vec<u8>) {
    let delivery = tokio::time::timeout(WAIT, consumer.next())
        .await
        .expect("a dead letter within 30 s")
        .unwrap()
        .unwrap();
    delivery.ack(BasicAckOptions::default()).await.unwrap();
    let reason = delivery
        .properties
        .headers()
        .as_ref()
        .and_then(|h| h.inner().get(HEADER_DEAD_REASON).cloned())
        .and_then(|v| match v {
            AMQPValue::LongString(s) => Some(String::from_utf8_lossy(s.as_bytes()).into_owned()),
            _ => None,
        });
    let id = delivery
        .properties
        .message_id()
        .as_ref()
        .map(|s| s.to_string());
    (reason, id, delivery.data)
}

async fn dead_letters(connection: &Connection, bus: &AmqpBus) -> lapin::Consumer {
    let channel = connection.create_channel().await.unwrap();
    channel
        .basic_consume(
            bus.config().dead_letters.as_str().into(),
            "trust-test".into(),
            BasicConsumeOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap()
}

async fn wait_applied(tally: &arcade_runtime::HostHandle<Tally>, n: u64) {
    tokio::time::timeout(WAIT, tally.wait_for_events(n))
        .await
        .unwrap_or_else(|_| panic!("{n} messages applied within 30 s"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_type_other_than_the_routing_key_is_dead_lettered_not_applied() {
    let Some(url) = broker::url() else { return };
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    bus.connect_now().await.unwrap();
    let exchange = bus.config().events_exchange.clone();
    let dir = tempfile::tempdir().unwrap();
    let runtime =
        testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(testkit::batches(16, 16));
    let name = format!("tally.{}", broker::random());
    let tally = runtime.start(Tally { name: name.clone() }).unwrap();
    broker::wait_for_consumer(&url, &name).await;

    // The forger may publish `test.item.decoy.v1` (its topic permission); the queue takes it.
    let (connection, channel) = channel(&url).await;
    channel
        .queue_bind(
            name.as_str().into(),
            exchange.as_str().into(),
            "test.item.decoy.v1".into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap();
    let mut dead = dead_letters(&connection, &bus).await;
    let forged = br#"{"producer":"mallory","n":1}"#;
    publish(
        &channel,
        &exchange,
        "test.item.decoy.v1",
        ItemEmitted::TYPE,
        "forged-1",
        "feed",
        forged,
    )
    .await;
    let (reason, id, body) = next_dead_letter(&mut dead).await;
    assert_eq!(reason.as_deref(), Some("type does not match routing key"));
    assert_eq!(id.as_deref(), Some("forged-1"));
    assert_eq!(body, forged);

    // The same message under its own type is applied.
    let genuine = br#"{"producer":"alice","n":1}"#;
    publish(
        &channel,
        &exchange,
        ItemEmitted::TYPE,
        ItemEmitted::TYPE,
        "genuine-1",
        "feed",
        genuine,
    )
    .await;
    wait_applied(&tally, 1).await;
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    let applied: Vec<_> = host.state().applied.keys().cloned().collect();
    assert_eq!(
        applied,
        vec![("alice".to_string(), 1)],
        "the forgery is not applied"
    );
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_squatted_id_dead_letters_the_second_body_and_spares_other_senders() {
    let Some(url) = broker::url() else { return };
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    bus.connect_now().await.unwrap();
    let exchange = bus.config().events_exchange.clone();
    let dir = tempfile::tempdir().unwrap();
    let runtime =
        testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(testkit::batches(16, 16));
    let name = format!("tally.{}", broker::random());
    let tally = runtime.start(Tally { name: name.clone() }).unwrap();
    broker::wait_for_consumer(&url, &name).await;
    let (connection, channel) = channel(&url).await;
    let mut dead = dead_letters(&connection, &bus).await;
    let key = ItemEmitted::TYPE;

    // Mallory's producer takes the id of a message the bingo producer is about to send.
    let squat = br#"{"producer":"mallory","n":1}"#;
    publish(&channel, &exchange, key, key, "m-42", "mallory", squat).await;
    wait_applied(&tally, 1).await;
    // The genuine one, from another producer: its ids are its own, so it is applied.
    let genuine = br#"{"producer":"bingo","n":1}"#;
    publish(&channel, &exchange, key, key, "m-42", "bingo", genuine).await;
    wait_applied(&tally, 2).await;
    // The same producer reusing an id for another body: a dead letter, not a silent drop.
    let reused = br#"{"producer":"bingo","n":2}"#;
    publish(&channel, &exchange, key, key, "m-42", "bingo", reused).await;
    let (reason, id, body) = next_dead_letter(&mut dead).await;
    assert_eq!(
        reason.as_deref(),
        Some("message id reused with a different body")
    );
    assert_eq!(id.as_deref(), Some("m-42"));
    assert_eq!(body, reused);
    // The same id and body again is a redelivery: absorbed.
    publish(&channel, &exchange, key, key, "m-42", "bingo", genuine).await;
    let counters = runtime.metrics().service(&name);
    tokio::time::timeout(WAIT, async {
        while counters
            .deduplicated
            .load(std::sync::atomic::Ordering::SeqCst)
            < 1
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the copy was deduplicated");

    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    let state = &host.state().applied;
    assert_eq!(state.get(&("mallory".to_string(), 1)), Some(&1));
    assert_eq!(state.get(&("bingo".to_string(), 1)), Some(&1));
    assert_eq!(state.get(&("bingo".to_string(), 2)), None);
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}

/// Publishes through Arcade's own publisher: the connection's user goes out as `user_id`.
async fn publish_proven(bus: &AmqpBus, id: &str, app: &str, body: &[u8]) {
    use arcade_runtime::Bus as _;
    let message = arcade_runtime::WireMessage {
        message_type: Some(ItemEmitted::TYPE.into()),
        message_id: Some(id.into()),
        app_id: Some(app.into()),
        body: body.to_vec(),
        ..Default::default()
    };
    bus.publish(&[arcade_runtime::Publication {
        destination: arcade_runtime::Destination::Topic,
        message,
    }])
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anonymous_squatter_costs_no_proven_message_and_can_be_refused_outright() {
    let Some(url) = broker::url() else { return };
    let user = url
        .parse::<lapin::uri::AMQPUri>()
        .map(|uri| uri.authority.userinfo.username)
        .unwrap();
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    bus.connect_now().await.unwrap();
    let exchange = bus.config().events_exchange.clone();
    let key = ItemEmitted::TYPE;
    let (connection, channel) = channel(&url).await;
    let mut dead = dead_letters(&connection, &bus).await;

    let dir = tempfile::tempdir().unwrap();
    let runtime =
        testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(testkit::batches(16, 16));
    let name = format!("tally.{}", broker::random());
    let tally = runtime.start(Tally { name: name.clone() }).unwrap();
    broker::wait_for_consumer(&url, &name).await;
    // Mallory, with no broker user of her own (no user_id), names the operator's producer and
    // takes the id of a message the operator is about to send.
    let squat = br#"{"producer":"mallory","n":1}"#;
    publish(&channel, &exchange, key, key, "op-7", &user, squat).await;
    wait_applied(&tally, 1).await;
    // The operator's message, its sender proven by the broker: applied, not a reused id.
    let genuine = br#"{"producer":"operator","n":1}"#;
    publish_proven(&bus, "op-7", &user, genuine).await;
    wait_applied(&tally, 2).await;
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    let state = &host.state().applied;
    assert_eq!(state.get(&("mallory".to_string(), 1)), Some(&1));
    assert_eq!(state.get(&("operator".to_string(), 1)), Some(&1));

    // With --require-proven-sender, the anonymous message is a dead letter saying why, and
    // the proven one is applied.
    let dir = tempfile::tempdir().unwrap();
    let runtime = testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(HostConfig {
        require_proven_sender: true,
        ..HostConfig::default()
    });
    let name = format!("tally.{}", broker::random());
    let tally = runtime.start(Tally { name: name.clone() }).unwrap();
    broker::wait_for_consumer(&url, &name).await;
    let anonymous = br#"{"producer":"plain","n":2}"#;
    publish(&channel, &exchange, key, key, "p-1", "plain", anonymous).await;
    let (reason, id, body) = next_dead_letter(&mut dead).await;
    assert_eq!(
        reason.as_deref(),
        Some(arcade_runtime::inbound::NO_PROVEN_SENDER)
    );
    assert_eq!(
        (id.as_deref(), body.as_slice()),
        (Some("p-1"), &anonymous[..])
    );
    publish_proven(&bus, "p-2", &user, br#"{"producer":"operator","n":2}"#).await;
    wait_applied(&tally, 1).await;
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    let state = &host.state().applied;
    assert_eq!(state.get(&("plain".to_string(), 2)), None);
    assert_eq!(state.get(&("operator".to_string(), 2)), Some(&1));
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arcade_publishes_as_its_connection_user_and_a_forged_user_id_is_refused() {
    let Some(url) = broker::url() else { return };
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    bus.connect_now().await.unwrap();
    let exchange = bus.config().events_exchange.clone();
    let user = url
        .parse::<lapin::uri::AMQPUri>()
        .map(|uri| uri.authority.userinfo.username)
        .unwrap();
    let (connection, channel) = channel(&url).await;
    let (_observer, mut deliveries) =
        broker::observe(&connection, &exchange, &[ItemEmitted::TYPE]).await;
    let message = arcade_runtime::WireMessage {
        message_type: Some(ItemEmitted::TYPE.into()),
        message_id: Some("u-1".into()),
        // Whatever the message says, the connection's user goes out.
        user_id: Some("race-master".into()),
        body: br#"{"producer":"p","n":1}"#.to_vec(),
        ..Default::default()
    };
    use arcade_runtime::Bus as _;
    bus.publish(&[arcade_runtime::Publication {
        destination: arcade_runtime::Destination::Topic,
        message,
    }])
    .await
    .unwrap();
    let delivery = tokio::time::timeout(WAIT, deliveries.next())
        .await
        .expect("observed")
        .unwrap()
        .unwrap();
    assert_eq!(
        delivery.properties.user_id().as_ref().map(|s| s.as_str()),
        Some(user.as_str())
    );

    // A plain client claiming to be someone else: the broker closes the channel.
    let forged = channel
        .basic_publish(
            exchange.as_str().into(),
            ItemEmitted::TYPE.into(),
            BasicPublishOptions::default(),
            b"{}",
            BasicProperties::default().with_user_id("race-master".into()),
        )
        .await;
    let refused = match forged {
        Err(e) => e.to_string(),
        Ok(confirm) => match confirm.await {
            Err(e) => e.to_string(),
            Ok(c) if c.is_nack() => "nacked".into(),
            Ok(_) => panic!("the broker accepted a forged user_id"),
        },
    };
    assert!(
        refused.contains("user_id") || refused.contains("PRECONDITION"),
        "{refused}"
    );
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}

/// Publishes a vector as its Symfony producer does: its headers and `app_id`, no `user_id`,
/// under its type.
async fn publish_signed(channel: &Channel, exchange: &str, case: &signing::Case) {
    let confirm = channel
        .basic_publish(
            exchange.into(),
            case.message_type().into(),
            BasicPublishOptions::default(),
            case.body.as_bytes(),
            case.properties(),
        )
        .await
        .unwrap()
        .await
        .unwrap();
    assert!(confirm.is_ack());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_producer_is_proven_a_tampered_message_refused_and_a_removed_key_too() {
    let Some(url) = broker::url() else { return };
    let vectors = signing::vectors();
    let bus = AmqpBus::new(broker::config(&url)).unwrap();
    bus.connect_now().await.unwrap();
    let exchange = bus.config().events_exchange.clone();
    let (connection, channel) = channel(&url).await;
    let mut dead = dead_letters(&connection, &bus).await;
    let dir = tempfile::tempdir().unwrap();
    let keys = arcade_runtime::signing::SigningKeys::load(&vectors.keys_file(dir.path(), None));
    let runtime = testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(HostConfig {
        require_proven_sender: true,
        signing: keys.unwrap(),
        ..testkit::batches(16, 16)
    });
    let name = format!("tally.{}", broker::random());
    let tally = runtime.start(Tally { name: name.clone() }).unwrap();
    broker::wait_for_consumer(&url, &name).await;

    // Signed with the current key, and with the previous one still listed: proven senders,
    // so applied although every message must have one.
    let current = vectors.case("signed with the current key");
    let previous = vectors.case("signed with the previous key, still listed");
    publish_signed(&channel, &exchange, current).await;
    publish_signed(&channel, &exchange, previous).await;
    wait_applied(&tally, 2).await;
    // Tampered with, or signed in a way that proves nothing: dead letters saying what failed.
    for refused in [
        "the body changed after signing",
        "a stamp header grafted after signing",
        "signed with a key no file lists",
        "signed as unverified (Sign-Trust)",
        "an algorithm Arcade does not take",
        "a body-only signature (Symfony 7.4 to 8.1)",
    ] {
        let case = vectors.case(refused);
        publish_signed(&channel, &exchange, case).await;
        let (reason, _, body) = next_dead_letter(&mut dead).await;
        let expected = vectors.signing_keys().verify(&case.wire()).unwrap_err();
        assert_eq!(reason, Some(expected.reason()), "{refused}");
        assert!(
            reason
                .unwrap()
                .starts_with(arcade_runtime::dead_letter::BAD_SIGNATURE),
            "{refused}"
        );
        assert_eq!(body, case.body.as_bytes(), "{refused}");
    }
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    let applied: Vec<_> = host.state().applied.keys().cloned().collect();
    assert_eq!(
        applied,
        vec![("shop".to_string(), 1), ("shop".to_string(), 2)],
        "only what the keys verify is applied"
    );

    // The previous key removed from the keys: what it signs is refused now.
    let dir = tempfile::tempdir().unwrap();
    let runtime = testkit::runtime(Arc::new(bus.clone()), dir.path()).with_config(HostConfig {
        signing: vectors.keys_but(Some("shop/1")),
        ..testkit::batches(16, 16)
    });
    let name = format!("tally.{}", broker::random());
    let tally = runtime.start(Tally { name: name.clone() }).unwrap();
    broker::wait_for_consumer(&url, &name).await;
    publish_signed(&channel, &exchange, previous).await;
    let (reason, _, body) = next_dead_letter(&mut dead).await;
    assert_eq!(body, previous.body.as_bytes());
    let reason = reason.unwrap();
    assert!(
        reason.starts_with("signature refused: no signing key of producer \"shop\" verifies it"),
        "{reason}"
    );
    publish_signed(&channel, &exchange, current).await;
    wait_applied(&tally, 1).await;
    tally.stop(Duration::from_secs(5)).await.unwrap();
    let _ = connection.close(200, "done".into()).await;
    bus.close().await;
}
