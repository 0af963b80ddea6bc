//! A process's runtime: the bus, the catalog, the clock, the counters and where data lives. It
//! starts services (each a host, a receiver and a relay task) and sends validated messages from
//! outside (`arcade send`, the admin endpoint).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::{Catalog, Envelope, Route, ValidationError};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use crate::backoff::Backoff;
use crate::bus::partition::{Partition, Partitioned};
use crate::bus::{Bus, BusError, Delivery, Destination, Publication, SubscriptionSpec};
use crate::clock::{Clock, rfc3339_ms};
use crate::counters::Metrics;
use crate::decider::Service;
use crate::host::{Host, HostConfig, HostError};
use crate::relay;
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
    clock: Clock,
    data_dir: Option<PathBuf>,
    storage: crate::store::Storage,
    config: HostConfig,
    fatal: watch::Sender<Option<String>>,
    stopping: CancellationToken,
    dedupe_window: Duration,
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
            clock: Clock::system(),
            data_dir: None,
            storage: crate::store::Storage::default(),
            config: HostConfig::default(),
            fatal: watch::channel(None).0,
            stopping: CancellationToken::new(),
            dedupe_window: crate::store::DEFAULT_DEDUPE_WINDOW,
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

    /// Opens a service's store, replays its log, and starts consuming, deciding and relaying.
    pub fn start<S: Service>(&self, service: S) -> Result<HostHandle<S>, HostError> {
        let service = Arc::new(service);
        let mut spec = service.spec();
        let mut bindings = spec.bindings.clone();
        let mut partitioned = None;
        if let Some(partition) = self.partition {
            if !self.bus.partitions() {
                return Err(HostError::Partition {
                    service: spec.name,
                    reason: format!(
                        "partitions need RabbitMQ (--amqp): the {} bus cannot route them",
                        self.bus.name()
                    ),
                });
            }
            // Per-game patterns go through the service's consistent-hash exchange; the shared
            // ones straight to this instance's queue.
            let shared = service.shared_bindings();
            let (direct, keyed): (Vec<String>, Vec<String>) = spec
                .bindings
                .iter()
                .cloned()
                .partition(|b| shared.contains(b));
            bindings = direct;
            partitioned = Some(Partitioned {
                service: spec.queue.clone(),
                partition,
                keyed,
            });
            spec.name = partition.instance(&spec.name);
            spec.queue = partition.instance(&spec.queue);
        }
        let store = self
            .open_store(&spec.name)
            .map_err(|source| HostError::Store {
                service: spec.name.clone(),
                source,
            })?;
        let counters = self.metrics.service(&spec.name);
        let _ = counters.queue.set(spec.queue.clone());
        let host = Host::open(
            service.clone(),
            store.clone(),
            self.catalog.clone(),
            counters.clone(),
            self.clock,
            self.config,
        )?
        .with_bus(self.bus.as_ref())
        .with_spec(spec.clone());
        counters
            .replayed
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let durable_end = host.durable_end();
        let durable_watch = host.durable_end();
        let cancel = self.stopping.child_token();
        let relay_stop = CancellationToken::new();
        let (delivery_tx, delivery_rx) = mpsc::channel(self.config.batch.max(1));
        let (local_tx, local_rx) = mpsc::channel(1024);
        let subscription = SubscriptionSpec {
            queue: spec.queue.clone(),
            bindings,
            durable: true,
            prefetch: self.config.prefetch,
            partition: partitioned,
        };
        // Where the transport can, the queue exists once `start` returns: a command sent right
        // after is routed (RabbitMQ declares it when the receiver subscribes; see `subscribed`).
        if let Err(error) = self.bus.declare_now(&subscription) {
            warn!(queue = %subscription.queue, %error, "cannot declare the queue yet; the receiver will");
        }
        let (subscribed_tx, subscribed) = watch::channel(false);
        let receive = tokio::spawn(receive(
            self.bus.clone(),
            subscription,
            delivery_tx,
            Subscribed {
                bound: subscribed_tx,
                counters: counters.clone(),
            },
            cancel.clone(),
        ));
        let fatal = self.fatal.clone();
        let host_cancel = cancel.clone();
        let host = tokio::spawn(async move {
            let result = host.run(delivery_rx, local_rx, host_cancel).await;
            if let Err(e) = &result {
                error!(error = %e, "service stopped");
                fatal.send_replace(Some(e.to_string()));
            }
            result
        });
        let prune = tokio::spawn(prune_inbox(
            store.clone(),
            self.dedupe_window,
            counters.clone(),
            cancel.clone(),
        ));
        let queue_before: relay::QueueBefore = {
            let service = service.clone();
            Arc::new(move |envelope| service.queue_before(envelope))
        };
        let publishes: relay::PublishesEvent = {
            let service = service.clone();
            Arc::new(move |envelope| service.publishes_event(envelope))
        };
        let outlet = relay::Outlet {
            bus: self.bus.clone(),
            queue_before,
            publishes,
        };
        let relay = if service.publishes() {
            tokio::spawn(relay::run(
                spec.name.clone(),
                store.clone(),
                outlet,
                counters,
                durable_end,
                self.config.relay_batch,
                relay_stop.clone(),
            ))
        } else {
            tokio::spawn(relay::follow(
                store.clone(),
                counters,
                durable_end,
                relay_stop.clone(),
            ))
        };
        info!(service = %spec.name, queue = %spec.queue, bus = self.bus.name(), "service started");
        Ok(HostHandle {
            name: spec.name,
            local: local_tx,
            cancel,
            relay_stop,
            receive,
            host,
            relay,
            prune,
            store,
            durable: durable_watch,
            subscribed,
        })
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
        let publication = Publication {
            destination: match route {
                Route::Topic => Destination::Topic,
                Route::Queue(queue) => Destination::Queue(queue),
            },
            message: WireMessage::from_envelope(&envelope, crate::telemetry::current_traceparent()),
        };
        let published = self.bus.publish(std::slice::from_ref(&publication)).await?;
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

/// What a client of [`Runtime::send_with`] may set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendOptions {
    /// The message id (an idempotency key); absent: a fresh UUIDv7.
    pub message_id: Option<String>,
    /// The principal the message is sent for; absent: the runtime's own
    /// ([`Runtime::with_sender`]).
    pub sender: Option<String>,
}

/// A running service of any type, for a process that hosts several.
#[async_trait::async_trait]
pub trait Running: Send {
    /// The service's name.
    fn name(&self) -> &str;
    /// Stops it cleanly (see [`HostHandle::stop`]).
    async fn stop_boxed(self: Box<Self>, drain: Duration) -> Result<(), HostError>;
    /// Becomes `true` once its queue is declared and bound on the bus (see
    /// [`HostHandle::subscribed`]).
    fn subscribed(&self) -> watch::Receiver<bool>;
}

#[async_trait::async_trait]
impl<S: Service> Running for HostHandle<S> {
    fn name(&self) -> &str {
        &self.name
    }

    async fn stop_boxed(self: Box<Self>, drain: Duration) -> Result<(), HostError> {
        self.stop(drain).await.map(|_| ())
    }

    fn subscribed(&self) -> watch::Receiver<bool> {
        self.subscribed.clone()
    }
}

/// A running service.
pub struct HostHandle<S: Service> {
    name: String,
    local: mpsc::Sender<S::Input>,
    cancel: CancellationToken,
    relay_stop: CancellationToken,
    receive: JoinHandle<()>,
    host: JoinHandle<Result<Host<S>, HostError>>,
    relay: JoinHandle<Result<(), StoreError>>,
    prune: JoinHandle<()>,
    store: Arc<Store>,
    durable: watch::Receiver<u64>,
    subscribed: watch::Receiver<bool>,
}

impl<S: Service> std::fmt::Debug for HostHandle<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHandle")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<S: Service> HostHandle<S> {
    /// The service's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A sender of local inputs (a table's goal sensors, a timer of the shell).
    pub fn local(&self) -> mpsc::Sender<S::Input> {
        self.local.clone()
    }

    /// The service's store.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// One past the last durable (flushed) entry of the service's log, as it changes.
    pub fn durable_end(&self) -> watch::Receiver<u64> {
        self.durable.clone()
    }

    /// Becomes `true` once the service's queue is declared and bound on the bus. Events
    /// published on the topic before that reach no queue (AMQP semantics), so a process that
    /// announces itself ready waits for this first; with no broker it may never come.
    pub fn subscribed(&self) -> watch::Receiver<bool> {
        self.subscribed.clone()
    }

    /// Waits until the service's log holds `count` durable events.
    pub async fn wait_for_events(&self, count: u64) {
        let mut durable = self.durable.clone();
        let _ = durable.wait_for(|end| end.saturating_sub(1) >= count).await;
    }

    /// Stops cleanly: finishes the batch in hand, flushes, acks, lets the relay publish what it
    /// can within `drain`, and returns the host (its state).
    pub async fn stop(self, drain: Duration) -> Result<Host<S>, HostError> {
        self.cancel.cancel();
        let host = match self.host.await {
            Ok(result) => result?,
            Err(join) => {
                return Err(HostError::Task {
                    service: self.name,
                    reason: join.to_string(),
                });
            }
        };
        let _ = self.receive.await;
        let _ = self.prune.await;
        self.relay_stop.cancel();
        let mut relay = self.relay;
        match tokio::time::timeout(drain, &mut relay).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(source))) => {
                return Err(HostError::Store {
                    service: self.name,
                    source,
                });
            }
            Ok(Err(join)) => warn!(service = %self.name, %join, "relay task failed"),
            Err(_) => {
                relay.abort();
                warn!(service = %self.name, "relay could not drain in time; the rest goes out at next start");
            }
        }
        self.store
            .flush()
            .await
            .map_err(|source| HostError::Store {
                service: self.name.clone(),
                source,
            })?;
        info!(service = %self.name, "service stopped");
        Ok(host)
    }
}

/// Where the receiver says whether it consumes.
struct Subscribed {
    /// Becomes `true` at the first subscription.
    bound: watch::Sender<bool>,
    counters: Arc<crate::counters::Counters>,
}

impl Subscribed {
    fn consuming(&self, consuming: bool) {
        if consuming {
            self.bound.send_replace(true);
        }
        self.counters
            .consuming
            .store(consuming, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Drop for Subscribed {
    fn drop(&mut self) {
        self.consuming(false);
    }
}

/// Subscribes (again after any loss, with backoff) and forwards deliveries to the host.
async fn receive(
    bus: Arc<dyn Bus>,
    spec: SubscriptionSpec,
    deliveries: mpsc::Sender<Delivery>,
    bound: Subscribed,
    cancel: CancellationToken,
) {
    let mut backoff = Backoff::default();
    let mut warned = false;
    'subscribe: loop {
        let subscribed = tokio::select! {
            () = cancel.cancelled() => break,
            subscribed = bus.subscribe(&spec) => subscribed,
        };
        let mut consumer = match subscribed {
            Ok(consumer) => {
                bound.consuming(true);
                if warned {
                    info!(queue = %spec.queue, "subscribed again");
                }
                backoff.reset();
                warned = false;
                consumer
            }
            Err(BusError::Closed) => break,
            Err(error) => {
                if !warned {
                    warn!(queue = %spec.queue, %error, "cannot subscribe; retrying with backoff");
                    warned = true;
                }
                tokio::select! {
                    () = cancel.cancelled() => break,
                    () = tokio::time::sleep(backoff.next_delay()) => continue,
                }
            }
        };
        loop {
            let next = tokio::select! {
                () = cancel.cancelled() => {
                    // Keep the consumer (and so the deliveries in hand) until the host is done.
                    deliveries.closed().await;
                    break 'subscribe;
                }
                next = consumer.next() => next,
            };
            match next {
                Ok(delivery) => {
                    tokio::select! {
                        sent = deliveries.send(delivery) => if sent.is_err() { break 'subscribe },
                        () = cancel.cancelled() => {
                            deliveries.closed().await;
                            break 'subscribe;
                        }
                    }
                }
                Err(BusError::Closed) => break 'subscribe,
                Err(error) => {
                    bound.consuming(false);
                    warn!(queue = %spec.queue, %error, "consumer lost; subscribing again");
                    continue 'subscribe;
                }
            }
        }
    }
}

/// Prunes the inbox's keys older than `window`, in the background, until `cancel`: every
/// sixty-fourth of the window (at least every 10 minutes, at most every second), by tokio's
/// clock (which the runtime's [`Clock`] follows).
async fn prune_inbox(
    store: Arc<Store>,
    window: Duration,
    counters: Arc<crate::counters::Counters>,
    cancel: CancellationToken,
) {
    let every = (window / 64).clamp(Duration::from_secs(1), Duration::from_secs(600));
    loop {
        tokio::select! {
            () = cancel.cancelled() => break,
            () = tokio::time::sleep(every) => {}
        }
        match store.prune_inbox() {
            Ok(0) => {}
            Ok(pruned) => {
                counters.inbox_keys.store(
                    store.inbox_len() as u64,
                    std::sync::atomic::Ordering::Relaxed,
                );
                tracing::debug!(pruned, "inbox keys older than the dedupe window pruned");
            }
            Err(error) => warn!(%error, "cannot prune the inbox; trying again later"),
        }
    }
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
