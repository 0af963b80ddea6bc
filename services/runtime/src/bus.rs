//! The bus: what every transport offers the runtime, with the guarantees of a durable RabbitMQ
//! queue. A publication returns only once the bus has confirmed every message durable; a
//! subscription is a named queue bound to topic patterns, consumed with manual acks and a
//! bounded prefetch; an unacked message is redelivered; a poison message goes to the dead
//! letters with its reason. A command is published mandatory: one whose queue does not exist
//! (nobody consumes it) goes to the dead letters with reason [`UNROUTABLE`], and the publisher
//! learns it ([`Published::unroutable`]); an event no queue is bound for is dropped, as AMQP
//! drops it.
//!
//! Two transports implement it: [`embedded`] (one process, sled-backed) and [`amqp`] (RabbitMQ,
//! lapin).

pub mod amqp;
pub mod embedded;
pub mod partition;
pub mod pattern;

use std::sync::Arc;

use async_trait::async_trait;

use crate::dead_letter::Dead;
pub(crate) use crate::dead_letter::dead_letter_of;
use crate::wire::WireMessage;

/// Name of the topic exchange every event is published on.
pub const EVENTS_EXCHANGE: &str = "arcade.events";
/// Name of the topic exchange commands are sent on (RabbitMQ), routed by their queue's name.
pub const COMMANDS_EXCHANGE: &str = "arcade.commands";
/// Name of the dead-letter exchange and of the queue that keeps dead letters.
pub const DEAD_LETTERS: &str = "arcade.dead";
pub use crate::dead_letter::UNROUTABLE;

/// Where a publication goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// The topic exchange, routed by the message type.
    Topic,
    /// One named queue (a command addressed to one service instance). The publisher does not
    /// declare it: it exists once its consumer has subscribed (or the broker's definitions
    /// hold it); until then a command sent there is unroutable.
    Queue(String),
}

/// What became of a confirmed publication's commands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Published {
    /// The positions, in the publication, of the commands whose queue does not exist. Each is
    /// in the dead letters (confirmed there) with reason [`UNROUTABLE`], its queue in the
    /// `x-arcade-dead-queue` header.
    pub unroutable: Vec<usize>,
}

/// A message to publish and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publication {
    /// Topic or queue.
    pub destination: Destination,
    /// The message.
    pub message: WireMessage,
}

/// A named queue and what it is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionSpec {
    /// Queue name: a service's own queue, e.g. `bingo` or `referee.table-3`.
    pub queue: String,
    /// Topic patterns (`*` one word, `#` zero or more) bound on the events exchange.
    pub bindings: Vec<String>,
    /// Durable queues survive restarts and keep messages while nobody consumes; a non-durable
    /// one (a tap) lives as long as its consumer.
    pub durable: bool,
    /// At most this many unacked deliveries per consumer.
    pub prefetch: u16,
    /// Set for an instance of a partitioned service: the queue is the instance's (`S.pK`),
    /// `bindings` are bound to it directly, and the service's consistent-hash exchange and
    /// every partition's queue are declared too (RabbitMQ only).
    pub partition: Option<partition::Partitioned>,
}

impl SubscriptionSpec {
    /// A durable service queue with its bindings.
    pub fn durable(queue: impl Into<String>, bindings: Vec<String>) -> Self {
        SubscriptionSpec {
            queue: queue.into(),
            bindings,
            durable: true,
            prefetch: 256,
            partition: None,
        }
    }

    /// A temporary queue (for `arcade tap`), deleted when its consumer goes.
    pub fn temporary(queue: impl Into<String>, bindings: Vec<String>) -> Self {
        SubscriptionSpec {
            queue: queue.into(),
            bindings,
            durable: false,
            prefetch: 256,
            partition: None,
        }
    }
}

/// Errors of a transport.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// The broker cannot be reached now; retry later (the caller keeps its data).
    #[error("broker unavailable: {0}")]
    Unavailable(String),
    /// The broker refused the publication (negative confirm, access refused).
    #[error("broker refused the message: {0}")]
    Refused(String),
    /// The broker lacks something Arcade needs and cannot do without (a plugin): a
    /// configuration error, not an outage. The text names what and how to fix it.
    #[error("the broker is not set up for this service: {0}")]
    Misconfigured(String),
    /// The bus is shutting down or the consumer was closed.
    #[error("the bus is closed")]
    Closed,
    /// Local storage of the embedded bus failed.
    #[error("bus storage failed: {0}")]
    Storage(String),
}

impl From<sled::Error> for BusError {
    fn from(error: sled::Error) -> Self {
        BusError::Storage(error.to_string())
    }
}

/// The confirms of a started publication ([`Bus::start_publish`]).
pub type Confirms =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Published, BusError>> + Send>>;

/// A transport.
#[async_trait]
pub trait Bus: Send + Sync + 'static {
    /// Publishes messages in order. Returns only when every one is confirmed durable: in its
    /// queues, or in the dead letters for a command whose queue does not exist (listed in
    /// [`Published::unroutable`]); a topic message no queue is bound for is dropped, as AMQP
    /// drops it. On error, none may be taken as sent: the caller publishes them again
    /// (consumers deduplicate).
    async fn publish(&self, messages: &[Publication]) -> Result<Published, BusError>;

    /// Hands `messages` to the transport, in order, and returns what resolves when every one is
    /// confirmed (with [`Bus::publish`]'s meaning). Publications started one after another
    /// reach the broker in that order, so a caller may keep several unconfirmed (up to
    /// [`Bus::publish_window`]). The default publishes and confirms before returning.
    async fn start_publish(&self, messages: &[Publication]) -> Result<Confirms, BusError> {
        let published = self.publish(messages).await?;
        Ok(Box::pin(std::future::ready(Ok(published))))
    }

    /// How many started publications are worth keeping unconfirmed at once (1: publish, await
    /// the confirms, publish the next).
    fn publish_window(&self) -> usize {
        1
    }

    /// Declares the queue and its bindings (idempotent) and starts consuming it. Several
    /// consumers of one queue compete: each message goes to one of them.
    async fn subscribe(&self, spec: &SubscriptionSpec) -> Result<Box<dyn Consumer>, BusError>;

    /// Declares a durable queue and its bindings (idempotent) without consuming it, so that
    /// what is published from now on waits there for a consumer to come. The default
    /// subscribes and drops the consumer at once, which suits a transport whose dropped
    /// consumers hand back what they held.
    async fn declare(&self, spec: &SubscriptionSpec) -> Result<(), BusError> {
        self.subscribe(spec).await.map(drop)
    }

    /// Binds topic patterns to a durable queue (declared first if it does not exist;
    /// idempotent), without consuming it: from now on, what is published on the topic with a
    /// matching routing key waits in `queue` too. Binding adds: the queue's other bindings stay.
    /// A durable queue's bindings outlive the process. The default declares the queue with
    /// these bindings ([`Bus::declare`]).
    async fn bind(&self, queue: &str, patterns: &[String]) -> Result<(), BusError> {
        self.declare(&SubscriptionSpec::durable(queue, patterns.to_vec()))
            .await
    }

    /// Declares the queue and its bindings now, without waiting, when the transport can (the
    /// embedded bus: `true`), so that a command sent right after a service starts is routed.
    /// A transport that cannot (RabbitMQ: `false`) declares them when subscribing.
    fn declare_now(&self, spec: &SubscriptionSpec) -> Result<bool, BusError> {
        let _ = spec;
        Ok(false)
    }

    /// The exchange commands to a queue go through, with the queue as routing key (span
    /// attributes): `arcade.commands` unless the transport has one of its own. The embedded
    /// bus routes a command straight to its queue, as that exchange does.
    fn commands_exchange(&self) -> &str {
        COMMANDS_EXCHANGE
    }

    /// A short name of the transport, for logs.
    fn name(&self) -> &'static str;

    /// Whether it routes partitioned services' messages ([`SubscriptionSpec::partition`]):
    /// RabbitMQ does, with its consistent-hash exchange; the embedded bus does not.
    fn partitions(&self) -> bool {
        false
    }

    /// The queue holding dead letters (subscribe to it to read or replay them).
    fn dead_letter_queue(&self) -> String {
        DEAD_LETTERS.to_string()
    }

    /// The exchange topic publications go to (span attributes).
    fn events_exchange(&self) -> &str {
        EVENTS_EXCHANGE
    }

    /// The broker this transport talks to, if any (`None`: no broker, the embedded bus).
    fn broker_status(&self) -> Option<BrokerStatus> {
        None
    }

    /// Messages waiting in `queue`, where the transport knows it, without waiting on the
    /// network (RabbitMQ's is read in the background; `None`: not known now).
    fn queue_depth(&self, _queue: &str) -> Option<u64> {
        None
    }
}

/// The connection to a broker, for readiness and metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerStatus {
    /// Whether a connection is open now.
    pub connected: bool,
    /// Connections opened after the first one.
    pub reconnects: u64,
    /// Where the broker is (its URL, password hidden).
    pub address: String,
}

/// A consumer of one queue.
#[async_trait]
pub trait Consumer: Send {
    /// Waits for the next delivery. `Err(Closed)` when the bus shuts down.
    async fn next(&mut self) -> Result<Delivery, BusError>;

    /// The next delivery if one is ready now, without waiting (used to build batches).
    fn try_next(&mut self) -> Option<Delivery>;
}

/// How a delivery is settled. Exactly one of these is called, once.
#[async_trait]
pub trait Acker: Send + Sync {
    /// The consumer committed the message's effect: remove it from the queue.
    async fn ack(self: Box<Self>) -> Result<(), BusError>;
    /// Put it back to be delivered again (to this or another consumer).
    async fn requeue(self: Box<Self>) -> Result<(), BusError>;
    /// Move it to the dead letters (with why, its kind and its sender: see
    /// [`crate::dead_letter`]), and remove it from the queue.
    async fn dead_letter(self: Box<Self>, dead: Dead<'_>) -> Result<(), BusError>;

    /// Where the delivery sits, for a transport that settles a run of deliveries with one
    /// frame (AMQP's `multiple` ack): its consumer's identity and its position there. `None`
    /// (the default): it is acked on its own.
    fn position(&self) -> Option<(u64, u64)> {
        None
    }

    /// Acks this delivery and every earlier unsettled one of its consumer (see [`ack_all`]).
    /// The default acks only this one.
    async fn ack_through(self: Box<Self>) -> Result<(), BusError> {
        self.ack().await
    }
}

/// Acks a batch of deliveries. Where the transport can, one frame per consumer settles them
/// all: the last delivery is acked "through", the others with it.
///
/// The caller guarantees that every delivery a consumer handed out before the last one in
/// `acks` is either in `acks` or already settled (the host settles its deliveries in the order
/// they came). Returns the acks that were lost (the messages come again, to be deduplicated).
pub async fn ack_all(acks: Vec<Box<dyn Acker>>) -> Vec<BusError> {
    let mut last: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    for acker in &acks {
        if let Some((consumer, position)) = acker.position() {
            let entry = last.entry(consumer).or_insert(position);
            *entry = (*entry).max(position);
        }
    }
    let mut lost = Vec::new();
    for acker in acks {
        let result = match acker.position() {
            None => acker.ack().await,
            Some((consumer, position)) if last.get(&consumer) == Some(&position) => {
                acker.ack_through().await
            }
            // Settled by the consumer's last ack of the batch.
            Some(_) => continue,
        };
        if let Err(error) = result {
            lost.push(error);
        }
    }
    lost
}

/// One delivery of a message to a consumer.
pub struct Delivery {
    /// The message (shared with the queue that holds it until it is settled).
    pub message: Arc<WireMessage>,
    /// Whether it was delivered before (and not acked).
    pub redelivered: bool,
    /// The queue it came from.
    pub queue: String,
    /// The routing key it was published with on the topic exchange, where the transport routes
    /// by a key the publisher chose (RabbitMQ); `None` for a message sent to the queue itself,
    /// and on the embedded bus, which routes a topic message by its type.
    pub topic_routing_key: Option<String>,
    acker: Box<dyn Acker>,
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delivery")
            .field("message", &self.message)
            .field("redelivered", &self.redelivered)
            .field("queue", &self.queue)
            .field("topic_routing_key", &self.topic_routing_key)
            .finish_non_exhaustive()
    }
}

impl Delivery {
    /// A delivery settled through `acker`.
    pub fn new(
        message: impl Into<Arc<WireMessage>>,
        redelivered: bool,
        queue: String,
        acker: Box<dyn Acker>,
    ) -> Self {
        Delivery {
            message: message.into(),
            redelivered,
            queue,
            topic_routing_key: None,
            acker,
        }
    }

    /// The same delivery, published on the topic exchange with `routing_key`.
    pub fn with_topic_routing_key(mut self, routing_key: impl Into<String>) -> Self {
        self.topic_routing_key = Some(routing_key.into());
        self
    }

    /// Splits the message from its settlement, so it can be settled after a batch commits.
    pub fn into_parts(self) -> (Arc<WireMessage>, Box<dyn Acker>) {
        (self.message, self.acker)
    }

    /// Acks it.
    pub async fn ack(self) -> Result<(), BusError> {
        self.acker.ack().await
    }

    /// Requeues it.
    pub async fn requeue(self) -> Result<(), BusError> {
        self.acker.requeue().await
    }

    /// Dead-letters it: why, its kind and its sender ([`crate::dead_letter::Dead`]).
    pub async fn dead_letter(self, dead: Dead<'_>) -> Result<(), BusError> {
        self.acker.dead_letter(dead).await
    }
}
