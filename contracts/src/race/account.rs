//! A team's own account, both ways: a car program asks for its cars' true state at any time
//! (`race.state.query.v1` → `race.state.reported.v1`, the rule book's state report read from
//! the master's side), the operator grants a team money (`race.budget.grant.v1` →
//! `race.budget.granted.v1`, the rule book's "budgets supplémentaires"), and the master gives
//! hints about the hidden achievements during the race (`race.hint.published.v1`).
//!
//! All came after the first `race.*` v1 types, as new types (nothing required was added to an
//! existing one).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Achievement, Modules, RACE_MASTER_QUEUE, StopReason, team_queue};
use crate::Route;

/// `race.state.query.v1`: a team asks for the true state of its cars (a restarted car program
/// starts from it), in the current race or, naming it, in one over before; answered by
/// `race.state.reported.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "A team asks for the true state of its cars.")]
pub struct StateQuery {
    /// The team asking.
    #[schemars(length(min = 1, max = 32), pattern(super::NAME_PATTERN))]
    pub team: String,
    /// The race asked about, by its number in the master's data dir (1 for the first; each
    /// `race.start.v1` after a finish starts the next). Absent: the current race. Added within
    /// v1: optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub race_id: Option<u32>,
}

/// One car of a state report, as the master records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarStatus {
    /// The car.
    pub car: String,
    /// Squares driven from the start line (what a state check compares, and what scores).
    pub square: u32,
    /// Where it stands on the ring of 300 squares: `square` modulo 300 (cars meet there).
    #[schemars(range(max = 299))]
    pub ring_square: u32,
    /// The farthest square it reached (its distance points come from it).
    pub farthest: u32,
    /// Its modules.
    pub modules: Modules,
    /// "On track" steps it will still miss.
    pub turns_to_miss: u32,
    /// The turn it starts (or started) racing.
    #[schemars(range(min = 1))]
    pub starts_turn: u32,
    /// Why it left the race; absent while it races.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopReason>,
}

/// `race.state.reported.v1`: a team's true state, answering `race.state.query.v1`, and told
/// after each of its registrations and grants. A team that never registered gets an empty
/// report with the initial budget. Sent to the team's queue `race.team.<team>` only (it shows
/// the team's money and points, which its rivals do not see before the finish).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A team's true state, as asked.")]
pub struct StateReported {
    /// The team.
    pub team: String,
    /// The race reported, when the query named one (a car program takes only a report without
    /// it as its cars' state now). Added within v1: optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race_id: Option<u32>,
    /// The turn in progress or last played (0 before the start).
    pub turn: u32,
    /// Its money left, in dollars.
    pub budget: u32,
    /// Its victory points so far (with the end bonuses once the race is over).
    pub points: u32,
    /// Its cars, in registration order.
    pub cars: Vec<CarStatus>,
}

/// `race.budget.grant.v1`: the operator gives a team more money.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "The operator gives a team more money.")]
pub struct BudgetGrant {
    /// The team (it must have registered a car).
    #[schemars(length(min = 1, max = 32), pattern(super::NAME_PATTERN))]
    pub team: String,
    /// Dollars to add.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub amount: u32,
    /// Why, for the teams to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 200))]
    pub reason: Option<String>,
}

/// `race.budget.granted.v1`: a team was given money.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A team was given money.")]
pub struct BudgetGranted {
    /// The team.
    pub team: String,
    /// Dollars added.
    pub amount: u32,
    /// Why, as the operator said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The team's budget after the grant, in dollars.
    pub budget_left: u32,
}

/// `race.hint.published.v1`: a hint about one of the achievements, all hidden at the start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A hint about a hidden achievement.")]
pub struct HintPublished {
    /// The turn it comes with.
    #[schemars(range(min = 1))]
    pub turn: u32,
    /// The achievement it is about.
    pub achievement: Achievement,
    /// Its name in the rule book.
    pub title: String,
    /// The hint, in the rule book's language.
    pub hint: String,
}

/// `race.hint.publish.v1`: the operator publishes a hint about a hidden achievement now (the
/// master also publishes one by itself every fifth turn). The master answers with
/// `race.hint.published.v1` on the turn in progress, or refuses it when the race is not
/// running (`race.command.rejected.v1`). Came after the first `race.*` v1 types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "The operator publishes a hint about a hidden achievement.")]
pub struct HintPublish {
    /// The achievement the hint is about; the master words the hint (the rule book's).
    pub achievement: Achievement,
}

messages! {
    Command StateQuery: "race.state.query.v1"
        to |_| Route::Queue(RACE_MASTER_QUEUE.into()) => StateQuery {
        team: "red-baron".into(),
        race_id: None,
    };
    Event StateReported: "race.state.reported.v1"
        to |m| Route::Queue(team_queue(&m.team)) => StateReported {
        team: "red-baron".into(),
        race_id: None,
        turn: 4,
        budget: 82,
        points: 1,
        cars: vec![CarStatus {
            car: "red-baron-1".into(),
            square: 312,
            ring_square: 12,
            farthest: 312,
            modules: Modules {
                pilots: 2,
                engines: 4,
                weapons: 4,
            },
            turns_to_miss: 0,
            starts_turn: 1,
            stopped: None,
        }],
    };
    Command BudgetGrant: "race.budget.grant.v1"
        to |_| Route::Queue(RACE_MASTER_QUEUE.into()) => BudgetGrant {
        team: "red-baron".into(),
        amount: 50,
        reason: Some("best console of the hackathon".into()),
    };
    Event BudgetGranted: "race.budget.granted.v1" => BudgetGranted {
        team: "red-baron".into(),
        amount: 50,
        reason: Some("best console of the hackathon".into()),
        budget_left: 132,
    };
    Event HintPublished: "race.hint.published.v1" => HintPublished {
        turn: 5,
        achievement: Achievement::MadMax,
        title: "Mad Max".into(),
        hint: "Les pirates aussi peuvent perdre.".into(),
    };
    Command HintPublish: "race.hint.publish.v1"
        to |_| Route::Queue(RACE_MASTER_QUEUE.into()) => HintPublish {
        achievement: Achievement::Stratege,
    };
}
