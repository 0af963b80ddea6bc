//! Opening a game: every rule of the configuration, as refusals the organiser understands.

mod common;

use arcade_bingo::domain::{
    Action, Event, GameSpec, PatternKind, SourceSpec, SquareSpec, TickMode,
};
use common::*;

fn open(spec: GameSpec) -> arcade_bingo::Input {
    cmd("g", Action::Open(spec))
}

fn refused(spec: GameSpec) -> String {
    let (code, reason) = given([]).refused(open(spec));
    assert_eq!(code, "invalid-game", "{reason}");
    reason
}

#[test]
fn an_open_game_is_announced_with_its_resolved_configuration() {
    let s = given([]);
    let events = s
        .when(cmd_id(
            "g",
            "r-1",
            Action::Open(called_spec(5, 75, vec![PatternKind::Line])),
        ))
        .events();
    let [
        Event::GameOpened {
            request_id,
            game_id,
            config,
            opened_at,
        },
    ] = events.as_slice()
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        (request_id.as_deref(), game_id.as_str(), *opened_at),
        (Some("r-1"), "g", NOW)
    );
    assert_eq!(config.grid().free_cell(), Some(12));
    assert_eq!(config.spec().free_centre, Some(true));
    assert_eq!(config.tick_mode(), TickMode::Called);
}

#[test]
fn a_game_id_is_used_once() {
    let mut s = given([]);
    s.run(open(called_spec(5, 75, vec![PatternKind::Row])));
    let (code, reason) = s.refused(open(called_spec(3, 8, vec![PatternKind::Row])));
    assert_eq!(code, "game-exists");
    assert_eq!(reason, "a game \"g\" already exists: choose another id");
}

#[test]
fn ids_are_one_to_two_hundred_bytes() {
    let s = given([]);
    let spec = || Action::Open(called_spec(3, 8, vec![PatternKind::Row]));
    let (code, reason) = s.refused(cmd("", spec()));
    assert_eq!(code, "invalid-field");
    assert_eq!(reason, "the game id must be 1 to 200 bytes, not 0");
    let (_, reason) = s.refused(cmd(&"g".repeat(201), spec()));
    assert_eq!(reason, "the game id must be 1 to 200 bytes, not 201");
    assert!(s.when(cmd(&"g".repeat(200), spec())).is_accepted());
    let (_, reason) = s.refused(cmd_id("g", &"r".repeat(201), spec()));
    assert_eq!(reason, "the request id must be 1 to 200 bytes, not 201");
}

#[test]
fn grids_are_three_to_nine_wide_and_only_odd_ones_have_a_centre() {
    assert_eq!(
        refused(called_spec(2, 75, vec![PatternKind::Row])),
        "game \"g\" cannot be opened: a grid is 3 to 9 cells wide, not 2"
    );
    assert!(refused(called_spec(10, 100, vec![PatternKind::Row])).ends_with("not 10"));
    let mut even = called_spec(4, 16, vec![PatternKind::Row]);
    assert!(
        given([]).when(open(even.clone())).is_accepted(),
        "even grids default to no centre"
    );
    even.free_centre = Some(true);
    assert_eq!(
        refused(even),
        "game \"g\" cannot be opened: a 4×4 grid has no centre cell to leave free: set \
         freeCentre to false"
    );
    let mut nine = called_spec(9, 81, vec![PatternKind::FullCard]);
    nine.free_centre = Some(false);
    assert!(given([]).when(open(nine)).is_accepted());
}

#[test]
fn the_pool_holds_what_a_card_draws() {
    // 5×5 with a free centre draws 24; without, 25.
    assert!(
        given([])
            .when(open(called_spec(5, 24, vec![PatternKind::Row])))
            .is_accepted()
    );
    assert_eq!(
        refused(called_spec(5, 23, vec![PatternKind::Row])),
        "game \"g\" cannot be opened: a 5×5 card draws 24 squares (every cell but the free \
         centre), but the pool holds only 23"
    );
    let mut no_centre = called_spec(5, 24, vec![PatternKind::Row]);
    no_centre.free_centre = Some(false);
    assert_eq!(
        refused(no_centre),
        "game \"g\" cannot be opened: a 5×5 card draws 25 squares (every cell: the grid has no \
         free centre), but the pool holds only 24"
    );
    let even = called_spec(4, 10, vec![PatternKind::Row]);
    let reason = refused(even);
    assert!(
        reason.contains("draws 16 squares (every cell: the grid has no free centre)"),
        "{reason}"
    );
}

#[test]
fn a_pool_has_one_to_five_hundred_squares_with_distinct_ids_and_sized_labels() {
    assert!(
        given([])
            .when(open(called_spec(3, 500, vec![PatternKind::Row])))
            .is_accepted()
    );
    assert!(
        refused(called_spec(3, 501, vec![PatternKind::Row]))
            .ends_with("a pool holds 1 to 500 squares, not 501")
    );
    let mut empty = called_spec(3, 8, vec![PatternKind::Row]);
    empty.squares.clear();
    assert!(refused(empty).ends_with("not 0"));
    let mut twice = called_spec(3, 9, vec![PatternKind::Row]);
    twice.squares[8].id = 3;
    assert!(
        refused(twice)
            .ends_with("square id 3 appears more than once in the pool: square ids are distinct")
    );
    let mut labels = called_spec(3, 9, vec![PatternKind::Row]);
    labels.squares[0].label = "é".repeat(100);
    assert!(
        given([]).when(open(labels.clone())).is_accepted(),
        "200 bytes is fine"
    );
    labels.squares[0].label = "é".repeat(100) + "x";
    assert!(
        refused(labels.clone())
            .ends_with("the label of square 1 is 201 bytes; a label is 1 to 200 bytes")
    );
    labels.squares[0].label.clear();
    assert!(refused(labels).ends_with("is 0 bytes; a label is 1 to 200 bytes"));
}

#[test]
fn activity_squares_need_triggers_and_called_squares_refuse_them() {
    let mut missing = activity_spec(vec![PatternKind::Row]);
    missing.squares[2].trigger = None;
    assert!(refused(missing).ends_with(
        "square 3 has no trigger: in a game ticked by activity, every square names the gesture \
         that ticks it"
    ));
    let mut called = called_spec(3, 8, vec![PatternKind::Row]);
    called.squares[0] = square(1, "talk.*", None);
    assert!(refused(called).contains("square 1 has a trigger, but a called game's squares"));
}

#[test]
fn trigger_verbs_are_exact_a_dotted_prefix_or_any() {
    let with_verb = |verb: &str, object: Option<&str>| {
        let mut spec = activity_spec(vec![PatternKind::Row]);
        spec.squares[0] = square(1, verb, object);
        spec
    };
    for ok in ["talk.hello", "talk.*", "*", "a.b.*"] {
        assert!(
            given([]).when(open(with_verb(ok, None))).is_accepted(),
            "{ok}"
        );
    }
    assert_eq!(
        refused(with_verb("", None)),
        "game \"g\" cannot be opened: the trigger verb \"\" of square 1 is empty"
    );
    for bad in ["talk*", ".*", "*.hello", "ta*lk.*", "**"] {
        assert!(
            refused(with_verb(bad, None)).ends_with(
                "may use * only alone (any verb) or at the end after a dot, as in talk.*"
            ),
            "{bad}"
        );
    }
    assert!(refused(with_verb(&"v".repeat(201), None)).ends_with("is longer than 200 bytes"));
    assert!(
        refused(with_verb("v", Some("")))
            .ends_with("the trigger object of square 1 is 0 bytes; an object is 1 to 200 bytes")
    );
    assert!(refused(with_verb("v", Some(&"o".repeat(201)))).contains("is 201 bytes"));
}

#[test]
fn patterns_are_one_to_sixteen_with_distinct_names() {
    assert!(
        refused(called_spec(5, 75, vec![])).ends_with("a game has 1 to 16 win patterns, not 0")
    );
    let many: Vec<PatternKind> = (0..17u8)
        .map(|i| PatternKind::Custom {
            name: format!("p{i}"),
            cell_sets: vec![vec![i, 24]],
        })
        .collect();
    assert!(refused(called_spec(5, 75, many.clone())).ends_with("not 17"));
    assert!(
        given([])
            .when(open(called_spec(5, 75, many[..16].to_vec())))
            .is_accepted()
    );
    let clash = vec![
        PatternKind::Line,
        PatternKind::Custom {
            name: "line".into(),
            cell_sets: vec![vec![0]],
        },
    ];
    assert!(refused(called_spec(5, 75, clash)).ends_with(
        "two patterns are named \"line\": the first match names the win, so pattern names must differ"
    ));
}

#[test]
fn custom_patterns_are_checked_against_the_grid() {
    let custom = |cell_sets: Vec<Vec<u8>>| {
        called_spec(
            5,
            75,
            vec![PatternKind::Custom {
                name: "cross".into(),
                cell_sets,
            }],
        )
    };
    assert!(refused(custom(vec![vec![0, 25]])).ends_with(
        "cell set 1 of custom pattern \"cross\" names cell 25, but a 5×5 grid has cells 0 to 24"
    ));
    assert!(
        refused(custom(vec![vec![0], vec![]]))
            .ends_with("cell set 2 of custom pattern \"cross\" is empty")
    );
    assert!(refused(custom(vec![vec![12]])).ends_with(
        "cell set 1 of custom pattern \"cross\" holds only the free centre, so every card would win at once"
    ));
    assert!(
        refused(custom(vec![]))
            .ends_with("custom pattern \"cross\" has 0 cell sets; a custom pattern has 1 to 64")
    );
    assert!(
        refused(custom(vec![vec![1]; 65]))
            .ends_with("has 65 cell sets; a custom pattern has 1 to 64")
    );
    let unnamed = PatternKind::Custom {
        name: String::new(),
        cell_sets: vec![vec![0]],
    };
    assert!(
        refused(called_spec(5, 75, vec![PatternKind::Row, unnamed])).ends_with(
            "the name of pattern 2 is 0 bytes; a custom pattern's name is 1 to 64 bytes"
        )
    );
}

fn goal_source() -> SourceSpec {
    SourceSpec {
        message_type: "table.goal.scored.v1".into(),
        verb: "table.goal".into(),
        member_field: "/scorer".into(),
        object_field: Some("/tableId".into()),
        filters: Vec::new(),
        undone_by: None,
    }
}

#[test]
fn activity_sources_are_checked() {
    let mut spec = activity_spec(vec![PatternKind::Row]);
    spec.sources = vec![goal_source()];
    assert!(given([]).when(open(spec.clone())).is_accepted());
    spec.sources = vec![goal_source(), goal_source()];
    assert!(refused(spec.clone()).ends_with(
        "two activity sources listen to \"table.goal.scored.v1\": a message type maps to one verb"
    ));
    spec.sources = (0..17)
        .map(|i| SourceSpec {
            message_type: format!("x.y{i}.v1"),
            ..goal_source()
        })
        .collect();
    assert!(refused(spec.clone()).ends_with("a game has at most 16 activity sources, not 17"));
    spec.sources = vec![SourceSpec {
        member_field: "scorer".into(),
        ..goal_source()
    }];
    assert!(refused(spec.clone()).ends_with(
        "the memberField \"scorer\" of activity source 1 is not a JSON Pointer to a field, like \"/scorer\""
    ));
    spec.sources = vec![SourceSpec {
        message_type: "activity.recorded.v1".into(),
        ..goal_source()
    }];
    assert!(
        refused(spec.clone()).contains("activity source 1 listens to \"activity.recorded.v1\"")
    );
    spec.sources = vec![SourceSpec {
        verb: "table.*".into(),
        ..goal_source()
    }];
    assert!(refused(spec).ends_with(
        "the verb \"table.*\" of activity source 1 may not contain *: a mapped message is one verb"
    ));
    let mut called = called_spec(3, 8, vec![PatternKind::Row]);
    called.sources = vec![goal_source()];
    assert!(refused(called).ends_with("so only a game ticked by activity may have them"));
}

#[test]
fn a_square_spec_is_plain_data() {
    // The pool's order is the order cards draw from; it comes back unchanged.
    let spec = called_spec(3, 9, vec![PatternKind::Row]);
    let mut s = given([]);
    s.run(open(spec.clone()));
    let squares: Vec<SquareSpec> = s.state().game("g").unwrap().config().spec().squares;
    assert_eq!(squares, spec.squares);
}
