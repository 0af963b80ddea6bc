//! `bingo.*`: the bingo service's commands and facts (games, cards, calls, ticks, claims).
//!
//! Every command is addressed to the bingo service's queue ([`QUEUE`]); every fact is published
//! on the topic exchange. A command the service refuses is answered by one
//! [`RequestRejected`] (`bingo.request.rejected.v1`) naming the refused request type, so a
//! sender subscribes to one refusal type whatever it sent.
//!
//! Layout: the shapes shared by several messages are here; [`commands`] holds the requests,
//! [`events`] the facts, [`reads`] what the admin endpoint answers about games and cards;
//! each type is declared a message (type name, route, example) in its own file, next to it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::MessageType;

pub mod commands;
pub mod events;
mod examples;
pub mod reads;

pub use commands::*;
pub use events::{
    CardDealt, CardWon, CardsPrinted, ClaimAnswered, GameClosed, GameOpened, GestureUndone,
    RequestRejected, SquareCalled, SquareTicked,
};

/// The queue of the bingo service: every `bingo.*` command is sent there.
pub const QUEUE: &str = "bingo";

/// How the squares of a game's cards get ticked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TickMode {
    /// By the players' own gestures (`activity.recorded.v1`, or other services' events the game
    /// maps to verbs); a gesture that completes a pattern wins by itself. The default.
    #[default]
    Activity,
    /// By the squares the organiser calls (`bingo.square.call.v1`); a card wins when it is
    /// claimed or verified and the called squares complete a pattern.
    Called,
}

/// The size of a game's cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GridSpec {
    /// Cells per side, 3 to 9. Cells are numbered row by row from 0 (0 is top left).
    #[schemars(range(min = 3, max = 9))]
    pub size: u8,
    /// Whether the centre cell is a free cell, ticked on every card. Only an odd grid has a
    /// centre. Absent: true for an odd size, false for an even one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_centre: Option<bool>,
}

/// What a gesture must be to tick a square of an activity game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TriggerSpec {
    /// The verb of the gesture: exact (`talk.hello`), a prefix ending in `.*` (`talk.*` matches
    /// `talk.hello` and `talk.bye`), or `*` (any verb). 1 to 200 bytes.
    #[schemars(length(min = 1, max = 200))]
    pub verb: String,
    /// The one object the gesture must concern (e.g. `table-3`); absent: any object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub object: Option<String>,
}

/// One square of a game's pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SquareSpec {
    /// Identifier of the square, distinct within the pool (a classic 75-ball game uses 1 to 75).
    pub id: u32,
    /// What the square says, 1 to 200 bytes of UTF-8.
    #[schemars(length(min = 1, max = 200))]
    pub label: String,
    /// In an activity game, the gesture that ticks it (required there, refused in a called
    /// game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<TriggerSpec>,
}

/// Why a line of a squares text (see [`squares_of_text`]) is not a square.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SquareLineError {
    /// An activity game's square without a verb; the line.
    #[error(
        "\"{0}\" has no verb: an activity game's square is `label | verb` or `label | verb | object`"
    )]
    NoVerb(String),
    /// More than `label | verb | object`; the line.
    #[error("\"{0}\" has more than label, verb and object")]
    TooManyParts(String),
}

/// The squares of a squares text, as `arcade bingo open` reads a file and the console's form
/// reads pasted text: one square per line, numbered from 1 in order, blank lines skipped. In a
/// called game the line is the label; in an activity game it is `label | verb` or
/// `label | verb | object`, the gesture that ticks it. Each comes with its line number, from 1;
/// what the pool's limits refuse is the reader's to say.
pub fn squares_of_text(
    text: &str,
    mode: TickMode,
) -> impl Iterator<Item = (usize, Result<SquareSpec, SquareLineError>)> + '_ {
    text.lines()
        .enumerate()
        .map(|(n, line)| (n + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty())
        .zip(1..)
        .map(move |((at, line), id)| (at, square_of_line(id, line, mode)))
}

fn square_of_line(id: u32, line: &str, mode: TickMode) -> Result<SquareSpec, SquareLineError> {
    if mode == TickMode::Called {
        return Ok(SquareSpec {
            id,
            label: line.to_string(),
            trigger: None,
        });
    }
    let mut parts = line.split('|').map(str::trim);
    let label = parts.next().unwrap_or_default().to_string();
    let verb = parts
        .next()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| SquareLineError::NoVerb(line.to_string()))?;
    let object = parts.next().filter(|o| !o.is_empty()).map(str::to_string);
    if parts.next().is_some() {
        return Err(SquareLineError::TooManyParts(line.to_string()));
    }
    let trigger = TriggerSpec {
        verb: verb.to_string(),
        object,
    };
    Ok(SquareSpec {
        id,
        label,
        trigger: Some(trigger),
    })
}

/// A way to win. A game checks its patterns in order and the first that matches names the win.
/// The free centre counts as ticked in every pattern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PatternSpec {
    /// Any full row. Named `row`.
    Row,
    /// Any full column. Named `column`.
    Column,
    /// Either diagonal. Named `diagonal`.
    Diagonal,
    /// Every cell. Named `fullCard`.
    FullCard,
    /// The four corners. Named `fourCorners`.
    FourCorners,
    /// A row, a column or a diagonal. Named `line`.
    Line,
    /// Any one of the pattern's own cell sets.
    #[serde(rename_all = "camelCase")]
    Custom {
        /// The name the win carries, 1 to 64 bytes, distinct from the game's other patterns.
        #[schemars(length(min = 1, max = 64))]
        name: String,
        /// 1 to 64 sets of cell numbers (row by row from 0); the pattern matches when every
        /// cell of one set is ticked.
        #[schemars(length(min = 1, max = 64), inner(length(min = 1, max = 81)))]
        cell_sets: Vec<Vec<u8>>,
    },
}

impl PatternSpec {
    /// The name a win with this pattern carries.
    pub fn name(&self) -> &str {
        match self {
            PatternSpec::Row => "row",
            PatternSpec::Column => "column",
            PatternSpec::Diagonal => "diagonal",
            PatternSpec::FullCard => "fullCard",
            PatternSpec::FourCorners => "fourCorners",
            PatternSpec::Line => "line",
            PatternSpec::Custom { name, .. } => name,
        }
    }
}

/// Going beyond the source: another service's event counted as a gesture in one game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActivitySourceSpec {
    /// The message type to listen to, e.g. `table.goal.scored.v1` (not a `bingo.*` or
    /// `activity.*` type).
    #[schemars(length(min = 3, max = 200))]
    pub message_type: String,
    /// The verb such a message counts as, e.g. `table.goal` (exact: no `*`).
    #[schemars(length(min = 1, max = 200))]
    pub verb: String,
    /// JSON Pointer (RFC 6901) to the payload field naming the member, e.g. `/side` (the side
    /// that scored a `table.goal.scored.v1`). A string or a number.
    #[schemars(length(min = 2, max = 200))]
    pub member_field: String,
    /// JSON Pointer to the payload field naming the gesture's object, e.g. `/tableId`; absent,
    /// or the field missing or null: the gesture has no object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 2, max = 200))]
    pub object_field: Option<String>,
    /// Conditions a message must meet, all of them, to count as a gesture; 0 to 8. E.g.
    /// `{"field": "/counted", "equals": true}`: the referee's rehearsal balls tick nothing.
    /// Absent: every message of the type counts. (Added within v1: optional.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 8))]
    pub filters: Vec<FieldFilter>,
    /// The message that undoes such a gesture, e.g. the referee's `table.goal.cancelled.v1`:
    /// what a mapped message ticked is unticked, as for an undone gesture, when a message of
    /// that type comes whose `key` fields equal the mapped message's. Optional; since 2026-12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone_by: Option<UndoneBy>,
}

/// The message undoing a mapped gesture, and the payload fields both messages carry that
/// name the same occurrence (the table, game and ball of a goal and of its cancel).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UndoneBy {
    /// The undoing message type, e.g. `table.goal.cancelled.v1`.
    #[schemars(length(min = 3, max = 200))]
    pub message_type: String,
    /// JSON Pointers to the fields naming the occurrence in both payloads, e.g. `/tableId`,
    /// `/gameId`, `/ball`; 1 to 8.
    #[schemars(length(min = 1, max = 8))]
    pub key: Vec<String>,
}

impl UndoneBy {
    /// What undoes a gesture mapped from `message_type`, for the types whose undo is known:
    /// `table.goal.scored.v1` is undone by `table.goal.cancelled.v1` of the same table, game
    /// and ball.
    pub fn known_for(message_type: &str) -> Option<UndoneBy> {
        use crate::Message as _;
        (message_type == crate::table::TableGoalScored::TYPE).then(|| UndoneBy {
            message_type: crate::table::TableGoalCancelled::TYPE.to_string(),
            key: ["/tableId", "/gameId", "/ball"].map(String::from).to_vec(),
        })
    }
}

/// A condition on a mapped message: the payload field at `field` equals `equals`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldFilter {
    /// JSON Pointer (RFC 6901) to the payload field, e.g. `/counted`. A missing field meets no
    /// condition, unless `orMissing`.
    #[schemars(length(min = 2, max = 200))]
    pub field: String,
    /// The value the field must equal: a string (at most 200 bytes), a number, a boolean or
    /// null. Compared as JSON: `true` is not `"true"`, and `1` is not `1.0`.
    #[schemars(schema_with = "scalar_schema")]
    pub equals: serde_json::Value,
    /// Also met when the field is missing: `{"field": "/ownGoal", "equals": false,
    /// "orMissing": true}` keeps the goals that are not own goals, whose `ownGoal` the referee
    /// leaves out. Optional, default false; since 2026-12.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub or_missing: bool,
}

fn scalar_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": ["string", "number", "boolean", "null"],
        "maxLength": 200
    })
}

/// A printed card: what the organiser prints, and what `arcade bingo print` writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrintedCard {
    /// Serial of the card in its game, from 1.
    #[schemars(range(min = 1))]
    pub serial: u32,
    /// The label printed on the card, which the server verifies (`xxxx-xxxx-xxxx-xxxx`, hex).
    pub label: String,
    /// The square id of every cell, row by row from cell 0; null for the free centre.
    pub cells: Vec<Option<u32>>,
}

/// Which check a claim answer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ClaimCheck {
    /// A player's claim on their own card.
    Claim,
    /// The organiser's check by serial.
    Verify,
    /// The organiser's check of a printed card by serial and label.
    VerifyLabel,
}

/// A cell of a card, named by its card, its square and its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CardCell {
    /// Serial of the card.
    pub serial: u32,
    /// The player who holds the card.
    pub player: String,
    /// The square in that cell.
    pub square_id: u32,
    /// The cell, row by row from 0.
    pub cell: u8,
}

/// The message types of this module: the commands, then the events.
pub fn types() -> Vec<MessageType> {
    let mut all = commands::types();
    all.extend(events::types());
    all
}
