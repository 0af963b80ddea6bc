//! The bingo service's own facts. Each is one contract message (see `mapping`); together
//! they rebuild the state (`evolve` needs no secret: a dealt card carries its squares).

use std::sync::Arc;

use arcade_contracts::bingo as contract;

use super::config::GameConfig;
use super::pool::SquareId;

/// A card's squares as dealt: the square id of every cell, row by row, `None` for the free
/// centre.
pub type Cells = Vec<Option<SquareId>>;

/// A printed card in a batch (its serial, label and squares): the contract's type, the same
/// thing.
pub use arcade_contracts::bingo::PrintedCard;

/// A cell of a player's card: the contract's type, the same thing.
pub use arcade_contracts::bingo::CardCell;

/// Which check an answer is for (a player's claim, the organiser's check by serial, or of a
/// printed card by label): the contract's type, the same thing.
pub use arcade_contracts::bingo::ClaimCheck as Check;

/// A card's win, as an answer reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinReport {
    /// The pattern's name.
    pub pattern: String,
    /// The pattern's cells that won.
    pub cells: Vec<u8>,
    /// When, ms since the epoch.
    pub at: u64,
    /// Place among the winners, from 1.
    pub place: u32,
}

/// A fact of the bingo service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A game opened.
    GameOpened {
        /// The request's id.
        request_id: Option<String>,
        /// The game.
        game_id: String,
        /// Its checked configuration.
        config: Arc<GameConfig>,
        /// When, ms since the epoch.
        opened_at: u64,
    },
    /// A player's card (dealt now, or again).
    CardDealt(contract::CardDealt),
    /// A batch of printed cards.
    CardsPrinted(contract::CardsPrinted),
    /// A square called for the first time.
    SquareCalled(contract::SquareCalled),
    /// A gesture ticked a square of a card.
    SquareTicked(contract::SquareTicked),
    /// A gesture was undone in a game.
    GestureUndone(contract::GestureUndone),
    /// The answer to a claim or verification.
    ClaimAnswered(contract::ClaimAnswered),
    /// A card won.
    CardWon(contract::CardWon),
    /// A game closed.
    GameClosed(contract::GameClosed),
    /// A request was refused (the sender learns why; the state does not change).
    RequestRejected(contract::RequestRejected),
}

impl Event {
    /// The game the event is about (the flow it belongs to).
    pub fn game_id(&self) -> &str {
        match self {
            Event::GameOpened { game_id, .. } => game_id,
            Event::CardDealt(m) => &m.game_id,
            Event::CardsPrinted(m) => &m.game_id,
            Event::SquareCalled(m) => &m.game_id,
            Event::SquareTicked(m) => &m.game_id,
            Event::GestureUndone(m) => &m.game_id,
            Event::ClaimAnswered(m) => &m.game_id,
            Event::CardWon(m) => &m.game_id,
            Event::GameClosed(m) => &m.game_id,
            Event::RequestRejected(m) => &m.game_id,
        }
    }
}
