//! The duel, a card game after "En Garde": two fighters 22 squares apart play cards to move
//! toward each other and attack; see [`engine`] for the rules and [`answer`] for what an answer
//! may be. Pure: the deck comes in as a value.

pub mod answer;
pub mod cards;
pub mod engine;
pub mod tactics;

pub use answer::{Action, Illegal, has_legal_answer, judge, legal_answers};
pub use cards::{DECK_SIZE, Deck, DeckError, Hand};
pub use engine::{
    Duel, DuelOver, End, Parry, Play, START_SQUARES, Silence, Step, StepOutcome, WinReason,
};

use crate::domain::dice::{Dice, Purpose};

/// The deck and first player of duel `duel_id` under the race's `seed`: the deck is shuffled,
/// then the first player is drawn, from the duel's own stream.
pub fn deal_from_seed(seed: u64, duel_id: u32) -> (Deck, usize) {
    let mut dice = Dice::new(seed, Purpose::DuelDeck, 0, duel_id);
    let deck = Deck::shuffled(&mut dice);
    let first = dice.below(2) as usize;
    (deck, first)
}
