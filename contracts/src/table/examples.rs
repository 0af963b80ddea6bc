//! The examples' shared values: one table, one game, its players and the source's "bar" rules.

use serde_json::{Map, Value, json};

use super::Players;

pub(super) const TABLE: &str = "bar-paris-11-t3";
pub(super) const GAME: &str = "g-2024-06-01-0042";

/// The examples' players: alice on the hinge side, bob on the lock side.
pub(super) fn players() -> Players {
    Players {
        hinge: vec!["alice".into()],
        lock: vec!["bob".into()],
    }
}

/// The source's "bar" rules: 5 points with 2 ahead, tie-break at 5, 7 or 2 ahead in
/// tie-break, the leader wins at 15 minutes.
pub(super) fn bar_rules() -> Map<String, Value> {
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
