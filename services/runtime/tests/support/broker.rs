//! What every RabbitMQ test shares: the broker URL from `ARCADE_AMQP_URL` (unset: the test
//! says it was skipped, or fails when `ARCADE_REQUIRE_BROKER=1`, as in CI), and a bus on a
//! randomly named topology that the broker removes after the test (queues expire unused,
//! exchanges auto-delete).

#![allow(dead_code)]

use std::time::Duration;

use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};

/// The broker URL, or `None` after printing that the test is skipped.
pub fn url() -> Option<String> {
    match std::env::var("ARCADE_AMQP_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
                "ARCADE_REQUIRE_BROKER=1 but ARCADE_AMQP_URL is unset: broker tests must run"
            );
            eprintln!("skipped: ARCADE_AMQP_URL unset");
            None
        }
    }
}

/// A unique suffix.
pub fn random() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A configuration on its own exchanges (`test.events.<random>`, `test.dead.<random>`).
pub fn config(url: &str) -> AmqpConfig {
    let id = random();
    let mut config = AmqpConfig::new(url);
    config.events_exchange = format!("test.events.{id}");
    config.dead_letters = format!("test.dead.{id}");
    config.connection_name = format!("arcade-test.{id}");
    config.expire_after = Some(Duration::from_secs(30));
    config.backoff = (Duration::from_millis(50), Duration::from_millis(500));
    config
}

/// A bus on a fresh topology, or `None` (skipped).
pub fn bus() -> Option<AmqpBus> {
    let url = url()?;
    Some(AmqpBus::new(config(&url)).expect("ARCADE_AMQP_URL is a valid AMQP URL"))
}

/// Waits (up to 30 s) until `queue` exists and has a consumer: a service started in the
/// background has declared and bound it, so topic messages published now reach it.
pub async fn wait_for_consumer(url: &str, queue: &str) {
    use lapin::options::QueueDeclareOptions;
    use lapin::types::FieldTable;
    let connection = lapin::Connection::connect(url, lapin::ConnectionProperties::default())
        .await
        .expect("RabbitMQ at ARCADE_AMQP_URL answers");
    for _ in 0..300 {
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
            let _ = connection.close(200, "ready".into()).await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("nobody consumes {queue} after 30 s");
}

/// A plain lapin consumer, as a non-Rust client would run one: a fresh exclusive queue bound to
/// each of `keys` on `exchange`. The channel is returned too: the consumer lives while it does.
pub async fn observe(
    connection: &lapin::Connection,
    exchange: &str,
    keys: &[&str],
) -> (lapin::Channel, lapin::Consumer) {
    use lapin::options::{BasicConsumeOptions, QueueBindOptions, QueueDeclareOptions};
    use lapin::types::FieldTable;
    let channel = connection.create_channel().await.unwrap();
    let observer = format!("observer.{}", random());
    channel
        .queue_declare(
            observer.clone().into(),
            QueueDeclareOptions {
                exclusive: true,
                auto_delete: true,
                ..QueueDeclareOptions::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    for key in keys {
        channel
            .queue_bind(
                observer.clone().into(),
                exchange.to_string().into(),
                key.to_string().into(),
                QueueBindOptions::default(),
                FieldTable::default(),
            )
            .await
            .unwrap();
    }
    let consumer = channel
        .basic_consume(
            observer.into(),
            "observer".into(),
            BasicConsumeOptions::default(),
            FieldTable::default(),
        )
        .await
        .unwrap();
    (channel, consumer)
}
