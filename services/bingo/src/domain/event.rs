//! The bingo service's own facts. Each becomes one contract message (see `convert`); together
//! they rebuild the state (`evolve` needs no secret: a dealt card carries its squares).

use std::sync::Arc;

use super::config::GameConfig;
use super::pool::SquareId;

/// A card's squares as dealt: the square id of every cell, row by row, `None` for the free
/// centre.
pub type Cells = Vec<Option<SquareId>>;

/// A printed card in a batch (its serial, label and squares): the contract's type, the same
/// thing.
pub use arcade_contracts::bingo::PrintedCard;

/// A cell of a player's card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardCell {
    /// The card.
    pub serial: u32,
    /// Who holds it.
    pub player: String,
    /// The square in the cell.
    pub square: SquareId,
    /// The cell.
    pub cell: u8,
}

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

/// The answer to a claim or a verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimAnswer {
    /// The request's id, if it had one.
    pub request_id: Option<String>,
    /// The game.
    pub game_id: String,
    /// The card.
    pub serial: u32,
    /// Which check.
    pub check: Check,
    /// Who holds the card (`None`: printed).
    pub player: Option<String>,
    /// The ticked cells, free centre included.
    pub ticked_cells: Vec<u8>,
    /// The win (now or earlier), if any.
    pub win: Option<WinReport>,
    /// Whether the game is closed.
    pub game_closed: bool,
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
    CardDealt {
        /// The request's id.
        request_id: Option<String>,
        /// The game.
        game_id: String,
        /// Who holds it.
        player: String,
        /// Its serial.
        serial: u32,
        /// Its squares.
        cells: Cells,
        /// Whether it was dealt now.
        first_deal: bool,
    },
    /// A batch of printed cards.
    CardsPrinted {
        /// The request's id.
        request_id: Option<String>,
        /// The game.
        game_id: String,
        /// The cards.
        cards: Vec<PrintedCard>,
    },
    /// A square called for the first time.
    SquareCalled {
        /// The request's id.
        request_id: Option<String>,
        /// The game.
        game_id: String,
        /// The square.
        square: SquareId,
        /// Its label.
        label: String,
        /// How many squares are called now.
        call_number: u32,
    },
    /// A gesture ticked a square of a card.
    SquareTicked {
        /// The game.
        game_id: String,
        /// The card.
        serial: u32,
        /// Who holds it.
        player: String,
        /// The square.
        square: SquareId,
        /// Its cell.
        cell: u8,
        /// The gesture's key.
        entry_id: String,
        /// The gesture's verb.
        verb: String,
    },
    /// A gesture was undone in a game.
    GestureUndone {
        /// The game.
        game_id: String,
        /// The gesture's key.
        entry_id: String,
        /// The cells unticked.
        unticked: Vec<CardCell>,
    },
    /// The answer to a claim or verification.
    ClaimAnswered(ClaimAnswer),
    /// A card won.
    CardWon {
        /// The game.
        game_id: String,
        /// The card.
        serial: u32,
        /// Who holds it (`None`: printed).
        player: Option<String>,
        /// The pattern's name.
        pattern: String,
        /// The pattern's cells.
        cells: Vec<u8>,
        /// When, ms since the epoch.
        won_at: u64,
        /// Place among the winners, from 1.
        place: u32,
    },
    /// A game closed.
    GameClosed {
        /// The request's id.
        request_id: Option<String>,
        /// The game.
        game_id: String,
        /// Winning serials in order.
        winners: Vec<u32>,
        /// Cards dealt and printed.
        cards: u32,
        /// When, ms since the epoch.
        closed_at: u64,
    },
    /// A request was refused (the sender learns why; the state does not change).
    RequestRejected {
        /// The refused request's type.
        request_type: String,
        /// Its id.
        request_id: Option<String>,
        /// The game it named.
        game_id: String,
        /// A stable code.
        code: String,
        /// Why.
        reason: String,
    },
}

impl Event {
    /// The game the event is about (the flow it belongs to).
    pub fn game_id(&self) -> &str {
        match self {
            Event::GameOpened { game_id, .. }
            | Event::CardDealt { game_id, .. }
            | Event::CardsPrinted { game_id, .. }
            | Event::SquareCalled { game_id, .. }
            | Event::SquareTicked { game_id, .. }
            | Event::GestureUndone { game_id, .. }
            | Event::CardWon { game_id, .. }
            | Event::GameClosed { game_id, .. }
            | Event::RequestRejected { game_id, .. } => game_id,
            Event::ClaimAnswered(answer) => &answer.game_id,
        }
    }
}
