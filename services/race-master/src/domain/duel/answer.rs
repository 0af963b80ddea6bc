//! Judging a duel answer. An answer is a list of cards the player holds:
//!
//! - `[v]` moves v squares if v is below the distance, attacks with one card if v equals it,
//!   and is illegal if v is greater (the player would pass the opponent);
//! - `[v, v, …]` (one value, two or more cards) attacks with all of them: v must equal the
//!   distance;
//! - `[m, v, v, …]` (the move card first and only once, then one other value) moves m (below
//!   the distance), then attacks with the rest at the new distance, which must equal v.
//!
//! Anything else, or a card not held, is illegal.

use std::fmt;

use arcade_contracts::race::{IllegalAnswer, IllegalReason};

use super::cards::{DECK_SIZE, Hand, MAX_CARD};

/// What a legal answer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Move this many squares.
    Move(u8),
    /// Attack with `count` cards of `value` (the distance).
    Attack {
        /// The cards' value.
        value: u8,
        /// How many.
        count: u8,
    },
    /// Move `step` squares, then attack with `count` cards of `value` (the new distance).
    MoveAttack {
        /// The move card.
        step: u8,
        /// The attack cards' value.
        value: u8,
        /// How many attack cards.
        count: u8,
    },
}

impl Action {
    /// Squares moved.
    pub fn moved(&self) -> u8 {
        match *self {
            Action::Move(step) | Action::MoveAttack { step, .. } => step,
            Action::Attack { .. } => 0,
        }
    }

    /// The attack, as (value, count).
    pub fn attack(&self) -> Option<(u8, u8)> {
        match *self {
            Action::Move(_) => None,
            Action::Attack { value, count } | Action::MoveAttack { value, count, .. } => {
                Some((value, count))
            }
        }
    }

    /// The answer that plays this action.
    pub fn cards(&self) -> Vec<u8> {
        match *self {
            Action::Move(step) => vec![step],
            Action::Attack { value, count } => vec![value; usize::from(count)],
            Action::MoveAttack { step, value, count } => {
                let mut cards = vec![step];
                cards.extend(std::iter::repeat_n(value, usize::from(count)));
                cards
            }
        }
    }
}

/// Why an answer is illegal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Illegal {
    /// No card.
    Empty,
    /// Not a card value (1 to 5).
    NotACard(u8),
    /// More copies of this value than held.
    NotHeld(u8),
    /// A single card above the distance, or a move card not below it.
    TooFar {
        /// The card.
        card: u8,
        /// The distance.
        distance: u32,
    },
    /// Attack cards whose value is not the distance.
    OutOfReach {
        /// The attack value.
        value: u8,
        /// The distance at the attack.
        distance: u32,
    },
    /// Not one of the three forms.
    BadShape,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::Empty => write!(f, "no card played"),
            Illegal::NotACard(card) => write!(f, "{card} is not a card (cards are 1 to 5)"),
            Illegal::NotHeld(card) => write!(f, "plays more {card}s than held"),
            Illegal::TooFar { card, distance } => {
                write!(f, "a {card} would pass the opponent at distance {distance}")
            }
            Illegal::OutOfReach { value, distance } => {
                write!(f, "attacks with {value}s at distance {distance}")
            }
            Illegal::BadShape => write!(f, "not [v], [v, v, ...] or [m, v, ...]"),
        }
    }
}

impl Illegal {
    /// The fault as `race.duel.played.v1` tells it.
    pub fn fault(self) -> IllegalAnswer {
        let (reason, card, distance) = match self {
            Illegal::Empty => (IllegalReason::Empty, None, None),
            Illegal::NotACard(card) => (IllegalReason::NotACard, Some(card), None),
            Illegal::NotHeld(card) => (IllegalReason::NotHeld, Some(card), None),
            Illegal::TooFar { card, distance } => {
                (IllegalReason::TooFar, Some(card), Some(distance))
            }
            Illegal::OutOfReach { value, distance } => {
                (IllegalReason::OutOfReach, Some(value), Some(distance))
            }
            Illegal::BadShape => (IllegalReason::BadShape, None, None),
        };
        IllegalAnswer {
            reason,
            card,
            distance,
        }
    }
}

/// Judges `cards` played from `hand` at `distance`.
pub fn judge(cards: &[u8], hand: &Hand, distance: u32) -> Result<Action, Illegal> {
    let (&first, rest) = cards.split_first().ok_or(Illegal::Empty)?;
    if let Some(&card) = cards.iter().find(|&&c| c == 0 || c > MAX_CARD) {
        return Err(Illegal::NotACard(card));
    }
    if cards.len() > DECK_SIZE {
        // There are only 25 cards: nobody holds that many.
        return Err(Illegal::NotHeld(first));
    }
    let mut needed = Hand::default();
    for &card in cards {
        needed.add(card);
    }
    if let Some(card) = (1..=MAX_CARD).find(|&v| needed.count(v) > hand.count(v)) {
        return Err(Illegal::NotHeld(card));
    }
    let count = u8::try_from(rest.len()).map_err(|_| Illegal::BadShape)?;
    if rest.is_empty() {
        return match u32::from(first).cmp(&distance) {
            std::cmp::Ordering::Less => Ok(Action::Move(first)),
            std::cmp::Ordering::Equal => Ok(Action::Attack {
                value: first,
                count: 1,
            }),
            std::cmp::Ordering::Greater => Err(Illegal::TooFar {
                card: first,
                distance,
            }),
        };
    }
    if rest.iter().all(|&c| c == first) {
        if u32::from(first) != distance {
            return Err(Illegal::OutOfReach {
                value: first,
                distance,
            });
        }
        return Ok(Action::Attack {
            value: first,
            count: count + 1,
        });
    }
    let value = rest[0];
    if rest.iter().any(|&c| c != value) {
        return Err(Illegal::BadShape);
    }
    if u32::from(first) >= distance {
        return Err(Illegal::TooFar {
            card: first,
            distance,
        });
    }
    let left = distance - u32::from(first);
    if u32::from(value) != left {
        return Err(Illegal::OutOfReach {
            value,
            distance: left,
        });
    }
    Ok(Action::MoveAttack {
        step: first,
        value,
        count,
    })
}

/// Whether any legal answer exists: any card not above the distance moves or attacks.
pub fn has_legal_answer(hand: &Hand, distance: u32) -> bool {
    hand.smallest()
        .is_some_and(|card| u32::from(card) <= distance)
}

/// Every legal answer, each once: moves, attacks with 1 to all copies, moves then attacks.
pub fn legal_answers(hand: &Hand, distance: u32) -> Vec<Action> {
    let mut answers = Vec::new();
    for step in 1..=MAX_CARD {
        if hand.count(step) == 0 {
            continue;
        }
        let step32 = u32::from(step);
        if step32 < distance {
            answers.push(Action::Move(step));
            let left = distance - step32;
            if let Ok(value) = u8::try_from(left)
                && value != step
                && value <= MAX_CARD
            {
                for count in 1..=hand.count(value) {
                    answers.push(Action::MoveAttack { step, value, count });
                }
            }
        } else if step32 == distance {
            for count in 1..=hand.count(step) {
                answers.push(Action::Attack { value: step, count });
            }
        }
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_and_their_faults() {
        let hand = Hand::of(&[1, 2, 2, 4, 4, 4]);
        assert_eq!(judge(&[2], &hand, 5), Ok(Action::Move(2)));
        assert_eq!(
            judge(&[4], &hand, 4),
            Ok(Action::Attack { value: 4, count: 1 })
        );
        assert_eq!(
            judge(&[4], &hand, 3),
            Err(Illegal::TooFar {
                card: 4,
                distance: 3
            })
        );
        assert_eq!(
            judge(&[4, 4, 4], &hand, 4),
            Ok(Action::Attack { value: 4, count: 3 })
        );
        assert_eq!(
            judge(&[2, 2], &hand, 4),
            Err(Illegal::OutOfReach {
                value: 2,
                distance: 4
            })
        );
        assert_eq!(
            judge(&[1, 4, 4, 4], &hand, 5),
            Ok(Action::MoveAttack {
                step: 1,
                value: 4,
                count: 3
            })
        );
        assert_eq!(judge(&[1, 4, 2], &hand, 5), Err(Illegal::BadShape));
        assert_eq!(judge(&[1, 2, 1], &hand, 3), Err(Illegal::NotHeld(1)));
        assert_eq!(judge(&[2, 4, 2], &hand, 6), Err(Illegal::BadShape));
        assert_eq!(judge(&[3], &hand, 5), Err(Illegal::NotHeld(3)));
        assert_eq!(judge(&[6], &hand, 9), Err(Illegal::NotACard(6)));
        assert_eq!(judge(&[], &hand, 9), Err(Illegal::Empty));
        assert_eq!(
            judge(&[4, 1], &hand, 4),
            Err(Illegal::TooFar {
                card: 4,
                distance: 4
            })
        );
    }

    #[test]
    fn every_listed_answer_is_legal_and_none_is_missing() {
        let hand = Hand::of(&[1, 2, 2, 3, 5]);
        for distance in 1..=12 {
            let listed = legal_answers(&hand, distance);
            for action in &listed {
                assert_eq!(judge(&action.cards(), &hand, distance), Ok(*action));
            }
            assert_eq!(!listed.is_empty(), has_legal_answer(&hand, distance));
        }
        assert!(!has_legal_answer(&Hand::of(&[5]), 2));
    }
}
