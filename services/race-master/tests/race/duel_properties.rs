//! Properties of every duel, whatever the deck, hands and answers: the 25 cards are always
//! accounted for; nobody passes the opponent; every answer recorded as played was legal; and
//! the duel ends exactly as a separate, plain referee of the rules says.

use arcade_race_master::domain::duel::{
    Action, Deck, Duel, End, Play, Silence, StepOutcome, WinReason, judge, legal_answers,
};
use proptest::prelude::*;

/// What a player does on its turn in a generated duel.
#[derive(Debug, Clone)]
enum Move {
    /// The n-th legal answer (mod their number).
    Legal(usize),
    /// Any cards at all.
    Junk(Vec<u8>),
    /// No answer.
    Silent,
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    let one = prop_oneof![
        8 => any::<usize>().prop_map(Move::Legal),
        1 => prop::collection::vec(0u8..7, 0..5).prop_map(Move::Junk),
        1 => Just(Move::Silent),
    ];
    prop::collection::vec(one, 0..40)
}

fn deck() -> impl Strategy<Value = Vec<u8>> {
    Just(Deck::sorted().cards().to_vec()).prop_shuffle()
}

/// A plain referee: hands as lists, the rules read literally.
#[derive(Debug, Clone)]
struct Referee {
    deck: Vec<u8>,
    hands: [Vec<u8>; 2],
    weapons: [u32; 2],
    squares: [u32; 2],
    to_play: usize,
    end: Option<End>,
}

fn take(hand: &mut Vec<u8>, card: u8) -> bool {
    match hand.iter().position(|&c| c == card) {
        Some(i) => {
            hand.remove(i);
            true
        }
        None => false,
    }
}

impl Referee {
    fn new(order: &[u8], weapons: [u32; 2], first: usize) -> Referee {
        let mut r = Referee {
            deck: order.to_vec(),
            hands: [vec![], vec![]],
            weapons,
            squares: [1, 23],
            to_play: first,
            end: None,
        };
        for f in [first, 1 - first] {
            if !r.refill(f) {
                r.end = Some(End::Draw);
                return r;
            }
        }
        r.check();
        r
    }

    fn refill(&mut self, f: usize) -> bool {
        while (self.hands[f].len() as u32) < self.weapons[f] {
            if self.deck.is_empty() {
                return false;
            }
            let card = self.deck.remove(0);
            self.hands[f].push(card);
        }
        true
    }

    fn check(&mut self) {
        let d = self.squares[1] - self.squares[0];
        if !self.hands[self.to_play].iter().any(|&c| u32::from(c) <= d) {
            self.end = Some(End::Won {
                winner: 1 - self.to_play,
                reason: WinReason::NoLegalAnswer,
            });
        }
    }

    fn play(&mut self, play: &Play) {
        let me = self.to_play;
        let other = 1 - me;
        let cards = match play {
            Play::Silent(Silence::NoAnswer) => {
                self.end = Some(End::Won {
                    winner: other,
                    reason: WinReason::NoAnswer,
                });
                return;
            }
            Play::Silent(Silence::WrongAnswer) => {
                self.end = Some(End::Won {
                    winner: other,
                    reason: WinReason::WrongAnswer,
                });
                return;
            }
            Play::Cards(cards) => cards.clone(),
        };
        let d = self.squares[1] - self.squares[0];
        let mut hand = self.hands[me].clone();
        let held = cards.iter().all(|&c| take(&mut hand, c));
        // The three forms: [v]; [v, v, ...]; [m, v, v, ...] with m != v.
        let (step, attack) = match cards.as_slice() {
            [v] if u32::from(*v) < d => (u32::from(*v), None),
            [v] if u32::from(*v) == d => (0, Some((*v, 1))),
            [v, rest @ ..]
                if !rest.is_empty() && rest.iter().all(|c| c == v) && u32::from(*v) == d =>
            {
                (0, Some((*v, cards.len())))
            }
            [m, v, rest @ ..]
                if m != v
                    && rest.iter().all(|c| c == v)
                    && u32::from(*m) < d
                    && u32::from(*v) == d - u32::from(*m) =>
            {
                (u32::from(*m), Some((*v, cards.len() - 1)))
            }
            _ => (u32::MAX, None),
        };
        let legal = held && step != u32::MAX && cards.iter().all(|c| (1..=5).contains(c));
        if !legal {
            self.end = Some(End::Won {
                winner: other,
                reason: WinReason::IllegalAnswer,
            });
            return;
        }
        self.hands[me] = hand;
        if me == 0 {
            self.squares[0] += step
        } else {
            self.squares[1] -= step
        }
        if let Some((v, n)) = attack {
            let mut defence = self.hands[other].clone();
            if !(0..n).all(|_| take(&mut defence, v)) {
                self.end = Some(End::Won {
                    winner: me,
                    reason: WinReason::Hit,
                });
                return;
            }
            self.hands[other] = defence;
            if self.hands[other].is_empty() {
                self.end = Some(End::Won {
                    winner: me,
                    reason: WinReason::DefenderOutOfCards,
                });
                return;
            }
        }
        if !self.refill(me) {
            self.end = Some(End::Draw);
            return;
        }
        self.to_play = other;
        self.check();
    }
}

fn sorted(mut cards: Vec<u8>) -> Vec<u8> {
    cards.sort_unstable();
    cards
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn duels_keep_the_rules(order in deck(), w0 in 0u32..14, w1 in 0u32..14, first in 0usize..2, script in moves()) {
        let mut duel = Duel::new(Deck::from_order(&order).unwrap(), [w0, w1], first);
        let mut referee = Referee::new(&order, [w0, w1], first);
        prop_assert_eq!(duel.end(), referee.end);
        for next in script {
            if duel.end().is_some() {
                break;
            }
            let me = duel.to_play();
            let (hand, distance) = (*duel.hand(me), duel.distance());
            let play = match next {
                Move::Legal(n) => {
                    let answers = legal_answers(&hand, distance);
                    Play::Cards(answers[n % answers.len()].cards())
                }
                Move::Junk(cards) => Play::Cards(cards),
                Move::Silent => Play::Silent(Silence::NoAnswer),
            };
            let step = duel.play(play.clone()).unwrap().clone();
            referee.play(&play);

            // Every answer recorded as played was legal, and is what judging it says.
            if let (Play::Cards(cards), StepOutcome::Played { action, .. }) = (&step.play, step.outcome) {
                prop_assert_eq!(judge(cards, &hand, distance), Ok(action));
                prop_assert!(legal_answers(&hand, distance).contains(&action));
                prop_assert_eq!(action.cards(), cards.clone());
            }
            if let StepOutcome::Illegal(_) = step.outcome {
                prop_assert!(judge(step_cards(&step.play), &hand, distance).is_err());
            }
            // Nobody passes (or stands on) the opponent.
            prop_assert!(duel.squares()[0] < duel.squares()[1]);
            prop_assert_eq!(duel.squares(), referee.squares);
            // 25 cards: deck, hands and discards hold five of each value.
            let mut all: Vec<u8> = duel.deck_left().to_vec();
            all.extend(duel.hand(0).cards());
            all.extend(duel.hand(1).cards());
            all.extend(duel.discarded().cards());
            prop_assert_eq!(sorted(all), Deck::sorted().cards().to_vec());
            // The plain referee agrees on hands and on how and whether it ended.
            prop_assert_eq!(duel.end(), referee.end);
            if duel.end().is_none() {
                prop_assert_eq!(duel.hand(0).cards(), sorted(referee.hands[0].clone()));
                prop_assert_eq!(duel.hand(1).cards(), sorted(referee.hands[1].clone()));
                prop_assert_eq!(duel.to_play(), referee.to_play);
            }
        }
    }

    #[test]
    fn a_hand_dealt_is_the_deck_s_top_first_player_first(order in deck(), w0 in 0u32..8, w1 in 0u32..8, first in 0usize..2) {
        let duel = Duel::new(Deck::from_order(&order).unwrap(), [w0, w1], first);
        let weapons = [w0 as usize, w1 as usize];
        let (a, b) = (first, 1 - first);
        prop_assert_eq!(&duel.dealt()[a][..], &order[..weapons[a]]);
        prop_assert_eq!(&duel.dealt()[b][..], &order[weapons[a]..weapons[a] + weapons[b]]);
    }
}

fn step_cards(play: &Play) -> &[u8] {
    match play {
        Play::Cards(cards) => cards,
        Play::Silent(_) => &[],
    }
}

#[test]
fn every_action_form_is_reachable() {
    // Sanity of the generator's oracle: the three forms exist among legal answers.
    let hand = arcade_race_master::domain::duel::Hand::of(&[1, 4, 4, 4, 2]);
    let answers = legal_answers(&hand, 5);
    assert!(answers.contains(&Action::Move(1)));
    assert!(answers.contains(&Action::MoveAttack {
        step: 1,
        value: 4,
        count: 3
    }));
    assert!(legal_answers(&hand, 4).contains(&Action::Attack { value: 4, count: 3 }));
}
