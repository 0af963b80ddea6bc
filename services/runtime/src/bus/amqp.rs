//! The RabbitMQ transport (lapin on tokio), behind the same [`Bus`] trait as the embedded one.
//!
//! - Topology, declared idempotently on every (re)connection: the durable topic exchange
//!   `arcade.events`, the durable fanout exchange `arcade.dead` and its durable queue
//!   `arcade.dead`; each service queue durable, bound to its patterns, dead-lettering to
//!   `arcade.dead` by the broker's policy ([`topology`]). Names are configurable (tests use
//!   random ones).
//! - Publishing: persistent messages on a channel in confirm mode; a publication returns only
//!   when the broker has acked every message. A nack, a lost channel or a lost connection is an
//!   error and nothing is taken as sent (the relay publishes again from its cursor). Commands
//!   (to a queue, through the default exchange) are mandatory and their queue is not declared:
//!   one the broker returns (`basic.return`: no such queue) is published, confirmed, to the
//!   dead letters with reason `unroutable` and reported in [`Published::unroutable`].
//! - Consuming: one channel per consumer, bounded prefetch (`basic.qos`), manual acks. A
//!   consumer that goes away closes its channel, so what it held goes back to the queue.
//! - Dead letters: a copy with the reason in a header is published (confirmed) to the dead
//!   letter exchange, then the original is acked.
//! - Partitions: a subscription of a partition instance ([`SubscriptionSpec::partition`]) first
//!   declares its service's consistent-hash exchange, its bindings and every partition's queue
//!   (`declare_partitions`; see [`super::partition`]).
//! - Reconnection: the bus connects lazily and again after any loss, no more often than a
//!   capped, jittered exponential backoff allows. A bus created while the broker is away works:
//!   its calls fail as `Unavailable` (the runtime's relay and receiver retry) until it appears.
//! - History: a stream (`arcade.history`) bound to every event keeps them for analytics
//!   readers that join late ([`history`]; [`AmqpBus::replay`]).
//! - TLS: an `amqps://` URL (rustls): the server's certificate is verified against the system
//!   roots plus, when [`AmqpConfig::ca_file`] is set, the CA certificates of that PEM file.
//!
//! Layout: `config.rs` (where and how to reach the broker), `link.rs` (the connection: connect,
//! reconnect, fail over, TLS), `declare.rs` (queues, bindings, partitions and the history
//! stream, declared on the broker), `publish.rs` (the confirm channel, unroutable commands),
//! `consume.rs` (consumers and their acks); `topology.rs`, `nodes.rs`, `properties.rs`,
//! `history.rs` and `lag.rs` as their headers say. This file ties them to the [`Bus`] trait.

mod config;
mod consume;
mod declare;
mod depths;
pub mod history;
mod lag;
mod link;
pub mod nodes;
pub mod properties;
mod publish;
mod socket;
pub mod topology;

use async_trait::async_trait;
use lapin::Channel;
use lapin::options::{QueueBindOptions, QueueDeclareOptions};
use lapin::types::{FieldTable, ShortString};

use super::{Bus, BusError, Confirms, Consumer, Publication, Published, SubscriptionSpec};
pub use config::{AmqpConfig, DEFAULT_HEARTBEAT_SECS, DEFAULT_PREFETCH_BYTES, InvalidUrl, redact};
pub use history::{HistoryConfig, StreamOffset};
pub use link::AmqpBus;
pub use topology::QueueType;

fn unavailable(what: &str, error: impl std::fmt::Display) -> BusError {
    BusError::Unavailable(format!("{what}: {error}"))
}

fn short(value: &str) -> ShortString {
    ShortString::from(value.to_string())
}

/// Declares the durable queue `queue` with `arguments`.
async fn declare_durable(
    channel: &Channel,
    queue: &str,
    arguments: FieldTable,
) -> lapin::Result<()> {
    let options = QueueDeclareOptions {
        durable: true,
        ..QueueDeclareOptions::default()
    };
    channel
        .queue_declare(short(queue), options, arguments)
        .await
        .map(|_| ())
}

/// Binds `queue` to `exchange` with `key`, without arguments.
async fn queue_bind(
    channel: &Channel,
    queue: &str,
    exchange: &str,
    key: &str,
) -> lapin::Result<()> {
    let options = QueueBindOptions::default();
    channel
        .queue_bind(
            short(queue),
            short(exchange),
            short(key),
            options,
            FieldTable::default(),
        )
        .await
}

#[async_trait]
impl Bus for AmqpBus {
    async fn publish(&self, messages: &[Publication]) -> Result<Published, BusError> {
        self.start_publish(messages).await?.await
    }

    async fn start_publish(&self, messages: &[Publication]) -> Result<Confirms, BusError> {
        self.publish_batch(messages).await
    }

    fn publish_window(&self) -> usize {
        publish::PUBLISH_WINDOW
    }

    async fn subscribe(&self, spec: &SubscriptionSpec) -> Result<Box<dyn Consumer>, BusError> {
        self.consume(spec).await
    }

    async fn declare(&self, spec: &SubscriptionSpec) -> Result<(), BusError> {
        self.declare_subscription(spec).await
    }

    async fn bind(&self, queue: &str, patterns: &[String]) -> Result<(), BusError> {
        self.bind_queue(queue, patterns).await
    }

    fn name(&self) -> &'static str {
        "rabbitmq"
    }

    fn partitions(&self) -> bool {
        true
    }

    fn dead_letter_queue(&self) -> String {
        self.inner.config.dead_letters.clone()
    }

    fn events_exchange(&self) -> &str {
        &self.inner.config.events_exchange
    }

    fn commands_exchange(&self) -> &str {
        &self.inner.config.commands_exchange
    }

    fn broker_status(&self) -> Option<super::BrokerStatus> {
        let connected = self.inner.current.lock().is_ok_and(|current| {
            current
                .as_ref()
                .is_some_and(|connection| connection.status().connected())
        });
        let opened = self.inner.opened.load(std::sync::atomic::Ordering::Relaxed);
        Some(super::BrokerStatus {
            connected: connected && !self.inner.closed.is_cancelled(),
            reconnects: opened.saturating_sub(1),
            address: self.node_shown().to_string(),
        })
    }

    fn queue_depth(&self, queue: &str) -> Option<u64> {
        self.inner.depths.get(queue)
    }
}
