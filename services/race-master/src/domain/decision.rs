//! What the master asks a car and what a car answers: the contract's `Question` and `Answer`,
//! the same things. A question goes out in a `DecisionRequested` event with a deadline; the
//! answer comes back as an input.

pub use arcade_contracts::race::{
    Answer, DuelAction as ActionKind, DuelHistoryEntry as HistoryEntry, DuelQuestion as DuelView,
    GaragePrices, Opponent, Question,
};

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
    /// The kind of `question`.
    pub fn of(question: &Question) -> Asked {
        match question {
            Question::ShouldFight(_) => Asked::ShouldFight,
            Question::CrossMineField => Asked::CrossMineField,
            Question::ExploreWreck => Asked::ExploreWreck,
            Question::BuyAtGarage(_) => Asked::BuyAtGarage,
            Question::DuelAnswer(_) => Asked::DuelAnswer,
            Question::ReportState => Asked::ReportState,
        }
    }

    /// Whether `answer` answers a question of this kind.
    pub fn accepts(self, answer: &Answer) -> bool {
        matches!(
            (self, answer),
            (Asked::ShouldFight, Answer::ShouldFight { .. })
                | (Asked::CrossMineField, Answer::CrossMineField { .. })
                | (Asked::ExploreWreck, Answer::ExploreWreck { .. })
                | (Asked::BuyAtGarage, Answer::BuyAtGarage { .. })
                | (Asked::DuelAnswer, Answer::DuelAnswer { .. })
                | (Asked::ReportState, Answer::ReportState { .. })
        )
    }
}
