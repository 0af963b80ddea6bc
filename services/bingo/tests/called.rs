//! Called games: calls (announced once), claims, verifications by serial and by label, wins
//! (once, in order), closing.

mod common;

use arcade_bingo::BingoService;
use arcade_bingo::domain::{Action, Check, Event, PatternKind, Secret, WinReport};
use arcade_contracts::bingo as contract;
use common::*;

/// A called 5×5 game of the squares 1..=75, patterns in this order, alice and bob dealt, and
/// two printed cards.
fn game(patterns: Vec<PatternKind>) -> Scenario {
    let mut s = given([]);
    s.run(cmd("q", Action::Open(called_spec(5, 75, patterns))));
    s.run(cmd(
        "q",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    s.run(cmd(
        "q",
        Action::Deal {
            player: "bob".into(),
        },
    ));
    s.run(cmd("q", Action::Print { count: 2 }));
    s
}

fn call(square: u32) -> arcade_bingo::Input {
    cmd("q", Action::Call { square })
}

fn claim(serial: u32, player: &str) -> arcade_bingo::Input {
    cmd_id(
        "q",
        "claim-1",
        Action::Claim {
            serial,
            player: player.into(),
        },
    )
}

fn verify(serial: u32, label: Option<&str>) -> arcade_bingo::Input {
    cmd(
        "q",
        Action::Verify {
            serial,
            label: label.map(str::to_string),
        },
    )
}

/// Calls the squares of these cells of a player's card (those not called yet).
fn call_cells(s: &mut Scenario, player: &str, cells: &[u8]) {
    for &cell in cells {
        let square = square_at(s, "q", player, cell);
        if !s.state().game("q").unwrap().called().contains(&square) {
            s.run(call(square));
        }
    }
}

fn answer(events: &[Event]) -> &contract::ClaimAnswered {
    match events.last() {
        Some(Event::ClaimAnswered(a)) => a,
        other => panic!("{other:?}"),
    }
}

/// The win an answer reports, if any.
fn win_of(a: &contract::ClaimAnswered) -> Option<WinReport> {
    Some(WinReport {
        pattern: a.pattern.clone()?,
        cells: a.winning_cells.clone()?,
        at: a.won_at?,
        place: a.place?,
    })
}

#[test]
fn a_call_is_announced_the_first_time_and_a_repeated_call_is_refused_already_called() {
    let mut s = game(vec![PatternKind::Row]);
    let events = s
        .when(cmd_id("q", "c-1", Action::Call { square: 42 }))
        .events();
    s.apply(events.clone());
    assert_eq!(
        events,
        vec![Event::SquareCalled(contract::SquareCalled {
            request_id: Some("c-1".into()),
            game_id: "q".into(),
            square_id: 42,
            label: "Square 42".into(),
            call_number: 1,
        })]
    );
    let repeated = cmd_id("q", "c-2", Action::Call { square: 42 });
    let rejection = s.when(repeated).rejection();
    assert_eq!(
        rejection.to_event(),
        Event::RequestRejected(contract::RequestRejected {
            request_type: "bingo.square.call.v1".into(),
            request_id: Some("c-2".into()),
            game_id: "q".into(),
            code: "already-called".into(),
            reason: "square 42 of game \"q\" was already called (call 1): a square is called once"
                .into(),
        })
    );
    let events = s.when(call(7)).events();
    s.apply(events.clone());
    assert!(matches!(
        events.as_slice(),
        [Event::SquareCalled(contract::SquareCalled {
            call_number: 2,
            ..
        })]
    ));
    assert_eq!(s.state().game("q").unwrap().called(), &[42, 7]);
}

#[test]
fn a_card_s_ticked_squares_are_the_called_squares_it_holds_plus_the_free_centre() {
    let mut s = game(vec![PatternKind::FullCard]);
    assert_eq!(ticked(&s, "q", "alice"), vec![12]);
    call_cells(&mut s, "alice", &[0, 24]);
    assert_eq!(ticked(&s, "q", "alice"), vec![0, 12, 24]);
    // A square alice does not hold ticks nothing on her card.
    let card = s.state().game("q").unwrap().card_of("alice").unwrap();
    let absent = (1..=75)
        .find(|id| !card.cells.contains(&Some(*id)))
        .unwrap();
    s.run(call(absent));
    assert_eq!(ticked(&s, "q", "alice"), vec![0, 12, 24]);
}

#[test]
fn calls_are_refused_outside_an_open_called_game_s_pool() {
    let mut s = game(vec![PatternKind::Row]);
    let (code, reason) = s.refused(call(76));
    assert_eq!(
        (code.as_str(), reason.as_str()),
        (
            "unknown-square",
            "square 76 is not in the pool of game \"q\""
        )
    );
    let (code, _) = s.refused(cmd("nope", Action::Call { square: 1 }));
    assert_eq!(code, "unknown-game");
    s.run(cmd(
        "a",
        Action::Open(activity_spec(vec![PatternKind::Row])),
    ));
    let (code, reason) = s.refused(cmd("a", Action::Call { square: 1 }));
    assert_eq!(code, "not-a-called-game");
    assert_eq!(
        reason,
        "game \"a\" is ticked by its players' activity: its squares are not called"
    );
    s.run(cmd("q", Action::Close));
    let (code, reason) = s.refused(call(1));
    assert_eq!(
        (code.as_str(), reason.as_str()),
        (
            "game-closed",
            "game \"q\" is closed: it calls no more squares"
        )
    );
}

#[test]
fn a_claim_on_a_complete_card_wins_and_names_the_pattern_and_the_ticked_cells() {
    let mut s = game(vec![PatternKind::Row, PatternKind::FullCard]);
    call_cells(&mut s, "alice", &[10, 11, 13, 14, 3]);
    let serial = serial_of(&s, "q", "alice");
    let events = s.when(claim(serial, "alice")).events();
    s.apply(events.clone());
    let win = WinReport {
        pattern: "row".into(),
        cells: vec![10, 11, 12, 13, 14],
        at: NOW,
        place: 1,
    };
    assert_eq!(
        events,
        vec![
            Event::CardWon(contract::CardWon {
                game_id: "q".into(),
                serial,
                player: Some("alice".into()),
                pattern: "row".into(),
                cells: vec![10, 11, 12, 13, 14],
                won_at: NOW,
                place: 1,
            }),
            Event::ClaimAnswered(contract::ClaimAnswered {
                request_id: Some("claim-1".into()),
                game_id: "q".into(),
                serial,
                check: Check::Claim,
                player: Some("alice".into()),
                ticked_cells: vec![3, 10, 11, 12, 13, 14],
                pattern: Some(win.pattern.clone()),
                winning_cells: Some(win.cells.clone()),
                won_at: Some(NOW),
                place: Some(1),
                game_closed: false,
            }),
        ]
    );
    assert_eq!(s.state().game("q").unwrap().winners(), &[serial]);
    assert_eq!(
        s.state().game("q").unwrap().card(serial).unwrap().win,
        Some(win)
    );
}

#[test]
fn a_claim_on_an_incomplete_card_is_answered_without_a_win() {
    let mut s = game(vec![PatternKind::Row]);
    call_cells(&mut s, "alice", &[10, 11, 13]);
    let events = s.when(claim(1, "alice")).events();
    assert_eq!(kinds(&events), vec!["bingo.claim.answered.v1"]);
    let a = answer(&events);
    assert_eq!(
        (a.ticked_cells.clone(), win_of(a)),
        (vec![10, 11, 12, 13], None)
    );
}

#[test]
fn a_card_wins_once_and_keeps_its_pattern_and_time() {
    let mut s = game(vec![PatternKind::Row, PatternKind::FullCard]);
    call_cells(&mut s, "alice", &[0, 1, 2, 3, 4]);
    s.run(claim(1, "alice"));
    s.set_now(NOW + 60_000);
    // Later the whole card is called: it already won with a row.
    call_cells(
        &mut s,
        "alice",
        &(0..25).filter(|&c| c != 12).collect::<Vec<u8>>(),
    );
    let events = s.when(claim(1, "alice")).events();
    s.apply(events.clone());
    assert_eq!(kinds(&events), vec!["bingo.claim.answered.v1"]);
    let win = win_of(answer(&events)).unwrap();
    assert_eq!((win.pattern.as_str(), win.at, win.place), ("row", NOW, 1));
    assert_eq!(s.state().game("q").unwrap().winners(), &[1]);
}

#[test]
fn winners_are_kept_in_order() {
    let mut s = game(vec![PatternKind::FullCard]);
    call_cells(
        &mut s,
        "bob",
        &(0..25).filter(|&c| c != 12).collect::<Vec<u8>>(),
    );
    call_cells(
        &mut s,
        "alice",
        &(0..25).filter(|&c| c != 12).collect::<Vec<u8>>(),
    );
    let bob_won = s.when(claim(2, "bob")).events();
    s.apply(bob_won.clone());
    assert!(matches!(
        bob_won[0],
        Event::CardWon(contract::CardWon { place: 1, .. })
    ));
    let alice_won = s.when(verify(1, None)).events();
    s.apply(alice_won.clone());
    assert!(matches!(
        alice_won[0],
        Event::CardWon(contract::CardWon {
            place: 2,
            serial: 1,
            ..
        })
    ));
    assert_eq!(answer(&alice_won).check, Check::Verify);
    assert_eq!(s.state().game("q").unwrap().winners(), &[2, 1]);
    let closed = s.when(cmd("q", Action::Close)).events();
    assert!(
        matches!(&closed[0], Event::GameClosed(contract::GameClosed { winners, cards: 4, .. }) if winners == &vec![2, 1])
    );
}

#[test]
fn the_first_matching_pattern_in_order_names_the_win() {
    let mut s = game(vec![PatternKind::FourCorners, PatternKind::Row]);
    call_cells(&mut s, "alice", &[0, 1, 2, 3, 4, 20, 21, 22, 23, 24]);
    let won = s.when(claim(1, "alice")).events();
    assert!(
        matches!(&won[0], Event::CardWon(contract::CardWon { pattern, cells, .. }) if pattern == "fourCorners" && cells == &vec![0, 4, 20, 24])
    );
}

#[test]
fn a_player_claims_their_own_card_only() {
    let s = game(vec![PatternKind::Row]);
    let (code, reason) = s.refused(claim(2, "alice"));
    assert_eq!(code, "not-your-card");
    assert_eq!(
        reason,
        "card 2 of game \"q\" is not yours: a player claims their own card only"
    );
    let (code, reason) = s.refused(claim(3, "alice"));
    assert_eq!(code, "printed-card");
    assert_eq!(
        reason,
        "card 3 of game \"q\" is a printed card: no player holds it, so the organiser verifies it by its label"
    );
    let (code, reason) = s.refused(claim(99, "alice"));
    assert_eq!(
        (code.as_str(), reason.as_str()),
        ("unknown-card", "game \"q\" has no card with serial 99")
    );
    let (code, _) = s.refused(claim(1, ""));
    assert_eq!(code, "invalid-field");
    let (code, _) = s.refused(cmd(
        "nope",
        Action::Claim {
            serial: 1,
            player: "alice".into(),
        },
    ));
    assert_eq!(code, "unknown-game");
}

#[test]
fn a_printed_card_is_verified_by_its_label_and_can_win() {
    let mut s = game(vec![PatternKind::Column]);
    let label = arcade_bingo::domain::Keys::new(&secret()).label("q", 3);
    let card = s.state().game("q").unwrap().card(3).unwrap();
    for row in [0, 1, 3, 4] {
        let square = card.cells[row * 5 + 2].unwrap();
        s.run(call(square));
    }
    let events = s.when(verify(3, Some(&label.to_uppercase()))).events();
    s.apply(events.clone());
    assert!(
        matches!(&events[0], Event::CardWon(contract::CardWon { player: None, pattern, .. }) if pattern == "column")
    );
    let a = answer(&events);
    assert_eq!((a.check, a.player.clone()), (Check::VerifyLabel, None));
    let (code, reason) = s.refused(verify(4, Some(&label)));
    assert_eq!(code, "bad-label");
    assert_eq!(
        reason,
        "the label does not match card 4 of game \"q\": it is not a card this server printed"
    );
    let (code, reason) = s.refused(verify(1, Some(&label)));
    assert_eq!(code, "not-printed");
    assert_eq!(
        reason,
        "card 1 of game \"q\" was dealt to a player, not printed, so it has no label: verify it by serial"
    );
    assert_eq!(
        s.refused(verify(4, Some(&"a".repeat(201)))).0,
        "invalid-field"
    );
    assert_eq!(s.refused(verify(9, None)).0, "unknown-card");
}

#[test]
fn a_card_that_does_not_match_its_serial_is_refused() {
    // The log says card 1 holds the squares the secret gives serial 2 (an altered card).
    let mut s = given([]);
    s.run(cmd(
        "q",
        Action::Open(called_spec(5, 75, vec![PatternKind::Row])),
    ));
    let keys = arcade_bingo::domain::Keys::new(&secret());
    let mut cells: Vec<Option<u32>> = keys
        .layout("q", 2, 75, 24)
        .iter()
        .map(|&i| Some(u32::from(i) + 1))
        .collect();
    cells.insert(12, None);
    let s = given(
        s.into_history()
            .into_iter()
            .chain([Event::CardDealt(contract::CardDealt {
                request_id: None,
                game_id: "q".into(),
                player: "alice".into(),
                serial: 1,
                cells,
                first_deal: true,
            })]),
    );
    let (code, reason) = s.refused(claim(1, "alice"));
    assert_eq!(code, "card-mismatch");
    assert_eq!(
        reason,
        "card 1 of game \"q\" does not match the card the server deals for that serial: the card \
         was altered, or the server's secret changed"
    );
}

#[test]
fn a_server_with_another_secret_refuses_the_cards_it_did_not_deal() {
    let s = game(vec![PatternKind::Row]);
    let other = BingoService::new(&Secret::new(*b"a-different-secret!!").unwrap());
    let rejection = Scenario::given(other, s.into_history())
        .at(NOW)
        .when(claim(1, "alice"))
        .rejection();
    assert_eq!(rejection.refusal.code(), "card-mismatch");
    assert_eq!(rejection.request_type, "bingo.card.claim.v1");
    assert_eq!(rejection.request_id.as_deref(), Some("claim-1"));
}

#[test]
fn a_closed_game_s_cards_are_verified_never_winning() {
    let mut s = game(vec![PatternKind::Row]);
    call_cells(&mut s, "bob", &[0, 1, 2, 3, 4]);
    call_cells(&mut s, "alice", &[5, 6, 7, 8, 9]);
    s.run(claim(2, "bob"));
    s.run(cmd("q", Action::Close));
    let events = s.when(claim(1, "alice")).events();
    s.apply(events.clone());
    assert_eq!(kinds(&events), vec!["bingo.claim.answered.v1"]);
    let a = answer(&events);
    assert!(a.game_closed);
    assert_eq!(win_of(a), None);
    assert!(a.ticked_cells.contains(&5));
    // A card that won before the close still shows its win.
    let bob = s.when(verify(2, None)).events();
    s.apply(bob.clone());
    assert_eq!(answer(&bob).pattern.as_deref(), Some("row"));
    assert_eq!(s.state().game("q").unwrap().winners(), &[2]);
}

#[test]
fn closing_twice_or_an_unknown_game_is_refused() {
    let mut s = game(vec![PatternKind::Row]);
    let closed = s.when(cmd_id("q", "close-1", Action::Close)).events();
    s.apply(closed.clone());
    assert_eq!(
        closed,
        vec![Event::GameClosed(contract::GameClosed {
            request_id: Some("close-1".into()),
            game_id: "q".into(),
            winners: vec![],
            cards: 4,
            closed_at: NOW,
        })]
    );
    assert!(!s.state().game("q").unwrap().is_open());
    let (code, reason) = s.refused(cmd("q", Action::Close));
    assert_eq!(
        (code.as_str(), reason.as_str()),
        ("game-closed", "game \"q\" is closed: it was already closed")
    );
    assert_eq!(s.refused(cmd("nope", Action::Close)).0, "unknown-game");
}

#[test]
fn a_rejection_names_the_request_and_becomes_one_event() {
    let s = game(vec![PatternKind::Row]);
    let rejection = s.when(claim(2, "alice")).rejection();
    assert_eq!(
        rejection.to_event(),
        Event::RequestRejected(contract::RequestRejected {
            request_type: "bingo.card.claim.v1".into(),
            request_id: Some("claim-1".into()),
            game_id: "q".into(),
            code: "not-your-card".into(),
            reason: "card 2 of game \"q\" is not yours: a player claims their own card only".into(),
        })
    );
}

#[test]
fn printing_more_cards_than_the_grid_and_pool_make_distinct_is_refused_up_front() {
    // A 3×3 card drawn from 8 squares: 8! = 40,320 layouts, of which the game prints all but a
    // 64th (39,690), so that every card is found within the serials the service tries.
    let mut s = given([]);
    s.run(cmd(
        "small",
        Action::Open(called_spec(3, 8, vec![PatternKind::Line])),
    ));
    assert_eq!(s.state().game("small").unwrap().printable(), 39_690);
    for _ in 0..39 {
        s.run(cmd("small", Action::Print { count: 1000 }));
    }
    let (code, reason) = s.refused(cmd("small", Action::Print { count: 1000 }));
    assert_eq!(code, "no-distinct-card");
    assert_eq!(
        reason,
        "game \"small\" can hold 39690 distinct cards from its grid and pool and holds 39000: a \
         batch of 1000 does not fit"
    );
    s.run(cmd("small", Action::Print { count: 690 }));
    let game = s.state().game("small").unwrap();
    assert_eq!((game.card_count(), game.printable()), (39_690, 0));
}
