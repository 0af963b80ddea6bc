//! `table.*`: the table referee's commands and facts (foosball games, goals, phases, ball locks).
//!
//! Commands go to the queue of the referee of one table, `referee.<tableId>`; facts are
//! published on the topic exchange. Every message names its `tableId` and `gameId`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The queue of the referee of a table.
pub fn referee_queue(table_id: &str) -> String {
    format!("referee.{table_id}")
}

/// A side of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The hinge side.
    Hinge,
    /// The lock side.
    Lock,
}

/// How a ball went in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BallKind {
    /// A plain goal.
    Goal,
    /// A ball that went in and came back out.
    Inout,
}

/// A phase of a game, as named in the rules document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Normal play.
    Default,
    /// Tie-break, entered when `conditions.tie_break.start_rule` holds.
    TieBreak,
    /// Entered when the game clock reaches `timeout_s`.
    Timeout,
}

/// The state of one side's ball return (IBR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IbrLock {
    /// The ball is kept.
    Locked,
    /// The ball is given back.
    Released,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    /// Won under the `default` or `tie_break` conditions.
    Win,
    /// Won under the `timeout` conditions, after the game clock reached `timeout_s`.
    Timeout,
    /// Ended by `table.game.abort.v1`, without a winner (since 2026-12).
    Aborted,
}

/// Both sides' scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Score {
    /// The hinge side's score.
    pub hinge: u64,
    /// The lock side's score.
    pub lock: u64,
}

/// The players of a game, by side.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Players {
    /// Names or ids of the players on the hinge side.
    #[serde(default)]
    pub hinge: Vec<String>,
    /// Names or ids of the players on the lock side.
    #[serde(default)]
    pub lock: Vec<String>,
}

/// `table.game.start.v1`: start a game on a table with these rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(
    description = "Start a foosball game on one table (sent to the queue referee.<tableId>)."
)]
pub struct TableGameStart {
    /// The table, as its referee is configured; also names its queue `referee.<tableId>`.
    #[schemars(length(min = 1, max = 64), pattern(r"^[A-Za-z0-9][A-Za-z0-9._-]*$"))]
    pub table_id: String,
    /// Identifier of the game, chosen by the server.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// The rules document, in the source format (`timeout_s`, `rehearsal_balls`,
    /// `initial_score`, `goal_strength`, `conditions` with `win_rule`, `$geq`, `$score`…).
    /// Checked by the referee; an invalid one gives `table.game.rejected.v1`.
    pub rules: Map<String, Value>,
    /// The players, if the server names them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
}

/// `table.goal.report.v1`: a goal reported from outside the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(
    description = "A goal reported from outside the table's sensors (a table without sensors, a scorekeeper, the demo). Sent to the queue referee.<tableId>."
)]
pub struct TableGoalReport {
    /// The table.
    #[schemars(length(min = 1, max = 64), pattern(r"^[A-Za-z0-9][A-Za-z0-9._-]*$"))]
    pub table_id: String,
    /// The game it is meant for; a report for another game than the table's is refused.
    /// Absent: the game in progress on the table, whichever it is (optional since 2026-12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub game_id: Option<String>,
    /// The side that scored.
    pub side: Side,
    /// How the ball went in.
    pub kind: BallKind,
    /// Who scored (a name or id chosen by the reporter), passed on in `table.goal.scored.v1`
    /// so that other services can credit a person. Optional; since 2026-12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub player: Option<String>,
}

/// `table.game.abort.v1`: end the game in progress without a winner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(
    description = "End the game in progress on a table without a winner (rules that cannot be won, a game left unfinished). Sent to the queue referee.<tableId>; the game ends with table.game.finished.v1 reason aborted and both ball returns released."
)]
pub struct TableGameAbort {
    /// The table.
    #[schemars(length(min = 1, max = 64), pattern(r"^[A-Za-z0-9][A-Za-z0-9._-]*$"))]
    pub table_id: String,
    /// The game to end; an abort of another game than the table's is refused.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// Why, in the organiser's words; carried by `table.game.finished.v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 500))]
    pub reason: Option<String>,
}

/// `table.goal.cancel.v1`: take back the last ball of the game in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(
    description = "Cancel the last ball of the game in progress on a table (a sensor that fired twice, a ball that bounced out). Sent to the queue referee.<tableId>; answered by table.goal.cancelled.v1 with the score and ball locks as they were before that ball, or table.game.rejected.v1 when the game is finished, has no ball to cancel, or its last ball is not the one named. Only the last ball can be cancelled, once: a second cancel in a row is refused."
)]
pub struct TableGoalCancel {
    /// The table.
    #[schemars(length(min = 1, max = 64), pattern(r"^[A-Za-z0-9][A-Za-z0-9._-]*$"))]
    pub table_id: String,
    /// The game in progress; a cancel for another game is refused.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// The number of the ball to cancel (`ball` of its `table.goal.scored.v1`): refused unless
    /// it is the game's last. Absent: the last ball, whichever it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub ball: Option<u64>,
    /// Why, in the organiser's words; carried by `table.goal.cancelled.v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 500))]
    pub reason: Option<String>,
}

/// `table.goal.cancelled.v1`: the last ball was taken back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    description = "The last ball of a game was cancelled: the score, phase and ball locks are as they were before it, and the next ball takes its number."
)]
pub struct TableGoalCancelled {
    /// The table.
    pub table_id: String,
    /// The game.
    pub game_id: String,
    /// The number of the cancelled ball (`ball` of its `table.goal.scored.v1`).
    #[schemars(range(min = 1))]
    pub ball: u64,
    /// The score before that ball.
    pub score: Score,
    /// The phase before that ball.
    pub phase: Phase,
    /// The hinge side's ball return before that ball.
    pub hinge: IbrLock,
    /// The lock side's ball return before that ball.
    pub lock: IbrLock,
    /// The organiser's reason, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `table.game.rejected.v1`: a game start, abort or goal cancel was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    description = "A game start, abort or goal cancel was refused; nothing changed on the table."
)]
pub struct TableGameRejected {
    /// The table.
    pub table_id: String,
    /// The game that was not started.
    pub game_id: String,
    /// Why, e.g. `invalid rules: conditions.tie_break.win_rule.$or[1].$and[0]: unknown operator "$gte"`.
    pub error: String,
}

/// `table.goal.rejected.v1`: a reported goal was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A reported goal was refused; nothing changed.")]
pub struct TableGoalRejected {
    /// The table.
    pub table_id: String,
    /// The game named by the report; for a report naming none, the table's current (or
    /// last) game, empty when the table never had one.
    pub game_id: String,
    /// The side reported.
    pub side: Side,
    /// The kind reported.
    pub kind: BallKind,
    /// Why, e.g. `game "g-1" is finished`.
    pub error: String,
}

/// `table.game.started.v1`: a game started; its clock runs from `startedAtMs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A foosball game started on a table.")]
pub struct TableGameStarted {
    /// The table.
    pub table_id: String,
    /// The game.
    pub game_id: String,
    /// The rules document the game is played with, as received.
    pub rules: Map<String, Value>,
    /// The players, if named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
    /// Start of the game clock, in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// The initial score.
    pub score: Score,
    /// The rules in plain words, one line per rule, as the referee explains them (e.g.
    /// `default: wins with 5 or more and a lead of 2 or more`). Absent from referees that
    /// predate it; since 2026-12.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_text: Vec<String>,
}

/// `table.goal.scored.v1`: a ball went in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A ball went in: counted, or a rehearsal ball that changes nothing.")]
pub struct TableGoalScored {
    /// The table.
    pub table_id: String,
    /// The game.
    pub game_id: String,
    /// The side that scored.
    pub side: Side,
    /// How the ball went in.
    pub kind: BallKind,
    /// `false` for a rehearsal ball (one of the first `rehearsal_balls`), which changes nothing.
    pub counted: bool,
    /// The score after the ball.
    pub score: Score,
    /// The phase the ball was played in, whose goal strengths counted it.
    pub phase: Phase,
    /// The ball's number in the game, from 1, rehearsal balls included.
    #[schemars(range(min = 1))]
    pub ball: u64,
    /// Game clock when the ball was seen, in milliseconds since the game started.
    pub clock_ms: u64,
    /// Who scored, when the `table.goal.report.v1` named a person (the sensors never do).
    /// Optional; since 2026-12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    /// `true` when `player` plays on the other side than `side`: the ball went into their own
    /// goal, and counts for `side` all the same. Absent when false; since 2026-12.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_goal: bool,
}

/// `table.phase.changed.v1`: the game entered another phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "The game entered another phase (tie-break, timeout).")]
pub struct TablePhaseChanged {
    /// The table.
    pub table_id: String,
    /// The game.
    pub game_id: String,
    /// The phase before.
    pub from: Phase,
    /// The phase now.
    pub to: Phase,
    /// The score at the change.
    pub score: Score,
    /// Game clock at the change, in milliseconds since the game started.
    pub clock_ms: u64,
}

/// `table.ibr.changed.v1`: the ball locks to apply; published only when one of them changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    description = "The ball returns (IBR) to lock or release: a side is locked when its next ball could end the game, and both are locked once it has ended."
)]
pub struct TableIbrChanged {
    /// The table.
    pub table_id: String,
    /// The game.
    pub game_id: String,
    /// The hinge side's ball return.
    pub hinge: IbrLock,
    /// The lock side's ball return.
    pub lock: IbrLock,
}

/// `table.game.finished.v1`: a game was won, or aborted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A foosball game ended: won, or aborted without a winner.")]
pub struct TableGameFinished {
    /// The table.
    pub table_id: String,
    /// The game.
    pub game_id: String,
    /// The side that won; absent when the game was aborted (reason `aborted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Side>,
    /// The final score.
    pub score: Score,
    /// The phase the game was won in.
    pub phase: Phase,
    /// Game clock at the end, in milliseconds since the game started.
    pub duration_ms: u64,
    /// `timeout` when won under the timeout conditions, `aborted` when ended by
    /// `table.game.abort.v1`, else `win`.
    pub reason: FinishReason,
    /// The organiser's reason for an abort, when one was given. Since 2026-12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_reason: Option<String>,
}

mod messages;

pub use messages::types;
