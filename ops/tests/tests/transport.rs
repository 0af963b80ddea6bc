//! Arcade's own RabbitMQ transport runs under the ops policy: connected as a service's user, it
//! declares its topology, consumes its queue, publishes its events and dead-letters a poison
//! message with its reason; another service's message type is refused and never reported as
//! sent. Reads `ARCADE_AMQP_URL`; skipped when unset unless `ARCADE_REQUIRE_BROKER=1`.

use std::time::Duration;

use arcade_ops_tests::deployment::Deployment;
use arcade_ops_tests::probe::{Probe, Verdict};
use arcade_ops_tests::settings::{Broker, python_for_test};
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};
use arcade_runtime::dead_origin::check_dead_letter_origin;
use arcade_runtime::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON, HEADER_DEAD_ROUTING_KEY};
use arcade_runtime::{Bus, BusError, Destination, Publication, SubscriptionSpec, WireMessage};
use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable};

const WAIT: Duration = Duration::from_secs(20);
const DEAD: &str = "arcade.dead";

/// Service user, its queue, its bindings, one of its event types, another service's type.
const SERVICES: [(&str, &str, &[&str], &str, &str); 4] = [
    (
        "referee",
        "referee.t1",
        &[],
        "table.goal.scored.v1",
        "bingo.card.won.v1",
    ),
    (
        "bingo",
        "bingo",
        &["activity.recorded.v1", "activity.undone.v1"],
        "bingo.card.won.v1",
        "race.finished.v1",
    ),
    (
        "race-master",
        "race-master",
        &[],
        "race.finished.v1",
        "puzzle.stats.updated.v1",
    ),
    (
        "puzzle-telemetry",
        "puzzle-telemetry",
        &["game.session.completed.v1", "game.session.completed.v2"],
        "puzzle.stats.updated.v1",
        "table.goal.scored.v1",
    ),
];

fn event(message_type: &str) -> Publication {
    Publication {
        destination: Destination::Topic,
        message: WireMessage {
            message_type: Some(message_type.to_string()),
            message_id: Some(format!("{:032x}", rand::random::<u128>())),
            correlation_id: Some(format!("{:032x}", rand::random::<u128>())),
            app_id: Some("ops-test".into()),
            body: b"{}".to_vec(),
            ..WireMessage::default()
        },
    }
}

#[tokio::test]
async fn the_transport_runs_each_service_under_its_own_user() {
    let test = "the_transport_runs_each_service_under_its_own_user";
    let Some(broker) = Broker::for_test(test) else {
        return;
    };
    if !python_for_test(test, &[]) {
        return;
    }
    Deployment::with(&broker, &[], async |deployment| {
        let admin = Probe::new(
            deployment.connect("arcade-admin").await.unwrap(),
            "arcade-admin",
        );
        for (user, queue, bindings, own, foreign) in SERVICES {
            let url = deployment.amqp_url(user).unwrap();
            let bus = AmqpBus::new(AmqpConfig::new(url)).unwrap();
            bus.connect_now().await.unwrap_or_else(|e| {
                panic!("{user}: the transport cannot declare its topology: {e}")
            });
            let spec =
                SubscriptionSpec::durable(queue, bindings.iter().map(|b| b.to_string()).collect());
            let mut consumer = bus
                .subscribe(&spec)
                .await
                .unwrap_or_else(|e| panic!("{user}: cannot subscribe to {queue}: {e}"));
            tokio::time::timeout(WAIT, bus.publish(&[event(own)]))
                .await
                .expect("publishing an own event returns")
                .unwrap_or_else(|e| panic!("{user} publishing {own}: {e}"));
            let refused = tokio::time::timeout(WAIT, bus.publish(&[event(foreign)]))
                .await
                .expect("a refused publication returns");
            assert!(
                matches!(
                    refused,
                    Err(BusError::Refused(_) | BusError::Unavailable(_))
                ),
                "{user} publishing {foreign}: {refused:?}"
            );
            // A poison message in its queue goes to the dead letters with its reason.
            let sent = admin.publish("", queue, b"not json").await.unwrap();
            assert_eq!(sent, Verdict::Allowed(()));
            let delivery = tokio::time::timeout(WAIT, consumer.next())
                .await
                .expect("the poison message is delivered")
                .unwrap_or_else(|e| panic!("{user} consuming {queue}: {e}"));
            tokio::time::timeout(
                WAIT,
                delivery.dead_letter(arcade_runtime::dead_letter::Dead::failed(
                    "ops test: not JSON",
                    None,
                )),
            )
            .await
            .expect("dead-lettering returns")
            .unwrap_or_else(|e| panic!("{user} dead-lettering: {e}"));
            bus.close().await;
        }
        let dead = admin.message_count("arcade.dead").await.unwrap();
        assert_eq!(dead as usize, SERVICES.len(), "one dead letter per service");
        // The operator reads them back through the transport: reason and origin kept.
        let bus = AmqpBus::new(AmqpConfig::new(
            deployment.amqp_url("arcade-admin").unwrap(),
        ))
        .unwrap();
        let mut dead_letters = bus
            .subscribe(&SubscriptionSpec::durable("arcade.dead", Vec::new()))
            .await
            .unwrap();
        let first = tokio::time::timeout(WAIT, dead_letters.next())
            .await
            .expect("a dead letter is delivered")
            .unwrap();
        assert_eq!(
            first
                .message
                .headers
                .get(HEADER_DEAD_REASON)
                .map(String::as_str),
            Some("ops test: not JSON")
        );
        first.requeue().await.unwrap();
        bus.close().await;
    })
    .await;
}

/// The fake dead letter of issue 17, with the rendered definitions loaded. A team or producer
/// user cannot write the dead letters at all (`security.rs`); a consuming service must (it
/// dead-letters), so the broker takes bingo's forgery: a dead letter whose made-up reason says it
/// came from the race master's queue. It carries bingo's `user_id` all the same (the broker
/// allows no other), and that is how the operator tells it from Arcade's own: on the earlier
/// check (any dead-lettering service trusted) it passed and `arcade dead replay` would have
/// delivered it to the race master as the operator.
#[tokio::test]
async fn a_service_s_fake_dead_letter_is_told_from_arcade_s_own() {
    let test = "a_service_s_fake_dead_letter_is_told_from_arcade_s_own";
    let Some(broker) = Broker::for_test(test) else {
        return;
    };
    if !python_for_test(test, &[]) {
        return;
    }
    Deployment::with(&broker, &[], async |deployment| {
        let admin = Probe::new(
            deployment.connect("arcade-admin").await.unwrap(),
            "arcade-admin",
        );
        // Arcade's own: bingo's transport dead-letters a poison message of its queue.
        let bus = AmqpBus::new(AmqpConfig::new(deployment.amqp_url("bingo").unwrap())).unwrap();
        let spec = SubscriptionSpec::durable("bingo", Vec::new());
        let mut consumer = bus.subscribe(&spec).await.unwrap();
        let sent = admin.publish("", "bingo", b"not json").await.unwrap();
        assert_eq!(sent, Verdict::Allowed(()));
        let delivery = tokio::time::timeout(WAIT, consumer.next())
            .await
            .expect("the poison message is delivered")
            .unwrap();
        tokio::time::timeout(
            WAIT,
            delivery.dead_letter(arcade_runtime::dead_letter::Dead::failed(
                "ops test: not JSON",
                None,
            )),
        )
        .await
        .expect("dead-lettering returns")
        .unwrap();
        bus.close().await;
        // The forgery, straight to the dead-letter exchange as the bingo user.
        let bingo = Probe::new(deployment.connect("bingo").await.unwrap(), "bingo");
        let mut headers = FieldTable::default();
        for (key, value) in [
            (HEADER_DEAD_REASON, "race-master: store busy"),
            (HEADER_DEAD_QUEUE, "race-master"),
            (HEADER_DEAD_ROUTING_KEY, "race-master"),
        ] {
            headers.insert(key.into(), AMQPValue::LongString(value.into()));
        }
        let forged = BasicProperties::default()
            .with_type("race.car.register.v1".into())
            .with_message_id("forged-1".into())
            .with_user_id(deployment.user("bingo").into())
            .with_headers(headers);
        let body = br#"{"team":"red","car":"c1","modules":{"pilots":1,"engines":1,"weapons":1}}"#;
        let planted = bingo
            .publish_with(DEAD, "race.car.register.v1", body, forged)
            .await
            .unwrap();
        assert_eq!(
            planted,
            Verdict::Allowed(()),
            "the broker takes it: bingo writes the dead letters"
        );
        // The operator reads both; only Arcade's own is vouched for.
        let bus = AmqpBus::new(AmqpConfig::new(
            deployment.amqp_url("arcade-admin").unwrap(),
        ))
        .unwrap();
        let mut dead_letters = bus
            .subscribe(&SubscriptionSpec::durable(DEAD, Vec::new()))
            .await
            .unwrap();
        let prefix = deployment.user("");
        let mut seen = Vec::new();
        for _ in 0..2 {
            let delivery = tokio::time::timeout(WAIT, dead_letters.next())
                .await
                .expect("a dead letter is delivered")
                .unwrap();
            let message = delivery.message.clone();
            assert_eq!(
                message.user_id.as_deref(),
                Some(deployment.user("bingo").as_str()),
                "both carry bingo's user_id"
            );
            seen.push((
                message.message_id.clone(),
                check_dead_letter_origin(&message, &prefix),
            ));
            delivery.requeue().await.unwrap();
        }
        bus.close().await;
        let forged = seen
            .iter()
            .find(|(id, _)| id.as_deref() == Some("forged-1"))
            .expect("the forgery is among the dead letters");
        let refused = forged.1.clone().unwrap_err().to_string();
        assert!(
            refused.contains("not dead-lettered by Arcade") && refused.contains("race-master"),
            "{refused}"
        );
        let own = seen
            .iter()
            .find(|(id, _)| id.as_deref() != Some("forged-1"))
            .expect("Arcade's own dead letter");
        assert_eq!(own.1, Ok(()), "bingo's own dead letter of its own queue");
    })
    .await;
}
