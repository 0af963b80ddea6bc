//! The host: runs one service on a bus. For each batch of inputs it dedupes and decides each
//! input in turn (the state evolves as it goes), commits the whole batch — every input's events
//! and inbox record — as one atomic sled batch, flushes once, and only then acks the batch. The
//! next batch is decided while the previous one flushes. At start it loads the newest snapshot
//! it can read and replays the log after it to rebuild the state; it takes snapshots as it goes
//! (`crate::snapshot`: encoded between batches, written once their entries are durable, off the
//! consuming loop).
//!
//! Layout: this file holds the host, its errors and settings, opening and replay; `batch` the
//! batch pipeline (run, commit, flush, ack); `delivery` the path of one input (decode, dedupe,
//! decide, record); `snapshots` taking, writing and restoring snapshots.

mod batch;
mod delivery;
mod snapshots;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use arcade_contracts::{Catalog, Envelope};
use tokio::sync::watch;

use crate::bus::Bus;
use crate::clock::{Clock, rfc3339_ms};
use crate::counters::Counters;
use crate::decider::{Service, ServiceSpec};
use crate::snapshot::{Codec, SnapshotPolicy};
use crate::store::{LogRecord, Store, StoreError};
use crate::telemetry;

use snapshots::Snapshots;

/// Why a host stopped.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// Its store failed: the inputs in hand were not acked and will come again.
    #[error("{service}: {source}")]
    Store {
        /// The service.
        service: String,
        /// What failed.
        #[source]
        source: StoreError,
    },
    /// It cannot run as a partition instance here (the transport has no partitions).
    #[error("{service}: {reason}")]
    Partition {
        /// The service.
        service: String,
        /// Why.
        reason: String,
    },
    /// Its task ended without returning (it panicked, or was cancelled from outside): the
    /// inputs in hand were not acked and will come again.
    #[error("{service}: its task failed: {reason}")]
    Task {
        /// The service.
        service: String,
        /// What the runtime said of the task.
        reason: String,
    },
    /// Retention removed the front of its log and no snapshot this build can use covers it:
    /// the state cannot be rebuilt from what is left.
    #[error(
        "{service}: its log starts at entry {first} (older entries were pruned) and no snapshot this build can use covers them (the newest usable covers entry {covered}); restore the data dir from a backup, or start it with the build and settings that wrote its snapshots (snapshots on)"
    )]
    Pruned {
        /// The service.
        service: String,
        /// The first entry the log has.
        first: u64,
        /// The last entry the usable snapshot covers (0: none).
        covered: u64,
    },
    /// An event of its own log no longer decodes: the state cannot be rebuilt.
    #[error("{service}: cannot replay log entry {seq}: {reason}")]
    Replay {
        /// The service.
        service: String,
        /// The entry.
        seq: u64,
        /// Why.
        reason: String,
    },
}

/// Sizes of the host's batches, whom it trusts to replay, and whose signatures it verifies.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Most inputs handled between two flushes.
    pub batch: usize,
    /// Unacked deliveries the bus may hand the host at once.
    pub prefetch: u16,
    /// Most events the relay publishes in one confirmed publication.
    pub relay_batch: usize,
    /// When the state is snapshotted ([`SnapshotPolicy::DEFAULT`]: every 10,000 entries or
    /// 60 s).
    pub snapshots: SnapshotPolicy,
    /// Dead-letter a message with no proven sender instead of deduplicating it in the
    /// anonymous scope (`--require-proven-sender`).
    pub require_proven_sender: bool,
    /// The principals whose replay of a dead letter is checked as the dead letter's sender
    /// (RabbitMQ's `x-arcade-replay-sender`, see [`crate::dead_letter`]): the operator's
    /// broker user (`--replay-principals`). A replay header from anyone else is refused.
    pub replayers: Vec<String>,
    /// The keys of the producers that prove themselves by a signature (`--signing-keys`, see
    /// [`crate::signing`]): a signed message is from the producer whose keys verify it, and is
    /// dead-lettered when none does. None: every signed message is refused.
    pub signing: crate::signing::SigningKeys,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            batch: 512,
            prefetch: 1024,
            relay_batch: 512,
            snapshots: SnapshotPolicy::DEFAULT,
            require_proven_sender: false,
            replayers: vec![arcade_contracts::principal::OPERATOR_BROKER_USER.to_string()],
            signing: crate::signing::SigningKeys::default(),
        }
    }
}

struct Flow {
    correlation: String,
    last: String,
    /// The trace the flow's last event belongs to: events of the flow caused by local inputs
    /// (a table's sensors) join it, so one game is one trace.
    traceparent: Option<String>,
}

/// How the host names its transport in spans.
struct Messaging {
    system: &'static str,
    exchange: String,
    commands: String,
}

/// A service with its store and its state.
pub struct Host<S: Service> {
    service: Arc<S>,
    spec: ServiceSpec,
    store: Arc<Store>,
    state: S::State,
    flows: HashMap<String, Flow>,
    catalog: Arc<Catalog>,
    counters: Arc<Counters>,
    clock: Clock,
    config: HostConfig,
    durable_end: watch::Sender<u64>,
    last_fired: Option<u64>,
    /// The last `occurred_at` formatted, with its milliseconds: inputs come many per ms.
    stamp: (u64, String),
    messaging: Messaging,
    codec: Option<Codec<S::State>>,
    snapshots: Snapshots,
}

impl<S: Service> std::fmt::Debug for Host<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

impl<S: Service> Host<S> {
    /// Opens a host on `store` and replays its log into the state.
    pub fn open(
        service: Arc<S>,
        store: Arc<Store>,
        catalog: Arc<Catalog>,
        counters: Arc<Counters>,
        clock: Clock,
        config: HostConfig,
    ) -> Result<Self, HostError> {
        let spec = service.spec();
        let (durable_end, _) = watch::channel(store.end());
        let codec = service.snapshots().filter(|_| config.snapshots.enabled());
        let state = service.initial_state();
        let mut host = Host {
            service,
            spec,
            store,
            state,
            flows: HashMap::new(),
            catalog,
            counters,
            clock,
            config,
            durable_end,
            last_fired: None,
            stamp: (0, rfc3339_ms(0)),
            messaging: Messaging {
                system: telemetry::spans::messaging_system("embedded"),
                exchange: crate::bus::EVENTS_EXCHANGE.to_string(),
                commands: crate::bus::COMMANDS_EXCHANGE.to_string(),
            },
            codec,
            snapshots: Snapshots::default(),
        };
        host.replay()?;
        host.snapshots.since = Some(Instant::now());
        host.snapshots.since_ms = Some(host.clock.now_ms());
        host.counters
            .log_end
            .store(host.store.end(), Ordering::Relaxed);
        host.counters
            .inbox_keys
            .store(host.store.inbox_len() as u64, Ordering::Relaxed);
        Ok(host)
    }

    /// Names `bus` (its messaging system and exchange) in the host's spans.
    pub fn with_bus(mut self, bus: &dyn Bus) -> Self {
        self.messaging = Messaging {
            system: telemetry::spans::messaging_system(bus.name()),
            exchange: bus.events_exchange().to_string(),
            commands: bus.commands_exchange().to_string(),
        };
        self
    }

    /// Runs as the instance `spec` names instead of the service's own spec (a partition,
    /// `S.pK`): the producer name of its events and the name in its logs.
    pub fn with_spec(mut self, spec: ServiceSpec) -> Self {
        self.spec = spec;
        self
    }

    /// Loads the newest snapshot this build reads, if any, then replays the log after it.
    fn replay(&mut self) -> Result<(), HostError> {
        let name = self.spec.name.clone();
        let store = self.store.clone();
        let after = self.restore();
        let first = store.first().map_err(|source| HostError::Store {
            service: name.clone(),
            source,
        })?;
        if first > after + 1 {
            return Err(HostError::Pruned {
                service: name,
                first,
                covered: after,
            });
        }
        for item in store.replay_after(after) {
            let (seq, record) = item.map_err(|source| HostError::Store {
                service: name.clone(),
                source,
            })?;
            let event =
                self.service
                    .decode(&record.envelope)
                    .map_err(|error| HostError::Replay {
                        service: name.clone(),
                        seq,
                        reason: error.to_string(),
                    })?;
            S::evolve(&mut self.state, &event);
            self.remember_flow(&event, &record);
        }
        Ok(())
    }

    /// The current state.
    pub fn state(&self) -> &S::State {
        &self.state
    }

    /// The service's name, queue and bindings.
    pub fn spec(&self) -> &ServiceSpec {
        &self.spec
    }

    /// The store.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The end of the durable part of the log, for the relay.
    pub(crate) fn durable_end(&self) -> watch::Receiver<u64> {
        self.durable_end.subscribe()
    }

    fn remember_flow(&mut self, event: &S::Event, record: &LogRecord) {
        if let Some(flow) = self.service.flow_of_event(event) {
            let envelope: &Envelope = &record.envelope;
            self.flows.insert(
                flow,
                Flow {
                    correlation: envelope.correlation_id.clone(),
                    last: envelope.message_id.clone(),
                    traceparent: record.traceparent.clone(),
                },
            );
        }
    }

    fn store_error(&self, source: StoreError) -> HostError {
        HostError::Store {
            service: self.spec.name.clone(),
            source,
        }
    }
}
