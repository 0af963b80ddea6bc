//! The requests to a table's referee and their direct answers: a game start, a reported goal,
//! an abort, a cancelled ball (`table.goal.cancel.v1` → `table.goal.cancelled.v1`), and the
//! refusals (`table.game.rejected.v1`, `table.goal.rejected.v1`). Each type is listed as a
//! message, with its example, at the end of the file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::examples::{GAME, TABLE, bar_rules, players};
use super::{BallKind, IbrLock, Phase, Players, Score, Side, referee_queue};
use crate::Route;

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

messages! {
    Command TableGameStart: "table.game.start.v1"
        to |m| Route::Queue(referee_queue(&m.table_id)) => TableGameStart {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        rules: bar_rules(),
        players: Some(players()),
    };
    Command TableGoalReport: "table.goal.report.v1"
        to |m| Route::Queue(referee_queue(&m.table_id)) => TableGoalReport {
        table_id: TABLE.into(),
        game_id: Some(GAME.into()),
        side: Side::Hinge,
        kind: BallKind::Goal,
        player: Some("alice".into()),
    };
    Command TableGameAbort: "table.game.abort.v1"
        to |m| Route::Queue(referee_queue(&m.table_id)) => TableGameAbort {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        reason: Some("the bar closes".into()),
    };
    Command TableGoalCancel: "table.goal.cancel.v1"
        to |m| Route::Queue(referee_queue(&m.table_id)) => TableGoalCancel {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        ball: Some(9),
        reason: Some("the sensor fired twice".into()),
    };
    Event TableGoalCancelled: "table.goal.cancelled.v1" => TableGoalCancelled {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        ball: 9,
        score: Score { hinge: 4, lock: 4 },
        phase: Phase::Default,
        hinge: IbrLock::Released,
        lock: IbrLock::Released,
        reason: Some("the sensor fired twice".into()),
    };
    Event TableGameRejected: "table.game.rejected.v1" => TableGameRejected {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        error: "invalid rules: conditions.tie_break.win_rule.$or[1].$and[0]: unknown operator \"$gte\""
            .into(),
    };
    Event TableGoalRejected: "table.goal.rejected.v1" => TableGoalRejected {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        side: Side::Lock,
        kind: BallKind::Inout,
        error: format!("game \"{GAME}\" is finished"),
    };
}
