//! The facts of a game as it is played: started, a ball in, a new phase, the ball locks to
//! apply, finished. Each type is listed as a message, with its example, at the end of the file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::examples::{GAME, TABLE, bar_rules, players};
use super::{BallKind, FinishReason, IbrLock, Phase, Players, Score, Side};

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

messages! {
    Event TableGameStarted: "table.game.started.v1" => TableGameStarted {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        rules: bar_rules(),
        players: Some(players()),
        started_at_ms: 1_717_243_200_000,
        score: Score { hinge: 0, lock: 0 },
        rules_text: vec![
            "default: wins with 5 or more and a lead of 2 or more".into(),
            "tie-break from 5 for either side: wins with 7 or more, or at least the other side's score and a lead of 2 or more".into(),
            "timeout after 900 s: wins with at least the other side's score".into(),
        ],
    };
    Event TableGoalScored: "table.goal.scored.v1" => TableGoalScored {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        side: Side::Hinge,
        kind: BallKind::Goal,
        counted: true,
        score: Score { hinge: 5, lock: 4 },
        phase: Phase::Default,
        ball: 9,
        clock_ms: 312_480,
        player: Some("alice".into()),
        own_goal: false,
    };
    Event TablePhaseChanged: "table.phase.changed.v1" => TablePhaseChanged {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        from: Phase::Default,
        to: Phase::TieBreak,
        score: Score { hinge: 5, lock: 4 },
        clock_ms: 312_480,
    };
    Event TableIbrChanged: "table.ibr.changed.v1" => TableIbrChanged {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        hinge: IbrLock::Locked,
        lock: IbrLock::Released,
    };
    Event TableGameFinished: "table.game.finished.v1" => TableGameFinished {
        table_id: TABLE.into(),
        game_id: GAME.into(),
        winner: Some(Side::Hinge),
        score: Score { hinge: 7, lock: 5 },
        phase: Phase::TieBreak,
        duration_ms: 498_020,
        reason: FinishReason::Win,
        abort_reason: None,
    };
}
