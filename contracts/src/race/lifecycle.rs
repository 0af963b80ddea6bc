//! Facts about the race's life: started, odds changed, cars registered or refused, budgets,
//! turns and phases, and refused commands.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CarRegister, EventDistribution, Modules, team_queue};
use crate::Route;

/// `race.started.v1`: the race started; turn 1 follows at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "The race started.")]
pub struct RaceStarted {
    /// When it started, in milliseconds since the epoch.
    pub at_ms: u64,
    /// Turns after which it ends; absent: only the duration ends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<u32>,
    /// Its length in milliseconds; it ends at the end of the turn in progress then.
    pub duration_ms: u64,
    /// Least time between the starts of two turns, in milliseconds.
    pub turn_interval_ms: u64,
    /// How long a car has to answer a decision request, in milliseconds.
    pub decision_timeout_ms: u64,
    /// Odds of the random events.
    pub distribution: EventDistribution,
    /// SHA-256 (hex) of the race's seed as 8 little-endian bytes. Every random draw of the race
    /// comes from that seed, which `race.finished.v1` reveals, so anyone can check the draws.
    #[schemars(length(equal = 64))]
    pub seed_sha256: String,
}

/// `race.distribution.changed.v1`: the operator changed the odds of the random events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "The odds of the random events changed.")]
pub struct DistributionChanged {
    /// The new odds, used from the next event phase on.
    pub distribution: EventDistribution,
}

/// `race.car.registered.v1`: a car is registered and paid for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A car is registered and paid for.")]
pub struct CarRegistered {
    /// Its team.
    pub team: String,
    /// Its name.
    pub car: String,
    /// Its modules.
    pub modules: Modules,
    /// What the team paid, in dollars.
    pub price: u32,
    /// The team's budget after paying, in dollars.
    pub budget_left: u32,
    /// The turn on which it starts racing, from square 0.
    #[schemars(range(min = 1))]
    pub starts_turn: u32,
}

/// Why a registration was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RegistrationProblem {
    /// A team or car name that does not follow the name pattern.
    BadName,
    /// Another car already has this name.
    NameTaken,
    /// More than 10 modules.
    TooManyModules,
    /// No pilot module.
    NoPilot,
    /// The price is more than the team's budget.
    OverBudget,
    /// The race is over.
    RaceFinished,
}

/// `race.registration.rejected.v1`: a car's registration was refused; nothing was paid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A car's registration was refused.")]
pub struct RegistrationRejected {
    /// The team that asked.
    pub team: String,
    /// The car's name as asked.
    pub car: String,
    /// What was wrong.
    pub problem: RegistrationProblem,
    /// The same, in words, with the numbers involved.
    pub reason: String,
}

/// `race.command.rejected.v1`: any other command to the master was refused (a start when the
/// race already runs, a late or unknown decision, odds that do not add up to 100...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A command to the race master was refused.")]
pub struct CommandRejected {
    /// The type of the refused command, e.g. `race.decision.made.v1`.
    pub command: String,
    /// The team that sent it, when the command names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// The decision it answered, for `race.decision.made.v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_id: Option<u64>,
    /// Why, in words.
    pub reason: String,
}

/// `race.budget.reported.v1`: a team's account, answering `race.budget.query.v1`. Sent to the
/// team's queue `race.team.<team>` only: its rivals do not see its money and points before
/// the finish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A team's budget, as asked.")]
pub struct BudgetReported {
    /// The team.
    pub team: String,
    /// Its money left, in dollars.
    pub budget: u32,
    /// Its victory points so far (distance and achievements; end bonuses come at the end).
    pub points: u32,
    /// Its cars, in registration order.
    pub cars: Vec<String>,
}

/// `race.turn.started.v1`: a turn starts with the "on track" step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A turn starts.")]
pub struct TurnStarted {
    /// The turn, from 1.
    #[schemars(range(min = 1))]
    pub turn: u32,
    /// When, in milliseconds since the epoch.
    pub at_ms: u64,
    /// Cars racing for the first time this turn (registered before it).
    pub joining: Vec<String>,
}

/// A step of a turn after "on track" (which `race.turn.started.v1` opens); scoring closes the
/// turn with `race.standings.updated.v1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    /// One random event per racing car.
    Events,
    /// Combats between cars of different teams on the same square.
    Combats,
    /// The master asks the cars that changed this turn to report their state.
    StateChecks,
}

/// `race.phase.started.v1`: a step of the turn starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A step of the turn starts.")]
pub struct PhaseStarted {
    /// The turn.
    #[schemars(range(min = 1))]
    pub turn: u32,
    /// The step.
    pub phase: Phase,
}

messages! {
    Event RaceStarted: "race.started.v1" => RaceStarted {
        at_ms: 1_767_225_600_000,
        turns: Some(200),
        duration_ms: 7_200_000,
        turn_interval_ms: 10_000,
        decision_timeout_ms: 5_000,
        distribution: EventDistribution::ORIGINAL,
        seed_sha256: "ed049108bc18f2c64369e8d0ea42850bdd1a7d1dd340cfde716315579702a76c".into(),
    };
    Event DistributionChanged: "race.distribution.changed.v1" => DistributionChanged {
        distribution: EventDistribution::ORIGINAL,
    };
    Event CarRegistered: "race.car.registered.v1" => {
        let CarRegister { team, car, modules } = CarRegister::example();
        CarRegistered {
            team,
            car,
            modules,
            price: 18,
            budget_left: 82,
            starts_turn: 1,
        }
    };
    Event RegistrationRejected: "race.registration.rejected.v1" => RegistrationRejected {
        team: "red-baron".into(),
        car: "red-baron-7".into(),
        problem: RegistrationProblem::OverBudget,
        reason: "the car costs $20 and team red-baron has $8 left".into(),
    };
    Event CommandRejected: "race.command.rejected.v1" => CommandRejected {
        command: "race.decision.made.v1".into(),
        team: Some("red-baron".into()),
        decision_id: Some(41),
        reason: "decision 41 closed at 1767225605000: its deadline passed".into(),
    };
    Event BudgetReported: "race.budget.reported.v1"
        to |m| Route::Queue(team_queue(&m.team)) => BudgetReported {
        team: "red-baron".into(),
        budget: 82,
        points: 3,
        cars: vec!["red-baron-1".into()],
    };
    Event TurnStarted: "race.turn.started.v1" => TurnStarted {
        turn: 1,
        at_ms: 1_767_225_600_000,
        joining: vec!["red-baron-1".into()],
    };
    Event PhaseStarted: "race.phase.started.v1" => PhaseStarted {
        turn: 1,
        phase: Phase::Combats,
    };
}
