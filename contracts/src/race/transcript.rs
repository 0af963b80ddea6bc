//! `race.duel.resolved.v1`: a finished duel's whole transcript — the deck's order, the first
//! player, the hands dealt, every answer with what it did and the cards drawn, and the end.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fights::{
    DuelAction, DuelAnswer, DuelFighter, DuelStarted, IllegalAnswer, IllegalReason,
};

/// One answer in a duel's transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuelStep {
    /// The answer.
    #[serde(flatten)]
    pub answer: DuelAnswer,
    /// The cards the player drew at the end of its turn, in order.
    pub drawn: Vec<u8>,
}

/// Why a duel ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DuelReason {
    /// The defender could not parry.
    Hit,
    /// The defender parried with its last cards and could not play.
    DefenderOutOfCards,
    /// The loser played an illegal answer.
    IllegalAnswer,
    /// The loser had no legal answer on its turn.
    NoLegalAnswer,
    /// The loser did not answer in time.
    NoAnswer,
    /// The loser answered another question.
    WrongAnswer,
    /// The deck ran out while a player had to draw (or be dealt): a draw.
    DeckExhausted,
}

/// `race.duel.resolved.v1`: a duel is over, with its whole transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A duel is over, with its whole transcript.")]
pub struct DuelResolved {
    /// The duel.
    pub duel_id: u32,
    /// The combat it settles; absent against pirates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combat_id: Option<u32>,
    /// Fighter 0 (square 1) and fighter 1 (square 23), with their weapons.
    #[schemars(length(equal = 2))]
    pub fighters: Vec<DuelFighter>,
    /// The deck's order after shuffling, top first: 25 cards, five each of 1 to 5.
    #[schemars(length(equal = 25), inner(range(min = 1, max = 5)))]
    pub deck: Vec<u8>,
    /// Who played first (and was dealt first).
    #[schemars(range(max = 1))]
    pub first_player: u8,
    /// The hands dealt to fighter 0 and fighter 1.
    #[schemars(length(equal = 2))]
    pub hands: Vec<Vec<u8>>,
    /// Every answer, in order.
    pub steps: Vec<DuelStep>,
    /// The winner, fighter 0 or 1; absent for a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1))]
    pub winner: Option<u8>,
    /// Why it ended.
    pub reason: DuelReason,
}

messages! {
    Event DuelResolved: "race.duel.resolved.v1" => {
        let DuelStarted { fighters, .. } = DuelStarted::example();
        DuelResolved {
            duel_id: 9,
            combat_id: Some(7),
            fighters,
            deck: vec![
                4, 5, 1, 3, 2, 5, 5, 2, 2, 4, 1, 3, 5, 4, 1, 1, 2, 3, 3, 4, 1, 2, 3, 4, 5,
            ],
            first_player: 1,
            hands: vec![vec![5, 5, 2, 2], vec![4, 5, 1, 3, 2]],
            steps: vec![DuelStep {
                answer: DuelAnswer {
                    fighter: 1,
                    cards: vec![6],
                    silence: None,
                    action: DuelAction::Illegal,
                    illegal: Some(IllegalAnswer {
                        reason: IllegalReason::NotACard,
                        card: Some(6),
                        distance: None,
                    }),
                    moved: 0,
                    attack_value: None,
                    attack_cards: 0,
                    parry: None,
                    squares: vec![1, 23],
                },
                drawn: vec![],
            }],
            winner: Some(0),
            reason: DuelReason::IllegalAnswer,
        }
    };
}
