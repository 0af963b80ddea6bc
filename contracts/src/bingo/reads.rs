//! What the process hosting bingo answers on its admin endpoint: `GET /bingo/games/{gameId}`
//! ([`GameRead`]) and `GET /bingo/games/{gameId}/cards/{serial}` ([`CardRead`]). These are read
//! models of the bingo service's own state as of its last durable event, not messages: they
//! have no type name and travel over HTTP only.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{GridSpec, SquareSpec, TickMode};

/// Whether a game still deals, calls, ticks and makes cards win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    /// It plays.
    Open,
    /// It was closed.
    Closed,
}

/// A game as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameRead {
    /// The game.
    pub game_id: String,
    /// How its cards get ticked.
    pub tick_mode: TickMode,
    /// Open or closed.
    pub status: GameStatus,
    /// The size of its cards; `freeCentre` is given.
    pub grid: GridSpec,
    /// Its squares, in the order cards are drawn from (labels to print).
    pub pool: Vec<SquareSpec>,
    /// Its win patterns' names, in the order they are checked.
    pub patterns: Vec<String>,
    /// The squares called so far, in the order they were called (called games).
    pub called_squares: Vec<u32>,
    /// The winning cards, in the order they won.
    pub winners: Vec<WinnerRead>,
    /// Cards dealt and printed.
    pub cards: u32,
    /// How many more cards a print request may ask for now (0 unless it is an open called
    /// game): what it can still hold of 100,000, and of the distinct cards its grid and pool
    /// make.
    pub printable: u32,
}

/// One winning card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WinnerRead {
    /// Its place, 1 for the first.
    pub place: u32,
    /// Its serial.
    pub serial: u32,
    /// Who holds it; null for a printed card.
    pub player: Option<String>,
    /// The pattern it won with.
    pub pattern: String,
    /// When it won, in milliseconds since the epoch.
    pub won_at: u64,
}

/// One card as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardRead {
    /// The game.
    pub game_id: String,
    /// Its serial.
    pub serial: u32,
    /// Who holds it; null for a printed card.
    pub player: Option<String>,
    /// The square id of every cell, row by row from cell 0; null for the free centre.
    pub cells: Vec<Option<u32>>,
    /// Its ticked cells (called squares it holds, or its standing gestures' ticks), free
    /// centre included.
    pub ticked_cells: Vec<u8>,
    /// Its win; null when it has not won.
    pub win: Option<WinRead>,
}

/// A card's win.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WinRead {
    /// The pattern it won with.
    pub pattern: String,
    /// The cells of that pattern.
    pub cells: Vec<u8>,
    /// When it won, in milliseconds since the epoch.
    pub won_at: u64,
    /// Its place among the winners.
    pub place: u32,
}
