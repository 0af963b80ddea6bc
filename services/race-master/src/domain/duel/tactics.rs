//! Built-in ways to pick a duel answer from what a fighter may know: its hand, the distance,
//! the cards seen out of play, the opponent's hand size. The pirates fight `Aggressive`; the
//! built-in cars use these too.

use super::answer::{Action, legal_answers};
use super::cards::{COPIES, Hand};

/// How a built-in fighter plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Attacks only when sure (or with several cards), keeps out of reach otherwise.
    Cautious,
    /// Attacks whenever it can, with as many cards as it can; otherwise closes in fast.
    Aggressive,
}

/// Whether an attack of `count` cards of `value` cannot be parried: the opponent holds fewer
/// cards, or fewer copies of the value are unaccounted for.
pub fn sure_hit(value: u8, count: u8, hand: &Hand, seen: &Hand, opponent_cards: u32) -> bool {
    let unaccounted = COPIES
        .saturating_sub(hand.count(value))
        .saturating_sub(seen.count(value));
    u32::from(count) > opponent_cards || count > unaccounted
}

/// The answer of a built-in fighter; `None` when there is no legal answer.
pub fn choose(
    style: Style,
    hand: &Hand,
    distance: u32,
    seen: &Hand,
    opponent_cards: u32,
) -> Option<Action> {
    let answers = legal_answers(hand, distance);
    let attacks = answers
        .iter()
        .filter_map(|a| a.attack().map(|(v, c)| (*a, v, c)));
    let sure = attacks
        .clone()
        .filter(|&(_, v, c)| sure_hit(v, c, hand, seen, opponent_cards))
        .max_by_key(|&(_, _, c)| c);
    if let Some((action, _, _)) = sure {
        return Some(action);
    }
    let best_attack = attacks.max_by_key(|&(_, _, c)| c).map(|(a, _, _)| a);
    let moves = answers.iter().filter_map(|a| match a {
        Action::Move(m) => Some(*m),
        _ => None,
    });
    match style {
        Style::Aggressive => best_attack.or_else(|| moves.max().map(Action::Move)),
        Style::Cautious => {
            let out_of_reach = moves.clone().filter(|&m| distance - u32::from(m) > 5).min();
            out_of_reach
                .map(Action::Move)
                .or_else(|| {
                    answers
                        .iter()
                        .copied()
                        .find(|a| a.attack().is_some_and(|(_, c)| c >= 2))
                })
                .or_else(|| moves.min().map(Action::Move))
                .or(best_attack)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attack_the_opponent_cannot_parry_is_taken() {
        // Three 4s in hand, one seen: only one 4 can be with the opponent.
        let hand = Hand::of(&[1, 4, 4, 4]);
        let seen = Hand::of(&[4]);
        let action = choose(Style::Cautious, &hand, 5, &seen, 5);
        assert_eq!(
            action,
            Some(Action::MoveAttack {
                step: 1,
                value: 4,
                count: 3
            })
        );
    }

    #[test]
    fn cautious_keeps_out_of_reach_and_aggressive_closes_in() {
        let hand = Hand::of(&[1, 3, 5]);
        let seen = Hand::default();
        assert_eq!(
            choose(Style::Cautious, &hand, 12, &seen, 5),
            Some(Action::Move(1))
        );
        assert_eq!(
            choose(Style::Aggressive, &hand, 12, &seen, 5),
            Some(Action::Move(5))
        );
        assert_eq!(
            choose(Style::Aggressive, &Hand::of(&[5]), 2, &seen, 5),
            None
        );
    }
}
