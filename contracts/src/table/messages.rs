//! The `table.*` types as [`Message`]s: their names, kinds, routes and example payloads, and
//! the module's list of types.

use serde_json::{Map, Value, json};

use super::*;
use crate::Route;

const TABLE: &str = "bar-paris-11-t3";
const GAME: &str = "g-2024-06-01-0042";

/// The examples' players: alice on the hinge side, bob on the lock side.
fn players() -> Players {
    Players {
        hinge: vec!["alice".into()],
        lock: vec!["bob".into()],
    }
}

/// The source's "bar" rules: 5 points with 2 ahead, tie-break at 5, 7 or 2 ahead in
/// tie-break, the leader wins at 15 minutes.
fn bar_rules() -> Map<String, Value> {
    let rules = json!({
        "timeout_s": 900,
        "rehearsal_balls": 0,
        "initial_score": {"hinge": 0, "lock": 0},
        "goal_strength": {
            "default": {"hinge": {"goal": [1, 0], "inout": [1, 0]}, "lock": {"goal": [1, 0], "inout": [1, 0]}},
            "tie_break": {"hinge": {"goal": [1, 0], "inout": [1, 0]}, "lock": {"goal": [1, 0], "inout": [1, 0]}}
        },
        "conditions": {
            "default": {"win_rule": {"$and": [{"$geq": ["$score", 5]}, {"$geq": ["$score_delta", 2]}]}},
            "tie_break": {
                "start_rule": {"$geq": ["$max_score", 5]},
                "win_rule": {"$or": [
                    {"$geq": ["$score", 7]},
                    {"$and": [{"$geq": ["$score", "$other_score"]}, {"$geq": ["$score_delta", 2]}]}
                ]}
            },
            "timeout": {"win_rule": {"$geq": ["$score", "$other_score"]}}
        }
    });
    match rules {
        Value::Object(map) => map,
        _ => Map::new(),
    }
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
