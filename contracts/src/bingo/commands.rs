//! The bingo service's requests. Each goes to the queue [`QUEUE`](super::QUEUE); its answer (or a
//! `bingo.request.rejected.v1` saying why not) echoes `gameId` and the optional `requestId`.
//! Each is declared a message here, with its example, at the end.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ActivitySourceSpec, GridSpec, PatternSpec, QUEUE, SquareSpec, TickMode, examples};
use crate::Route;

/// `bingo.game.open.v1`: open a game. Answered by `bingo.game.opened.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "Open a bingo game: its pool, grid, win patterns and tick mode.")]
pub struct OpenGame {
    /// The sender's own id for this request, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub request_id: Option<String>,
    /// Identifier of the new game, 1 to 200 bytes, not used by another game.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// How cards get ticked; absent: `activity`.
    #[serde(default)]
    pub tick_mode: TickMode,
    /// The size of the cards and whether the centre is free.
    pub grid: GridSpec,
    /// 1 to 500 squares with distinct ids, at least as many as a card draws (every cell, less
    /// the free centre when the grid has one).
    #[schemars(length(min = 1, max = 500))]
    pub pool: Vec<SquareSpec>,
    /// 1 to 16 win patterns, checked in order.
    #[schemars(length(min = 1, max = 16))]
    pub patterns: Vec<PatternSpec>,
    /// Other services' events that count as gestures in this (activity) game; 0 to 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 16))]
    pub activity_sources: Vec<ActivitySourceSpec>,
}

/// `bingo.card.deal.v1`: give a player their card (the same one on every later deal).
/// Answered by `bingo.card.dealt.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "Deal a player their card in a game.")]
pub struct DealCard {
    /// The sender's own id for this request, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub request_id: Option<String>,
    /// The game.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// The player (in an activity game, the `member` of their gestures), 1 to 200 bytes.
    #[schemars(length(min = 1, max = 200))]
    pub player: String,
}

/// `bingo.cards.print.v1`: deal a batch of cards no player owns, to print (called games only).
/// Answered by `bingo.cards.printed.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "Print a batch of cards of a called game.")]
pub struct PrintCards {
    /// The sender's own id for this request, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub request_id: Option<String>,
    /// The game.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// How many cards, 1 to 1,000 per batch.
    #[schemars(range(min = 1, max = 1000))]
    pub count: u32,
}

/// `bingo.square.call.v1`: call a square for every card of a called game. Answered by
/// `bingo.square.called.v1` the first time; a square called again is refused
/// (`bingo.request.rejected.v1`, code `already-called`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "Call a square of a called game's pool.")]
pub struct CallSquare {
    /// The sender's own id for this request, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub request_id: Option<String>,
    /// The game.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// A square of the game's pool.
    pub square_id: u32,
}

/// `bingo.square.draw.v1`: let the service draw the next square of a called game, as a caller
/// draws a ball, and call it. Answered by `bingo.square.called.v1`; refused once every square
/// has been called (`bingo.request.rejected.v1`, code `nothing-to-draw`). The draw order is a
/// shuffle of the game's pool keyed by the service's secret: nobody can predict the next square,
/// and the same game draws in the same order whenever it is replayed. Draws and calls mix: a
/// draw skips the squares already called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "Draw and call the next square of a called game.")]
pub struct DrawSquare {
    /// The sender's own id for this request, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub request_id: Option<String>,
    /// The game.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
}

/// `bingo.card.claim.v1`: a player claims their own card. Answered by
/// `bingo.claim.answered.v1` (and `bingo.card.won.v1` when it wins now).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "A player claims a win on their own card.")]
pub struct ClaimCard {
    /// The sender's own id for this request, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub request_id: Option<String>,
    /// The game.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// Serial of the card.
    #[schemars(range(min = 1))]
    pub serial: u32,
    /// The claiming player; must hold the card.
    #[schemars(length(min = 1, max = 200))]
    pub player: String,
}

/// `bingo.card.verify.v1`: the organiser checks a card by serial (`verify`), or a printed card
/// by serial and label (`verifyLabel`, when `label` is given). The same check as a claim, so a
/// complete card wins. Answered by `bingo.claim.answered.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "The organiser verifies a card by serial, or a printed card by label.")]
pub struct VerifyCard {
    /// The sender's own id for this request, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub request_id: Option<String>,
    /// The game.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// Serial of the card.
    #[schemars(range(min = 1))]
    pub serial: u32,
    /// The label printed on the card; given, the label is checked first (`verifyLabel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 64))]
    pub label: Option<String>,
}

/// `bingo.game.close.v1`: close a game: no more deals, calls, ticks or wins. Answered by
/// `bingo.game.closed.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "Close a bingo game.")]
pub struct CloseGame {
    /// The sender's own id for this request, echoed in the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub request_id: Option<String>,
    /// The game.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
}

/// The open request of `office-party`.
fn open_game() -> OpenGame {
    OpenGame {
        request_id: Some("req-1".into()),
        game_id: "office-party".into(),
        tick_mode: TickMode::Activity,
        grid: GridSpec {
            size: 3,
            free_centre: None,
        },
        pool: examples::office_pool(),
        patterns: examples::office_patterns(),
        activity_sources: examples::office_sources(),
    }
}

messages! {
    Command OpenGame: "bingo.game.open.v1"
        to |_| Route::Queue(QUEUE.to_string()) => open_game();
    Command DealCard: "bingo.card.deal.v1"
        to |_| Route::Queue(QUEUE.to_string()) => DealCard {
        request_id: Some("req-17".into()),
        game_id: "friday-quiz".into(),
        player: "alice".into(),
    };
    Command PrintCards: "bingo.cards.print.v1"
        to |_| Route::Queue(QUEUE.to_string()) => PrintCards {
        request_id: None,
        game_id: "friday-quiz".into(),
        count: 50
    };
    Command CallSquare: "bingo.square.call.v1"
        to |_| Route::Queue(QUEUE.to_string()) => CallSquare {
        request_id: None,
        game_id: "friday-quiz".into(),
        square_id: 42
    };
    Command DrawSquare: "bingo.square.draw.v1"
        to |_| Route::Queue(QUEUE.to_string()) => DrawSquare {
        request_id: Some("req-19".into()),
        game_id: "friday-quiz".into(),
    };
    Command ClaimCard: "bingo.card.claim.v1"
        to |_| Route::Queue(QUEUE.to_string()) => ClaimCard {
        request_id: Some("req-18".into()),
        game_id: "friday-quiz".into(),
        serial: 3,
        player: "alice".into(),
    };
    Command VerifyCard: "bingo.card.verify.v1"
        to |_| Route::Queue(QUEUE.to_string()) => VerifyCard {
        request_id: None,
        game_id: "friday-quiz".into(),
        serial: 12,
        label: Some("3f2a-9c01-77be-4d10".into()),
    };
    Command CloseGame: "bingo.game.close.v1"
        to |_| Route::Queue(QUEUE.to_string()) => CloseGame {
        request_id: None,
        game_id: "friday-quiz".into()
    };
}
