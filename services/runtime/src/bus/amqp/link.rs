//! The connection: one for every clone of the bus, opened when first needed, opened again after
//! a loss no more often than the backoff allows, on the next node of a cluster first; TLS with
//! the configured CA file; the shared topology declared on each new connection.

use std::sync::Arc;
use std::time::Instant;

use lapin::options::ExchangeDeclareOptions;
use lapin::types::{FieldTable, LongString, ShortString};
use lapin::{Connection, ConnectionProperties, ExchangeKind};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::config::{AmqpConfig, InvalidUrl, redact};
use super::depths::Depths;
use super::publish::Publisher;
use super::{declare_durable, nodes, queue_bind, short, unavailable};
use crate::backoff::Backoff;
use crate::bus::BusError;

/// The RabbitMQ bus. Cheap to clone; every clone shares one connection.
#[derive(Clone)]
pub struct AmqpBus {
    pub(super) inner: Arc<Inner>,
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

pub(super) struct Inner {
    pub(super) config: AmqpConfig,
    /// The connection's user, set as every publication's `user_id`: RabbitMQ refuses a
    /// `user_id` that is not the connection's, so a consumer knows who sent a message. The
    /// first node's: every node of a cluster shares its users.
    pub(super) user: ShortString,
    /// The parsed node URLs, with the configuration's defaults applied.
    pub(super) nodes: nodes::Nodes,
    /// The node of the current connection.
    node: std::sync::atomic::AtomicUsize,
    link: Mutex<Link>,
    pub(super) publisher: Mutex<Option<Publisher>>,
    /// The token of the latest publishing channel: alive while publications started on it
    /// wait for their confirms.
    pub(super) latest: std::sync::Mutex<std::sync::Weak<()>>,
    pub(super) closed: CancellationToken,
    /// The current connection, readable without waiting (health and metrics), and how many
    /// were opened.
    pub(super) current: std::sync::Mutex<Option<Arc<Connection>>>,
    pub(super) opened: std::sync::atomic::AtomicU64,
    /// The depths of the consumed durable queues, as the broker last said them.
    pub(super) depths: Depths,
}

struct Link {
    connection: Option<Arc<Connection>>,
    generation: u64,
    backoff: Backoff,
    retry_at: Option<Instant>,
    warned: bool,
}

impl AmqpBus {
    /// A bus for `config`. It does not connect yet (see [`AmqpBus::connect_now`]): a service
    /// runs without the broker and the bus connects when it is first needed and reachable.
    pub fn new(config: AmqpConfig) -> Result<Self, InvalidUrl> {
        let nodes = nodes::parse(&config.url, config.frame_max, config.heartbeat)
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
                depths: Depths::default(),
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
    pub(super) async fn connection(&self) -> Result<(Arc<Connection>, u64), BusError> {
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
    pub(super) fn node_shown(&self) -> &str {
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
                // Each node's own cause, said once: the error made of them says the broker is
                // unavailable.
                Err(BusError::Unavailable(cause)) => errors.push(cause),
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
        let connection = tokio::time::timeout(
            config.connect_timeout,
            super::socket::connect(uri.clone(), properties, tls),
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
        // The commands exchange is durable and never auto-deleted.
        let kept = ExchangeDeclareOptions {
            durable: true,
            ..ExchangeDeclareOptions::default()
        };
        let exchanges = [
            (&config.events_exchange, ExchangeKind::Topic, durable),
            (&config.commands_exchange, ExchangeKind::Topic, kept),
            (&config.dead_letters, ExchangeKind::Fanout, durable),
        ];
        // Where the broker's definitions hold the shared topology, nothing is declared: a user
        // with least privilege may not, and each refusal closes a channel (which lapin logs as
        // an ERROR). Passive declarations need no permission.
        // (Tests' topologies, which expire, are always declared.)
        if config.expire_after.is_none() && self.topology_exists(&connection).await {
            return Ok(connection);
        }
        let declare = async {
            for (name, kind, options) in exchanges {
                channel
                    .exchange_declare(short(name), kind, options, FieldTable::default())
                    .await?;
            }
            let dead_letters = &config.dead_letters;
            declare_durable(&channel, dead_letters, self.queue_arguments(dead_letters)).await?;
            queue_bind(&channel, dead_letters, dead_letters, "").await?;
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
}

impl AmqpBus {
    /// Whether the shared exchanges, the dead-letter queue and the history stream (when one is
    /// configured) exist, asked with passive declarations on a channel of their own (the first
    /// one missing closes it).
    async fn topology_exists(&self, connection: &Connection) -> bool {
        let config = &self.inner.config;
        let passive = ExchangeDeclareOptions {
            passive: true,
            ..ExchangeDeclareOptions::default()
        };
        let queue = lapin::options::QueueDeclareOptions {
            passive: true,
            ..lapin::options::QueueDeclareOptions::default()
        };
        let history = config
            .history
            .as_ref()
            .filter(|_| config.expire_after.is_none())
            .map(|h| h.stream.as_str());
        let probe = async {
            let channel = connection.create_channel().await?;
            for name in [
                &config.events_exchange,
                &config.commands_exchange,
                &config.dead_letters,
            ] {
                channel
                    .exchange_declare(
                        short(name),
                        ExchangeKind::Topic,
                        passive,
                        FieldTable::default(),
                    )
                    .await?;
            }
            for name in std::iter::once(config.dead_letters.as_str()).chain(history) {
                channel
                    .queue_declare(short(name), queue, FieldTable::default())
                    .await?;
            }
            channel.close(200, short("topology found")).await
        };
        probe.await.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::super::DEFAULT_HEARTBEAT_SECS;
    use super::*;

    #[test]
    fn a_bad_url_is_refused_at_once_naming_it() {
        let error = AmqpBus::new(AmqpConfig::new("http://guest:secret@localhost")).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("http://guest:***@localhost"), "{text}");
        assert!(!text.contains("secret"), "{text}");
        assert!(AmqpBus::new(AmqpConfig::new("amqp://127.0.0.1:5672/%2f")).is_ok());
    }

    /// A port nothing listens on (bound, then released).
    fn closed_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }

    #[tokio::test]
    async fn an_unreachable_broker_is_said_unavailable_once_with_each_nodes_cause() {
        let (a, b) = (closed_port(), closed_port());
        let config = AmqpConfig::new(format!(
            "amqp://guest:secret@127.0.0.1:{a}/%2f,amqp://guest:secret@127.0.0.1:{b}/%2f"
        ));
        let error = AmqpBus::new(config)
            .unwrap()
            .connect_now()
            .await
            .unwrap_err();
        let text = error.to_string();
        assert_eq!(text.matches("broker unavailable").count(), 1, "{text}");
        assert!(
            text.starts_with("broker unavailable: amqp://guest:***@127.0.0.1:"),
            "{text}"
        );
        assert!(text.contains(&format!("127.0.0.1:{a}")), "{text}");
        assert!(
            text.contains(&format!("; amqp://guest:***@127.0.0.1:{b}")),
            "{text}"
        );
        assert!(!text.contains("secret"), "{text}");
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

    #[test]
    fn a_short_heartbeat_is_proposed_unless_the_url_sets_one() {
        let proposed = |url: &str| {
            AmqpBus::new(AmqpConfig::new(url))
                .unwrap()
                .inner
                .nodes
                .first()
                .query
                .heartbeat
        };
        let base = "amqp://referee:pw@broker:5672/arcade";
        assert_eq!(proposed(base), Some(DEFAULT_HEARTBEAT_SECS));
        assert_eq!(proposed(&format!("{base}?heartbeat=5")), Some(5));
        assert_eq!(proposed(&format!("{base}?heartbeat=0")), Some(0));
    }
}
