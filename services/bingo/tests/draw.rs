//! Draws (`bingo.square.draw.v1`): the service calls the next square of a called game from
//! its secret draw order.

mod common;

use std::collections::HashSet;

use arcade_bingo::domain::{Action, Event, PatternKind, Secret};
use arcade_bingo::{BingoService, Input};
use arcade_contracts::bingo as contract;
use common::*;

/// A called 5×5 game `q` of the squares 1..=75, alice dealt.
fn game() -> Scenario {
    let mut s = given([]);
    s.run(cmd(
        "q",
        Action::Open(called_spec(5, 75, vec![PatternKind::Row])),
    ));
    s.run(cmd(
        "q",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    s
}

fn draw() -> Input {
    cmd("q", Action::Draw)
}

/// The square a draw called, and its call number.
fn called(events: &[Event]) -> (u32, u32) {
    match events {
        [
            Event::SquareCalled(contract::SquareCalled {
                square_id: square,
                call_number,
                ..
            }),
        ] => (*square, *call_number),
        other => panic!("a draw calls one square: {other:?}"),
    }
}

#[test]
fn a_draw_calls_a_square_of_the_pool_announced_as_a_call_with_the_request_id() {
    let mut s = game();
    let events = s.when(cmd_id("q", "d-1", Action::Draw)).events();
    s.apply(events.clone());
    let (square, number) = called(&events);
    assert!((1..=75).contains(&square), "{square}");
    assert_eq!(number, 1);
    match &events[0] {
        Event::SquareCalled(contract::SquareCalled {
            request_id, label, ..
        }) => {
            assert_eq!(request_id.as_deref(), Some("d-1"));
            assert_eq!(label, &format!("Square {square}"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.state().game("q").unwrap().called(), &[square]);
}

#[test]
fn seventy_five_draws_call_every_square_once_and_the_next_is_refused_nothing_to_draw() {
    let mut s = game();
    let mut seen = HashSet::new();
    for n in 1..=75 {
        let (square, number) = called(&s.run(draw()));
        assert_eq!(number, n);
        assert!(seen.insert(square), "square {square} drawn twice");
    }
    assert_eq!(seen, (1..=75).collect::<HashSet<u32>>());
    let (code, reason) = s.refused(draw());
    assert_eq!(code, "nothing-to-draw");
    assert_eq!(
        reason,
        "every square of game \"q\" has been called: there is nothing left to draw"
    );
}

#[test]
fn a_draw_skips_the_squares_already_called_by_hand() {
    // The draw order of this game, from a twin scenario that only draws.
    let mut twin = game();
    let first = called(&twin.run(draw())).0;
    let second = called(&twin.when(draw()).events()).0;

    let mut s = game();
    s.run(cmd("q", Action::Call { square: first }));
    assert_eq!(called(&s.when(draw()).events()), (second, 2));
}

#[test]
fn the_draw_order_is_the_same_at_every_replay_and_another_secret_draws_another() {
    let order = |s: &mut Scenario| -> Vec<u32> {
        (0..10)
            .map(|_| called(&s.when(draw()).events()).0)
            .collect()
    };
    let mut a = game();
    let mut b = game();
    let drawn = order(&mut a);
    assert_eq!(drawn, order(&mut b), "the same secret and game draw alike");

    let other = Secret::new(*b"another-secret-of-arcade-bingo").unwrap();
    let mut c = Scenario::given(BingoService::new(&other), []).at(NOW);
    c.run(cmd(
        "q",
        Action::Open(called_spec(5, 75, vec![PatternKind::Row])),
    ));
    assert_ne!(drawn, order(&mut c), "the order comes from the secret");
    assert_ne!(
        drawn,
        (1..=10).collect::<Vec<u32>>(),
        "the order is shuffled"
    );
}

#[test]
fn a_draw_in_an_activity_game_or_a_closed_game_is_refused_as_a_call_is() {
    let mut s = given([]);
    s.run(cmd(
        "a",
        Action::Open(activity_spec(vec![PatternKind::Row])),
    ));
    let (code, _) = s.refused(cmd("a", Action::Draw));
    assert_eq!(code, "not-a-called-game");

    let mut s = game();
    s.run(cmd("q", Action::Close));
    let (code, reason) = s.refused(draw());
    assert_eq!(code, "game-closed");
    assert_eq!(reason, s.refused(cmd("q", Action::Call { square: 1 })).1);
}

#[test]
fn a_draw_is_read_from_the_wire_and_refused_for_an_unknown_game() {
    let s = given([]);
    let input = Input::from_message(
        "bingo.square.draw.v1",
        &serde_json::json!({"requestId": "r", "gameId": "nope"}),
        "m-1",
    )
    .unwrap();
    assert_eq!(input, cmd_id("nope", "r", Action::Draw));
    let (code, _) = s.refused(input);
    assert_eq!(code, "unknown-game");
}
