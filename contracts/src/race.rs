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
//! the request. A team's own account (`race.state.reported.v1`, `race.budget.reported.v1`)
//! goes to its queue too. Every other fact is published on the topic; a team's queue is bound
//! only to [`TEAM_FACTS`], not to the facts that tell a team's money or points
//! ([`TEAM_SECRETS`]), which its rivals see in `race.finished.v1`'s standings.
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
    CombatOutcome, CombatPaired, CombatResolved, DuelAction, DuelAnswer, DuelFighter, DuelPlayed,
    DuelStarted, IllegalAnswer, IllegalReason, ParryOutcome, Silence,
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

/// The topic facts a team's queue `race.team.<team>` is bound to: what a team sees of the
/// race as it runs (the cars on the track, events, combats, duels, hints, the end with every
/// team's standing). Listed one by one so that a new fact reaches the teams only when added
/// here.
pub const TEAM_FACTS: [&str; 20] = [
    "race.started.v1",
    "race.distribution.changed.v1",
    "race.registration.rejected.v1",
    "race.command.rejected.v1",
    "race.turn.started.v1",
    "race.phase.started.v1",
    "race.car.moved.v1",
    "race.car.stopped.v1",
    "race.module.changed.v1",
    "race.penalty.given.v1",
    "race.event.drawn.v1",
    "race.event.resolved.v1",
    "race.combat.paired.v1",
    "race.combat.resolved.v1",
    "race.duel.started.v1",
    "race.duel.played.v1",
    "race.duel.resolved.v1",
    "race.decision.closed.v1",
    "race.hint.published.v1",
    "race.finished.v1",
];

/// The topic facts no team's queue is bound to: they tell a team's money (budget left, price
/// and reward together) or points, which the rule book lets only the team itself know while
/// the race runs. The operator and the console see them on the topic.
pub const TEAM_SECRETS: [&str; 4] = [
    "race.car.registered.v1",
    "race.achievement.awarded.v1",
    "race.budget.granted.v1",
    "race.standings.updated.v1",
];

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
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
