//! The duel's cards: the 25-card deck (five each of 1 to 5) in a checked order, and a hand
//! kept as counts per value.

use std::fmt;

use crate::domain::dice::Dice;

/// Cards in the deck.
pub const DECK_SIZE: usize = 25;
/// Highest card value (cards are 1 to 5).
pub const MAX_CARD: u8 = 5;
/// Copies of each value.
pub const COPIES: u8 = 5;

/// A deck order that is not five each of 1 to 5.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a duel deck holds five each of 1 to 5, got {found:?}")]
pub struct DeckError {
    /// The order given.
    pub found: Vec<u8>,
}

/// The deck's order, top first: always a permutation of five each of 1 to 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deck([u8; DECK_SIZE]);

impl Deck {
    /// The sorted deck: 1,1,1,1,1,2,…,5.
    pub fn sorted() -> Deck {
        let mut cards = [0u8; DECK_SIZE];
        for (i, card) in cards.iter_mut().enumerate() {
            *card = (i / usize::from(COPIES)) as u8 + 1;
        }
        Deck(cards)
    }

    /// The sorted deck shuffled with `dice`.
    pub fn shuffled(dice: &mut Dice) -> Deck {
        let mut deck = Deck::sorted();
        dice.shuffle(&mut deck.0);
        deck
    }

    /// A given order, checked.
    pub fn from_order(order: &[u8]) -> Result<Deck, DeckError> {
        let error = || DeckError {
            found: order.to_vec(),
        };
        let cards: [u8; DECK_SIZE] = order.try_into().map_err(|_| error())?;
        let mut counts = [0u8; MAX_CARD as usize + 1];
        for &card in &cards {
            if card == 0 || card > MAX_CARD {
                return Err(error());
            }
            counts[usize::from(card)] += 1;
        }
        if counts[1..].iter().all(|&c| c == COPIES) {
            Ok(Deck(cards))
        } else {
            Err(error())
        }
    }

    /// The cards, top first.
    pub fn cards(&self) -> &[u8; DECK_SIZE] {
        &self.0
    }
}

/// A hand: how many cards of each value.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Hand([u8; MAX_CARD as usize + 1]);

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.cards()).finish()
    }
}

impl Hand {
    /// A hand of these cards (values outside 1 to 5 are ignored).
    pub fn of(cards: &[u8]) -> Hand {
        let mut hand = Hand::default();
        for &card in cards {
            hand.add(card);
        }
        hand
    }

    /// Copies of `value` held (0 for a value that is not a card).
    pub fn count(&self, value: u8) -> u8 {
        if (1..=MAX_CARD).contains(&value) {
            self.0[usize::from(value)]
        } else {
            0
        }
    }

    /// Cards held.
    pub fn len(&self) -> u32 {
        self.0.iter().map(|&c| u32::from(c)).sum()
    }

    /// Whether no card is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds a card (a value outside 1 to 5 is ignored).
    pub fn add(&mut self, value: u8) {
        if (1..=MAX_CARD).contains(&value) {
            let slot = &mut self.0[usize::from(value)];
            *slot = slot.saturating_add(1);
        }
    }

    /// Takes `copies` cards of `value`; false (and nothing taken) if fewer are held.
    pub fn take(&mut self, value: u8, copies: u8) -> bool {
        if self.count(value) < copies {
            return false;
        }
        self.0[usize::from(value)] -= copies;
        true
    }

    /// The cards, smallest first.
    pub fn cards(&self) -> Vec<u8> {
        (1..=MAX_CARD)
            .flat_map(|value| std::iter::repeat_n(value, usize::from(self.count(value))))
            .collect()
    }

    /// The smallest card held.
    pub fn smallest(&self) -> Option<u8> {
        (1..=MAX_CARD).find(|&v| self.count(v) > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::dice::Purpose;

    #[test]
    fn a_shuffled_deck_is_five_of_each() {
        let deck = Deck::shuffled(&mut Dice::new(3, Purpose::DuelDeck, 0, 1));
        assert!(Deck::from_order(deck.cards()).is_ok());
        assert_ne!(deck, Deck::sorted());
    }

    #[test]
    fn an_order_with_a_sixth_five_is_refused() {
        let mut order = Deck::sorted().cards().to_vec();
        order[0] = 5;
        assert!(Deck::from_order(&order).is_err());
        assert!(Deck::from_order(&order[..24]).is_err());
    }
}
