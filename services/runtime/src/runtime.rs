//! A process's runtime: the bus, the catalog, the clock, the counters and where data lives. It
//! starts services (each a host, a receiver and a relay task) and sends validated messages from
//! outside (`arcade send`, the admin endpoint).
//!
//! Layout: this file holds the runtime, its settings and sending from outside; `start` starts a
//! service (its host, receiver, relay and pruner tasks); `handle` is the running service's
//! handle and its clean stop.

mod handle;
mod start;

pub use handle::{HostHandle, Running};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::{Catalog, Envelope, Route, ValidationError};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::bus::partition::Partition;
use crate::bus::{Bus, BusError, Destination, Publication};
use crate::clock::{Clock, rfc3339_ms};
use crate::counters::Metrics;
use crate::host::HostConfig;
use crate::parts::Parts;
use crate::store::{Store, StoreError};
use crate::wire::WireMessage;

/// Why a message from outside was not sent.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// Its type is unknown or its payload breaks the schema: nothing was published.
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    /// The payload is valid against the schema but cannot be addressed.
    #[error("{message_type}: cannot address the message: {reason}")]
    Unroutable {
        /// The type.
        message_type: String,
        /// Why.
        reason: String,
    },
    /// A command whose queue does not exist: nobody consumes it. It is in the dead letters
    /// (reason `unroutable`), not delivered.
    #[error(
        "nobody consumes {message_type} at queue \"{queue}\" (no such queue: is its service running?); the message is in the dead letters with reason \"unroutable\""
    )]
    NotConsumed {
        /// The type.
        message_type: String,
        /// The queue it was addressed to.
        queue: String,
    },
    /// The bus did not confirm it.
    #[error(transparent)]
    Bus(#[from] BusError),
}

/// Everything services of one process share.
#[derive(Clone)]
pub struct Runtime {
    bus: Arc<dyn Bus>,
    catalog: Arc<Catalog>,
    metrics: Metrics,
    parts: Parts,
    clock: Clock,
    data_dir: Option<PathBuf>,
    storage: crate::store::Storage,
    config: HostConfig,
    fatal: watch::Sender<Option<String>>,
    stopping: CancellationToken,
    dedupe_window: Duration,
    retention: crate::store::retention::Retention,
    sender: Option<String>,
    partition: Option<Partition>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("bus", &self.bus.name())
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime on `bus` with the system clock and temporary stores.
    pub fn new(bus: Arc<dyn Bus>) -> Self {
        Self::new_with_catalog(bus, Catalog::new())
    }

    /// A runtime that knows only `catalog`'s message types. A process hosting one domain (the
    /// edge referee: `table.*`) compiles only those schemas at start, and the other domains'
    /// schemas and payload types are not linked into its binary. Messages of any other type are
    /// refused at the boundary as unknown.
    pub fn new_with_catalog(bus: Arc<dyn Bus>, catalog: Catalog) -> Self {
        Runtime {
            bus,
            catalog: Arc::new(catalog),
            metrics: Metrics::default(),
            parts: Parts::default(),
            clock: Clock::system(),
            data_dir: None,
            storage: crate::store::Storage::default(),
            config: HostConfig::default(),
            fatal: watch::channel(None).0,
            stopping: CancellationToken::new(),
            dedupe_window: crate::store::DEFAULT_DEDUPE_WINDOW,
            retention: crate::store::retention::Retention::default(),
            sender: None,
            partition: None,
        }
    }

    /// Sizes the services' sled databases (`Storage::Compact` on the edge).
    pub fn with_storage(mut self, storage: crate::store::Storage) -> Self {
        self.storage = storage;
        self
    }

    /// Keeps every service's store under `dir` (one sled database each).
    pub fn with_data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }

    /// The data directory, if the runtime has one.
    pub fn data_dir(&self) -> Option<&std::path::Path> {
        self.data_dir.as_deref()
    }

    /// Stamps `sender` on what [`Runtime::send`] publishes: the principal of code in this
    /// process (`operator` on the embedded transport, where only the process itself and its
    /// authenticated admin endpoint publish).
    pub fn with_sender(mut self, sender: impl Into<String>) -> Self {
        self.sender = Some(sender.into());
        self
    }

    /// Runs the services it starts as instance `partition` of their partitioned selves
    /// (`--partition K/N`): service S becomes `S.pK` (its data dir, producer name and queue)
    /// and consumes its share of the games (see [`crate::bus::partition`]). Needs a transport
    /// that routes partitions ([`Bus::partitions`]): [`Runtime::start`] refuses otherwise.
    pub fn with_partition(mut self, partition: Partition) -> Self {
        self.partition = Some(partition);
        self
    }

    /// The partition its services run as, if any.
    pub fn partition(&self) -> Option<Partition> {
        self.partition
    }

    /// The instance name and queue of service `name` here: `name`, or `name.pK` when the
    /// runtime runs partition K ([`Runtime::with_partition`]).
    pub fn instance_name(&self, name: &str) -> String {
        match self.partition {
            Some(partition) => partition.instance(name),
            None => name.to_string(),
        }
    }

    /// Uses another clock (tests start it at a fixed time).
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Uses another catalog (tests with their own message types).
    pub fn with_catalog(mut self, catalog: Catalog) -> Self {
        self.catalog = Arc::new(catalog);
        self
    }

    /// Keeps each service's processed keys for `window` (`--dedupe-window`; default
    /// [`crate::store::DEFAULT_DEDUPE_WINDOW`], 7 days): a redelivery older than that is
    /// applied again. Time is the runtime's [`Clock`].
    pub fn with_dedupe_window(mut self, window: Duration) -> Self {
        self.dedupe_window = window;
        self
    }

    /// How long processed keys are kept.
    pub fn dedupe_window(&self) -> Duration {
        self.dedupe_window
    }

    /// Keeps each service's log as `retention` says (`--log-history`, `--log-archive`;
    /// default: 120 days of history beyond the newest snapshots, older chunks dropped). Time
    /// is the runtime's [`Clock`].
    pub fn with_log_retention(mut self, retention: crate::store::retention::Retention) -> Self {
        self.retention = retention;
        self
    }

    /// How each service's log is kept.
    pub fn log_retention(&self) -> &crate::store::retention::Retention {
        &self.retention
    }

    /// Uses other batch sizes.
    pub fn with_config(mut self, config: HostConfig) -> Self {
        self.config = config;
        self
    }

    /// The bus.
    pub fn bus(&self) -> &Arc<dyn Bus> {
        &self.bus
    }

    /// The message catalog.
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// Every service's counters.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The parts of the process that are not services (a table's sensors): their failures show
    /// in `/ready` and their counters in `/metrics`.
    pub fn parts(&self) -> &Parts {
        &self.parts
    }

    /// The clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Keeps `metrics` (a benchmark's, without the handle-latency histogram).
    pub fn with_metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = metrics;
        self
    }

    /// The error a service stopped on, if one did.
    pub fn failed(&self) -> Option<String> {
        self.fatal.borrow().clone()
    }

    /// Resolves when a service stops on an error, with that error.
    pub async fn failure(&self) -> String {
        let mut fatal = self.fatal.subscribe();
        loop {
            if let Some(reason) = fatal.borrow_and_update().clone() {
                return reason;
            }
            if fatal.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// The process's shutdown signal (see [`crate::shutdown`]): cancelled by
    /// [`Runtime::begin_shutdown`]. Every long-running task listens to it — the hosts'
    /// consumers (each host's own stop token is a child of it), and streams served to clients,
    /// which end when it fires.
    pub fn stopping(&self) -> CancellationToken {
        self.stopping.clone()
    }

    /// Starts the process's shutdown: open streams end, every host stops consuming and finishes
    /// the batch in hand. Each service's [`HostHandle::stop`] then flushes, acks and drains.
    pub fn begin_shutdown(&self) {
        self.stopping.cancel();
    }

    /// Opens the store of a service.
    pub fn open_store(&self, name: &str) -> Result<Arc<Store>, StoreError> {
        let store = match &self.data_dir {
            Some(dir) => Store::open_with(&dir.join(name), self.storage)?,
            None => Store::temporary()?,
        };
        store.keep_inbox_for(self.dedupe_window, self.clock);
        store.prune_inbox()?;
        Ok(Arc::new(store))
    }

    /// Validates a payload against its type's schema and publishes it as a flow's first message
    /// from `producer`, with a fresh message id and the runtime's own sender
    /// ([`Runtime::with_sender`]). Nothing is published when it is invalid.
    pub async fn send(
        &self,
        message_type: &str,
        payload: serde_json::Value,
        producer: &str,
    ) -> Result<Envelope, SendError> {
        self.send_with(message_type, payload, producer, SendOptions::default())
            .await
    }

    /// [`Runtime::send`] with a message id given by the client (a retry with the same id is
    /// applied once: consumers deduplicate by it) and the principal the caller authenticated
    /// (the admin endpoint stamps the bearer token's). Unset fields take the defaults.
    pub async fn send_with(
        &self,
        message_type: &str,
        payload: serde_json::Value,
        producer: &str,
        options: SendOptions,
    ) -> Result<Envelope, SendError> {
        let entry = self.catalog.validate(message_type, &payload)?;
        let route = entry
            .route(&payload)
            .map_err(|reason| SendError::Unroutable {
                message_type: message_type.to_string(),
                reason,
            })?;
        let message_id = options
            .message_id
            .unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
        let envelope = Envelope {
            correlation_id: message_id.clone(),
            message_id,
            message_type: message_type.to_string(),
            causation_id: None,
            producer: producer.to_string(),
            sender: options.sender.or_else(|| self.sender.clone()),
            occurred_at: rfc3339_ms(self.clock.now_ms()),
            payload,
        };
        let (destination, span, traceparent) =
            self.producer_span(&envelope, route, options.traceparent.as_deref());
        let publication = Publication {
            destination,
            message: WireMessage::from_envelope(&envelope, traceparent),
        };
        let published = self
            .bus
            .publish(std::slice::from_ref(&publication))
            .instrument(span)
            .await?;
        if let (false, Destination::Queue(queue)) =
            (published.unroutable.is_empty(), publication.destination)
        {
            return Err(SendError::NotConsumed {
                message_type: message_type.to_string(),
                queue,
            });
        }
        Ok(envelope)
    }
}

impl Runtime {
    /// Where a message sent from outside goes, and its producer span `publish <exchange>`
    /// (child of `traceparent`, a client's, else of the current span; a trace's root when neither
    /// is) with the `traceparent` the message carries: the span's, or the current one's when
    /// nothing records spans.
    fn producer_span(
        &self,
        envelope: &Envelope,
        route: Route,
        traceparent: Option<&str>,
    ) -> (Destination, tracing::Span, Option<String>) {
        let (destination, exchange) = match route {
            Route::Topic => (Destination::Topic, self.bus.events_exchange()),
            Route::Queue(queue) => (Destination::Queue(queue), self.bus.commands_exchange()),
        };
        let routing_key = match &destination {
            Destination::Topic => envelope.message_type.as_str(),
            Destination::Queue(queue) => queue.as_str(),
        };
        let parent = traceparent.and_then(crate::telemetry::spans::valid_traceparent);
        let (span, traced) = crate::telemetry::publish_span(&crate::telemetry::Message {
            system: crate::telemetry::spans::messaging_system(self.bus.name()),
            destination: exchange,
            routing_key,
            message_id: &envelope.message_id,
            correlation_id: &envelope.correlation_id,
            service: &envelope.producer,
            parent: parent.as_deref(),
        });
        let traceparent = traced
            .or(parent)
            .or_else(crate::telemetry::current_traceparent);
        (destination, span, traceparent)
    }
}

/// What a client of [`Runtime::send_with`] may set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendOptions {
    /// The message id (an idempotency key); absent: a fresh UUIDv7.
    pub message_id: Option<String>,
    /// The principal the message is sent for; absent: the runtime's own
    /// ([`Runtime::with_sender`]).
    pub sender: Option<String>,
    /// The W3C trace context the send continues (a `traceparent` header the client's request
    /// came with); absent: the current span's.
    pub traceparent: Option<String>,
}

#[cfg(all(test, feature = "testkit"))]
mod tests {
    use super::*;
    use crate::bus::embedded::EmbeddedBus;
    use crate::testkit::Emitter;

    #[tokio::test]
    async fn a_partition_is_refused_on_a_bus_that_cannot_route_partitions() {
        let bus = EmbeddedBus::temporary().unwrap();
        let runtime = Runtime::new(Arc::new(bus)).with_partition(Partition::new(1, 2).unwrap());
        assert_eq!(runtime.instance_name("emitter"), "emitter.p1");
        let error = runtime
            .start(Emitter {
                name: "emitter".into(),
            })
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "emitter: partitions need RabbitMQ (--amqp): the embedded bus cannot route them"
        );
    }
}
