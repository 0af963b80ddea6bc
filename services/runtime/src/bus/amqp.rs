//! The RabbitMQ transport (lapin on tokio), behind the same [`Bus`] trait as the embedded one.
//!
//! - Topology, declared idempotently on every (re)connection: the durable topic exchange
//!   `arcade.events`, the durable fanout exchange `arcade.dead` and its durable queue
//!   `arcade.dead`; each service queue durable, bound to its patterns, with
//!   `x-dead-letter-exchange: arcade.dead`. Names are configurable (tests use random ones).
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

pub mod history;
mod lag;
pub mod nodes;
pub mod properties;
pub mod topology;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::{FutureExt, StreamExt};
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicNackOptions, BasicPublishOptions, BasicQosOptions,
    ConfirmSelectOptions, ExchangeBindOptions, ExchangeDeclareOptions, QueueBindOptions,
    QueueDeclareOptions,
};
use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};
use lapin::{Channel, Connection, ConnectionProperties, ExchangeKind};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::partition::{CONSISTENT_HASH, HEADER_PARTITION_KEY, Partitioned};
use super::{
    Acker, Bus, BusError, COMMANDS_EXCHANGE, Confirms, Consumer, DEAD_LETTERS, Delivery,
    Destination, EVENTS_EXCHANGE, Publication, Published, SubscriptionSpec, UNROUTABLE,
};
use crate::backoff::Backoff;
use crate::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON, HEADER_DEAD_ROUTING_KEY, WireMessage};
pub use history::{HistoryConfig, StreamOffset};
pub use topology::QueueType;

/// The most bytes of unacked deliveries a consumer holds by default (128 MiB: 256 deliveries
/// of the broker's largest message).
pub const DEFAULT_PREFETCH_BYTES: u32 = 128 * 1024 * 1024;

/// Where and how to reach RabbitMQ.
#[derive(Debug, Clone)]
pub struct AmqpConfig {
    /// `amqp://user:pass@host:port/vhost` or `amqps://…`; several nodes of one cluster
    /// comma-separated, each a full URL (see [`nodes`]).
    pub url: String,
    /// The topic exchange events are published on.
    pub events_exchange: String,
    /// The dead-letter exchange, and the queue that keeps dead letters.
    pub dead_letters: String,
    /// The topic exchange commands are sent on, routed by the name of the queue they are for
    /// (every durable queue is bound to it under its own name), so that the broker's topic
    /// permissions say who may send to which queue, which the default exchange cannot.
    pub commands_exchange: String,
    /// The connection's name, shown in the management UI.
    pub connection_name: String,
    /// How long one connection attempt may take.
    pub connect_timeout: Duration,
    /// Reconnection delays: first ceiling and cap.
    pub backoff: (Duration, Duration),
    /// For tests: queues expire after this long unused (`x-expires`) and exchanges are
    /// auto-deleted, so a test's randomly named topology goes away after it. `None` in service.
    pub expire_after: Option<Duration>,
    /// The largest frame to propose when the URL's query sets no `frame_max` (`None`: the
    /// broker's, 128 KiB on RabbitMQ). lapin keeps a receive and a send buffer of 32 frames
    /// each, zero-filled: an edge device proposes small frames.
    pub frame_max: Option<u32>,
    /// The largest message the broker accepts (`max_message_size` in `ops/rabbitmq/rabbitmq.conf`,
    /// 512 KiB): with [`AmqpConfig::prefetch_bytes`] it bounds what a consumer may hold unacked.
    pub max_message_bytes: u32,
    /// The most bytes of unacked deliveries a consumer may hold: its prefetch count is at most
    /// this over [`AmqpConfig::max_message_bytes`] (RabbitMQ implements no byte prefetch).
    pub prefetch_bytes: u32,
    /// The type of the service and dead-letter queues (`ARCADE_QUEUE_TYPE`; default quorum).
    pub queue_type: QueueType,
    /// How often the depth of each consumed durable queue is asked of the broker (the
    /// `arcade_consumer_lag_messages` gauge; the `lag` module says how).
    pub lag_interval: Duration,
    /// A PEM file of CA certificates trusted, besides the system roots, to sign the broker's
    /// certificate on an `amqps://` URL (for now set by code that builds the bus; the binaries
    /// read `SSL_CERT_FILE`). Read on every
    /// connection attempt, so a replaced file is picked up on reconnection.
    pub ca_file: Option<std::path::PathBuf>,
    /// The stream that keeps every event (`arcade.history`) and its retention, declared with
    /// the topology and bound to the events exchange (`None`: none; see [`history`]).
    pub history: Option<HistoryConfig>,
}

impl AmqpConfig {
    /// The standard topology (`arcade.events`, `arcade.dead`) at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        AmqpConfig {
            url: url.into(),
            events_exchange: EVENTS_EXCHANGE.to_string(),
            dead_letters: DEAD_LETTERS.to_string(),
            commands_exchange: COMMANDS_EXCHANGE.to_string(),
            connection_name: "arcade".to_string(),
            connect_timeout: Duration::from_secs(5),
            backoff: (Duration::from_millis(100), Duration::from_secs(10)),
            expire_after: None,
            frame_max: None,
            max_message_bytes: 512 * 1024,
            prefetch_bytes: DEFAULT_PREFETCH_BYTES,
            queue_type: QueueType::default(),
            lag_interval: Duration::from_secs(5),
            ca_file: None,
            history: Some(HistoryConfig::default()),
        }
    }
}

/// A URL the transport cannot use.
#[derive(Debug, thiserror::Error)]
#[error("invalid RabbitMQ URL {url}: {reason}")]
pub struct InvalidUrl {
    /// The URL, its password hidden.
    pub url: String,
    /// Why.
    pub reason: String,
}

/// The URL (or comma-separated URLs) with passwords replaced by `***`, for messages and logs.
pub fn redact(url: &str) -> String {
    if url.contains(',') {
        return url.split(',').map(redact_one).collect::<Vec<_>>().join(",");
    }
    redact_one(url)
}

fn redact_one(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{host}{path}")
        }
        None => url.to_string(),
    }
}

/// The RabbitMQ bus. Cheap to clone; every clone shares one connection.
#[derive(Clone)]
pub struct AmqpBus {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for AmqpBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AmqpBus")
            .field("url", &redact(&self.inner.config.url))
            .field("events_exchange", &self.inner.config.events_exchange)
            .field("dead_letters", &self.inner.config.dead_letters)
            .finish_non_exhaustive()
    }
}

struct Inner {
    config: AmqpConfig,
    /// The connection's user, set as every publication's `user_id`: RabbitMQ refuses a
    /// `user_id` that is not the connection's, so a consumer knows who sent a message. The
    /// first node's: every node of a cluster shares its users.
    user: ShortString,
    /// The parsed node URLs, with the configuration's defaults applied.
    nodes: nodes::Nodes,
    /// The node of the current connection.
    node: std::sync::atomic::AtomicUsize,
    link: Mutex<Link>,
    publisher: Mutex<Option<Publisher>>,
    /// The token of the latest publishing channel: alive while publications started on it
    /// wait for their confirms.
    latest: std::sync::Mutex<std::sync::Weak<()>>,
    closed: CancellationToken,
    /// The current connection, readable without waiting (health and metrics), and how many
    /// were opened.
    current: std::sync::Mutex<Option<Arc<Connection>>>,
    opened: std::sync::atomic::AtomicU64,
    /// The depths of the consumed durable queues, as the broker last said them.
    depths: lag::Depths,
}

struct Link {
    connection: Option<Arc<Connection>>,
    generation: u64,
    backoff: Backoff,
    retry_at: Option<Instant>,
    warned: bool,
}

struct Publisher {
    channel: Channel,
    generation: u64,
    /// Held by the confirms of every publication started on this channel.
    token: Arc<()>,
}

fn unavailable(what: &str, error: impl std::fmt::Display) -> BusError {
    BusError::Unavailable(format!("{what}: {error}"))
}

fn short(value: &str) -> ShortString {
    ShortString::from(value.to_string())
}

impl AmqpBus {
    /// A bus for `config`. It does not connect yet (see [`AmqpBus::connect_now`]): a service
    /// runs without the broker and the bus connects when it is first needed and reachable.
    pub fn new(config: AmqpConfig) -> Result<Self, InvalidUrl> {
        let nodes = nodes::parse(&config.url, config.frame_max)
            .map_err(|(url, reason)| InvalidUrl { url, reason })?;
        let (base, cap) = config.backoff;
        let user = short(&nodes.first().authority.userinfo.username);
        Ok(AmqpBus {
            inner: Arc::new(Inner {
                user,
                link: Mutex::new(Link {
                    connection: None,
                    generation: 0,
                    backoff: Backoff::new(base, cap),
                    retry_at: None,
                    warned: false,
                }),
                publisher: Mutex::new(None),
                latest: std::sync::Mutex::new(std::sync::Weak::new()),
                closed: CancellationToken::new(),
                current: std::sync::Mutex::new(None),
                opened: std::sync::atomic::AtomicU64::new(0),
                depths: lag::Depths::default(),
                config,
                nodes,
                node: std::sync::atomic::AtomicUsize::new(0),
            }),
        })
    }

    /// The broker user it connects as: what the broker vouches for as the sender (`user_id`)
    /// of everything it publishes.
    pub fn user(&self) -> &str {
        self.inner.user.as_str()
    }

    /// The configuration.
    pub fn config(&self) -> &AmqpConfig {
        &self.inner.config
    }

    /// Connects now (if not connected) and declares the topology; the error says why not.
    pub async fn connect_now(&self) -> Result<(), BusError> {
        self.connection().await.map(|_| ())
    }

    /// Closes the connection; consumers' `next` returns `Closed`, publications fail.
    pub async fn close(&self) {
        self.inner.closed.cancel();
        let connection = self.inner.link.lock().await.connection.take();
        if let Some(connection) = connection {
            let _ = connection.close(200, short("arcade: closing")).await;
        }
    }

    /// The current connection, connecting (and declaring the topology) if there is none.
    async fn connection(&self) -> Result<(Arc<Connection>, u64), BusError> {
        if self.inner.closed.is_cancelled() {
            return Err(BusError::Closed);
        }
        let mut link = self.inner.link.lock().await;
        if let Some(connection) = &link.connection {
            if connection.status().connected() {
                return Ok((connection.clone(), link.generation));
            }
            warn!(url = %self.node_shown(), "RabbitMQ connection lost; reconnecting");
            link.connection = None;
        }
        if let Some(at) = link.retry_at {
            let now = Instant::now();
            if now < at {
                return Err(BusError::Unavailable(format!(
                    "{}: not reachable; next attempt in {} ms",
                    redact(&self.inner.config.url),
                    (at - now).as_millis()
                )));
            }
        }
        match self.open().await {
            Ok(connection) => {
                let connection = Arc::new(connection);
                link.connection = Some(connection.clone());
                link.generation += 1;
                if let Ok(mut current) = self.inner.current.lock() {
                    *current = Some(connection.clone());
                }
                self.inner
                    .opened
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                link.backoff.reset();
                link.retry_at = None;
                link.warned = false;
                info!(url = %self.node_shown(), "connected to RabbitMQ");
                Ok((connection, link.generation))
            }
            Err(error) => {
                let delay = link.backoff.next_delay();
                link.retry_at = Some(Instant::now() + delay);
                if !link.warned {
                    warn!(%error, "RabbitMQ not reachable; retrying with backoff");
                    link.warned = true;
                }
                Err(error)
            }
        }
    }

    /// The current node's URL, its password hidden.
    fn node_shown(&self) -> &str {
        let node = self.inner.node.load(std::sync::atomic::Ordering::Relaxed);
        self.inner.nodes.shown(node)
    }

    /// Connects to the first node that answers, starting after the last one connected to.
    async fn open(&self) -> Result<Connection, BusError> {
        let mut errors = Vec::new();
        for (i, uri, shown) in self.inner.nodes.attempts() {
            match self.open_node(uri, shown).await {
                Ok(connection) => {
                    self.inner.nodes.connected(i);
                    self.inner
                        .node
                        .store(i, std::sync::atomic::Ordering::Relaxed);
                    return Ok(connection);
                }
                Err(error) => errors.push(error.to_string()),
            }
        }
        Err(BusError::Unavailable(errors.join("; ")))
    }

    /// The TLS settings: the CA file's certificates, if one is set.
    fn tls_config(&self) -> Result<lapin::tcp::OwnedTLSConfig, BusError> {
        let Some(path) = &self.inner.config.ca_file else {
            return Ok(lapin::tcp::OwnedTLSConfig::default());
        };
        let pem = std::fs::read_to_string(path).map_err(|e| {
            BusError::Unavailable(format!("CA file {}: cannot read it: {e}", path.display()))
        })?;
        if !pem.contains("-----BEGIN CERTIFICATE-----") {
            return Err(BusError::Unavailable(format!(
                "CA file {}: no PEM certificate in it",
                path.display()
            )));
        }
        Ok(lapin::tcp::OwnedTLSConfig {
            identity: None,
            cert_chain: Some(pem),
        })
    }

    async fn open_node(
        &self,
        uri: &lapin::uri::AMQPUri,
        url: &str,
    ) -> Result<Connection, BusError> {
        let config = &self.inner.config;
        let properties = ConnectionProperties::default()
            .with_connection_name(LongString::from(config.connection_name.clone()));
        let tls = self.tls_config()?;
        let runtime = lapin::runtime::default_runtime().map_err(|e| unavailable(url, e))?;
        let connection = tokio::time::timeout(
            config.connect_timeout,
            Connection::connect_uri_with_config(uri.clone(), properties, tls, runtime),
        )
        .await
        .map_err(|_| {
            BusError::Unavailable(format!(
                "{url}: no answer within {} ms",
                config.connect_timeout.as_millis()
            ))
        })?
        .map_err(|e| unavailable(url, e))?;
        let channel = connection
            .create_channel()
            .await
            .map_err(|e| unavailable(url, e))?;
        let durable = ExchangeDeclareOptions {
            durable: true,
            auto_delete: config.expire_after.is_some(),
            ..ExchangeDeclareOptions::default()
        };
        let declare = async {
            channel
                .exchange_declare(
                    short(&config.events_exchange),
                    ExchangeKind::Topic,
                    durable,
                    FieldTable::default(),
                )
                .await?;
            channel
                .exchange_declare(
                    short(&config.commands_exchange),
                    ExchangeKind::Topic,
                    ExchangeDeclareOptions {
                        durable: true,
                        ..ExchangeDeclareOptions::default()
                    },
                    FieldTable::default(),
                )
                .await?;
            channel
                .exchange_declare(
                    short(&config.dead_letters),
                    ExchangeKind::Fanout,
                    durable,
                    FieldTable::default(),
                )
                .await?;
            channel
                .queue_declare(
                    short(&config.dead_letters),
                    QueueDeclareOptions {
                        durable: true,
                        ..QueueDeclareOptions::default()
                    },
                    self.queue_arguments(&config.dead_letters),
                )
                .await?;
            channel
                .queue_bind(
                    short(&config.dead_letters),
                    short(&config.dead_letters),
                    short(""),
                    QueueBindOptions::default(),
                    FieldTable::default(),
                )
                .await?;
            channel.close(200, short("topology declared")).await
        };
        // A user with least privilege may not declare shared exchanges: the broker's
        // definitions hold them then, and the connection is good for the rest.
        if let Err(e) = declare.await {
            let e = self
                .declare_error(&connection, &config.dead_letters, &e)
                .await;
            warn!(
                %e,
                events = %config.events_exchange,
                dead = %config.dead_letters,
                "cannot declare the shared topology; relying on the broker's definitions"
            );
        } else {
            self.declare_history(&connection).await;
        }
        Ok(connection)
    }

    /// Declares the history stream and binds it to every event, on a channel of its own: a
    /// stream that exists with other retention arguments is kept as it is, with a warning.
    async fn declare_history(&self, connection: &Connection) {
        let config = &self.inner.config;
        let Some(history) = config
            .history
            .as_ref()
            .filter(|_| config.expire_after.is_none())
        else {
            return;
        };
        let declare = async {
            let channel = connection.create_channel().await?;
            channel
                .queue_declare(
                    short(&history.stream),
                    QueueDeclareOptions {
                        durable: true,
                        ..QueueDeclareOptions::default()
                    },
                    history.arguments(),
                )
                .await?;
            channel
                .queue_bind(
                    short(&history.stream),
                    short(&config.events_exchange),
                    short("#"),
                    QueueBindOptions::default(),
                    FieldTable::default(),
                )
                .await?;
            channel.close(200, short("history declared")).await
        };
        if let Err(e) = declare.await {
            warn!(
                %e,
                stream = %history.stream,
                max_bytes = history.max_bytes,
                max_age = %history.max_age,
                "cannot declare the history stream (other retention than ARCADE_HISTORY_MAX_BYTES / ARCADE_HISTORY_MAX_AGE, or no permission); relying on the broker's"
            );
        }
    }

    /// The arguments of a durable queue: every queue but the dead letters' dead-letters to them.
    fn queue_arguments(&self, queue: &str) -> FieldTable {
        let config = &self.inner.config;
        let dead_letters = (queue != config.dead_letters).then_some(config.dead_letters.as_str());
        topology::durable_arguments(config.queue_type, dead_letters, config.expire_after)
    }

    /// Why declaring `queue` failed, told so the operator knows what to do. A queue that
    /// exists with other arguments is probed (on a channel of its own) with Arcade's arguments
    /// of the other queue type, to say which type it has.
    async fn declare_error(
        &self,
        connection: &Connection,
        queue: &str,
        error: &lapin::Error,
    ) -> String {
        let text = error.to_string();
        if !topology::inequivalent(&text) {
            return format!("cannot declare queue {queue}: {text}");
        }
        let config = &self.inner.config;
        let other = match config.queue_type {
            QueueType::Quorum => QueueType::Classic,
            QueueType::Classic => QueueType::Quorum,
        };
        let dead_letters = (queue != config.dead_letters).then_some(config.dead_letters.as_str());
        let arguments = topology::durable_arguments(other, dead_letters, config.expire_after);
        let found = match connection.create_channel().await {
            Ok(channel) => {
                let probe = channel
                    .queue_declare(
                        short(queue),
                        QueueDeclareOptions {
                            durable: true,
                            ..QueueDeclareOptions::default()
                        },
                        arguments,
                    )
                    .await;
                let _ = channel.close(200, short("probed")).await;
                probe.is_ok().then_some(other)
            }
            Err(_) => None,
        };
        topology::explain(queue, config.queue_type, found, &text)
    }

    async fn declare_durable_queue(&self, channel: &Channel, queue: &str) -> lapin::Result<()> {
        channel
            .queue_declare(
                short(queue),
                QueueDeclareOptions {
                    durable: true,
                    ..QueueDeclareOptions::default()
                },
                self.queue_arguments(queue),
            )
            .await
            .map(|_| ())
    }

    /// The topology of a partitioned service, declared idempotently by each of its instances
    /// before it consumes: the consistent-hash exchange `S.partitions` (hashing the header
    /// `x-arcade-partition-key`), bound from the events exchange with the per-game patterns and
    /// from the commands exchange with key `S` (so commands sent to queue `S` reach the
    /// partitions and are not unroutable), and every partition's queue, bound to it with weight
    /// "1".
    ///
    /// The queues are bound in lexicographic order of their names, always: the exchange numbers
    /// its hash-ring buckets in the order bindings are added, and when the broker restarts it
    /// rebuilds the ring from the stored bindings, which come back in that order
    /// (`rabbit_exchange_type_consistent_hash.erl`). Binding in the same order from the start
    /// keeps the game → partition map the same across broker restarts. Binding again what is
    /// bound changes nothing (the broker adds no second binding), so instances starting
    /// together agree.
    async fn declare_partitions(
        &self,
        channel: &Channel,
        partitioned: &Partitioned,
    ) -> lapin::Result<()> {
        let config = &self.inner.config;
        let exchange = partitioned.exchange();
        let mut arguments = FieldTable::default();
        arguments.insert(
            short("hash-header"),
            AMQPValue::LongString(LongString::from(HEADER_PARTITION_KEY.to_string())),
        );
        channel
            .exchange_declare(
                short(&exchange),
                ExchangeKind::Custom(CONSISTENT_HASH.to_string()),
                ExchangeDeclareOptions {
                    durable: true,
                    auto_delete: config.expire_after.is_some(),
                    ..ExchangeDeclareOptions::default()
                },
                arguments,
            )
            .await?;
        for pattern in &partitioned.keyed {
            channel
                .exchange_bind(
                    short(&exchange),
                    short(&config.events_exchange),
                    short(pattern),
                    ExchangeBindOptions::default(),
                    FieldTable::default(),
                )
                .await?;
        }
        channel
            .exchange_bind(
                short(&exchange),
                short(&config.commands_exchange),
                short(&partitioned.service),
                ExchangeBindOptions::default(),
                FieldTable::default(),
            )
            .await?;
        for queue in partitioned.queues() {
            self.declare_durable_queue(channel, &queue).await?;
            channel
                .queue_bind(
                    short(&queue),
                    short(&exchange),
                    short("1"),
                    QueueBindOptions::default(),
                    FieldTable::default(),
                )
                .await?;
        }
        Ok(())
    }

    /// Why declaring a partitioned service's topology failed, told so the operator knows what
    /// to do.
    fn partitions_error(&self, partitioned: &Partitioned, error: &lapin::Error) -> String {
        let text = error.to_string();
        let hint = if text.contains("x-consistent-hash") || text.contains("exchange type") {
            ": enable the broker's plugin (rabbitmq-plugins enable rabbitmq_consistent_hash_exchange)"
        } else {
            ""
        };
        format!(
            "cannot declare the partitions of {} (exchange {}): {text}{hint}",
            partitioned.service,
            partitioned.exchange()
        )
    }

    /// The prefetch count of a consumer asking for `count`: bounded in bytes too.
    fn prefetch(&self, count: u16) -> u16 {
        let config = &self.inner.config;
        let by_bytes = config.prefetch_bytes / config.max_message_bytes.max(1);
        count
            .min(u16::try_from(by_bytes).unwrap_or(u16::MAX))
            .max(1)
    }

    /// The properties `message` is published with: its own, and the connection's user as
    /// `user_id` (whatever the message said: the broker accepts no other).
    fn properties(&self, message: &WireMessage) -> lapin::BasicProperties {
        properties::to_properties(message).with_user_id(self.inner.user.clone())
    }

    /// Binds a durable queue to the commands exchange under its own name, on a channel of its
    /// own: a user whose definitions hold the binding already, and who may not make it, still
    /// consumes its queue.
    async fn bind_commands(&self, connection: &Connection, queue: &str) {
        if queue == self.inner.config.dead_letters {
            // Dead letters are taken, never sent to.
            return;
        }
        let bind = async {
            let channel = connection.create_channel().await?;
            let bound = channel
                .queue_bind(
                    short(queue),
                    short(&self.inner.config.commands_exchange),
                    short(queue),
                    QueueBindOptions::default(),
                    FieldTable::default(),
                )
                .await;
            let _ = channel.close(200, short("commands bound")).await;
            bound
        };
        if let Err(e) = bind.await {
            warn!(
                %e,
                queue,
                commands = %self.inner.config.commands_exchange,
                "cannot bind the queue to the commands exchange; relying on the broker's definitions"
            );
        }
    }

    /// The publishing channel (in confirm mode) of the current connection.
    async fn publisher<'a>(
        &self,
        slot: &'a mut Option<Publisher>,
    ) -> Result<&'a mut Publisher, BusError> {
        let (connection, generation) = self.connection().await?;
        let usable = slot
            .as_ref()
            .is_some_and(|p| p.generation == generation && p.channel.status().connected());
        if !usable {
            *slot = None;
            // Publications started on the lost channel may yet fail, to be published again by
            // their callers; until they are settled, a new channel would let later ones
            // overtake them.
            let latest = self.inner.latest.lock().map(|w| w.upgrade().is_some());
            if latest.unwrap_or(false) {
                return Err(BusError::Unavailable(
                    "publications of the lost channel are not settled yet".into(),
                ));
            }
            let channel = connection
                .create_channel()
                .await
                .map_err(|e| unavailable("cannot open a channel", e))?;
            channel
                .confirm_select(ConfirmSelectOptions::default())
                .await
                .map_err(|e| unavailable("cannot enable publisher confirms", e))?;
            let token = Arc::new(());
            if let Ok(mut latest) = self.inner.latest.lock() {
                *latest = Arc::downgrade(&token);
            }
            *slot = Some(Publisher {
                channel,
                generation,
                token,
            });
        }
        slot.as_mut().ok_or(BusError::Closed)
    }

    /// Publishes one message on the publishing channel and awaits its confirm.
    async fn publish_confirmed(
        &self,
        exchange: &str,
        routing_key: &str,
        message: &WireMessage,
    ) -> Result<(), BusError> {
        let confirm = {
            let mut slot = self.inner.publisher.lock().await;
            let publisher = self.publisher(&mut slot).await?;
            publisher
                .channel
                .basic_publish(
                    short(exchange),
                    short(routing_key),
                    BasicPublishOptions::default(),
                    &message.body,
                    self.properties(message),
                )
                .await
                .map_err(|e| unavailable("publish", e))?
        };
        self.confirmed(confirm).await.map(|_| ())
    }

    /// Awaits a publisher confirm; `Some` when the broker returned the (mandatory) message
    /// before acking it. A confirm that never comes (a channel hung rather than closed) is a
    /// lost channel: it is thrown away and the message counts as not sent.
    async fn confirmed(
        &self,
        confirm: lapin::PublisherConfirm,
    ) -> Result<Option<lapin::message::BasicReturnMessage>, BusError> {
        match tokio::time::timeout(CONFIRM_TIMEOUT, confirm).await {
            Ok(confirmation) => settle(confirmation),
            Err(_) => {
                *self.inner.publisher.lock().await = None;
                Err(BusError::Unavailable(format!(
                    "no publisher confirm within {} s; the channel is dropped",
                    CONFIRM_TIMEOUT.as_secs()
                )))
            }
        }
    }
}

/// How many publications the relay keeps unconfirmed: confirms of persistent messages come
/// after the broker's disk write, and meanwhile the next batches are on their way.
const PUBLISH_WINDOW: usize = 4;

/// How long a publisher confirm may take before its channel is taken for lost.
const CONFIRM_TIMEOUT: Duration = Duration::from_secs(30);

/// What a publisher confirm says about its message: taken, or returned as unroutable.
fn settle(
    confirmation: lapin::Result<lapin::Confirmation>,
) -> Result<Option<lapin::message::BasicReturnMessage>, BusError> {
    match confirmation {
        Ok(confirmation) if confirmation.is_nack() => Err(BusError::Refused(
            "the broker nacked the message (negative publisher confirm)".into(),
        )),
        Ok(confirmation) => Ok(confirmation.take_message()),
        Err(e) => Err(unavailable("no publisher confirm", e)),
    }
}

/// The dead letter of a command the broker returned: its queue `queue` does not exist.
fn unroutable(message: &WireMessage, queue: &str) -> WireMessage {
    let mut dead = message.clone();
    dead.headers
        .insert(HEADER_DEAD_REASON.into(), UNROUTABLE.to_string());
    dead.headers
        .insert(HEADER_DEAD_QUEUE.into(), queue.to_string());
    dead.headers.insert(
        HEADER_DEAD_ROUTING_KEY.into(),
        message.routing_key().to_string(),
    );
    dead
}

#[async_trait]
impl Bus for AmqpBus {
    async fn publish(&self, messages: &[Publication]) -> Result<Published, BusError> {
        self.start_publish(messages).await?.await
    }

    /// Publishes on the confirm channel (frames handed to the connection, in order) and
    /// returns the wait for their confirms, so the relay can publish its next batch meanwhile.
    async fn start_publish(&self, messages: &[Publication]) -> Result<Confirms, BusError> {
        if messages.is_empty() {
            return Ok(Box::pin(std::future::ready(Ok(Published::default()))));
        }
        // Publish in order under the channel lock (so concurrent callers keep their own order),
        // then await every confirm outside it.
        let confirms = {
            let mut slot = self.inner.publisher.lock().await;
            let publisher = self.publisher(&mut slot).await?;
            let mut confirms = Vec::with_capacity(messages.len());
            let token = publisher.token.clone();
            for publication in messages {
                let message = &publication.message;
                let (exchange, routing_key) = match &publication.destination {
                    Destination::Topic => (
                        self.inner.config.events_exchange.as_str(),
                        message.routing_key(),
                    ),
                    Destination::Queue(queue) => {
                        (self.inner.config.commands_exchange.as_str(), queue.as_str())
                    }
                };
                // A command is mandatory: the broker returns it when its queue does not exist.
                let mandatory = matches!(publication.destination, Destination::Queue(_));
                let published = publisher
                    .channel
                    .basic_publish(
                        short(exchange),
                        short(routing_key),
                        BasicPublishOptions {
                            mandatory,
                            ..BasicPublishOptions::default()
                        },
                        &message.body,
                        self.properties(message),
                    )
                    .await;
                match published {
                    Ok(confirm) => confirms.push(confirm),
                    Err(e) => {
                        *slot = None;
                        return Err(unavailable("publish", e));
                    }
                }
            }
            (confirms, token)
        };
        let (confirms, token) = confirms;
        // One message not confirmed fails the whole publication (all are published again).
        let bus = self.clone();
        // Only a command (mandatory) can come back: keep a copy of those alone, not of every
        // event (a copy is its body and about ten strings).
        let returnable: Vec<Option<(String, WireMessage)>> = messages
            .iter()
            .map(|p| match &p.destination {
                Destination::Queue(queue) => Some((queue.clone(), p.message.clone())),
                Destination::Topic => None,
            })
            .collect();
        Ok(Box::pin(async move {
            let _token = token;
            let mut published = Published::default();
            for (position, confirm) in confirms.into_iter().enumerate() {
                if bus.confirmed(confirm).await?.is_none() {
                    continue;
                }
                // Returned (`basic.return`, then acked): its queue does not exist. Keep it as a
                // dead letter, confirmed there, before the publication counts as done.
                let Some((queue, message)) = &returnable[position] else {
                    continue;
                };
                let dead = unroutable(message, queue);
                let exchange = bus.inner.config.dead_letters.clone();
                bus.publish_confirmed(&exchange, dead.routing_key(), &dead)
                    .await?;
                published.unroutable.push(position);
            }
            Ok(published)
        }))
    }

    fn publish_window(&self) -> usize {
        PUBLISH_WINDOW
    }

    async fn subscribe(&self, spec: &SubscriptionSpec) -> Result<Box<dyn Consumer>, BusError> {
        let (connection, _) = self.connection().await?;
        let channel = connection
            .create_channel()
            .await
            .map_err(|e| unavailable("cannot open a channel", e))?;
        let setup = async {
            channel
                .basic_qos(self.prefetch(spec.prefetch), BasicQosOptions::default())
                .await?;
            if spec.durable {
                if let Some(partitioned) = &spec.partition {
                    self.declare_partitions(&channel, partitioned).await?;
                }
                self.declare_durable_queue(&channel, &spec.queue).await?;
                self.bind_commands(&connection, &spec.queue).await;
            } else {
                channel
                    .queue_declare(
                        short(&spec.queue),
                        QueueDeclareOptions {
                            exclusive: true,
                            auto_delete: true,
                            ..QueueDeclareOptions::default()
                        },
                        FieldTable::default(),
                    )
                    .await?;
            }
            for pattern in &spec.bindings {
                channel
                    .queue_bind(
                        short(&spec.queue),
                        short(&self.inner.config.events_exchange),
                        short(pattern),
                        QueueBindOptions::default(),
                        FieldTable::default(),
                    )
                    .await?;
            }
            let tag = format!(
                "{}.{}",
                self.inner.config.connection_name,
                uuid::Uuid::new_v4().simple()
            );
            channel
                .basic_consume(
                    short(&spec.queue),
                    short(&tag),
                    BasicConsumeOptions::default(),
                    FieldTable::default(),
                )
                .await
        };
        let stream = match setup.await {
            Ok(stream) => stream,
            Err(e) => {
                let _ = channel.close(200, short("subscription failed")).await;
                return Err(if connection.status().connected() {
                    BusError::Refused(if topology::inequivalent(&e.to_string()) {
                        self.declare_error(&connection, &spec.queue, &e).await
                    } else if let Some(partitioned) = &spec.partition {
                        self.partitions_error(partitioned, &e)
                    } else {
                        format!("cannot consume queue {}: {e}", spec.queue)
                    })
                } else {
                    unavailable(&format!("cannot consume queue {}", spec.queue), e)
                });
            }
        };
        debug!(queue = %spec.queue, prefetch = spec.prefetch, "consuming");
        if spec.durable {
            lag::watch(self, &spec.queue);
        }
        static CONSUMERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Ok(Box::new(AmqpConsumer {
            bus: self.clone(),
            id: CONSUMERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            channel,
            stream,
            queue: spec.queue.clone(),
        }))
    }

    async fn declare(&self, spec: &SubscriptionSpec) -> Result<(), BusError> {
        let (connection, _) = self.connection().await?;
        let channel = connection
            .create_channel()
            .await
            .map_err(|e| unavailable("cannot open a channel", e))?;
        let setup = async {
            if let Some(partitioned) = &spec.partition {
                self.declare_partitions(&channel, partitioned).await?;
            }
            self.declare_durable_queue(&channel, &spec.queue).await?;
            self.bind_commands(&connection, &spec.queue).await;
            for pattern in &spec.bindings {
                channel
                    .queue_bind(
                        short(&spec.queue),
                        short(&self.inner.config.events_exchange),
                        short(pattern),
                        QueueBindOptions::default(),
                        FieldTable::default(),
                    )
                    .await?;
            }
            Ok::<(), lapin::Error>(())
        };
        let result = setup.await;
        let _ = channel.close(200, short("declared")).await;
        match result {
            Ok(()) => Ok(()),
            Err(e) if connection.status().connected() => {
                Err(BusError::Refused(match &spec.partition {
                    Some(partitioned) if !topology::inequivalent(&e.to_string()) => {
                        self.partitions_error(partitioned, &e)
                    }
                    _ => self.declare_error(&connection, &spec.queue, &e).await,
                }))
            }
            Err(e) => Err(unavailable(
                &format!("cannot declare queue {}", spec.queue),
                e,
            )),
        }
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

struct AmqpConsumer {
    bus: AmqpBus,
    /// Unique among the process's consumers (channel ids are reused), for [`super::ack_all`].
    id: u64,
    channel: Channel,
    stream: lapin::Consumer,
    queue: String,
}

impl AmqpConsumer {
    fn delivery(&self, delivery: lapin::message::Delivery) -> Delivery {
        if delivery.delivery_tag == 1 {
            // After a failover, what the lost consumer held comes first (redelivered), before
            // anything newer: see `topology` (single active consumer).
            debug!(queue = %self.queue, consumer = self.id, redelivered = delivery.redelivered, "first delivery of a consumer");
        }
        // Published on the events exchange: the routing key is what the broker's topic
        // permissions checked, and the host refuses a type that differs from it.
        let topic_key = (delivery.exchange.as_str() == self.bus.inner.config.events_exchange)
            .then(|| delivery.routing_key.to_string());
        let message = Arc::new(properties::from_properties(
            &delivery.properties,
            delivery.data,
        ));
        let acker = AmqpAcker {
            bus: self.bus.clone(),
            channel: self.channel.clone(),
            consumer: self.id,
            tag: delivery.delivery_tag,
            acker: delivery.acker,
            queue: self.queue.clone(),
            message: message.clone(),
        };
        let delivery = Delivery::new(
            message,
            delivery.redelivered,
            self.queue.clone(),
            Box::new(acker),
        );
        match topic_key {
            Some(key) => delivery.with_topic_routing_key(key),
            None => delivery,
        }
    }

    fn settle_item(
        &self,
        item: Option<lapin::Result<lapin::message::Delivery>>,
    ) -> Result<Delivery, BusError> {
        match item {
            Some(Ok(delivery)) => Ok(self.delivery(delivery)),
            Some(Err(e)) => Err(unavailable(&format!("consuming {}", self.queue), e)),
            None if self.bus.inner.closed.is_cancelled() => Err(BusError::Closed),
            None => Err(BusError::Unavailable(format!(
                "the consumer of {} was cancelled",
                self.queue
            ))),
        }
    }
}

#[async_trait]
impl Consumer for AmqpConsumer {
    async fn next(&mut self) -> Result<Delivery, BusError> {
        let closed = self.bus.inner.closed.clone();
        let item = tokio::select! {
            () = closed.cancelled() => return Err(BusError::Closed),
            item = self.stream.next() => item,
        };
        self.settle_item(item)
    }

    fn try_next(&mut self) -> Option<Delivery> {
        let item = self.stream.next().now_or_never()?;
        self.settle_item(item).ok()
    }
}

impl Drop for AmqpConsumer {
    fn drop(&mut self) {
        // Closing the channel gives back to the queue whatever this consumer had not settled.
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let channel = self.channel.clone();
            handle.spawn(async move {
                let _ = channel.close(200, short("consumer closed")).await;
            });
        }
    }
}

struct AmqpAcker {
    bus: AmqpBus,
    channel: Channel,
    consumer: u64,
    tag: u64,
    acker: lapin::Acker,
    queue: String,
    message: Arc<WireMessage>,
}

/// How long an ack may take to be handed to the connection before the channel is taken for
/// lost (an ack on a connection that just died may otherwise never settle).
const ACK_TIMEOUT: Duration = Duration::from_secs(5);

impl AmqpAcker {
    /// Sends an ack or nack. One on a channel that has gone away is not one: the broker has
    /// requeued the message, and it comes again (to be deduplicated).
    async fn settle(
        &self,
        what: &str,
        send: impl std::future::Future<Output = lapin::Result<bool>>,
    ) -> Result<(), BusError> {
        let gone = || {
            BusError::Unavailable(format!(
                "{what}: the channel is gone; the message will be delivered again"
            ))
        };
        if !self.channel.status().connected() || self.acker.poisoned() {
            return Err(gone());
        }
        match tokio::time::timeout(ACK_TIMEOUT, send).await {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) | Err(_) => Err(gone()),
            Ok(Err(e)) => Err(unavailable(what, e)),
        }
    }
}

#[async_trait]
impl Acker for AmqpAcker {
    async fn ack(self: Box<Self>) -> Result<(), BusError> {
        self.settle("ack", self.acker.ack(BasicAckOptions::default()))
            .await
    }

    async fn requeue(self: Box<Self>) -> Result<(), BusError> {
        let options = BasicNackOptions {
            requeue: true,
            multiple: false,
        };
        self.settle("requeue", self.acker.nack(options)).await
    }

    fn position(&self) -> Option<(u64, u64)> {
        Some((self.consumer, self.tag))
    }

    async fn ack_through(self: Box<Self>) -> Result<(), BusError> {
        self.settle("ack", self.acker.ack(BasicAckOptions { multiple: true }))
            .await
    }

    async fn dead_letter(self: Box<Self>, reason: &str) -> Result<(), BusError> {
        let mut dead = (*self.message).clone();
        dead.headers
            .insert(HEADER_DEAD_REASON.into(), reason.to_string());
        dead.headers
            .insert(HEADER_DEAD_QUEUE.into(), self.queue.clone());
        dead.headers.insert(
            HEADER_DEAD_ROUTING_KEY.into(),
            self.message.routing_key().to_string(),
        );
        let exchange = self.bus.inner.config.dead_letters.clone();
        // Confirmed in the dead letters first; only then removed from its queue. A crash between
        // the two leaves a second copy of a dead letter, never none.
        if let Err(error) = self
            .bus
            .publish_confirmed(&exchange, self.message.routing_key(), &dead)
            .await
        {
            // Not moved: put it back now, so that a later ack of the consumer's whole run of
            // deliveries (`multiple`) cannot take it too. It comes again, to be refused again.
            let _ = self
                .settle(
                    "requeue after a failed dead-lettering",
                    self.acker.nack(BasicNackOptions {
                        requeue: true,
                        multiple: false,
                    }),
                )
                .await;
            return Err(error);
        }
        self.settle(
            "ack after dead-lettering",
            self.acker.ack(BasicAckOptions::default()),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefetch_is_bounded_in_bytes_too() {
        let mut config = AmqpConfig::new("amqp://127.0.0.1:5672/%2f");
        config.max_message_bytes = 20 * 1024 * 1024;
        config.prefetch_bytes = 100 * 1024 * 1024;
        let bus = AmqpBus::new(config).unwrap();
        assert_eq!(bus.prefetch(256), 5);
        assert_eq!(bus.prefetch(2), 2);
        let small = AmqpBus::new(AmqpConfig::new("amqp://127.0.0.1:5672/%2f")).unwrap();
        assert_eq!(small.prefetch(256), 256, "512 KiB messages, 128 MiB");
        assert_eq!(small.prefetch(0), 1);
    }

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact("amqp://guest:secret@127.0.0.1:5672/%2f"),
            "amqp://guest:***@127.0.0.1:5672/%2f"
        );
        assert_eq!(
            redact("amqps://referee:p@ss@broker.example/arcade"),
            "amqps://referee:***@broker.example/arcade"
        );
        assert_eq!(
            redact("amqp://127.0.0.1:5672/%2f"),
            "amqp://127.0.0.1:5672/%2f"
        );
    }

    #[test]
    fn a_bad_url_is_refused_at_once_naming_it() {
        let error = AmqpBus::new(AmqpConfig::new("http://guest:secret@localhost")).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("http://guest:***@localhost"), "{text}");
        assert!(!text.contains("secret"), "{text}");
        assert!(AmqpBus::new(AmqpConfig::new("amqp://127.0.0.1:5672/%2f")).is_ok());
    }

    #[test]
    fn the_configured_frame_size_is_proposed_unless_the_url_sets_one() {
        let proposed = |url: &str| {
            let mut config = AmqpConfig::new(url);
            config.frame_max = Some(16384);
            AmqpBus::new(config)
                .unwrap()
                .inner
                .nodes
                .first()
                .query
                .frame_max
        };
        let base = "amqps://referee:pw@broker:5671/arcade";
        assert_eq!(proposed(base), Some(16384));
        assert_eq!(proposed(&format!("{base}?")), Some(16384));
        assert_eq!(proposed(&format!("{base}?heartbeat=30")), Some(16384));
        assert_eq!(
            proposed(&format!("{base}?heartbeat=30&frame_max=131072")),
            Some(131072)
        );
        let broker_default = AmqpBus::new(AmqpConfig::new(base)).unwrap();
        assert_eq!(broker_default.inner.nodes.first().query.frame_max, None);
    }
}
