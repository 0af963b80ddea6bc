//! The `table.*` types as [`Message`]s: their names, kinds, routes and example payloads, and
//! the module's list of types.

use serde_json::{Map, Value, json};

use super::*;
use crate::{Message, MessageKind, MessageType, Route};

const TABLE: &str = "bar-paris-11-t3";
const GAME: &str = "g-2024-06-01-0042";

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

impl Message for TableGameStart {
    const TYPE: &'static str = "table.game.start.v1";
    const KIND: MessageKind = MessageKind::Command;
    fn example() -> Self {
        TableGameStart {
            table_id: TABLE.into(),
            game_id: GAME.into(),
            rules: bar_rules(),
            players: Some(Players {
                hinge: vec!["alice".into()],
                lock: vec!["bob".into()],
            }),
        }
    }
    fn route(&self) -> Route {
        Route::Queue(referee_queue(&self.table_id))
    }
}

impl Message for TableGoalReport {
    const TYPE: &'static str = "table.goal.report.v1";
    const KIND: MessageKind = MessageKind::Command;
    fn example() -> Self {
        TableGoalReport {
            table_id: TABLE.into(),
            game_id: Some(GAME.into()),
            side: Side::Hinge,
            kind: BallKind::Goal,
            player: Some("alice".into()),
        }
    }
    fn route(&self) -> Route {
        Route::Queue(referee_queue(&self.table_id))
    }
}

impl Message for TableGameAbort {
    const TYPE: &'static str = "table.game.abort.v1";
    const KIND: MessageKind = MessageKind::Command;
    fn example() -> Self {
        TableGameAbort {
            table_id: TABLE.into(),
            game_id: GAME.into(),
            reason: Some("the bar closes".into()),
        }
    }
    fn route(&self) -> Route {
        Route::Queue(referee_queue(&self.table_id))
    }
}

impl Message for TableGameRejected {
    const TYPE: &'static str = "table.game.rejected.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        TableGameRejected {
            table_id: TABLE.into(),
            game_id: GAME.into(),
            error: "invalid rules: conditions.tie_break.win_rule.$or[1].$and[0]: unknown operator \"$gte\""
                .into(),
        }
    }
}

impl Message for TableGoalRejected {
    const TYPE: &'static str = "table.goal.rejected.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        TableGoalRejected {
            table_id: TABLE.into(),
            game_id: GAME.into(),
            side: Side::Lock,
            kind: BallKind::Inout,
            error: format!("game \"{GAME}\" is finished"),
        }
    }
}

impl Message for TableGameStarted {
    const TYPE: &'static str = "table.game.started.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        TableGameStarted {
            table_id: TABLE.into(),
            game_id: GAME.into(),
            rules: bar_rules(),
            players: Some(Players {
                hinge: vec!["alice".into()],
                lock: vec!["bob".into()],
            }),
            started_at_ms: 1_717_243_200_000,
            score: Score { hinge: 0, lock: 0 },
        }
    }
}

impl Message for TableGoalScored {
    const TYPE: &'static str = "table.goal.scored.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        TableGoalScored {
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
        }
    }
}

impl Message for TablePhaseChanged {
    const TYPE: &'static str = "table.phase.changed.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        TablePhaseChanged {
            table_id: TABLE.into(),
            game_id: GAME.into(),
            from: Phase::Default,
            to: Phase::TieBreak,
            score: Score { hinge: 5, lock: 4 },
            clock_ms: 312_480,
        }
    }
}

impl Message for TableIbrChanged {
    const TYPE: &'static str = "table.ibr.changed.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        TableIbrChanged {
            table_id: TABLE.into(),
            game_id: GAME.into(),
            hinge: IbrLock::Locked,
            lock: IbrLock::Released,
        }
    }
}

impl Message for TableGameFinished {
    const TYPE: &'static str = "table.game.finished.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        TableGameFinished {
            table_id: TABLE.into(),
            game_id: GAME.into(),
            winner: Some(Side::Hinge),
            score: Score { hinge: 7, lock: 5 },
            phase: Phase::TieBreak,
            duration_ms: 498_020,
            reason: FinishReason::Win,
            abort_reason: None,
        }
    }
}

/// The message types of this module.
pub fn types() -> Vec<MessageType> {
    vec![
        MessageType::of::<TableGameStart>(),
        MessageType::of::<TableGoalReport>(),
        MessageType::of::<TableGameAbort>(),
        MessageType::of::<TableGameRejected>(),
        MessageType::of::<TableGoalRejected>(),
        MessageType::of::<TableGameStarted>(),
        MessageType::of::<TableGoalScored>(),
        MessageType::of::<TablePhaseChanged>(),
        MessageType::of::<TableIbrChanged>(),
        MessageType::of::<TableGameFinished>(),
    ]
}
