//! The bingo service on the runtime: which messages it consumes (its commands on the `bingo`
//! queue, `activity.*`, and the other services' events its open games map to gestures), how its
//! events look on the wire, and the one piece of shell it needs beyond that: a [`Binder`] that
//! binds the service's queue to a message type as soon as an open game maps it.
//!
//! It also keeps a [`BingoView`] of its state for the hosting process to read (see `view.rs`).
//!
//! The server secret lives only in the decider's keys (printed `<redacted>`); no event carries
//! it and nothing here logs it.
//!
//! A card claim (`bingo.card.claim.v1`) names its player and is accepted only from the
//! operator or that player's principal `bingo-player-<player>` (the sender the transport
//! vouches for); any other is refused, dead-lettered with the reason.

use std::collections::BTreeSet;
use std::sync::Arc;

use arcade_contracts::activity::{ActivityRecorded, ActivityUndone};
use arcade_contracts::bingo::{ClaimCard, QUEUE};
use arcade_contracts::principal::{Operators, bingo_player};
use arcade_contracts::{Envelope, Message};
use arcade_runtime::backoff::Backoff;
use arcade_runtime::{
    Bus, BusError, Context, Decided, Decider, Decoded, MappingError, Outbound, Service, ServiceSpec,
};
use tokio::sync::{mpsc, watch};
use tracing::{info, warn};

use crate::domain::{Bingo, Event, Input, Rejection, Secret, State};
use crate::mapping::{Incoming, Outgoing};
use crate::view::BingoView;

/// The bingo service: the decider and, when it runs on a bus, its binder.
#[derive(Debug)]
pub struct BingoService {
    bingo: Bingo,
    binder: Option<Binder>,
    view: BingoView,
    operators: Operators,
}

impl BingoService {
    /// A bingo service dealing cards from `secret`. Without a [`Binder`] it consumes only its
    /// commands and `activity.*` (and the mapped types bound by an earlier run).
    pub fn new(secret: &Secret) -> BingoService {
        BingoService {
            bingo: Bingo::new(secret),
            binder: None,
            view: BingoView::default(),
            operators: Operators::default(),
        }
    }

    /// Treats exactly `operators` as the operator's principals (default: `operator`,
    /// `arcade-admin`): a card claim is accepted only from one of them or from the claiming
    /// player's principal `bingo-player-<player>`.
    pub fn with_operators(mut self, operators: Operators) -> BingoService {
        self.operators = operators;
        self
    }

    /// The read model of its games and cards (take it before the runtime starts the service).
    pub fn view(&self) -> BingoView {
        self.view.clone()
    }

    /// Binds the queue to the types games map, as games open (and at start, for the games the
    /// log holds).
    pub fn with_binder(mut self, binder: Binder) -> BingoService {
        self.binder = Some(binder);
        self
    }
}

/// The bindings every bingo queue has: the activity events. Commands come to the queue
/// directly.
pub fn base_bindings() -> Vec<String> {
    vec![
        ActivityRecorded::TYPE.to_string(),
        ActivityUndone::TYPE.to_string(),
    ]
}

impl Decider for BingoService {
    type State = State;
    type Input = Input;
    type Event = Event;
    type Rejection = Rejection;

    fn decide(&self, state: &State, input: &Input, ctx: &Context) -> Decided<Self> {
        if let Input::Foreign {
            message_type,
            payload,
            message_id,
        } = input
        {
            // A fact from another service has nobody to answer: say in the log why it counts as
            // no gesture in a game that maps its type.
            for (game, gesture) in state.foreign_gestures(message_type, payload, message_id) {
                if let Err(problem) = gesture {
                    warn!(%game, %message_id, %problem, "mapped message is no gesture");
                }
            }
        }
        self.bingo.decide(state, input, ctx.now_ms)
    }

    fn evolve(state: &mut State, event: &Event) {
        Bingo::evolve(state, event);
    }
}

impl Service for BingoService {
    fn spec(&self) -> ServiceSpec {
        // The activity events tick cards in every game: each partition gets them all (as it
        // gets the mapped types its [`Binder`] binds to its own queue). Its commands are per
        // game.
        ServiceSpec::new(QUEUE, QUEUE, base_bindings()).with_shared_bindings(base_bindings())
    }

    fn input(&self, message: &Envelope) -> Result<Decoded<Input>, MappingError> {
        if message.message_type.starts_with("bingo.")
            && !Incoming::TYPES.contains(&message.message_type.as_str())
        {
            // One of the service's own facts (a queue bound by hand to `bingo.#`): not an input.
            return Ok(Decoded::Ignore(format!(
                "{} is a fact of the bingo service, not a request",
                message.message_type
            )));
        }
        let Some(incoming) = Incoming::read(&message.message_type, &message.payload)? else {
            return Ok(Decoded::Input(Input::Foreign {
                message_type: message.message_type.clone(),
                payload: message.payload.clone(),
                message_id: message.message_id.clone(),
            }));
        };
        if let Incoming::ClaimCard(claim) = &incoming {
            let player = &claim.player;
            if !self
                .operators
                .may_act_for(message.sender.as_deref(), &bingo_player(player))
            {
                return Err(MappingError::refused(
                    ClaimCard::TYPE,
                    format_args!(
                        "sender {} may not claim for player {player:?}: only bingo-player-{player} or an operator",
                        message.sender.as_deref().unwrap_or("(none)")
                    ),
                ));
            }
        }
        Ok(Decoded::Input(incoming.into()))
    }

    fn refusal(&self, _input: &Input, rejection: &Rejection) -> Vec<Event> {
        vec![rejection.to_event()]
    }

    fn encode(&self, event: &Event) -> Result<Outbound, MappingError> {
        Outgoing::from(event).outbound()
    }

    fn decode(&self, envelope: &Envelope) -> Result<Event, MappingError> {
        Event::from_message(&envelope.message_type, &envelope.payload)
    }

    fn flow_of_event(&self, event: &Event) -> Option<String> {
        Some(event.game_id().to_string())
    }

    fn flow_of_input(&self, input: &Input) -> Option<String> {
        input.game_id().map(str::to_string)
    }

    fn effect(&self, _state: &State, event: &Event) {
        self.view.apply(event);
        if let (Some(binder), Event::GameOpened { config, .. }) = (&self.binder, event) {
            binder.bind(config.mapped_types().map(str::to_string).collect());
        }
    }

    fn snapshots(&self) -> Option<arcade_runtime::Codec<State>> {
        Some(arcade_runtime::Codec::of::<Self>())
    }

    fn resume(&self, state: &State) {
        self.view.reset(state);
        if let Some(binder) = &self.binder {
            binder.bind(state.mapped_message_types());
        }
    }
}

/// Binds the bingo queue to the message types games map, in the background ([`Bus::bind`],
/// retrying with backoff while the bus is unavailable). Bindings of a durable queue outlive
/// the process.
#[derive(Debug, Clone)]
pub struct Binder {
    requests: mpsc::UnboundedSender<BTreeSet<String>>,
}

impl Binder {
    /// Starts a binder of `queue` on `bus` (within a tokio runtime). The receiver follows the
    /// types bound so far (the base bindings are the service's own subscription's).
    pub fn spawn(bus: Arc<dyn Bus>, queue: &str) -> (Binder, watch::Receiver<BTreeSet<String>>) {
        let (requests, rx) = mpsc::unbounded_channel();
        let (bound_tx, bound_rx) = watch::channel(BTreeSet::new());
        tokio::spawn(bind_loop(bus, queue.to_string(), rx, bound_tx));
        (Binder { requests }, bound_rx)
    }

    fn bind(&self, types: BTreeSet<String>) {
        if !types.is_empty() {
            // The loop is gone only when the process stops.
            let _ = self.requests.send(types);
        }
    }
}

async fn bind_loop(
    bus: Arc<dyn Bus>,
    queue: String,
    mut requests: mpsc::UnboundedReceiver<BTreeSet<String>>,
    bound: watch::Sender<BTreeSet<String>>,
) {
    while let Some(types) = requests.recv().await {
        let new: Vec<String> = {
            let done = bound.borrow();
            types.into_iter().filter(|t| !done.contains(t)).collect()
        };
        if new.is_empty() {
            continue;
        }
        let mut backoff = Backoff::default();
        loop {
            match bus.bind(&queue, &new).await {
                Ok(()) => {
                    info!(%queue, types = ?new, "bound to the message types a game maps");
                    bound.send_modify(|done| done.extend(new));
                    break;
                }
                Err(BusError::Closed) => return,
                Err(error) => {
                    warn!(%queue, %error, "cannot bind the mapped message types yet; retrying");
                    tokio::time::sleep(backoff.next_delay()).await;
                }
            }
        }
    }
}
