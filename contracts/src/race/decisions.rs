//! The conversation between the master and the cars: a question to a team's car with a
//! deadline (`race.decision.requested.v1`, sent to the team's queue), the car's answer
//! (`race.decision.made.v1`, sent to the master's queue), and the master's record of how the
//! question was closed (`race.decision.closed.v1`, public).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DuelAction, ModuleKind, Modules, ParryOutcome, RACE_MASTER_QUEUE, team_queue};
use crate::Route;

/// The other car in a combat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Opponent {
    /// The combat.
    pub combat_id: u32,
    /// The square of the ring where the cars meet, 0 to 299.
    pub square: u32,
    /// The other car.
    pub car: String,
    /// Its team.
    pub team: String,
    /// Its weapons.
    pub weapons: u32,
}

/// The garage's prices and the team's money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GaragePrices {
    /// Price of a pilot module, in dollars.
    pub pilot: u32,
    /// Price of an engine module, in dollars.
    pub engine: u32,
    /// Price of a weapon module, in dollars.
    pub weapon: u32,
    /// The team's budget, in dollars.
    pub budget: u32,
}

/// An earlier answer in the duel, as both players saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuelHistoryEntry {
    /// Who played: fighter 0 or 1.
    #[schemars(range(max = 1))]
    pub fighter: u8,
    /// The cards played.
    pub cards: Vec<u8>,
    /// What they did.
    pub action: DuelAction,
    /// How an attack was met.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parry: Option<ParryOutcome>,
}

/// Everything a fighter may know when it must answer in a duel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuelQuestion {
    /// The duel.
    pub duel_id: u32,
    /// Which fighter you are: 0 (started on square 1, moves up) or 1 (square 23, moves down).
    #[schemars(range(max = 1))]
    pub you: u8,
    /// Your cards.
    #[schemars(inner(range(min = 1, max = 5)))]
    pub cards: Vec<u8>,
    /// Squares of fighter 0 and fighter 1.
    #[schemars(length(equal = 2))]
    pub squares: Vec<u32>,
    /// Squares between you.
    pub distance: u32,
    /// Cards in the opponent's hand.
    pub opponent_cards: u32,
    /// Cards left in the deck.
    pub deck_left: u32,
    /// The answers played so far, in order.
    pub history: Vec<DuelHistoryEntry>,
}

/// What the master asks a car.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Question {
    /// Another team's car is on your square: do you want to fight?
    ShouldFight(Opponent),
    /// A mine field: cross it (risking a module) or go around (3 turns to miss)?
    CrossMineField,
    /// A wreck: explore it (1 turn to miss, maybe a module)?
    ExploreWreck,
    /// A garage: buy a module (the car loses one square)?
    BuyAtGarage(GaragePrices),
    /// Your turn in a duel: which cards do you play?
    DuelAnswer(DuelQuestion),
    /// Report your state (square and modules) as you know it.
    ReportState,
}

/// A car's answer; its kind must be the question's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Answer {
    /// To `shouldFight`.
    ShouldFight {
        /// Whether the car wants to fight.
        fight: bool,
    },
    /// To `crossMineField`.
    CrossMineField {
        /// Whether the car crosses.
        cross: bool,
    },
    /// To `exploreWreck`.
    ExploreWreck {
        /// Whether the car explores.
        explore: bool,
    },
    /// To `buyAtGarage`.
    BuyAtGarage {
        /// The module to buy; absent: nothing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        module: Option<ModuleKind>,
    },
    /// To `duelAnswer`: `[v]` moves v (or attacks when v is the distance), `[v, v, ...]`
    /// attacks, `[m, v, ...]` moves m then attacks with the rest. Anything else loses.
    DuelAnswer {
        /// The cards played, in order.
        cards: Vec<u8>,
    },
    /// To `reportState`.
    ReportState {
        /// The square the car believes it stands on.
        square: u32,
        /// The modules the car believes it has.
        modules: Modules,
    },
}

/// `race.decision.requested.v1`: the master asks a team's car something. Sent to the team's
/// queue `race.team.<team>`; answer with `race.decision.made.v1` before `deadlineMs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "The race master asks a team's car something.")]
pub struct DecisionRequested {
    /// The decision, numbered from 1 in the race: quote it in the answer.
    #[schemars(range(min = 1))]
    pub decision_id: u64,
    /// The team.
    pub team: String,
    /// The car asked.
    pub car: String,
    /// The turn.
    pub turn: u32,
    /// The answer must arrive before this time, in milliseconds since the epoch.
    pub deadline_ms: u64,
    /// The question.
    pub question: Question,
}

/// `race.decision.made.v1`: a car answers a decision request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "A car answers the race master.")]
pub struct DecisionMade {
    /// The decision answered.
    #[schemars(range(min = 1))]
    pub decision_id: u64,
    /// The car's team.
    #[schemars(length(min = 1, max = 32), pattern(super::NAME_PATTERN))]
    pub team: String,
    /// The car.
    #[schemars(length(min = 1, max = 32), pattern(super::NAME_PATTERN))]
    pub car: String,
    /// The answer.
    pub answer: Answer,
}

/// How a decision was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DecisionClosure {
    /// Answered in time with an answer of the question's kind.
    Answered,
    /// Answered in time, but to another question.
    WrongAnswer,
    /// Not answered before the deadline.
    NoAnswer,
}

/// `race.decision.closed.v1`: the master's record of a decision: answered, answered wrongly,
/// or not answered in time. Its consequences follow in other facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A decision request was closed.")]
pub struct DecisionClosed {
    /// The decision.
    pub decision_id: u64,
    /// The team.
    pub team: String,
    /// The car.
    pub car: String,
    /// How it was closed.
    pub closure: DecisionClosure,
    /// The answer received, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

messages! {
    Command DecisionRequested: "race.decision.requested.v1"
        to |m| Route::Queue(team_queue(&m.team)) => DecisionRequested {
        decision_id: 41,
        team: "red-baron".into(),
        car: "red-baron-1".into(),
        turn: 3,
        deadline_ms: 1_767_225_625_000,
        question: Question::DuelAnswer(DuelQuestion {
            duel_id: 9,
            you: 0,
            cards: vec![5, 2, 2, 4],
            squares: vec![1, 18],
            distance: 17,
            opponent_cards: 5,
            deck_left: 15,
            history: vec![DuelHistoryEntry {
                fighter: 1,
                cards: vec![5],
                action: DuelAction::Move,
                parry: None,
            }],
        }),
    };
    Command DecisionMade: "race.decision.made.v1"
        to |_| Route::Queue(RACE_MASTER_QUEUE.into()) => DecisionMade {
        decision_id: 41,
        team: "red-baron".into(),
        car: "red-baron-1".into(),
        answer: Answer::DuelAnswer { cards: vec![5] },
    };
    Event DecisionClosed: "race.decision.closed.v1" => DecisionClosed {
        decision_id: 41,
        team: "red-baron".into(),
        car: "red-baron-1".into(),
        closure: DecisionClosure::Answered,
        answer: Some(Answer::DuelAnswer { cards: vec![5] }),
    };
}
