//! A mapped message undone by another (`undoneBy`): the referee's cancelled goal unticks what
//! that goal ticked, as an undone gesture does, found by the fields both carry (table, game,
//! ball); a cancel seen twice unticks once, one for a goal never seen is ignored, and an undo
//! is announced only in the games where its gesture ticked.

mod common;

use arcade_bingo::Input;
use arcade_bingo::domain::{Action, CardCell, Event, GameSpec, PatternKind, SourceSpec, TickMode};
use arcade_contracts::bingo::{self as contract, UndoneBy};
use common::*;
use serde_json::json;

/// Squares 1 `table.goal` at `table-3`, 2 `table.goal`, 3–8 `x3`–`x8`, on 3×3 cards; goals of
/// `/scorer` at `/tableId` tick them, a `table.goal.cancelled.v1` of the same table, game and
/// ball unticks them.
fn goals_spec() -> GameSpec {
    let mut squares = vec![
        square(1, "table.goal", Some("table-3")),
        square(2, "table.goal", None),
    ];
    squares.extend((3..=8).map(|i| square(i, &format!("x{i}"), None)));
    GameSpec {
        tick_mode: TickMode::Activity,
        grid_size: 3,
        free_centre: None,
        squares,
        patterns: vec![PatternKind::FullCard],
        sources: vec![SourceSpec {
            message_type: "table.goal.scored.v1".into(),
            verb: "table.goal".into(),
            member_field: "/scorer".into(),
            object_field: Some("/tableId".into()),
            filters: Vec::new(),
            undone_by: UndoneBy::known_for("table.goal.scored.v1"),
        }],
    }
}

/// Game `a` of [`goals_spec`], alice dealt.
fn game() -> Scenario {
    let mut s = given([]);
    s.run(cmd("a", Action::Open(goals_spec())));
    s.run(cmd(
        "a",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    s
}

fn goal(id: &str, table: &str, ball: u64) -> Input {
    Input::Foreign {
        message_type: "table.goal.scored.v1".into(),
        payload: json!({"tableId": table, "gameId": "g-1", "ball": ball, "scorer": "alice"}),
        message_id: id.into(),
    }
}

fn cancel(id: &str, table: &str, ball: u64) -> Input {
    Input::Foreign {
        message_type: "table.goal.cancelled.v1".into(),
        payload: json!({"tableId": table, "gameId": "g-1", "ball": ball, "score": {}}),
        message_id: id.into(),
    }
}

/// The undo of `entry` in game `a`, unticking these cells (in cell order, as ticked).
fn undone(entry: &str, mut unticked: Vec<CardCell>) -> Event {
    unticked.sort_by_key(|c| c.cell);
    Event::GestureUndone(contract::GestureUndone {
        game_id: "a".into(),
        entry_id: entry.into(),
        unticked,
    })
}

fn cell(s: &Scenario, square_id: u32) -> CardCell {
    CardCell {
        serial: 1,
        player: "alice".into(),
        square_id,
        cell: cell_of(s, "a", "alice", square_id),
    }
}

#[test]
fn a_cancelled_goal_unticks_what_that_goal_alone_ticked() {
    let mut s = game();
    let ticks = s.run(goal("m-1", "table-3", 1));
    assert_eq!(kinds(&ticks), vec!["bingo.square.ticked.v1"; 2]);
    s.run(goal("m-2", "table-1", 2));
    // Ball 2 still stands behind square 2: only square 1 is unticked.
    s.when(cancel("c-1", "table-3", 1))
        .then_expect([undone("m-1", vec![cell(&s, 1)])]);
    s.run(cancel("c-1", "table-3", 1));
    let now = ticked(&s, "a", "alice");
    assert!(!now.contains(&cell(&s, 1).cell) && now.contains(&cell(&s, 2).cell));
    // Seen twice (redelivered, or resent under another id), the cancel unticks once.
    s.when(cancel("c-1", "table-3", 1)).then_expect([]);
    s.when(cancel("c-9", "table-3", 1)).then_expect([]);
    // The same after a restart: the state is the fold of the log.
    let replayed = given(s.history().to_vec());
    replayed.when(cancel("c-1", "table-3", 1)).then_expect([]);
    replayed
        .when(cancel("c-2", "table-1", 2))
        .then_expect([undone("m-2", vec![cell(&s, 2)])]);
}

#[test]
fn a_cancel_for_a_goal_never_seen_or_of_another_game_is_ignored() {
    let mut s = game();
    s.when(cancel("c-1", "table-3", 1)).then_expect([]);
    s.run(goal("m-1", "table-3", 1));
    s.when(cancel("c-2", "table-3", 2)).then_expect([]);
    let other_game = Input::Foreign {
        message_type: "table.goal.cancelled.v1".into(),
        payload: json!({"tableId": "table-3", "gameId": "g-2", "ball": 1}),
        message_id: "c-3".into(),
    };
    s.when(other_game).then_expect([]);
    let no_ball = Input::Foreign {
        message_type: "table.goal.cancelled.v1".into(),
        payload: json!({"tableId": "table-3", "gameId": "g-1"}),
        message_id: "c-4".into(),
    };
    s.when(no_ball).then_expect([]);
}

#[test]
fn the_next_ball_takes_the_cancelled_one_s_number_and_its_own_cancel_unticks_it() {
    let mut s = game();
    s.run(goal("m-1", "table-3", 1));
    s.run(cancel("c-1", "table-3", 1));
    let again = s.run(goal("m-2", "table-3", 1));
    assert_eq!(kinds(&again), vec!["bingo.square.ticked.v1"; 2]);
    s.when(cancel("c-2", "table-3", 1))
        .then_expect([undone("m-2", vec![cell(&s, 1), cell(&s, 2)])]);
}

#[test]
fn a_game_that_declares_the_undo_consumes_its_type() {
    let mut s = game();
    let types: Vec<String> = s.state().mapped_message_types().into_iter().collect();
    assert_eq!(types, ["table.goal.cancelled.v1", "table.goal.scored.v1"]);
    s.run(cmd("a", Action::Close));
    assert!(s.state().mapped_message_types().is_empty());
}

#[test]
fn an_undo_is_announced_only_in_the_games_where_its_gesture_ticked() {
    let mut s = game();
    s.run(cmd("b", Action::Open(goals_spec())));
    s.run(cmd(
        "b",
        Action::Deal {
            player: "bob".into(),
        },
    ));
    s.run(gesture("e-1", "alice", "x3", None));
    s.when(undo("e-1"))
        .then_expect([undone("e-1", vec![cell(&s, 3)])]);
    // A gesture no game holds (undone before it came, or of a member without a card).
    s.when(undo("e-2")).then_expect([]);
    s.run(goal("m-1", "table-3", 1));
    s.when(cancel("c-1", "table-3", 1))
        .then_expect([undone("m-1", vec![cell(&s, 1), cell(&s, 2)])]);
}

#[test]
fn an_undone_by_is_checked_when_the_game_opens() {
    let refused = |undo: UndoneBy| {
        let mut spec = goals_spec();
        spec.sources[0].undone_by = Some(undo);
        given([]).refused(cmd("a", Action::Open(spec))).1
    };
    let undo = |message_type: &str, key: &[&str]| UndoneBy {
        message_type: message_type.into(),
        key: key.iter().map(|k| k.to_string()).collect(),
    };
    let reason = refused(undo("table.goal.scored.v1", &["/ball"]));
    assert!(
        reason.contains("names the type the source listens to"),
        "{reason}"
    );
    let reason = refused(undo("activity.undone.v1", &["/ball"]));
    assert!(reason.contains("already reads"), "{reason}");
    let reason = refused(undo("table.goal.cancelled.v1", &[]));
    assert!(reason.contains("has 0 key fields, not 1 to 8"), "{reason}");
    let reason = refused(undo("table.goal.cancelled.v1", &["ball"]));
    assert!(reason.contains("the key field \"ball\""), "{reason}");
}
