//! Example payloads of the bingo messages, committed next to their schemas. Two games tell the
//! story: `office-party`, ticked by activity (and by the table referee's counted goals, the
//! scoring side being the member: a team holds a card named `hinge` or `lock`), and
//! `friday-quiz`, a classic 75-square game whose squares are called. `arcade`'s tests feed the
//! `office-party` mapping real referee events, so the example works as written.

use super::PrintedCard;
use super::events::{
    CardDealt, CardWon, CardsPrinted, ClaimAnswered, GameClosed, GameOpened, GestureUndone,
    RequestRejected, SquareCalled, SquareTicked,
};
use super::{
    ActivitySourceSpec, CardCell, ClaimCheck, FieldFilter, GridSpec, PatternSpec, UndoneBy,
};
use super::{SquareSpec, TickMode, TriggerSpec};

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

pub(crate) fn game_opened() -> GameOpened {
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

pub(crate) fn card_dealt() -> CardDealt {
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

pub(crate) fn cards_printed() -> CardsPrinted {
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

pub(crate) fn square_called() -> SquareCalled {
    SquareCalled {
        request_id: None,
        game_id: "friday-quiz".into(),
        square_id: 42,
        label: "42".into(),
        call_number: 17,
    }
}

pub(crate) fn square_ticked() -> SquareTicked {
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

pub(crate) fn gesture_undone() -> GestureUndone {
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

pub(crate) fn claim_answered() -> ClaimAnswered {
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

pub(crate) fn card_won() -> CardWon {
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

pub(crate) fn game_closed() -> GameClosed {
    GameClosed {
        request_id: None,
        game_id: "friday-quiz".into(),
        winners: vec![3, 12],
        cards: 64,
        closed_at: 1_767_232_800_000,
    }
}

pub(crate) fn request_rejected() -> RequestRejected {
    RequestRejected {
        request_type: "bingo.card.claim.v1".into(),
        request_id: Some("req-19".into()),
        game_id: "friday-quiz".into(),
        code: "not-your-card".into(),
        reason: "card 12 of game \"friday-quiz\" is not yours: a player claims their own card only"
            .into(),
    }
}
