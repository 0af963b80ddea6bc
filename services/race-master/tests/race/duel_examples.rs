//! The rule book's duel examples, played on decks laid out for them (fighter 0 is white and
//! starts on square 1, fighter 1 is black on square 23), and the special cases.

use arcade_race_master::domain::duel::{
    Action, Deck, Duel, End, Illegal, Parry, Play, StepOutcome, WinReason,
};

fn duel(order: &[u8], weapons: [u32; 2], first: usize) -> Duel {
    Duel::new(
        Deck::from_order(order).expect("a full deck"),
        weapons,
        first,
    )
}

fn play(duel: &mut Duel, cards: &[u8]) -> StepOutcome {
    duel.play(Play::Cards(cards.to_vec()))
        .expect("the duel goes on")
        .outcome
}

#[test]
fn white_plays_a_3_from_square_1_and_stands_on_4() {
    let mut d = duel(
        &[
            3, 5, 1, 4, 4, 5, 4, 2, 2, 2, 4, 1, 2, 3, 5, 5, 5, 3, 3, 3, 1, 1, 1, 4, 2,
        ],
        [5, 5],
        0,
    );
    assert_eq!(d.squares(), [1, 23]);
    assert_eq!(
        play(&mut d, &[3]),
        StepOutcome::Played {
            action: Action::Move(3),
            parry: None
        }
    );
    assert_eq!(d.squares(), [4, 23]);
    assert_eq!(d.hand(0).len(), 5, "white drew back to its 5 weapons");
}

/// White reaches distance 4 with black to play; black holds two 4s.
fn black_attacks_with_two_4s(order: &[u8]) -> Duel {
    let mut d = duel(order, [5, 5], 0);
    for cards in [[5], [5], [3], [1], [4]] {
        assert!(matches!(
            play(&mut d, &cards),
            StepOutcome::Played {
                action: Action::Move(_),
                ..
            }
        ));
    }
    assert_eq!((d.squares(), d.to_play()), ([13, 17], 1));
    assert_eq!(d.hand(1).count(4), 2);
    d
}

#[test]
fn black_attacks_with_two_4s_and_white_parries_with_two_4s() {
    let mut d = black_attacks_with_two_4s(&[
        5, 3, 4, 4, 4, 5, 1, 4, 4, 2, 1, 2, 3, 3, 2, 5, 5, 5, 3, 3, 2, 2, 1, 1, 1,
    ]);
    assert_eq!(d.hand(0).count(4), 2);
    let white_before = d.hand(0).len();
    let outcome = play(&mut d, &[4, 4]);
    assert_eq!(
        outcome,
        StepOutcome::Played {
            action: Action::Attack { value: 4, count: 2 },
            parry: Some(Parry::Parried)
        }
    );
    assert_eq!(d.end(), None);
    assert_eq!(
        d.hand(0).len(),
        white_before - 2,
        "white discarded two 4s and did not draw"
    );
    assert_eq!(d.hand(1).len(), 5, "black drew back at the end of its turn");
    assert_eq!(d.to_play(), 0, "white plays its turn");
}

#[test]
fn black_attacks_with_two_4s_and_white_with_one_4_is_hit() {
    let mut d = black_attacks_with_two_4s(&[
        5, 3, 4, 4, 1, 5, 1, 4, 4, 2, 2, 2, 3, 3, 3, 5, 5, 5, 3, 4, 1, 1, 1, 2, 2,
    ]);
    assert_eq!(d.hand(0).count(4), 1);
    let outcome = play(&mut d, &[4, 4]);
    assert_eq!(
        outcome,
        StepOutcome::Played {
            action: Action::Attack { value: 4, count: 2 },
            parry: Some(Parry::Hit)
        }
    );
    assert_eq!(
        d.end(),
        Some(End::Won {
            winner: 1,
            reason: WinReason::Hit
        })
    );
}

#[test]
fn white_at_9_plays_a_1_and_three_4s_and_black_cannot_parry() {
    let mut d = duel(
        &[
            3, 5, 1, 4, 4, 5, 4, 2, 2, 2, 4, 1, 2, 3, 5, 5, 5, 3, 3, 3, 1, 1, 1, 4, 2,
        ],
        [5, 5],
        0,
    );
    for cards in [[3], [5], [5], [4]] {
        play(&mut d, &cards);
    }
    assert_eq!(d.squares(), [9, 14]);
    assert_eq!(d.hand(0).count(4), 3);
    // Five 4s in all: with three in white's hand, black holds at most two.
    assert!(d.hand(1).count(4) < 3);
    let outcome = play(&mut d, &[1, 4, 4, 4]);
    assert_eq!(
        outcome,
        StepOutcome::Played {
            action: Action::MoveAttack {
                step: 1,
                value: 4,
                count: 3
            },
            parry: Some(Parry::Hit)
        }
    );
    assert_eq!(d.squares(), [10, 14]);
    assert_eq!(
        d.end(),
        Some(End::Won {
            winner: 0,
            reason: WinReason::Hit
        })
    );
}

#[test]
fn a_player_with_no_legal_answer_loses() {
    // White ends up with a single 3 at distance 2.
    let mut d = duel(
        &[
            5, 5, 5, 5, 3, 1, 5, 4, 4, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1,
        ],
        [1, 1],
        0,
    );
    for cards in [[5], [5], [5], [5]] {
        play(&mut d, &cards);
    }
    assert_eq!((d.distance(), d.hand(0).cards()), (2, vec![3]));
    assert_eq!(
        d.end(),
        Some(End::Won {
            winner: 1,
            reason: WinReason::NoLegalAnswer
        })
    );
}

#[test]
fn a_defender_that_parries_with_its_last_card_loses() {
    let mut d = duel(
        &[
            5, 5, 5, 3, 4, 4, 5, 5, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1,
        ],
        [1, 1],
        0,
    );
    for cards in [[5], [5], [5], [3]] {
        play(&mut d, &cards);
    }
    assert_eq!(d.distance(), 4);
    let outcome = play(&mut d, &[4]);
    assert_eq!(
        outcome,
        StepOutcome::Played {
            action: Action::Attack { value: 4, count: 1 },
            parry: Some(Parry::ParriedLastCards)
        }
    );
    assert_eq!(
        d.end(),
        Some(End::Won {
            winner: 0,
            reason: WinReason::DefenderOutOfCards
        })
    );
}

#[test]
fn the_deck_running_out_is_a_draw() {
    let sorted: Vec<u8> = Deck::sorted().cards().to_vec();
    // Dealing 26 cards: the deck runs out before the second hand is full.
    assert_eq!(duel(&sorted, [20, 6], 0).end(), Some(End::Draw));
    // All 25 dealt: the first player cannot draw back after its move.
    let mut d = duel(&sorted, [13, 12], 0);
    assert_eq!(d.end(), None);
    play(&mut d, &[1]);
    assert_eq!(d.end(), Some(End::Draw));
}

#[test]
fn an_illegal_answer_loses_and_is_recorded_with_its_fault() {
    let mut d = duel(
        &[
            3, 5, 1, 4, 4, 5, 4, 2, 2, 2, 4, 1, 2, 3, 5, 5, 5, 3, 3, 3, 1, 1, 1, 4, 2,
        ],
        [5, 5],
        0,
    );
    assert_eq!(
        play(&mut d, &[3, 3]),
        StepOutcome::Illegal(Illegal::NotHeld(3))
    );
    assert_eq!(
        d.end(),
        Some(End::Won {
            winner: 1,
            reason: WinReason::IllegalAnswer
        })
    );
    assert!(
        d.play(Play::Cards(vec![5])).is_err(),
        "nothing is played after the end"
    );
}
