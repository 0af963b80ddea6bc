//! Facts about fights: two cars of different teams paired on a square, the duel (started, each
//! answer played, the whole transcript at the end) and how the combat ended.
//!
//! The duel: 25 cards (five each of 1 to 5) shuffled from the race's seed; fighter 0 starts on
//! square 1, fighter 1 on square 23; each is dealt as many cards as it has weapons, the first
//! player's hand first, from the top.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One side of a combat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuelFighter {
    /// The car; absent for the pirates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub car: Option<String>,
    /// Its team (`pirates` for the pirates).
    pub team: String,
    /// Its weapons: the size of its hand.
    pub weapons: u32,
}

/// `race.combat.paired.v1`: two cars of different teams on the same square of the ring (their
/// distances modulo 300 are equal: a car a lap ahead meets one a lap behind) will be asked
/// whether they fight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "Two cars of different teams meet on a square.")]
pub struct CombatPaired {
    /// The combat, numbered from 1 in the race.
    #[schemars(range(min = 1))]
    pub combat_id: u32,
    /// The turn.
    pub turn: u32,
    /// The square of the ring where they meet, 0 to 299.
    pub square: u32,
    /// The two cars (fighter 0 and fighter 1 if they duel).
    #[schemars(length(equal = 2))]
    pub fighters: Vec<DuelFighter>,
}

/// How a combat between two cars ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum CombatOutcome {
    /// Neither car wanted to fight.
    Declined,
    /// A car with no weapon was destroyed (both, if neither had one).
    Destroyed,
    /// A duel had a winner.
    Won,
    /// The duel was a draw: both cars leave unharmed.
    Drawn,
}

/// `race.combat.resolved.v1`: a combat between two cars is over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A combat between two cars is over.")]
pub struct CombatResolved {
    /// The combat.
    pub combat_id: u32,
    /// How it ended.
    pub outcome: CombatOutcome,
    /// The car that won (a duel, or against a car with no weapon).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// The car that lost a duel: it lost a random module and misses turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loser: Option<String>,
    /// Turns to miss given to the loser.
    pub loser_turns_to_miss: u32,
    /// The duel, if one was fought.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duel_id: Option<u32>,
}

/// `race.duel.started.v1`: a duel starts (between two cars, or a car and the pirates).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A duel starts.")]
pub struct DuelStarted {
    /// The duel, numbered from 1 in the race.
    #[schemars(range(min = 1))]
    pub duel_id: u32,
    /// The combat it settles; absent against pirates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combat_id: Option<u32>,
    /// The turn.
    pub turn: u32,
    /// Fighter 0 (square 1) and fighter 1 (square 23).
    #[schemars(length(equal = 2))]
    pub fighters: Vec<DuelFighter>,
    /// The fighter who plays first (and is dealt first), drawn from the seed.
    #[schemars(range(max = 1))]
    pub first_player: u8,
}

/// Why a fighter's turn has no cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Silence {
    /// No answer before the deadline.
    NoAnswer,
    /// An answer to another question.
    WrongAnswer,
}

/// What an answer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DuelAction {
    /// `[v]` with v below the distance: moved v squares.
    Move,
    /// `[v]` or `[v, v, ...]` with v the distance: attacked with every card.
    Attack,
    /// `[m, v, ...]`: moved m, then attacked at the new distance with the rest.
    MoveAttack,
    /// Not a legal answer: the player lost.
    Illegal,
    /// No answer (see `silence`): the player lost.
    Silent,
}

/// What made an answer illegal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum IllegalReason {
    /// No card played.
    Empty,
    /// A value that is not a card (cards are 1 to 5).
    NotACard,
    /// A card the player does not hold (or more copies than held).
    NotHeld,
    /// A single card greater than the distance, or a move card not below it: the player
    /// would pass the opponent.
    TooFar,
    /// Attack cards whose value is not the distance left.
    OutOfReach,
    /// Not one of the forms `[v]`, `[v, v, ...]`, `[m, v, ...]`.
    BadShape,
}

/// An illegal answer's fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IllegalAnswer {
    /// What was wrong.
    pub reason: IllegalReason,
    /// The card at fault, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<u8>,
    /// The distance it was judged against, when it matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<u32>,
}

/// How an attack was met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ParryOutcome {
    /// The defender discarded as many cards of the value and plays next, without drawing.
    Parried,
    /// The defender parried with its last cards: it cannot play its turn and lost.
    ParriedLastCards,
    /// The defender could not parry: hit, lost.
    Hit,
}

/// One duel answer as `race.duel.played.v1` and a transcript's [`DuelStep`](super::DuelStep)
/// both tell it: who played, the cards, what they did, the squares after. Each message has it
/// flattened among its own fields, so on the wire they are one object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuelAnswer {
    /// Who played: fighter 0 or 1.
    #[schemars(range(max = 1))]
    pub fighter: u8,
    /// The answer's cards, in the order played (empty when silent).
    pub cards: Vec<u8>,
    /// Why there was no answer, if there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence: Option<Silence>,
    /// What the answer did.
    pub action: DuelAction,
    /// Why it was illegal, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub illegal: Option<IllegalAnswer>,
    /// Squares moved.
    pub moved: u32,
    /// The attack cards' value, if it attacked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack_value: Option<u8>,
    /// How many cards attacked.
    pub attack_cards: u32,
    /// How the defender met the attack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parry: Option<ParryOutcome>,
    /// Squares of fighter 0 and fighter 1 after the answer.
    #[schemars(length(equal = 2))]
    pub squares: Vec<u32>,
}

/// `race.duel.played.v1`: a fighter's answer and what it did. The cards drawn stay secret
/// until `race.duel.resolved.v1`; only their number is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A fighter played in a duel.")]
pub struct DuelPlayed {
    /// The duel.
    pub duel_id: u32,
    /// Step number in the duel, from 0.
    pub step: u32,
    /// The answer.
    #[serde(flatten)]
    pub answer: DuelAnswer,
    /// Cards the player drew at the end of its turn.
    pub drew: u32,
}

messages! {
    Event CombatPaired: "race.combat.paired.v1" => CombatPaired {
        combat_id: 7,
        turn: 3,
        square: 12,
        fighters: vec![
            DuelFighter {
                car: Some("red-baron-1".into()),
                team: "red-baron".into(),
                weapons: 4,
            },
            DuelFighter {
                car: Some("blue-max-2".into()),
                team: "blue-max".into(),
                weapons: 5,
            },
        ],
    };
    Event CombatResolved: "race.combat.resolved.v1" => CombatResolved {
        combat_id: 7,
        outcome: CombatOutcome::Won,
        winner: Some("blue-max-2".into()),
        loser: Some("red-baron-1".into()),
        loser_turns_to_miss: 1,
        duel_id: Some(9),
    };
    Event DuelStarted: "race.duel.started.v1" => {
        let CombatPaired { fighters, .. } = CombatPaired::example();
        DuelStarted {
            duel_id: 9,
            combat_id: Some(7),
            turn: 3,
            fighters,
            first_player: 1,
        }
    };
    Event DuelPlayed: "race.duel.played.v1" => DuelPlayed {
        duel_id: 9,
        step: 0,
        answer: DuelAnswer {
            fighter: 1,
            cards: vec![5],
            silence: None,
            action: DuelAction::Move,
            illegal: None,
            moved: 5,
            attack_value: None,
            attack_cards: 0,
            parry: None,
            squares: vec![1, 18],
        },
        drew: 1,
    };
}
