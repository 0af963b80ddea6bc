//! Why the bingo service refuses a request, in words a person understands, with a stable code
//! for programs. A [`Rejection`] is a refusal with the request it answers; it becomes one
//! `bingo.request.rejected.v1`.

use std::fmt;

use arcade_contracts::bingo as contract;

use super::config_error::ConfigError;
use super::event::Event;
use super::limits::{MAX_CARDS, MAX_PRINT_BATCH};

/// What a closed game no longer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// Deal cards.
    Deal,
    /// Print cards.
    Print,
    /// Call squares.
    Call,
    /// Close (it already is).
    Close,
}

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Closed::Deal => "it deals no more cards",
            Closed::Print => "it prints no more cards",
            Closed::Call => "it calls no more squares",
            Closed::Close => "it was already closed",
        })
    }
}

/// A refused request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// An identifier is empty or longer than allowed.
    #[error("the {field} must be 1 to {max} bytes, not {len}")]
    TextLength {
        /// Which field (`game id`, `player`, `request id`, `label`).
        field: &'static str,
        /// Its length in bytes.
        len: usize,
        /// The longest allowed.
        max: usize,
    },
    /// The game's configuration breaks a rule.
    #[error("game \"{0}\" cannot be opened: {1}")]
    InvalidGame(String, Box<ConfigError>),
    /// A game of that id exists.
    #[error("a game \"{0}\" already exists: choose another id")]
    GameExists(String),
    /// No game of that id.
    #[error("there is no game \"{0}\"")]
    UnknownGame(String),
    /// The game is closed.
    #[error("game \"{game}\" is closed: {closed}")]
    GameClosed {
        /// The game.
        game: String,
        /// What it no longer does.
        closed: Closed,
    },
    /// The game holds its 100,000 cards.
    #[error("game \"{0}\" has dealt the {MAX_CARDS} cards a game may hold")]
    CardLimit(String),
    /// A printed batch would take the game past 100,000 cards.
    #[error(
        "game \"{game}\" holds {cards} cards and may hold {MAX_CARDS}: a batch of {count} \
         does not fit"
    )]
    PrintTooMany {
        /// The game.
        game: String,
        /// Cards it holds.
        cards: u32,
        /// Cards asked for.
        count: u32,
    },
    /// Every serial tried gave a card the game already has.
    #[error(
        "game \"{game}\" found no card unlike its {cards} cards in {tried} serials from \
         {first}: its pool cannot make more distinct cards"
    )]
    NoDistinctCard {
        /// The game.
        game: String,
        /// Cards it holds.
        cards: u32,
        /// The first serial tried.
        first: u32,
        /// Serials tried.
        tried: u32,
    },
    /// A printed batch would take the game past the distinct cards its grid and pool make.
    #[error(
        "game \"{game}\" can hold {capacity} distinct cards from its grid and pool and holds \
         {cards}: a batch of {count} does not fit"
    )]
    TooFewDistinctCards {
        /// The game.
        game: String,
        /// Cards it holds.
        cards: u32,
        /// Cards it can hold.
        capacity: u32,
        /// Cards asked for.
        count: u32,
    },
    /// A printed batch of 0 or more than 1,000 cards.
    #[error("a printed batch holds 1 to {MAX_PRINT_BATCH} cards, not {0}")]
    PrintCount(u32),
    /// Printing in an activity game.
    #[error(
        "game \"{0}\" is ticked by its players' activity: only a called game prints cards, \
         since a printed card has no player to make gestures"
    )]
    PrintInActivityGame(String),
    /// Calling in an activity game.
    #[error("game \"{0}\" is ticked by its players' activity: its squares are not called")]
    CallInActivityGame(String),
    /// The square is not in the game's pool.
    #[error("square {square} is not in the pool of game \"{game}\"")]
    SquareNotInPool {
        /// The game.
        game: String,
        /// The square asked for.
        square: u32,
    },
    /// The square was called before.
    #[error(
        "square {square} of game \"{game}\" was already called (call {call_number}): a square \
         is called once"
    )]
    AlreadyCalled {
        /// The game.
        game: String,
        /// The square asked for.
        square: u32,
        /// Its place in the calls, from 1.
        call_number: u32,
    },
    /// A draw in a game whose every square has been called.
    #[error("every square of game \"{0}\" has been called: there is nothing left to draw")]
    NothingToDraw(String),
    /// No card of that serial in the game.
    #[error("game \"{game}\" has no card with serial {serial}")]
    UnknownCard {
        /// The game.
        game: String,
        /// The serial asked for.
        serial: u32,
    },
    /// A player claims another player's card.
    #[error("card {serial} of game \"{game}\" is not yours: a player claims their own card only")]
    NotYourCard {
        /// The game.
        game: String,
        /// The card.
        serial: u32,
    },
    /// A player claims a printed card.
    #[error(
        "card {serial} of game \"{game}\" is a printed card: no player holds it, so the \
         organiser verifies it by its label"
    )]
    PrintedCardClaimed {
        /// The game.
        game: String,
        /// The card.
        serial: u32,
    },
    /// A label check on a card that was dealt, not printed.
    #[error(
        "card {serial} of game \"{game}\" was dealt to a player, not printed, so it has no \
         label: verify it by serial"
    )]
    NotPrinted {
        /// The game.
        game: String,
        /// The card.
        serial: u32,
    },
    /// The label is not the card's.
    #[error(
        "the label does not match card {serial} of game \"{game}\": it is not a card this \
         server printed"
    )]
    BadLabel {
        /// The game.
        game: String,
        /// The card.
        serial: u32,
    },
    /// The card's squares are not those the secret gives its serial.
    #[error(
        "card {serial} of game \"{game}\" does not match the card the server deals for that \
         serial: the card was altered, or the server's secret changed"
    )]
    LayoutMismatch {
        /// The game.
        game: String,
        /// The card.
        serial: u32,
    },
}

impl Refusal {
    /// A stable code for programs (kebab-case).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::TextLength { .. } => "invalid-field",
            Refusal::InvalidGame(..) => "invalid-game",
            Refusal::GameExists(_) => "game-exists",
            Refusal::UnknownGame(_) => "unknown-game",
            Refusal::GameClosed { .. } => "game-closed",
            Refusal::CardLimit(_) | Refusal::PrintTooMany { .. } => "card-limit",
            Refusal::NoDistinctCard { .. } | Refusal::TooFewDistinctCards { .. } => {
                "no-distinct-card"
            }
            Refusal::PrintCount(_) => "invalid-count",
            Refusal::PrintInActivityGame(_) | Refusal::CallInActivityGame(_) => "not-a-called-game",
            Refusal::SquareNotInPool { .. } => "unknown-square",
            Refusal::AlreadyCalled { .. } => "already-called",
            Refusal::NothingToDraw(_) => "nothing-to-draw",
            Refusal::UnknownCard { .. } => "unknown-card",
            Refusal::NotYourCard { .. } => "not-your-card",
            Refusal::PrintedCardClaimed { .. } => "printed-card",
            Refusal::NotPrinted { .. } => "not-printed",
            Refusal::BadLabel { .. } => "bad-label",
            Refusal::LayoutMismatch { .. } => "card-mismatch",
        }
    }
}

/// A refused request: the refusal and what the sender needs to match it to their request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The refused request's message type.
    pub request_type: &'static str,
    /// The request's id, if it had one.
    pub request_id: Option<String>,
    /// The game it named.
    pub game_id: String,
    /// Why.
    pub refusal: Refusal,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.refusal.fmt(f)
    }
}

impl Rejection {
    /// The event that tells the sender (`bingo.request.rejected.v1`).
    pub fn to_event(&self) -> Event {
        Event::RequestRejected(contract::RequestRejected {
            request_type: self.request_type.to_string(),
            request_id: self.request_id.clone(),
            game_id: self.game_id.clone(),
            code: self.refusal.code().to_string(),
            reason: self.refusal.to_string(),
        })
    }
}
