//! The bingo service's facts. Each is the answer to a request (it echoes `gameId` and the
//! optional `requestId`) or the effect of a gesture; together they rebuild the service's state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ActivitySourceSpec, CardCell, ClaimCheck, GridSpec, PatternSpec, PrintedCard};
use super::{SquareSpec, TickMode};

/// `bingo.game.opened.v1`: a game is open, with its configuration resolved (the grid's
/// `freeCentre` is always given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A bingo game was opened.")]
pub struct GameOpened {
    /// The `requestId` of the `bingo.game.open.v1` it answers, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The game.
    pub game_id: String,
    /// How its cards get ticked.
    pub tick_mode: TickMode,
    /// The size of its cards; `freeCentre` is given.
    pub grid: GridSpec,
    /// Its squares, in the order cards are drawn from.
    pub pool: Vec<SquareSpec>,
    /// Its win patterns, in the order they are checked.
    pub patterns: Vec<PatternSpec>,
    /// Other services' events it counts as gestures.
    #[serde(default)]
    pub activity_sources: Vec<ActivitySourceSpec>,
    /// When it opened, in milliseconds since the epoch.
    pub opened_at: u64,
}

/// `bingo.card.dealt.v1`: a player's card (dealt now, or the one they already hold).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A player was dealt their bingo card.")]
pub struct CardDealt {
    /// The `requestId` of the `bingo.card.deal.v1` it answers, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The game.
    pub game_id: String,
    /// The player who holds the card.
    pub player: String,
    /// Serial of the card in its game, from 1 (a serial whose card would repeat another's is
    /// skipped).
    pub serial: u32,
    /// The square id of every cell, row by row from cell 0; null for the free centre.
    pub cells: Vec<Option<u32>>,
    /// True when the card was dealt now; false when the player already held it.
    pub first_deal: bool,
}

/// `bingo.cards.printed.v1`: a batch of cards no player owns, to print.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A batch of printed bingo cards was dealt.")]
pub struct CardsPrinted {
    /// The `requestId` of the `bingo.cards.print.v1` it answers, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The game.
    pub game_id: String,
    /// The cards, by increasing serial.
    pub cards: Vec<PrintedCard>,
}

/// `bingo.square.called.v1`: a square was called, for every card of the game (announced the
/// first time only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A square of a called bingo game was called.")]
pub struct SquareCalled {
    /// The `requestId` of the `bingo.square.call.v1` it answers, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The game.
    pub game_id: String,
    /// The square called.
    pub square_id: u32,
    /// Its label, to announce it.
    pub label: String,
    /// How many squares have been called, this one included (1 for the first call).
    pub call_number: u32,
}

/// `bingo.square.ticked.v1`: a gesture ticked a square of a player's card (one message per
/// square it triggers, even one another standing gesture had already ticked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A gesture ticked a square of an activity bingo card.")]
pub struct SquareTicked {
    /// The game.
    pub game_id: String,
    /// Serial of the card.
    pub serial: u32,
    /// The player who holds the card (the gesture's member).
    pub player: String,
    /// The square ticked.
    pub square_id: u32,
    /// Its cell, row by row from 0.
    pub cell: u8,
    /// The gesture's idempotency key (`entryId`, or the id of a mapped message).
    pub entry_id: String,
    /// The gesture's verb.
    pub verb: String,
    /// For a mapped message whose source declares `undoneBy`: the values of its key fields
    /// (a JSON array as text, after the undoing type), by which the undoing message finds this
    /// gesture. Optional; since 2026-12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_key: Option<String>,
}

/// `bingo.gesture.undone.v1`: a gesture was undone in a game; the cells it alone ticked (on
/// cards that had not won) are unticked. Announced only in the games where the gesture ticked;
/// a mapped message's gesture is undone this way by the message its source names
/// (`undoneBy`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A gesture was undone in an activity bingo game.")]
pub struct GestureUndone {
    /// The game.
    pub game_id: String,
    /// The gesture's idempotency key.
    pub entry_id: String,
    /// The cells no standing gesture ticks any more, now unticked (possibly none).
    pub unticked: Vec<CardCell>,
}

/// `bingo.claim.answered.v1`: the answer to a claim, a verification or a label verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "The answer to a bingo claim or verification.")]
pub struct ClaimAnswered {
    /// The `requestId` of the request it answers, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The game.
    pub game_id: String,
    /// Serial of the card.
    pub serial: u32,
    /// Which check this answers.
    pub check: ClaimCheck,
    /// The player who holds the card; null for a printed card.
    pub player: Option<String>,
    /// The ticked cells, row by row from 0, free centre included.
    pub ticked_cells: Vec<u8>,
    /// The pattern the card won with (now or before); null when it has not won.
    pub pattern: Option<String>,
    /// The cells of the pattern that won; null when the card has not won.
    pub winning_cells: Option<Vec<u8>>,
    /// When the card won, in milliseconds since the epoch; null when it has not won.
    pub won_at: Option<u64>,
    /// The card's place among the game's winners (1 for the first); null when it has not won.
    pub place: Option<u32>,
    /// True when the game is closed: its cards are verified, never winning.
    pub game_closed: bool,
}

/// `bingo.card.won.v1`: a card won (once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A bingo card won.")]
pub struct CardWon {
    /// The game.
    pub game_id: String,
    /// Serial of the card.
    pub serial: u32,
    /// The player who holds it; null for a printed card.
    pub player: Option<String>,
    /// The first pattern, in the game's order, that the card completes.
    pub pattern: String,
    /// The cells of that pattern, row by row from 0.
    pub cells: Vec<u8>,
    /// When it won, in milliseconds since the epoch.
    pub won_at: u64,
    /// Its place among the game's winners (1 for the first).
    pub place: u32,
}

/// `bingo.game.closed.v1`: a game closed: no more deals, calls, ticks or wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A bingo game was closed.")]
pub struct GameClosed {
    /// The `requestId` of the `bingo.game.close.v1` it answers, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The game.
    pub game_id: String,
    /// Serials of the winning cards, in the order they won.
    pub winners: Vec<u32>,
    /// How many cards the game dealt and printed.
    pub cards: u32,
    /// When it closed, in milliseconds since the epoch.
    pub closed_at: u64,
}

/// `bingo.request.rejected.v1`: the bingo service refused a request. One type for every
/// request: a sender subscribes to one refusal type and reads which request it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "The bingo service refused a request, and says why.")]
pub struct RequestRejected {
    /// The refused request's message type, e.g. `bingo.card.claim.v1`.
    pub request_type: String,
    /// The refused request's `requestId`, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The game the request named.
    pub game_id: String,
    /// A stable code for programs, e.g. `not-your-card`.
    pub code: String,
    /// Why, in words a person understands.
    pub reason: String,
}
