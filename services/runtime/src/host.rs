//! The host: runs one service on a bus. For each batch of inputs it dedupes and decides each
//! input in turn (the state evolves as it goes), commits the whole batch — every input's events
//! and inbox record — as one atomic sled batch, flushes once, and only then acks the batch. The
//! next batch is decided while the previous one flushes. At start it loads the newest snapshot
//! it can read and replays the log after it to rebuild the state; it takes snapshots as it goes
//! (`crate::snapshot`: encoded between batches, written once their entries are durable, off the
//! consuming loop).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use arcade_contracts::{Catalog, Envelope, Route};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use crate::bus::{Acker, Bus, Delivery};
use crate::clock::{Clock, rfc3339_ms};
use crate::counters::Counters;
use crate::decider::{Context, Decoded, Service, ServiceSpec};
use crate::inbound::{self, Inbound};
use crate::snapshot::{Codec, SnapshotPolicy};
use crate::store::Seen;
use crate::store::snapshot::FlowEntry;
use crate::store::{Flush, LogRecord, Pending, Store, StoreError};
use crate::telemetry;

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

/// Sizes of the host's batches.
#[derive(Debug, Clone, Copy)]
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
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            batch: 512,
            prefetch: 1024,
            relay_batch: 512,
            snapshots: SnapshotPolicy::DEFAULT,
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

/// The host's snapshot bookkeeping.
#[derive(Default)]
struct Snapshots {
    /// The last log entry the newest snapshot covers (0: none).
    covered: u64,
    /// When it was taken (or the host opened).
    since: Option<Instant>,
    /// How long its encoding took.
    cost: Duration,
    /// Encoded, waiting for the entries it covers to be durable: (seq, taken_ms, frame).
    ready: Option<(u64, u64, Vec<u8>)>,
    /// Being written on the blocking pool; gives (seq, taken_ms).
    writing: Option<tokio::task::JoinHandle<Result<(u64, u64), StoreError>>>,
}

impl<S: Service> std::fmt::Debug for Host<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

/// The inputs handled since the last flush: what to ack, what to commit, what to act on.
struct Batch<E> {
    acks: Vec<Box<dyn Acker>>,
    /// When each delivery came (when the handle latency is measured).
    received: Vec<Instant>,
    inputs: usize,
    events: Vec<E>,
    pending: Pending,
}

/// A committed batch whose flush is under way.
struct Flushing<E> {
    flush: Flush,
    then: Durable<E>,
}

/// What to do once a batch is durable.
struct Durable<E> {
    /// One past its last event.
    end: u64,
    acks: Vec<Box<dyn Acker>>,
    received: Vec<Instant>,
    events: Vec<E>,
}

impl<E> Batch<E> {
    fn new(store: &Store) -> Self {
        Batch {
            acks: Vec::new(),
            received: Vec::new(),
            inputs: 0,
            events: Vec::new(),
            pending: store.pending(),
        }
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
            },
            codec,
            snapshots: Snapshots::default(),
        };
        host.replay()?;
        host.snapshots.since = Some(Instant::now());
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
        for item in store.replay_after(after) {
            let (seq, record) = item.map_err(|source| HostError::Store {
                service: name.clone(),
                source,
            })?;
            let event =
                self.service
                    .decode(&record.envelope)
                    .map_err(|reason| HostError::Replay {
                        service: name.clone(),
                        seq,
                        reason,
                    })?;
            S::evolve(&mut self.state, &event);
            self.remember_flow(&event, &record);
        }
        Ok(())
    }

    /// The newest snapshot that checks, decodes and fits the log, into the state and flows;
    /// the last entry it covers (0: none, replay everything). Each one skipped is logged.
    fn restore(&mut self) -> u64 {
        let Some(codec) = self.codec else { return 0 };
        let name = &self.spec.name;
        let stored = match self.store.snapshots() {
            Ok(stored) => stored,
            Err(error) => {
                warn!(service = %name, %error, "cannot list snapshots; replaying the whole log");
                return 0;
            }
        };
        let end = self.store.end();
        for candidate in stored {
            let restored =
                crate::store::snapshot::parse(&candidate, Some(codec.version)).and_then(|frame| {
                    if frame.seq >= end {
                        return Err(crate::SnapshotError::AheadOfLog {
                            seq: frame.seq,
                            end,
                        });
                    }
                    let state = (codec.decode)(&frame.state)?;
                    self.service.fits_snapshot(&state).map_err(|reason| {
                        crate::SnapshotError::OtherSettings {
                            seq: frame.seq,
                            reason,
                        }
                    })?;
                    Ok((frame, state))
                });
            match restored {
                Ok((frame, state)) => {
                    self.state = state;
                    self.flows = frame
                        .flows
                        .into_iter()
                        .map(|f| {
                            (
                                f.flow,
                                Flow {
                                    correlation: f.correlation,
                                    last: f.last,
                                    traceparent: f.traceparent,
                                },
                            )
                        })
                        .collect();
                    self.snapshots.covered = frame.seq;
                    self.counters
                        .snapshot_seq
                        .store(frame.seq, Ordering::Relaxed);
                    self.counters
                        .snapshot_taken_ms
                        .store(frame.taken_ms, Ordering::Relaxed);
                    debug!(service = %name, seq = frame.seq, "state restored from a snapshot");
                    return frame.seq;
                }
                Err(error) => {
                    warn!(service = %name, %error, "snapshot skipped; using an older one or the whole log");
                }
            }
        }
        0
    }

    /// Encodes the state as a snapshot when one is due (see [`SnapshotPolicy`]); it is written
    /// once the entries it covers are durable ([`Host::write_snapshot`]).
    fn maybe_snapshot(&mut self) {
        let Some(codec) = self.codec else { return };
        let covered = self.store.end().saturating_sub(1);
        let elapsed = self.snapshots.since.map_or(Duration::MAX, |t| t.elapsed());
        let busy = self.snapshots.ready.is_some()
            || self
                .snapshots
                .writing
                .as_ref()
                .is_some_and(|w| !w.is_finished());
        if busy
            || elapsed < self.snapshots.cost.saturating_mul(20)
            || !self
                .config
                .snapshots
                .due(covered - self.snapshots.covered.min(covered), elapsed)
        {
            return;
        }
        let started = Instant::now();
        let state = (codec.encode)(&self.state);
        let flows: Vec<FlowEntry> = self
            .flows
            .iter()
            .map(|(flow, f)| FlowEntry {
                flow: flow.clone(),
                correlation: f.correlation.clone(),
                last: f.last.clone(),
                traceparent: f.traceparent.clone(),
            })
            .collect();
        let taken_ms = self.clock.now_ms();
        let frame =
            crate::store::snapshot::encode(codec.version, covered, taken_ms, &flows, &state);
        self.snapshots.cost = started.elapsed();
        self.snapshots.since = Some(Instant::now());
        self.snapshots.covered = covered;
        self.snapshots.ready = Some((covered, taken_ms, frame));
        debug!(service = %self.spec.name, seq = covered, cost_us = self.snapshots.cost.as_micros() as u64, "snapshot encoded");
    }

    /// Starts writing the encoded snapshot on the blocking pool once the log is durable past
    /// what it covers (`durable_end`: one past the last durable entry).
    async fn write_snapshot(&mut self, durable_end: u64) {
        let Some((seq, _, _)) = &self.snapshots.ready else {
            return;
        };
        if *seq >= durable_end {
            return;
        }
        self.finish_snapshot_write().await;
        let Some((seq, taken_ms, frame)) = self.snapshots.ready.take() else {
            return;
        };
        let store = self.store.clone();
        let counters = self.counters.clone();
        self.snapshots.writing = Some(tokio::task::spawn_blocking(move || {
            store.write_snapshot(seq, frame)?;
            // Recorded as soon as it is written, not when the host next looks: an idle service
            // would otherwise report its previous snapshot until its next batch.
            counters.snapshot_seq.store(seq, Ordering::Relaxed);
            counters
                .snapshot_taken_ms
                .store(taken_ms, Ordering::Relaxed);
            Ok((seq, taken_ms))
        }));
    }

    /// Waits for the snapshot being written, if any, and records it.
    async fn finish_snapshot_write(&mut self) {
        let Some(writing) = self.snapshots.writing.take() else {
            return;
        };
        match writing.await {
            Ok(Ok((seq, _taken_ms))) => {
                debug!(service = %self.spec.name, seq, "snapshot written");
            }
            Ok(Err(error)) => {
                warn!(service = %self.spec.name, %error, "snapshot not written; the next one will be tried");
            }
            Err(error) => {
                warn!(service = %self.spec.name, %error, "snapshot write failed");
            }
        }
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

    /// Handles inputs until `cancel`: deliveries from the bus, local inputs, timers. Returns the
    /// host after its last batch is flushed and acked.
    pub async fn run(
        mut self,
        mut deliveries: mpsc::Receiver<Delivery>,
        mut local: mpsc::Receiver<S::Input>,
        cancel: CancellationToken,
    ) -> Result<Self, HostError> {
        self.service.resume(&self.state);
        let mut flushing: Option<Flushing<S::Event>> = None;
        let mut local_open = true;
        let mut deliveries_open = true;
        loop {
            let deadline = self
                .service
                .next_deadline(&self.state)
                .filter(|d| Some(*d) != self.last_fired);
            let wake = deadline.map(|d| self.clock.instant_at(d));
            let mut batch = Batch::new(&self.store);
            tokio::select! {
                biased;
                () = cancel.cancelled() => break,
                flushed = wait(&mut flushing), if flushing.is_some() => {
                    let done = flushing.take().expect("a flush under way");
                    self.durable(done.then, flushed).await?;
                    continue;
                }
                delivery = deliveries.recv(), if deliveries_open => match delivery {
                    Some(delivery) => self.on_delivery(delivery, &mut batch).await?,
                    None => deliveries_open = false,
                },
                input = local.recv(), if local_open => match input {
                    Some(input) => self.on_local(input, &mut batch),
                    None => local_open = false,
                },
                () = sleep_until(wake), if wake.is_some() => {
                    self.last_fired = deadline;
                    let now = self.clock.now_ms();
                    if let Some(input) = self.service.tick(now) {
                        self.on_local(input, &mut batch);
                    }
                }
            }
            while batch.inputs < self.config.batch {
                if let Ok(delivery) = deliveries.try_recv() {
                    self.on_delivery(delivery, &mut batch).await?;
                } else if let Ok(input) = local.try_recv() {
                    self.on_local(input, &mut batch);
                } else {
                    break;
                }
            }
            // This batch was decided while the previous one was being flushed; commit it, let
            // the previous flush end (its inputs are acked), then flush this one.
            let wrote = !batch.pending.is_empty();
            if batch.inputs > 0 {
                let inputs = batch.inputs as f64;
                self.counters.histograms.batch_size.observe(inputs);
            }
            self.commit(batch.pending)?;
            if wrote {
                self.maybe_snapshot();
            }
            if let Some(previous) = flushing.take() {
                self.finish_flush(previous).await?;
            }
            if wrote || !batch.acks.is_empty() {
                flushing = Some(Flushing {
                    flush: self.store.start_flush(),
                    then: Durable {
                        end: self.store.end(),
                        acks: batch.acks,
                        received: batch.received,
                        events: batch.events,
                    },
                });
            }
            if !deliveries_open && !local_open && deadline.is_none() {
                break;
            }
        }
        if let Some(last) = flushing.take() {
            self.finish_flush(last).await?;
        }
        self.finish_snapshot_write().await;
        self.store.flush().await.map_err(|e| self.store_error(e))?;
        Ok(self)
    }

    /// The consumer span of a message: the exchange and routing key it came by follow from its
    /// type's route (topic, or a queue through the default exchange).
    fn process_span(&self, inbound: &Inbound, queue: &str) -> tracing::Span {
        let envelope = &inbound.envelope;
        let addressed = tracing::enabled!(tracing::Level::INFO)
            && self
                .catalog
                .get(&envelope.message_type)
                .and_then(|entry| entry.route(&envelope.payload).ok())
                .is_some_and(|route| matches!(route, Route::Queue(_)));
        let (destination, routing_key) = if addressed {
            (telemetry::spans::DEFAULT_EXCHANGE, queue)
        } else {
            (
                self.messaging.exchange.as_str(),
                envelope.message_type.as_str(),
            )
        };
        telemetry::process_span(&telemetry::Consumed {
            system: self.messaging.system,
            destination,
            routing_key,
            queue,
            message_type: &envelope.message_type,
            message_id: &envelope.message_id,
            correlation_id: &envelope.correlation_id,
            service: &self.spec.name,
            traceparent: inbound.traceparent.as_deref(),
        })
    }

    async fn on_delivery(
        &mut self,
        mut delivery: Delivery,
        batch: &mut Batch<S::Event>,
    ) -> Result<(), HostError> {
        batch.inputs += 1;
        Counters::inc(&self.counters.consumed);
        let received = self
            .counters
            .histograms
            .handle_latency
            .is_some()
            .then(Instant::now);
        let queue = std::mem::take(&mut delivery.queue);
        let routing_key = delivery.topic_routing_key.take();
        let (wire, acker) = delivery.into_parts();
        if let Err(reason) = inbound::check_routing_key(&wire, routing_key.as_deref()) {
            return self.dead_letter(acker, &reason).await;
        }
        let inbound = match inbound::decode(&wire, &self.catalog, self.clock.now_ms()) {
            Ok(inbound) => inbound,
            Err(reason) => return self.dead_letter(acker, &reason).await,
        };
        let span = self.process_span(&inbound, &queue);
        let outcome = span.in_scope(|| self.on_inbound(&inbound, batch));
        match outcome {
            Ok(()) => {
                batch.acks.push(acker);
                batch.received.extend(received);
                Ok(())
            }
            Err(Refused::Poison(reason)) => self.dead_letter(acker, &reason).await,
            Err(Refused::Store(e)) => Err(self.store_error(e)),
        }
    }

    fn on_inbound(
        &mut self,
        inbound: &Inbound,
        batch: &mut Batch<S::Event>,
    ) -> Result<(), Refused> {
        match self.seen(inbound, batch) {
            Seen::New => {}
            Seen::Same => {
                Counters::inc(&self.counters.deduplicated);
                debug!(message_id = %inbound.envelope.message_id, "duplicate delivery absorbed");
                return Ok(());
            }
            Seen::Different => {
                warn!(
                    message_id = %inbound.envelope.message_id,
                    sender = inbound.envelope.sender.as_deref().unwrap_or(&inbound.envelope.producer),
                    "a message id came again with another body"
                );
                return Err(Refused::Poison(inbound::ID_REUSED.to_string()));
            }
        }
        let input = match self.service.input(&inbound.envelope).map_err(|reason| {
            Refused::Poison(format!("{}: {reason}", inbound.envelope.message_type))
        })? {
            Decoded::Input(input) => input,
            Decoded::Ignore(why) => {
                Counters::inc(&self.counters.ignored);
                debug!(%why, "ignored");
                return Ok(());
            }
        };
        if self.service.is_repeat(&self.state, &input) {
            Counters::inc(&self.counters.deduplicated);
            debug!(message_id = %inbound.envelope.message_id, "repeat of an applied fact absorbed");
            batch
                .pending
                .add_input(&inbound.dedupe_key, inbound.body_digest, Vec::new());
            return Ok(());
        }
        self.apply(Some(inbound), input, batch);
        Ok(())
    }

    /// What the batch and the inbox know of an input: new, a duplicate, or its id reused.
    fn seen(&self, inbound: &Inbound, batch: &Batch<S::Event>) -> Seen {
        match batch.pending.seen(&inbound.dedupe_key, inbound.body_digest) {
            Seen::New => self.store.seen(
                &inbound.dedupe_key,
                Some(&inbound.legacy_key),
                inbound.body_digest,
            ),
            known => known,
        }
    }

    fn on_local(&mut self, input: S::Input, batch: &mut Batch<S::Event>) {
        batch.inputs += 1;
        self.apply(None, input, batch);
    }

    async fn dead_letter(&mut self, acker: Box<dyn Acker>, reason: &str) -> Result<(), HostError> {
        warn!(service = %self.spec.name, %reason, "message dead-lettered");
        Counters::inc(&self.counters.dead_lettered);
        if let Err(error) = acker.dead_letter(reason).await {
            // The message was not moved; it stays unacked and comes back, to be refused again.
            warn!(service = %self.spec.name, %error, "could not dead-letter; it will be redelivered");
        }
        Ok(())
    }

    /// Decides on one input and adds the outcome to the batch's commit group, evolving the
    /// state at once so the next input of the batch sees it; `cause` is the message it came in,
    /// if any. Should the group's commit fail, the host stops and its state is rebuilt from the
    /// log at the next start.
    fn apply(&mut self, cause: Option<&Inbound>, input: S::Input, batch: &mut Batch<S::Event>) {
        let ctx = Context {
            now_ms: self.clock.now_ms(),
        };
        if self.stamp.0 != ctx.now_ms {
            self.stamp = (ctx.now_ms, rfc3339_ms(ctx.now_ms));
        }
        let events = match self.service.decide(&self.state, &input, &ctx) {
            Ok(events) => events,
            Err(rejection) => {
                Counters::inc(&self.counters.rejected);
                debug!(service = %self.spec.name, %rejection, "input refused");
                self.service.refusal(&input, &rejection)
            }
        };
        let input_flow = self.service.flow_of_input(&input);
        let traceparent = cause.and_then(|_| telemetry::current_traceparent());
        let records: Vec<LogRecord> = events
            .iter()
            .map(|event| self.record(event, cause, input_flow.as_deref(), traceparent.clone()))
            .collect();
        for (event, record) in events.iter().zip(&records) {
            S::evolve(&mut self.state, event);
            self.remember_flow(event, record);
        }
        match cause {
            Some(cause) => batch
                .pending
                .add_input(&cause.dedupe_key, cause.body_digest, records),
            None => batch.pending.add(None, records),
        }
        batch.events.extend(events);
    }

    fn record(
        &self,
        event: &S::Event,
        cause: Option<&Inbound>,
        input_flow: Option<&str>,
        traceparent: Option<String>,
    ) -> LogRecord {
        let outbound = self.service.encode(event);
        let message_id = uuid::Uuid::now_v7().to_string();
        let (correlation_id, causation_id, traceparent) = match cause {
            Some(cause) => (
                cause.envelope.correlation_id.clone(),
                Some(cause.envelope.message_id.clone()),
                traceparent,
            ),
            // A local input (a sensor) continues its flow, in the flow's trace.
            None => {
                let flow = self.service.flow_of_event(event);
                match flow
                    .as_deref()
                    .or(input_flow)
                    .and_then(|f| self.flows.get(f))
                {
                    Some(flow) => (
                        flow.correlation.clone(),
                        Some(flow.last.clone()),
                        flow.traceparent.clone(),
                    ),
                    None => (message_id.clone(), None, None),
                }
            }
        };
        LogRecord {
            envelope: Envelope {
                message_id,
                message_type: outbound.message_type.to_string(),
                correlation_id,
                causation_id,
                producer: self.spec.name.clone(),
                sender: None,
                occurred_at: self.stamp.1.clone(),
                payload: outbound.payload,
            },
            queue: match outbound.route {
                Route::Topic => None,
                Route::Queue(queue) => Some(queue),
            },
            traceparent,
        }
    }

    /// Waits for a batch's flush, then [`Host::durable`].
    async fn finish_flush(&mut self, flushing: Flushing<S::Event>) -> Result<(), HostError> {
        let flushed = flushing.flush.await;
        self.durable(flushing.then, flushed).await
    }

    /// A batch's flush ended: announce the durable end to the relay, act on the events, ack
    /// the inputs.
    async fn durable(
        &mut self,
        batch: Durable<S::Event>,
        flushed: sled::Result<()>,
    ) -> Result<(), HostError> {
        flushed.map_err(|e| self.store_error(e.into()))?;
        self.durable_end.send_replace(batch.end);
        if self
            .snapshots
            .writing
            .as_ref()
            .is_some_and(|w| w.is_finished())
        {
            self.finish_snapshot_write().await;
        }
        self.write_snapshot(batch.end).await;
        for event in &batch.events {
            self.service.effect(&self.state, event);
        }
        for error in crate::bus::ack_all(batch.acks).await {
            debug!(service = %self.spec.name, %error, "ack lost; the message will be redelivered and deduplicated");
        }
        if let Some(histogram) = &self.counters.histograms.handle_latency {
            let now = Instant::now();
            for received in batch.received {
                histogram.observe(now.duration_since(received).as_secs_f64());
            }
        }
        Ok(())
    }

    /// Commits the batch's group (its keys were checked against the inbox as it was decided).
    fn commit(&mut self, pending: Pending) -> Result<(), HostError> {
        let first = self.store.end();
        self.store
            .commit_pending(pending)
            .map_err(|e| self.store_error(e))?;
        let end = self.store.end();
        self.counters
            .appended
            .fetch_add(end - first, Ordering::Relaxed);
        self.counters.log_end.store(end, Ordering::Relaxed);
        self.counters
            .inbox_keys
            .store(self.store.inbox_len() as u64, Ordering::Relaxed);
        self.counters
            .last_commit_ms
            .store(self.clock.now_ms(), Ordering::Relaxed);
        Ok(())
    }

    /// Decides on one input and commits it now, outside `run` (tests and tools). Not flushed.
    pub fn handle_local(&mut self, input: S::Input) -> Result<(), HostError> {
        let mut batch = Batch::new(&self.store);
        self.on_local(input, &mut batch);
        self.commit(batch.pending)
    }
}

enum Refused {
    Poison(String),
    Store(StoreError),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        Refused::Store(e)
    }
}

/// The flush under way, if any (the branch is disabled when there is none).
async fn wait<E>(flushing: &mut Option<Flushing<E>>) -> sled::Result<()> {
    match flushing {
        Some(flushing) => (&mut flushing.flush).await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(wake: Option<tokio::time::Instant>) {
    match wake {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
