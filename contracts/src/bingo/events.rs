//! The bingo service's facts. Each is the answer to a request (it echoes `gameId` and the
//! optional `requestId`) or the effect of a gesture; together they rebuild the service's state.
//! Each is listed as a message at the end of the file, with its example (the `office-party` and
//! `friday-quiz` story of [`examples`](super::examples)).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::examples::{office_patterns, office_pool, office_sources};
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

messages! {
    Event GameOpened: "bingo.game.opened.v1" => game_opened();
    Event CardDealt: "bingo.card.dealt.v1" => card_dealt();
    Event CardsPrinted: "bingo.cards.printed.v1" => cards_printed();
    Event SquareCalled: "bingo.square.called.v1" => square_called();
    Event SquareTicked: "bingo.square.ticked.v1" => square_ticked();
    Event GestureUndone: "bingo.gesture.undone.v1" => gesture_undone();
    Event ClaimAnswered: "bingo.claim.answered.v1" => claim_answered();
    Event CardWon: "bingo.card.won.v1" => card_won();
    Event GameClosed: "bingo.game.closed.v1" => game_closed();
    Event RequestRejected: "bingo.request.rejected.v1" => request_rejected();
}

fn game_opened() -> GameOpened {
    GameOpened {
        request_id: Some("req-1".into()),
        game_id: "office-party".into(),
        tick_mode: TickMode::Activity,
        grid: GridSpec {
            size: 3,
            free_centre: Some(true),
        },
        pool: office_pool(),
        patterns: office_patterns(),
        activity_sources: office_sources(),
        opened_at: 1_767_225_600_000,
    }
}

fn card_dealt() -> CardDealt {
    CardDealt {
        request_id: Some("req-17".into()),
        game_id: "office-party".into(),
        player: "alice".into(),
        serial: 1,
        cells: vec![
            Some(5),
            Some(2),
            Some(3),
            Some(9),
            None,
            Some(1),
            Some(7),
            Some(4),
            Some(8),
        ],
        first_deal: true,
    }
}

fn cards_printed() -> CardsPrinted {
    let card = |serial, label: &str, ids: [u32; 24]| {
        let mut cells: Vec<Option<u32>> = ids.iter().map(|&id| Some(id)).collect();
        cells.insert(12, None);
        PrintedCard {
            serial,
            label: label.into(),
            cells,
        }
    };
    CardsPrinted {
        request_id: None,
        game_id: "friday-quiz".into(),
        cards: vec![
            card(
                12,
                "3f2a-9c01-77be-4d10",
                [
                    7, 61, 33, 18, 42, 70, 5, 29, 51, 12, 66, 38, 2, 57, 24, 45, 9, 73, 31, 14, 60,
                    27, 48, 3,
                ],
            ),
            card(
                13,
                "c41d-0b7e-2290-e8a5",
                [
                    22, 4, 68, 39, 11, 53, 30, 75, 17, 46, 8, 62, 35, 1, 59, 26, 71, 13, 44, 6, 37,
                    65, 20, 50,
                ],
            ),
        ],
    }
}

fn square_called() -> SquareCalled {
    SquareCalled {
        request_id: None,
        game_id: "friday-quiz".into(),
        square_id: 42,
        label: "42".into(),
        call_number: 17,
    }
}

fn square_ticked() -> SquareTicked {
    SquareTicked {
        game_id: "office-party".into(),
        serial: 1,
        player: "alice".into(),
        square_id: 3,
        cell: 2,
        entry_id: "0196a3f2-7c1e-7b21-9a4d-3e5f60718293".into(),
        verb: "table.goal".into(),
        undo_key: Some(
            r#"table.goal.cancelled.v1 ["bar-paris-11-t3","g-2024-06-01-0042",9]"#.into(),
        ),
    }
}

fn gesture_undone() -> GestureUndone {
    GestureUndone {
        game_id: "office-party".into(),
        entry_id: "act-8812".into(),
        unticked: vec![CardCell {
            serial: 1,
            player: "alice".into(),
            square_id: 2,
            cell: 1,
        }],
    }
}

fn claim_answered() -> ClaimAnswered {
    ClaimAnswered {
        request_id: Some("req-18".into()),
        game_id: "friday-quiz".into(),
        serial: 3,
        check: ClaimCheck::Claim,
        player: Some("alice".into()),
        ticked_cells: vec![2, 7, 10, 11, 12, 13, 14, 17, 22],
        pattern: Some("row".into()),
        winning_cells: Some(vec![10, 11, 12, 13, 14]),
        won_at: Some(1_767_229_200_000),
        place: Some(1),
        game_closed: false,
    }
}

fn card_won() -> CardWon {
    CardWon {
        game_id: "friday-quiz".into(),
        serial: 3,
        player: Some("alice".into()),
        pattern: "row".into(),
        cells: vec![10, 11, 12, 13, 14],
        won_at: 1_767_229_200_000,
        place: 1,
    }
}

fn game_closed() -> GameClosed {
    GameClosed {
        request_id: None,
        game_id: "friday-quiz".into(),
        winners: vec![3, 12],
        cards: 64,
        closed_at: 1_767_232_800_000,
    }
}

fn request_rejected() -> RequestRejected {
    RequestRejected {
        request_type: "bingo.card.claim.v1".into(),
        request_id: Some("req-19".into()),
        game_id: "friday-quiz".into(),
        code: "not-your-card".into(),
        reason: "card 12 of game \"friday-quiz\" is not yours: a player claims their own card only"
            .into(),
    }
}
