//! `race.*`: the race master's commands and facts, and the cars' decisions.
//!
//! One race master runs one race on a ring of 300 squares. Teams register cars (modules:
//! pilots, engines, weapons) with a budget; every turn the cars move, meet random events and
//! fight duels; the master publishes every fact on the topic exchange so spectators and teams
//! can follow.
//!
//! Cars are independent programs. The master *asks* a car's team with
//! [`DecisionRequested`] (`race.decision.requested.v1`), sent to the team's own queue
//! `race.team.<team>` ([`team_queue`]) because a duel question carries the player's cards, which
//! the opponent must not read; the car *answers* with [`DecisionMade`]
//! (`race.decision.made.v1`) on the master's queue [`RACE_MASTER_QUEUE`], before the deadline in
//! the request. Every other fact is public.
//!
//! Layout: [`commands`] (what operators and teams send the master), [`lifecycle`] (start,
//! registration, turns), [`cars`] (moves, modules, stops, penalties, random events),
//! [`fights`] (combats and duels), [`transcript`] (a duel's whole story), [`results`] (achievements, standings, the end), [`decisions`]
//! (questions and answers), [`account`] (a team's true state, grants, hints).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::MessageType;

pub mod account;
pub mod cars;
pub mod commands;
pub mod decisions;
pub mod fights;
pub mod lifecycle;
pub mod results;
pub mod transcript;

pub use account::{
    BudgetGrant, BudgetGranted, CarStatus, HintPublish, HintPublished, StateQuery, StateReported,
};
pub use cars::{
    CarMoved, CarStopped, EventDrawn, EventOutcome, EventResolved, ModuleChange, ModuleChanged,
    ModuleReason, MoveReason, PenaltyGiven, PenaltyReason, PirateCrew, RaceEventKind, StopReason,
};
pub use commands::{BudgetQuery, CarRegister, DistributionSet, EventDistribution, RaceStart};
pub use decisions::{
    Answer, DecisionClosed, DecisionClosure, DecisionMade, DecisionRequested, DuelHistoryEntry,
    DuelQuestion, GaragePrices, Opponent, Question,
};
pub use fights::{
    CombatOutcome, CombatPaired, CombatResolved, DuelAction, DuelFighter, DuelPlayed, DuelStarted,
    IllegalAnswer, IllegalReason, ParryOutcome, Silence,
};
pub use lifecycle::{
    BudgetReported, CarRegistered, CommandRejected, DistributionChanged, Phase, PhaseStarted,
    RaceStarted, RegistrationProblem, RegistrationRejected, TurnStarted,
};
pub use results::{
    Achievement, AchievementAwarded, Bonus, BonusKind, FinishReason, RaceFinished,
    StandingsUpdated, TeamStanding,
};
pub use transcript::{DuelReason, DuelResolved, DuelStep};

/// The race master's queue: every command to the master is sent here.
pub const RACE_MASTER_QUEUE: &str = "race-master";

/// The queue of a team's car programs, `race.team.<team>`: decision requests for the team's
/// cars are sent there (a duel question shows the player's cards, so it is not published).
pub fn team_queue(team: &str) -> String {
    format!("race.team.{team}")
}

/// The pattern every team and car name follows: it becomes part of a queue name.
pub const NAME_PATTERN: &str = "^[a-z0-9][a-z0-9-]{0,31}$";

/// A kind of module a car is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ModuleKind {
    /// Drives the car; a car with no pilot left is stopped.
    Pilot,
    /// Moves the car one square per engine in the "on track" step; none left: stopped.
    Engine,
    /// Fights: one duel card per weapon; a car with no weapon is destroyed in a fight.
    Weapon,
}

/// How many modules of each kind a car has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Modules {
    /// Pilot modules.
    pub pilots: u32,
    /// Engine modules.
    pub engines: u32,
    /// Weapon modules.
    pub weapons: u32,
}

/// What a car is, as the master knows it: what a car must report when asked for its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarState {
    /// Squares driven from the start line (it does not wrap around the 300-square ring, so it
    /// is also the distance scored); the car stands on ring square `square % 300`.
    pub square: u32,
    /// Its modules.
    pub modules: Modules,
}

/// The message types of this module.
pub fn types() -> Vec<MessageType> {
    let mut all = Vec::new();
    all.extend(commands::types());
    all.extend(lifecycle::types());
    all.extend(cars::types());
    all.extend(fights::types());
    all.extend(transcript::types());
    all.extend(results::types());
    all.extend(decisions::types());
    all.extend(account::types());
    all
}
