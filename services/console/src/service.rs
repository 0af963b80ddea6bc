//! The console as a running service: it consumes the events of every game's topics, records
//! each in its own log as an [`Observed`] (never published: `publishes` is `false`), and folds
//! them into its [`Projections`]. Its state is the fold of its log, rebuilt at start from the
//! newest snapshot and the log after it, like every service's.
//!
//! [`Live`] is the read model the pages read: set from the rebuilt state at start (`resume`),
//! then folded from each event once it is durable (`effect`), so a page never shows an event
//! the console could lose in a crash.

use arcade_contracts::game::GameSessionCompletedV2;
use arcade_contracts::{Envelope, Message, Route};
use arcade_runtime::{
    Codec, Context, Decided, Decider, Decoded, MappingError, Outbound, Service, ServiceSpec,
    Snapshot, SnapshotError, payload_of,
};

pub use crate::SERVICE_NAME;
use crate::desk::Desk;
use crate::games::puzzle::play::{self, COMPLETED, PlayRefused};
use crate::games::puzzle::projection::Puzzle;
pub use crate::input::ConsoleInput;
use crate::live::Live;
use crate::observed::{OBSERVED_TYPE, Observed};
use crate::projection::Projections;

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
    desk: Desk,
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
            desk: Desk::default(),
        }
    }

    /// Where its pages hand players' requests (connected once the service runs).
    pub fn desk(&self) -> Desk {
        self.desk.clone()
    }

    /// The read model its pages read (take it before the runtime starts the service).
    pub fn live(&self) -> Live {
        self.live.clone()
    }
}

impl Decider for ConsoleService {
    type State = Projections;
    type Input = ConsoleInput;
    type Event = Observed;
    type Rejection = PlayRefused;

    fn decide(&self, state: &Projections, input: &ConsoleInput, ctx: &Context) -> Decided<Self> {
        match input {
            ConsoleInput::Observed(observed) => Ok(vec![Observed {
                seen_at_ms: ctx.now_ms,
                ..observed.clone()
            }]),
            ConsoleInput::Play(command) => match state.get::<Puzzle>() {
                Some(puzzle) => puzzle.plays.decide(command, ctx.now_ms),
                None => Err(PlayRefused::Unknown(String::new())),
            },
        }
    }

    fn evolve(state: &mut Projections, event: &Observed) {
        state.apply(event);
    }
}

impl Service for ConsoleService {
    fn spec(&self) -> ServiceSpec {
        // It publishes only the sessions played here (`game.session.completed.v2`): everything
        // else in its log is its own record.
        ServiceSpec::new(
            self.name.clone(),
            self.name.clone(),
            TOPICS.iter().map(|t| (*t).to_string()).collect(),
        )
        .publishing_only(vec![GameSessionCompletedV2::TYPE.to_string()])
    }

    fn input(&self, message: &Envelope) -> Result<Decoded<ConsoleInput>, MappingError> {
        Ok(Decoded::Input(ConsoleInput::Observed(Observed::of(
            message, 0,
        ))))
    }

    fn refusal(&self, input: &ConsoleInput, rejection: &PlayRefused) -> Vec<Observed> {
        match input {
            ConsoleInput::Play(command) => vec![play::refused(command, rejection, 0)],
            ConsoleInput::Observed(_) => Vec::new(),
        }
    }

    fn encode(&self, event: &Observed) -> Result<Outbound, MappingError> {
        if event.message_type == COMPLETED {
            // A finished session played here: the contract message itself, published.
            return Ok(Outbound {
                message_type: GameSessionCompletedV2::TYPE,
                payload: event.payload.clone(),
                route: Route::Topic,
            });
        }
        Ok(Outbound {
            message_type: OBSERVED_TYPE,
            payload: event.to_record(),
            route: Route::Topic,
        })
    }

    fn decode(&self, envelope: &Envelope) -> Result<Observed, MappingError> {
        if envelope.message_type == GameSessionCompletedV2::TYPE {
            return payload_of::<GameSessionCompletedV2>(envelope).map(|s| play::completed(&s));
        }
        if envelope.message_type != OBSERVED_TYPE {
            return Err(MappingError::unknown(
                &envelope.message_type,
                "the console's log",
                &[OBSERVED_TYPE, GameSessionCompletedV2::TYPE],
            ));
        }
        Observed::from_record(&envelope.payload)
            .map_err(|reason| MappingError::invalid(OBSERVED_TYPE, reason))
    }

    fn effect(&self, _state: &Projections, event: &Observed) {
        self.live.apply(event);
        self.desk.answer(event);
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
