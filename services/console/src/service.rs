//! The console as a running service: it consumes the events of every game's topics, records
//! each in its own log as an [`Observed`] (never published: `publishes` is `false`), and folds
//! them into its [`Projections`]. Its state is the fold of its log, rebuilt at start from the
//! newest snapshot and the log after it, like every service's.
//!
//! [`Live`] is the read model the pages read: set from the rebuilt state at start (`resume`),
//! then folded from each event once it is durable (`effect`), so a page never shows an event
//! the console could lose in a crash.

use std::convert::Infallible;

use arcade_contracts::{Envelope, Route};
use arcade_runtime::{
    Codec, Context, Decided, Decider, Decoded, Outbound, Service, ServiceSpec, Snapshot,
    SnapshotError,
};

use crate::live::Live;
use crate::observed::{OBSERVED_TYPE, Observed};
use crate::projection::Projections;

/// The console's default instance name (its queue and its data directory).
pub const SERVICE_NAME: &str = "console";

/// The topics the console binds: the events of all four games, recorded whole so that any
/// projection (of this build or a later one) can be folded from the log.
pub const TOPICS: [&str; 5] = ["table.#", "bingo.#", "race.#", "puzzle.#", "game.#"];

/// The console's snapshot format version (a frame of per-projection sections).
pub const SNAPSHOT_VERSION: u32 = 1;

/// The console service.
#[derive(Debug, Clone)]
pub struct ConsoleService {
    name: String,
    live: Live,
}

impl Default for ConsoleService {
    fn default() -> Self {
        Self::named(SERVICE_NAME)
    }
}

impl ConsoleService {
    /// The console under an instance name (its queue and data directory).
    pub fn named(name: impl Into<String>) -> Self {
        ConsoleService {
            name: name.into(),
            live: Live::default(),
        }
    }

    /// The read model its pages read (take it before the runtime starts the service).
    pub fn live(&self) -> Live {
        self.live.clone()
    }
}

impl Decider for ConsoleService {
    type State = Projections;
    type Input = Observed;
    type Event = Observed;
    type Rejection = Infallible;

    fn decide(&self, _state: &Projections, input: &Observed, ctx: &Context) -> Decided<Self> {
        Ok(vec![Observed {
            seen_at_ms: ctx.now_ms,
            ..input.clone()
        }])
    }

    fn evolve(state: &mut Projections, event: &Observed) {
        state.apply(event);
    }
}

impl Service for ConsoleService {
    fn spec(&self) -> ServiceSpec {
        ServiceSpec {
            name: self.name.clone(),
            queue: self.name.clone(),
            bindings: TOPICS.iter().map(|t| (*t).to_string()).collect(),
        }
    }

    fn input(&self, message: &Envelope) -> Result<Decoded<Observed>, String> {
        Ok(Decoded::Input(Observed::of(message, 0)))
    }

    fn encode(&self, event: &Observed) -> Outbound {
        Outbound {
            message_type: OBSERVED_TYPE,
            payload: event.to_record(),
            route: Route::Topic,
        }
    }

    fn decode(&self, envelope: &Envelope) -> Result<Observed, String> {
        if envelope.message_type != OBSERVED_TYPE {
            return Err(format!(
                "expected {OBSERVED_TYPE} in the console's log, found {}",
                envelope.message_type
            ));
        }
        Observed::from_record(&envelope.payload)
    }

    fn publishes(&self) -> bool {
        false
    }

    fn effect(&self, _state: &Projections, event: &Observed) {
        self.live.apply(event);
    }

    fn snapshots(&self) -> Option<Codec<Projections>> {
        Some(Codec::of::<Self>())
    }

    fn resume(&self, state: &Projections) {
        self.live.reset(state.clone());
    }
}

impl Snapshot for ConsoleService {
    const VERSION: u32 = SNAPSHOT_VERSION;

    fn encode(state: &Projections) -> Vec<u8> {
        // A projection that cannot encode itself writes an empty frame, which `decode` refuses:
        // the host then replays the log, never loads a partial state.
        state.encode().unwrap_or_default()
    }

    fn decode(bytes: &[u8]) -> Result<Projections, SnapshotError> {
        Projections::decode(bytes).map_err(SnapshotError::Payload)
    }
}
