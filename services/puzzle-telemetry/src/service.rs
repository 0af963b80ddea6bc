//! The telemetry as a running service: consumes `game.session.completed.v1` and `.v2` from any
//! producer (bound on both topics, so Arcade's simulator and a PHP application with only a
//! `type` header both reach it; both read as one `SessionCompletion` through the service's
//! [`mapping`](crate::mapping), the contracts' `From` impls knowing the versions), publishes `puzzle.session.recorded.v1` / `puzzle.session.flagged.v1` for each
//! session and `puzzle.stats.updated.v1` on a timer (see [`PuzzleTelemetry::next_deadline`]).
//!
//! Its state is the fold of its own log, rebuilt at start. [`LiveStats`] is a read-only view of
//! that state for the admin endpoint: it is set from the rebuilt state at start (`resume`) and
//! follows every durable event (`effect`), so it never shows a session whose record is not
//! flushed.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use arcade_contracts::Envelope;
use arcade_contracts::puzzle::StatsUpdated;
use arcade_runtime::{
    Context, Decided, Decider, Decoded, MappingError, Outbound, Service, ServiceSpec,
};

use crate::domain::telemetry::{Event, Input, Partition, PuzzleTelemetry, TelemetryState};
use crate::mapping::{Consumed, PuzzleMessage};

/// The service's default instance name (its queue and its data directory).
pub const SERVICE_NAME: &str = "puzzle-telemetry";

/// A read-only view of the service's statistics, shared with whoever serves them.
#[derive(Debug, Clone, Default)]
pub struct LiveStats {
    state: Arc<Mutex<TelemetryState>>,
}

impl LiveStats {
    fn with<T>(&self, read: impl FnOnce(&TelemetryState) -> T) -> T {
        // A panic while holding the lock cannot leave a half-applied event (evolve is a
        // sequence of counter updates); the last state is still the best answer.
        read(&self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn update(&self, write: impl FnOnce(&mut TelemetryState)) {
        write(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner));
    }

    /// The statistics as of `now_ms`, in their published form.
    pub fn snapshot(&self, now_ms: u64) -> StatsUpdated {
        self.with(|state| state.snapshot(now_ms))
    }

    /// Sessions counted so far, recorded and flagged.
    pub fn counted(&self) -> u64 {
        self.with(|state| state.stats().sessions() + state.stats().flagged())
    }

    /// When the statistics were last published, if ever.
    pub fn last_published_ms(&self) -> Option<u64> {
        self.with(TelemetryState::last_published_ms)
    }
}

/// The puzzle telemetry service.
#[derive(Debug, Clone)]
pub struct TelemetryService {
    name: String,
    decider: PuzzleTelemetry,
    live: LiveStats,
}

impl TelemetryService {
    /// The service named [`SERVICE_NAME`], publishing statistics at most once every
    /// `publish_every_ms`.
    pub fn new(publish_every_ms: u64) -> Self {
        Self::named(SERVICE_NAME, publish_every_ms)
    }

    /// The service under another instance name (its queue and data directory).
    pub fn named(name: impl Into<String>, publish_every_ms: u64) -> Self {
        TelemetryService {
            name: name.into(),
            decider: PuzzleTelemetry::publishing_every(publish_every_ms),
            live: LiveStats::default(),
        }
    }

    /// The same service remembering each session's `gameId` for `window` (default
    /// [`SESSION_WINDOW_MS`](crate::domain::telemetry::SESSION_WINDOW_MS), 7 days): a session
    /// resent later than that, once newer sessions have come, counts again. A snapshot taken
    /// under another window is not used: the log is folded again under this one.
    pub fn with_session_window(mut self, window: std::time::Duration) -> Self {
        let ms = u64::try_from(window.as_millis()).unwrap_or(u64::MAX);
        self.decider = self.decider.remembering_sessions_for(ms);
        self
    }

    /// How long a session's `gameId` is remembered, in milliseconds.
    pub fn session_window_ms(&self) -> u64 {
        self.decider.session_window_ms()
    }

    /// The same service as partition `index` (from 0) of `count`: it counts the games routed
    /// to it (the routing is the host's), and with each `puzzle.stats.updated.v1` of its share
    /// publishes `puzzle.partition.updated.v1`, the raw counters the partitions' statistics
    /// merge from. `index < count` is the caller's to check ([`Partition::new`]); an impossible
    /// partition is published as given, and refused by its readers naming the field.
    pub fn with_partition(mut self, index: u32, count: u32) -> Self {
        self.decider = self.decider.partitioned(Partition::unchecked(index, count));
        self
    }

    /// The partition this instance counts, if partitioned.
    pub fn partition(&self) -> Option<Partition> {
        self.decider.partition()
    }

    /// The view of its statistics (take it before the runtime starts the service).
    pub fn live(&self) -> LiveStats {
        self.live.clone()
    }
}

impl Decider for TelemetryService {
    type State = TelemetryState;
    type Input = Input;
    type Event = Event;
    type Rejection = Infallible;

    fn decide(&self, state: &TelemetryState, input: &Input, ctx: &Context) -> Decided<Self> {
        self.decider.decide(state, input, ctx.now_ms)
    }

    fn evolve(state: &mut TelemetryState, event: &Event) {
        PuzzleTelemetry::evolve(state, event);
    }

    fn initial_state(&self) -> TelemetryState {
        self.decider.initial_state()
    }

    fn next_deadline(&self, state: &TelemetryState) -> Option<u64> {
        self.decider.next_deadline(state)
    }
}

impl Service for TelemetryService {
    fn spec(&self) -> ServiceSpec {
        ServiceSpec::new(
            self.name.clone(),
            self.name.clone(),
            Consumed::TYPES.iter().map(|t| (*t).to_string()).collect(),
        )
    }

    fn input(&self, message: &Envelope) -> Result<Decoded<Input>, MappingError> {
        Consumed::to_domain(&message.message_type, &message.payload).map(Decoded::Input)
    }

    fn is_repeat(&self, state: &TelemetryState, input: &Input) -> bool {
        PuzzleTelemetry::is_repeat(state, input)
    }

    fn tick(&self, _now_ms: u64) -> Option<Input> {
        Some(Input::Tick)
    }

    fn encode(&self, event: &Event) -> Result<Outbound, MappingError> {
        event.to_message().outbound()
    }

    fn decode(&self, envelope: &Envelope) -> Result<Event, MappingError> {
        PuzzleMessage::decode(&envelope.message_type, &envelope.payload).map(Event::from)
    }

    fn effect(&self, _state: &TelemetryState, event: &Event) {
        self.live
            .update(|live| PuzzleTelemetry::evolve(live, event));
    }

    fn snapshots(&self) -> Option<arcade_runtime::Codec<TelemetryState>> {
        let ours = self.session_window_ms();
        Some(Self::codec().fitting(move |state: &TelemetryState| {
            let taken = state.sessions().window_ms();
            if taken == ours {
                Ok(())
            } else {
                Err(format!(
                    "its gameId window is {taken} ms, the service's is {ours} ms (--puzzle-session-window)"
                ))
            }
        }))
    }

    fn resume(&self, state: &TelemetryState) {
        self.live.update(|live| *live = state.clone());
    }
}
