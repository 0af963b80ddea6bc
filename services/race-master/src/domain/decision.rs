//! What the master asks a car and what a car answers, as the domain sees them. A question
//! goes out in a `DecisionRequested` event with a deadline; the answer comes back as an input.

use super::car::{CarState, Name};
use super::duel::Parry;
use super::rules::Module;

/// What an earlier answer in a duel did, as both players saw it: the contract's `DuelAction`,
/// the same thing.
pub use arcade_contracts::race::DuelAction as ActionKind;

/// An earlier answer in a duel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    /// Who played.
    pub fighter: usize,
    /// The cards.
    pub cards: Vec<u8>,
    /// What they did.
    pub action: ActionKind,
    /// How an attack was met.
    pub parry: Option<Parry>,
}

/// What a fighter may know on its turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuelView {
    /// The duel.
    pub duel_id: u32,
    /// Which fighter is asked.
    pub you: usize,
    /// Its cards, smallest first.
    pub cards: Vec<u8>,
    /// Squares of fighter 0 and 1.
    pub squares: [u32; 2],
    /// Squares between them.
    pub distance: u32,
    /// Cards in the opponent's hand.
    pub opponent_cards: u32,
    /// Cards left in the deck.
    pub deck_left: u32,
    /// Every answer so far.
    pub history: Vec<HistoryEntry>,
}

/// A question to a car.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Question {
    /// Fight the other car of this combat?
    ShouldFight {
        /// The combat.
        combat_id: u32,
        /// Where.
        square: u32,
        /// The other car.
        opponent: Name,
        /// Its team.
        opponent_team: Name,
        /// Its weapons.
        opponent_weapons: u32,
    },
    /// Cross the mine field?
    CrossMineField,
    /// Explore the wreck?
    ExploreWreck,
    /// Buy at the garage? (prices are the registration prices)
    BuyAtGarage {
        /// The team's money.
        budget: u32,
    },
    /// The next duel answer.
    DuelAnswer(DuelView),
    /// Report your state.
    ReportState,
}

/// A car's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Fight or not.
    ShouldFight(bool),
    /// Cross or go around.
    CrossMineField(bool),
    /// Explore or not.
    ExploreWreck(bool),
    /// A module to buy, or nothing.
    BuyAtGarage(Option<Module>),
    /// Cards played.
    DuelAnswer(Vec<u8>),
    /// The state the car believes it has.
    ReportState(CarState),
}

/// A question's kind, without its details.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// Fight?
    ShouldFight,
    /// Cross?
    CrossMineField,
    /// Explore?
    ExploreWreck,
    /// Buy?
    BuyAtGarage,
    /// Duel answer.
    DuelAnswer,
    /// State report.
    ReportState,
}

impl Asked {
    /// Whether `answer` answers a question of this kind.
    pub fn accepts(self, answer: &Answer) -> bool {
        matches!(
            (self, answer),
            (Asked::ShouldFight, Answer::ShouldFight(_))
                | (Asked::CrossMineField, Answer::CrossMineField(_))
                | (Asked::ExploreWreck, Answer::ExploreWreck(_))
                | (Asked::BuyAtGarage, Answer::BuyAtGarage(_))
                | (Asked::DuelAnswer, Answer::DuelAnswer(_))
                | (Asked::ReportState, Answer::ReportState(_))
        )
    }
}

impl Question {
    /// Its kind.
    pub fn kind(&self) -> Asked {
        match self {
            Question::ShouldFight { .. } => Asked::ShouldFight,
            Question::CrossMineField => Asked::CrossMineField,
            Question::ExploreWreck => Asked::ExploreWreck,
            Question::BuyAtGarage { .. } => Asked::BuyAtGarage,
            Question::DuelAnswer(_) => Asked::DuelAnswer,
            Question::ReportState => Asked::ReportState,
        }
    }
}
