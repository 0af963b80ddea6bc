//! Commands to the race master (queue `race-master`): start the race, edit the random events'
//! distribution, register a car, ask a team's budget.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Modules, RACE_MASTER_QUEUE};
use crate::Route;

/// The odds of each random event, in percent; they add up to 100. The master draws one number
/// in 0..=99 per car and event phase and reads it cumulatively in this order: nothing, pirates,
/// garage, wreck, mine field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventDistribution {
    /// Percent of draws where nothing happens.
    #[schemars(range(max = 100))]
    pub nothing: u32,
    /// Percent of draws where pirates attack the car.
    #[schemars(range(max = 100))]
    pub pirates: u32,
    /// Percent of draws where the car passes a garage.
    #[schemars(range(max = 100))]
    pub garage: u32,
    /// Percent of draws where the car sees a wreck.
    #[schemars(range(max = 100))]
    pub wreck: u32,
    /// Percent of draws where the car reaches a mine field.
    #[schemars(range(max = 100))]
    pub mine_field: u32,
}

impl EventDistribution {
    /// The original master's odds: nothing 50, pirates 10, garage 10, wreck 15, mine field 15.
    pub const ORIGINAL: EventDistribution = EventDistribution {
        nothing: 50,
        pirates: 10,
        garage: 10,
        wreck: 15,
        mine_field: 15,
    };
}

impl Default for EventDistribution {
    /// [`EventDistribution::ORIGINAL`].
    fn default() -> Self {
        EventDistribution::ORIGINAL
    }
}

/// `race.start.v1`: the operator starts the race. Cars registered so far start on turn 1.
/// Every setting left out takes its default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "The operator starts the race.")]
pub struct RaceStart {
    /// Number of turns after which the race ends; absent: only the duration ends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000))]
    pub turns: Option<u32>,
    /// Length of the race in milliseconds (default 7,200,000: two hours). The race ends at the
    /// end of the turn in progress when it runs out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub duration_ms: Option<u64>,
    /// Least time between the starts of two turns, in milliseconds (default 10,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_interval_ms: Option<u64>,
    /// How long a car has to answer a decision request, in milliseconds (default 5,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 600_000))]
    pub decision_timeout_ms: Option<u64>,
    /// Odds of the random events (default: the original master's, see `EventDistribution`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<EventDistribution>,
}

/// `race.distribution.set.v1`: the operator changes the odds of the random events; they apply
/// from the next event phase on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "The operator changes the odds of the random events.")]
pub struct DistributionSet {
    /// The new odds; they must add up to 100.
    pub distribution: EventDistribution,
}

/// `race.car.register.v1`: a team registers a car and pays for its modules (pilot $1, engine $2,
/// weapon $2). The master answers `race.car.registered.v1` or `race.registration.rejected.v1`
/// (at most 10 modules, at least one pilot, within the team's budget, a name not yet taken). A
/// car registered while the race runs starts on the next turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "A team registers a car and pays for its modules.")]
pub struct CarRegister {
    /// The team (its first registration opens its account with $100).
    #[schemars(length(min = 1, max = 32), pattern(super::NAME_PATTERN))]
    pub team: String,
    /// The car's name, unique in the race.
    #[schemars(length(min = 1, max = 32), pattern(super::NAME_PATTERN))]
    pub car: String,
    /// The modules the car is built with; the master checks the limits.
    pub modules: Modules,
}

/// `race.budget.query.v1`: a team asks for its budget; answered by `race.budget.reported.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "A team asks for its remaining budget.")]
pub struct BudgetQuery {
    /// The team asking.
    #[schemars(length(min = 1, max = 32), pattern(super::NAME_PATTERN))]
    pub team: String,
}

messages! {
    Command RaceStart: "race.start.v1" to |_| Route::Queue(RACE_MASTER_QUEUE.into()) => RaceStart {
        turns: Some(200),
        duration_ms: Some(7_200_000),
        turn_interval_ms: Some(10_000),
        decision_timeout_ms: Some(5_000),
        distribution: None,
    };
    Command DistributionSet: "race.distribution.set.v1"
        to |_| Route::Queue(RACE_MASTER_QUEUE.into()) => DistributionSet {
        distribution: EventDistribution {
            nothing: 40,
            pirates: 20,
            garage: 10,
            wreck: 15,
            mine_field: 15,
        },
    };
    Command CarRegister: "race.car.register.v1"
        to |_| Route::Queue(RACE_MASTER_QUEUE.into()) => CarRegister {
        team: "red-baron".into(),
        car: "red-baron-1".into(),
        modules: Modules {
            pilots: 2,
            engines: 4,
            weapons: 4,
        },
    };
    Command BudgetQuery: "race.budget.query.v1"
        to |_| Route::Queue(RACE_MASTER_QUEUE.into()) => BudgetQuery {
        team: "red-baron".into(),
    };
}
