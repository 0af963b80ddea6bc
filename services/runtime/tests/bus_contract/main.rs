//! One contract suite, every transport: topic routing with wildcards, competing consumers,
//! redelivery of unacked messages, dead letters with their reason, per-producer ordering.
//! Each backend module gives the suite fresh, isolated buses (its own queues and exchange).

#[path = "../support/broker.rs"]
mod broker;
mod suite;

mod embedded {
    use std::sync::Arc;

    use arcade_runtime::Bus;
    use arcade_runtime::bus::embedded::EmbeddedBus;

    use super::suite::{self, Backend};

    struct Embedded;

    impl Backend for Embedded {
        async fn bus(&self) -> Option<Arc<dyn Bus>> {
            Some(Arc::new(EmbeddedBus::temporary().unwrap()))
        }
    }

    #[tokio::test]
    async fn routes_by_topic_with_wildcards() {
        suite::routes_by_topic_with_wildcards(&Embedded).await;
    }

    #[tokio::test]
    async fn competing_consumers_share_a_queue() {
        suite::competing_consumers_share_a_queue(&Embedded).await;
    }

    #[tokio::test]
    async fn unacked_messages_are_redelivered() {
        suite::unacked_messages_are_redelivered(&Embedded).await;
    }

    #[tokio::test]
    async fn poison_goes_to_the_dead_letters_with_its_reason() {
        suite::poison_goes_to_the_dead_letters_with_its_reason(&Embedded).await;
    }

    #[tokio::test]
    async fn order_per_producer_is_kept() {
        suite::order_per_producer_is_kept(&Embedded).await;
    }

    #[tokio::test]
    async fn commands_reach_their_queue_only() {
        suite::commands_reach_their_queue_only(&Embedded).await;
    }

    #[tokio::test]
    async fn a_confirmed_message_survives_a_restart_until_acked() {
        let dir = tempfile::tempdir().unwrap();
        let spec = suite::durable_spec("survivor", &["test.#"]);
        {
            let bus = EmbeddedBus::open(dir.path()).unwrap();
            let mut consumer = bus.subscribe(&spec).await.unwrap();
            bus.publish(&suite::events(&["test.a.b.v1"], "p", 3))
                .await
                .unwrap();
            // One is acked, one is in hand (unacked), one was never delivered.
            consumer.next().await.unwrap().ack().await.unwrap();
            let _in_hand = consumer.next().await.unwrap();
            // The process dies here: nothing is closed or flushed.
        }
        let bus = EmbeddedBus::open(dir.path()).unwrap();
        let mut consumer = bus.subscribe(&spec).await.unwrap();
        let first = consumer.next().await.unwrap();
        assert_eq!(suite::seq_of(&first), 2);
        assert!(
            first.redelivered,
            "a message found on disk at start was delivered before"
        );
        first.ack().await.unwrap();
        let second = consumer.next().await.unwrap();
        assert_eq!(suite::seq_of(&second), 3);
        second.ack().await.unwrap();
        assert!(consumer.try_next().is_none());
    }
}

/// The same suite on RabbitMQ (`ARCADE_AMQP_URL`), each test on its own random topology.
mod rabbitmq {
    use std::sync::Arc;

    use arcade_runtime::Bus;

    use super::broker;
    use super::suite::{self, Backend};

    struct RabbitMq;

    impl Backend for RabbitMq {
        async fn bus(&self) -> Option<Arc<dyn Bus>> {
            let bus = broker::bus()?;
            bus.connect_now()
                .await
                .expect("RabbitMQ at ARCADE_AMQP_URL answers");
            Some(Arc::new(bus))
        }
    }

    #[tokio::test]
    async fn routes_by_topic_with_wildcards() {
        suite::routes_by_topic_with_wildcards(&RabbitMq).await;
    }

    #[tokio::test]
    async fn competing_consumers_share_a_queue() {
        suite::competing_consumers_share_a_queue(&RabbitMq).await;
    }

    #[tokio::test]
    async fn unacked_messages_are_redelivered() {
        suite::unacked_messages_are_redelivered(&RabbitMq).await;
    }

    #[tokio::test]
    async fn poison_goes_to_the_dead_letters_with_its_reason() {
        suite::poison_goes_to_the_dead_letters_with_its_reason(&RabbitMq).await;
    }

    #[tokio::test]
    async fn order_per_producer_is_kept() {
        suite::order_per_producer_is_kept(&RabbitMq).await;
    }

    #[tokio::test]
    async fn commands_reach_their_queue_only() {
        suite::commands_reach_their_queue_only(&RabbitMq).await;
    }
}
