//! Activity games: gestures tick the member's cards (once per idempotency key), undo unticks
//! what a gesture alone ticked unless the card won, a completing gesture wins by itself, and
//! other services' events count as gestures where a game maps them.

mod common;

use arcade_bingo::Input;
use arcade_bingo::domain::{Action, CardCell, Event, GameSpec, PatternKind, SourceSpec, TickMode};
use arcade_contracts::bingo as contract;
use common::*;
use serde_json::json;

/// Squares: 1 `talk.hello`, 2 `talk.*`, 3 `*`, 4 `table.goal` at `table-3`, 5 `table.goal`,
/// 6–8 `x6`–`x8`, on 3×3 cards with a free centre.
fn triggers_spec(patterns: Vec<PatternKind>) -> GameSpec {
    GameSpec {
        tick_mode: TickMode::Activity,
        grid_size: 3,
        free_centre: None,
        squares: vec![
            square(1, "talk.hello", None),
            square(2, "talk.*", None),
            square(3, "*", None),
            square(4, "table.goal", Some("table-3")),
            square(5, "table.goal", None),
            square(6, "x6", None),
            square(7, "x7", None),
            square(8, "x8", None),
        ],
        patterns,
        sources: vec![SourceSpec {
            message_type: "table.goal.scored.v1".into(),
            verb: "table.goal".into(),
            member_field: "/scorer".into(),
            object_field: Some("/tableId".into()),
            filters: Vec::new(),
            undone_by: None,
        }],
    }
}

fn game(spec: GameSpec) -> Scenario {
    let mut s = given([]);
    s.run(cmd("a", Action::Open(spec)));
    s.run(cmd(
        "a",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    s
}

/// The squares a gesture ticks on alice's card, in cell order.
fn ticked_squares(events: &[Event]) -> Vec<u32> {
    let mut squares: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::SquareTicked(contract::SquareTicked { square_id, .. }) => Some(*square_id),
            _ => None,
        })
        .collect();
    squares.sort_unstable();
    squares
}

#[test]
fn a_gesture_ticks_the_squares_it_triggers_and_announces_each() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    let events = s.when(gesture("e1", "alice", "talk.hello", None)).events();
    s.apply(events.clone());
    assert_eq!(ticked_squares(&events), vec![1, 2, 3]);
    let cell = cell_of(&s, "a", "alice", 1);
    assert!(
        events.contains(&Event::SquareTicked(contract::SquareTicked {
            game_id: "a".into(),
            serial: 1,
            player: "alice".into(),
            square_id: 1,
            cell,
            entry_id: "e1".into(),
            verb: "talk.hello".into(),
            undo_key: None,
        }))
    );
    let mut expected: Vec<u8> = [1, 2, 3]
        .iter()
        .map(|&q| cell_of(&s, "a", "alice", q))
        .collect();
    expected.push(4);
    expected.sort_unstable();
    assert_eq!(ticked(&s, "a", "alice"), expected);
}

#[test]
fn verbs_match_exactly_by_dotted_prefix_or_any_and_objects_when_required() {
    let s = game(triggers_spec(vec![PatternKind::FullCard]));
    let squares = |verb: &str, object: Option<&str>| {
        ticked_squares(&s.when(gesture("e", "alice", verb, object)).events())
    };
    assert_eq!(squares("talk.bye", None), vec![2, 3]);
    assert_eq!(squares("talking", None), vec![3]);
    assert_eq!(squares("talk", None), vec![3]);
    assert_eq!(squares("table.goal", Some("table-3")), vec![3, 4, 5]);
    assert_eq!(squares("table.goal", Some("table-1")), vec![3, 5]);
    assert_eq!(squares("table.goal", None), vec![3, 5]);
    assert_eq!(squares("x6", Some("anything")), vec![3, 6]);
}

#[test]
fn a_gesture_recorded_twice_ticks_once() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    s.run(gesture("e1", "alice", "x6", None));
    s.when(gesture("e1", "alice", "x6", None)).then_expect([]);
    // the key decides, not the verb
    s.when(gesture("e1", "alice", "x7", None)).then_expect([]);
}

#[test]
fn gestures_of_members_without_a_card_or_in_other_games_tick_nothing() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    s.when(gesture("e1", "bob", "x6", None)).then_expect([]);
    s.run(cmd(
        "q",
        Action::Open(called_spec(3, 8, vec![PatternKind::Row])),
    ));
    s.run(cmd(
        "q",
        Action::Deal {
            player: "bob".into(),
        },
    ));
    // called games ignore gestures
    s.when(gesture("e2", "bob", "x6", None)).then_expect([]);
}

#[test]
fn a_gesture_ticks_the_member_s_cards_in_every_open_activity_game() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    s.run(cmd(
        "b",
        Action::Open(triggers_spec(vec![PatternKind::FullCard])),
    ));
    s.run(cmd(
        "b",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    let events = s.when(gesture("e1", "alice", "x7", None)).events();
    let games: Vec<&str> = events.iter().map(Event::game_id).collect();
    assert_eq!(games, vec!["a", "a", "b", "b"]);
}

#[test]
fn undo_unticks_only_what_the_gesture_alone_ticked() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    let six = cell_of(&s, "a", "alice", 6);
    let any = cell_of(&s, "a", "alice", 3);
    s.run(gesture("e1", "alice", "x6", None));
    s.run(gesture("e2", "alice", "x6", None));
    // e2 ticks cell six again: another gesture now stands behind it.
    let events = s
        .when(undo("e1"))
        .then_expect([Event::GestureUndone(contract::GestureUndone {
            game_id: "a".into(),
            entry_id: "e1".into(),
            unticked: vec![],
        })]);
    s.apply(events);
    assert!(ticked(&s, "a", "alice").contains(&six));
    let events = s.when(undo("e2")).events();
    s.apply(events.clone());
    let Event::GestureUndone(contract::GestureUndone { unticked, .. }) = &events[0] else {
        panic!("{events:?}")
    };
    let mut cells: Vec<u8> = unticked.iter().map(|c| c.cell).collect();
    cells.sort_unstable();
    let mut expected = vec![six, any];
    expected.sort_unstable();
    assert_eq!(cells, expected);
    assert!(unticked.contains(&CardCell {
        serial: 1,
        player: "alice".into(),
        square_id: 6,
        cell: six
    }));
    assert_eq!(
        ticked(&s, "a", "alice"),
        vec![4],
        "only the free centre is left"
    );
}

#[test]
fn an_undo_of_a_gesture_no_game_holds_is_ignored() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    s.when(undo("early")).then_expect([]);
    s.run(undo("early"));
    // Nothing was kept: the gesture, when it comes, ticks.
    let events = s.when(gesture("early", "alice", "x6", None)).events();
    assert_eq!(ticked_squares(&events), vec![3, 6]);
}

#[test]
fn a_filtered_mapping_counts_only_the_messages_it_admits() {
    let mut spec = triggers_spec(vec![PatternKind::FullCard]);
    spec.sources[0].filters = vec![arcade_contracts::bingo::FieldFilter {
        field: "/counted".into(),
        equals: json!(true),
        or_missing: false,
    }];
    let s = game(spec);
    let rehearsal = Input::Foreign {
        message_type: "table.goal.scored.v1".into(),
        payload: json!({"tableId": "table-3", "scorer": "alice", "counted": false}),
        message_id: "m-1".into(),
    };
    s.when(rehearsal).then_expect([]);
    let payload = json!({"tableId": "table-3", "scorer": "alice", "counted": false});
    assert!(
        s.state()
            .foreign_gestures("table.goal.scored.v1", &payload, "m-1")
            .is_empty(),
        "a message the filter keeps out is not a mapping problem to log"
    );
    let counted = Input::Foreign {
        message_type: "table.goal.scored.v1".into(),
        payload: json!({"tableId": "table-3", "scorer": "alice", "counted": true}),
        message_id: "m-2".into(),
    };
    assert_eq!(ticked_squares(&s.when(counted).events()), vec![3, 4, 5]);
}

#[test]
fn an_undone_gesture_stays_undone() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    s.run(gesture("e1", "alice", "x6", None));
    s.run(undo("e1"));
    s.when(undo("e1")).then_expect([]);
    s.when(gesture("e1", "alice", "x6", None)).then_expect([]);
    assert_eq!(ticked(&s, "a", "alice"), vec![4]);
}

#[test]
fn a_gesture_that_completes_a_pattern_wins_by_itself_once() {
    let mut s = game(activity_spec(vec![PatternKind::Row, PatternKind::FullCard]));
    let top: Vec<u32> = (0..3).map(|c| square_at(&s, "a", "alice", c)).collect();
    s.run(gesture("e1", "alice", &format!("v{}", top[0]), None));
    s.run(gesture("e2", "alice", &format!("v{}", top[1]), None));
    let events = s
        .when(gesture("e3", "alice", &format!("v{}", top[2]), None))
        .events();
    s.apply(events.clone());
    assert_eq!(
        kinds(&events),
        vec!["bingo.square.ticked.v1", "bingo.card.won.v1"]
    );
    assert_eq!(
        events[1],
        Event::CardWon(contract::CardWon {
            game_id: "a".into(),
            serial: 1,
            player: Some("alice".into()),
            pattern: "row".into(),
            cells: vec![0, 1, 2],
            won_at: NOW,
            place: 1,
        })
    );
    // Completing the full card later does not win again.
    let rest: Vec<u32> = [3, 5, 6, 7, 8]
        .iter()
        .map(|&c| square_at(&s, "a", "alice", c))
        .collect();
    for (i, q) in rest.iter().enumerate() {
        let events = s
            .when(gesture(&format!("r{i}"), "alice", &format!("v{q}"), None))
            .events();
        assert_eq!(kinds(&events), vec!["bingo.square.ticked.v1"]);
        s.apply(events);
    }
    assert_eq!(s.state().game("a").unwrap().winners(), &[1]);
}

#[test]
fn undo_unticks_nothing_on_a_card_that_already_won() {
    let mut s = game(activity_spec(vec![PatternKind::Row]));
    for (i, c) in [0u8, 1, 2].iter().enumerate() {
        let q = square_at(&s, "a", "alice", *c);
        s.run(gesture(&format!("e{i}"), "alice", &format!("v{q}"), None));
    }
    assert_eq!(s.state().game("a").unwrap().winners(), &[1]);
    let events = s
        .when(undo("e0"))
        .then_expect([Event::GestureUndone(contract::GestureUndone {
            game_id: "a".into(),
            entry_id: "e0".into(),
            unticked: vec![],
        })]);
    s.apply(events);
    assert_eq!(ticked(&s, "a", "alice"), vec![0, 1, 2, 4]);
    // The claim names the win it kept.
    let claim = s
        .when(cmd(
            "a",
            Action::Claim {
                serial: 1,
                player: "alice".into(),
            },
        ))
        .events();
    assert_eq!(kinds(&claim), vec!["bingo.claim.answered.v1"]);
}

#[test]
fn a_closed_game_ticks_and_unticks_nothing() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    s.run(gesture("e1", "alice", "x6", None));
    s.run(cmd("a", Action::Close));
    s.when(gesture("e2", "alice", "x7", None)).then_expect([]);
    s.when(undo("e1")).then_expect([]);
    assert!(ticked(&s, "a", "alice").contains(&cell_of(&s, "a", "alice", 6)));
}

fn goal(scorer: &str, table: &str, id: &str) -> Input {
    Input::Foreign {
        message_type: "table.goal.scored.v1".into(),
        payload: json!({"tableId": table, "scorer": scorer, "team": "red"}),
        message_id: id.into(),
    }
}

#[test]
fn a_referee_s_goal_ticks_score_a_goal_at_table_3() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    let events = s.when(goal("alice", "table-3", "m-1")).events();
    s.apply(events.clone());
    assert_eq!(ticked_squares(&events), vec![3, 4, 5]);
    assert!(events.iter().all(|e| matches!(e, Event::SquareTicked(contract::SquareTicked { entry_id, verb, .. }) if entry_id == "m-1" && verb == "table.goal")));
    // a redelivered goal ticks once
    s.when(goal("alice", "table-3", "m-1")).then_expect([]);
    assert_eq!(
        ticked_squares(&s.when(goal("alice", "table-1", "m-2")).events()),
        vec![3, 5]
    );
}

#[test]
fn only_games_that_map_a_message_type_count_it() {
    let mut s = game(triggers_spec(vec![PatternKind::FullCard]));
    let mut unmapped = triggers_spec(vec![PatternKind::FullCard]);
    unmapped.sources.clear();
    s.run(cmd("b", Action::Open(unmapped)));
    s.run(cmd(
        "b",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    let events = s.when(goal("alice", "table-3", "m-1")).events();
    assert!(events.iter().all(|e| e.game_id() == "a"));
    assert_eq!(
        s.state()
            .mapped_message_types()
            .into_iter()
            .collect::<Vec<_>>(),
        vec!["table.goal.scored.v1".to_string()]
    );
    s.run(cmd("a", Action::Close));
    assert!(s.state().mapped_message_types().is_empty());
}

#[test]
fn a_message_that_does_not_map_ticks_nothing_and_says_why() {
    let s = game(triggers_spec(vec![PatternKind::FullCard]));
    let input = Input::Foreign {
        message_type: "table.goal.scored.v1".into(),
        payload: json!({"tableId": "table-3"}),
        message_id: "m-9".into(),
    };
    assert_eq!(s.when(input).events(), vec![]);
    let why = s.state().foreign_gestures(
        "table.goal.scored.v1",
        &json!({"tableId": "table-3"}),
        "m-9",
    );
    assert_eq!(why.len(), 1);
    assert_eq!(
        why[0].1.as_ref().unwrap_err().to_string(),
        "table.goal.scored.v1 has no member at /scorer"
    );
    assert!(
        s.state()
            .foreign_gestures("other.type.v1", &json!({}), "m")
            .is_empty()
    );
}
