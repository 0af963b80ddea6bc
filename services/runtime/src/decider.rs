//! The shape of every service: a **decider** (`decide` then `evolve`, pure) and a [`Service`]
//! that says which messages it consumes and how its events look on the wire.
//!
//! `decide(&State, &Input) -> Result<Vec<Event>, Rejection>` holds all business logic;
//! `evolve(&mut State, &Event)` only applies a fact. State is a fold of the service's own events,
//! so replaying its log rebuilds it exactly.

use std::fmt;

use arcade_contracts::Envelope;

pub use crate::mapping::{MappingError, Outbound, payload_of};

/// What the host tells `decide` besides the state and the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    /// Now, in milliseconds since the epoch, from the runtime's clock.
    pub now_ms: u64,
}

/// Business logic: pure, deterministic, no I/O.
pub trait Decider: Send + Sync + 'static {
    /// A fold of the service's own events.
    type State: Default + Send + Sync + 'static;
    /// What the service reacts to: commands, others' events, timer ticks, local inputs.
    type Input: Send + 'static;
    /// The service's own facts; each becomes one contract message.
    type Event: Send + Sync + 'static;
    /// Why an input was refused.
    type Rejection: fmt::Display + Send + 'static;

    /// Decides what happens. Must not depend on anything but its arguments and `self`'s
    /// configuration.
    fn decide(
        &self,
        state: &Self::State,
        input: &Self::Input,
        ctx: &Context,
    ) -> Result<Vec<Self::Event>, Self::Rejection>;

    /// Applies one event.
    fn evolve(state: &mut Self::State, event: &Self::Event);

    /// The state before any event, which the log is folded on: `State::default()`, unless the
    /// fold depends on the service's settings (the puzzle telemetry's window of `gameId`s).
    fn initial_state(&self) -> Self::State {
        Self::State::default()
    }

    /// When the host should next call `decide` with [`Service::tick`]'s input (ms since the
    /// epoch); `None` when nothing is scheduled.
    fn next_deadline(&self, _state: &Self::State) -> Option<u64> {
        None
    }
}

/// What the host should do with a valid incoming message.
#[derive(Debug)]
pub enum Decoded<I> {
    /// Handle it.
    Input(I),
    /// It is valid but not for this instance (another table's command): ack it, count it.
    Ignore(String),
}

/// Where a service sits on the bus and how its domain meets the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceSpec {
    /// Instance name: the producer (`app_id`) of its events and the name of its data dir, e.g.
    /// `bingo` or `referee.table-3`.
    pub name: String,
    /// Its queue (commands addressed to it arrive here).
    pub queue: String,
    /// Topic patterns of the events it consumes.
    pub bindings: Vec<String>,
    /// Of its bindings, the patterns whose messages are not about one game and that every
    /// partition of the service must get when it runs partitioned (`--partition K/N`): bound
    /// to each partition's own queue. Its other bindings are routed to one partition by the
    /// partition key (the payload's `gameId`). Empty by default: every binding is per game.
    pub shared_bindings: Vec<String>,
    /// Which events of its log go out on the bus: all of them by default.
    pub publishes: Publishes,
}

impl ServiceSpec {
    /// A service named `name` on queue `queue`, consuming the topic patterns `bindings` (each
    /// per game), publishing every event of its log.
    pub fn new(name: impl Into<String>, queue: impl Into<String>, bindings: Vec<String>) -> Self {
        ServiceSpec {
            name: name.into(),
            queue: queue.into(),
            bindings,
            shared_bindings: Vec::new(),
            publishes: Publishes::Everything,
        }
    }

    /// The same, with `shared` as its [shared bindings](ServiceSpec::shared_bindings).
    pub fn with_shared_bindings(mut self, shared: Vec<String>) -> Self {
        self.shared_bindings = shared;
        self
    }

    /// The same, publishing only the events of these message types.
    pub fn publishing_only(mut self, types: Vec<String>) -> Self {
        self.publishes = Publishes::Only(types);
        self
    }
}

/// Which events of a service's log go out on the bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Publishes {
    /// All of them (every game service).
    Everything,
    /// Those of these message types. A service whose log mixes its own records with a few
    /// contract events (the console: what it saw, and the puzzle sessions played on it)
    /// publishes only those; the relay passes over the others, its cursor moving past them in
    /// order, so a published event still goes out once, in log order, across restarts.
    Only(Vec<String>),
}

impl Publishes {
    /// Whether an event of this message type goes out.
    pub fn includes(&self, message_type: &str) -> bool {
        match self {
            Publishes::Everything => true,
            Publishes::Only(types) => types.iter().any(|t| t == message_type),
        }
    }
}

/// The thin shell around a decider: which messages it takes and how its events look.
pub trait Service: Decider {
    /// Name, queue, bindings and what it publishes.
    fn spec(&self) -> ServiceSpec;

    /// A valid incoming message as an input. An error dead-letters it, its text the reason.
    fn input(&self, message: &Envelope) -> Result<Decoded<Self::Input>, MappingError>;

    /// Whether a valid input repeats a fact already applied under another message id (a fact
    /// with a natural identity, such as a puzzle session's `gameId`, resent or sent in another
    /// version). The host then absorbs it as a duplicate delivery: counted as deduplicated, its
    /// key kept in the inbox, nothing decided.
    fn is_repeat(&self, _state: &Self::State, _input: &Self::Input) -> bool {
        false
    }

    /// The input for a timer that fired at `now_ms`.
    fn tick(&self, _now_ms: u64) -> Option<Self::Input> {
        None
    }

    /// The events that tell a refused request's sender why (a `*.rejected.v1`). Empty when the
    /// input was not a request (the refusal is logged and counted).
    fn refusal(&self, _input: &Self::Input, _rejection: &Self::Rejection) -> Vec<Self::Event> {
        Vec::new()
    }

    /// An event as a contract message. An error (a contract message serde cannot write) refuses the
    /// input that decided it: nothing of that decision is applied or logged.
    fn encode(&self, event: &Self::Event) -> Result<Outbound, MappingError>;

    /// An event back from the log (replay). Must invert `encode`.
    fn decode(&self, envelope: &Envelope) -> Result<Self::Event, MappingError>;

    /// The flow (game, race, session) an event belongs to, so that events a timer or a local
    /// input produces later carry the same correlation id.
    fn flow_of_event(&self, _event: &Self::Event) -> Option<String> {
        None
    }

    /// The flow a timer or local input belongs to.
    fn flow_of_input(&self, _input: &Self::Input) -> Option<String> {
        None
    }

    /// A durable queue that must exist, with its bindings, before this event of the log goes
    /// out (the race master's team queue, from the team's first registration): the relay
    /// declares it first, idempotently. `None` (the default) for most events.
    fn queue_before(&self, _envelope: &Envelope) -> Option<crate::bus::SubscriptionSpec> {
        None
    }

    /// Acts on the world once an event is durable (a referee locks a ball return). Called in
    /// log order, after the batch's flush, with the state after the batch; never on replay.
    fn effect(&self, _state: &Self::State, _event: &Self::Event) {}

    /// The on-disk format of the service's state snapshots (`Some(Codec::of::<Self>())` for a
    /// service that implements [`crate::Snapshot`]), with what a restored state must fit
    /// ([`Codec::fitting`](crate::snapshot::codec::Codec::fitting)); `None` (the default): no
    /// snapshots, a restart replays the whole log.
    fn snapshots(&self) -> Option<crate::snapshot::codec::Codec<Self::State>> {
        None
    }

    /// Brings the world in line with the state rebuilt at start (a referee re-applies its
    /// locks), before any input is handled.
    fn resume(&self, _state: &Self::State) {}
}

/// What a service's `decide` returns.
pub type Decided<S> = Result<Vec<<S as Decider>::Event>, <S as Decider>::Rejection>;
