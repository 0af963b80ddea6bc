//! Starting a service: its store is opened and its log replayed, then four tasks run it — the
//! receiver (subscribes, again after any loss, and forwards deliveries), the host (decides and
//! commits), the relay (publishes the durable log) and the pruner (of the inbox and of the
//! log's front).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use super::{HostHandle, Runtime};
use crate::backoff::Backoff;
use crate::bus::partition::Partitioned;
use crate::bus::{Bus, BusError, Delivery, SubscriptionSpec};
use crate::decider::Service;
use crate::host::{Host, HostError};
use crate::relay;
use crate::store::Store;

impl Runtime {
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
            let shared = &spec.shared_bindings;
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
            self.config.clone(),
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
        let prune_log = prune_log(
            service.clone(),
            store.clone(),
            LogPruning {
                service: spec.name.clone(),
                retention: self.retention.clone(),
                snapshots: self.config.snapshots.enabled(),
                clock: self.clock,
            },
            cancel.clone(),
        );
        let prune_inbox = prune_inbox(
            store.clone(),
            self.dedupe_window,
            counters.clone(),
            cancel.clone(),
        );
        let prune = tokio::spawn(async move {
            tokio::join!(prune_inbox, prune_log);
        });
        let queue_before: relay::QueueBefore = {
            let service = service.clone();
            Arc::new(move |envelope| service.queue_before(envelope))
        };
        let outlet = relay::Outlet {
            bus: self.bus.clone(),
            queue_before,
            publishes: spec.publishes.clone(),
        };
        let relay = tokio::spawn(relay::run(
            spec.name.clone(),
            store.clone(),
            outlet,
            counters,
            durable_end,
            self.config.relay_batch,
            relay_stop.clone(),
        ));
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
}

/// How often a subscription the broker's setup prevents is tried again.
const MISCONFIGURED_RETRY: Duration = Duration::from_secs(30);

/// Where the receiver says whether it consumes.
struct Subscribed {
    /// Becomes `true` at the first subscription.
    bound: watch::Sender<bool>,
    counters: Arc<crate::counters::Counters>,
}

impl Subscribed {
    /// Why the queue cannot be consumed until the broker is set up (`None`: it can).
    fn misconfigured(&self, reason: Option<String>) {
        if let Ok(mut slot) = self.counters.misconfigured.lock() {
            *slot = reason;
        }
    }

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
                bound.misconfigured(None);
                if warned {
                    info!(queue = %spec.queue, "subscribed again");
                }
                backoff.reset();
                warned = false;
                consumer
            }
            Err(BusError::Closed) => break,
            // Not an outage: said once as an error, shown by `/ready`, tried again rarely (the
            // operator may fix the broker without restarting this process).
            Err(BusError::Misconfigured(reason)) => {
                if !warned {
                    error!(queue = %spec.queue, error = %reason, "the broker is not set up for this service; /ready answers 503 until it is (trying again every {} s)", MISCONFIGURED_RETRY.as_secs());
                    warned = true;
                }
                bound.misconfigured(Some(reason));
                tokio::select! {
                    () = cancel.cancelled() => break,
                    () = tokio::time::sleep(MISCONFIGURED_RETRY) => continue,
                }
            }
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

/// What the log pruner of a service needs besides its store.
struct LogPruning {
    service: String,
    retention: crate::store::retention::Retention,
    /// Whether snapshots are on: without them nothing is pruned.
    snapshots: bool,
    clock: crate::clock::Clock,
}

/// Prunes (and archives) the front of the log as the retention allows, in the background,
/// until `cancel`: every sixty-fourth of the history (at least every 10 minutes, at most every
/// second), by tokio's clock. Never past the oldest kept snapshot this build decodes (and that
/// fits the service's settings), nor past the relay cursor; without snapshots, never.
async fn prune_log<S: Service>(
    service: Arc<S>,
    store: Arc<Store>,
    pruning: LogPruning,
    cancel: CancellationToken,
) {
    let Some(history) = pruning.retention.history else {
        return;
    };
    let Some(codec) = service.snapshots().filter(|_| pruning.snapshots) else {
        info!(service = %pruning.service, "snapshots are off: the log is kept whole");
        return;
    };
    let history_ms = u64::try_from(history.as_millis()).unwrap_or(u64::MAX);
    let every = (history / 64).clamp(Duration::from_secs(1), Duration::from_secs(600));
    let pruning = Arc::new(pruning);
    loop {
        tokio::select! {
            () = cancel.cancelled() => break,
            () = tokio::time::sleep(every) => {}
        }
        let before_ms = pruning.clock.now_ms().saturating_sub(history_ms);
        let (store2, codec, pruning2) = (store.clone(), codec.clone(), pruning.clone());
        let done = tokio::task::spawn_blocking(move || {
            store2.apply_retention(
                &pruning2.service,
                before_ms,
                None,
                pruning2.retention.archive.as_deref(),
                |frame| {
                    codec
                        .read(frame.seq, frame.version, &frame.state)
                        .and_then(|state| codec.check_fits(frame.seq, &state))
                        .is_ok()
                },
            )
        })
        .await;
        match done {
            Ok(Ok(done)) if done.is_empty() => {}
            Ok(Ok(done)) => {
                for pruned in &done {
                    match &pruned.archive {
                        Some(file) => {
                            info!(service = %pruning.service, first = pruned.first, end = pruned.end, archive = %file.display(), "log entries past the history archived and pruned")
                        }
                        None => {
                            info!(service = %pruning.service, first = pruned.first, end = pruned.end, "log entries past the history pruned (no --log-archive)")
                        }
                    }
                }
                if let Err(error) = store.flush().await {
                    warn!(service = %pruning.service, %error, "cannot flush the pruned log; the next flush will");
                }
            }
            Ok(Err(error)) => {
                warn!(service = %pruning.service, %error, "cannot prune the log; trying again later")
            }
            Err(error) => {
                warn!(service = %pruning.service, %error, "the log pruner failed; trying again later")
            }
        }
    }
}
