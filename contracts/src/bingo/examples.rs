//! What the example payloads of the bingo messages share (each is written next to its type, and
//! committed next to its schema). Two games tell the
//! story: `office-party`, ticked by activity (and by the table referee's counted goals, the
//! scoring side being the member: a team holds a card named `hinge` or `lock`), and
//! `friday-quiz`, a classic 75-square game whose squares are called. `arcade`'s tests feed the
//! `office-party` mapping real referee events, so the example works as written.

use super::{ActivitySourceSpec, FieldFilter, PatternSpec, SquareSpec, TriggerSpec, UndoneBy};

fn square(id: u32, label: &str, verb: &str, object: Option<&str>) -> SquareSpec {
    SquareSpec {
        id,
        label: label.into(),
        trigger: Some(TriggerSpec {
            verb: verb.into(),
            object: object.map(Into::into),
        }),
    }
}

/// The squares of `office-party`.
pub(super) fn office_pool() -> Vec<SquareSpec> {
    vec![
        square(1, "Say hello to a new colleague", "talk.hello", None),
        square(2, "Join any conversation", "talk.*", None),
        square(3, "Score a goal at table 3", "table.goal", Some("table-3")),
        square(4, "Score a goal anywhere", "table.goal", None),
        square(5, "Share a photo", "photo.shared", None),
        square(6, "Do anything at all", "*", None),
        square(7, "Finish a Strata Relay puzzle", "puzzle.won", None),
        square(
            8,
            "Ask the quiz master a question",
            "talk.question",
            Some("quiz-master"),
        ),
        square(9, "Bring a cake", "food.cake", None),
    ]
}

/// The win patterns of `office-party`.
pub(super) fn office_patterns() -> Vec<PatternSpec> {
    vec![
        PatternSpec::Line,
        PatternSpec::Custom {
            name: "cross".into(),
            cell_sets: vec![vec![1, 3, 4, 5, 7]],
        },
        PatternSpec::FullCard,
    ]
}

/// `office-party` counts the scoring side of the table referee's counted goals, own goals
/// excepted; a cancelled goal unticks what it ticked.
pub(super) fn office_sources() -> Vec<ActivitySourceSpec> {
    vec![ActivitySourceSpec {
        message_type: "table.goal.scored.v1".into(),
        verb: "table.goal".into(),
        member_field: "/side".into(),
        object_field: Some("/tableId".into()),
        filters: vec![
            FieldFilter {
                field: "/counted".into(),
                equals: serde_json::Value::Bool(true),
                or_missing: false,
            },
            FieldFilter {
                field: "/ownGoal".into(),
                equals: serde_json::Value::Bool(false),
                or_missing: true,
            },
        ],
        undone_by: UndoneBy::known_for("table.goal.scored.v1"),
    }]
}
