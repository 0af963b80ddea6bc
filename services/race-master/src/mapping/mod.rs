//! Between the race master's domain and the `race.*` contract messages, declared once:
//! [`RaceMessage`] lists every message the master takes or publishes, one line each, with its
//! type, payload and route, so hosts and built-in cars handle them without knowing every type.
//! Each domain fact holds its message: it goes out as it is ([`encode`]) and comes back from
//! the log unchanged ([`decode`]); commands become inputs ([`input`]). A new fact is one line
//! in [`RaceMessage`], one in `Event` and one in each of [`encode`] and [`decode`].

mod events;
mod inputs;

use arcade_contracts::race as c;
use arcade_runtime::MappingError;
use serde::Serialize;
use serde_json::Value;

pub use events::{decode, encode};
pub use inputs::{input, input_of_answer, input_of_register};

arcade_runtime::mapping! {
    /// Any message the race master publishes (or a car sends it).
    #[derive(Debug, Clone, PartialEq)]
    #[allow(missing_docs)] // each variant is its contract type
    pub enum RaceMessage, of "the race master" {
        RaceStart(c::RaceStart),
        DistributionSet(c::DistributionSet),
        CarRegister(c::CarRegister),
        BudgetQuery(c::BudgetQuery),
        StateQuery(c::StateQuery),
        BudgetGrant(c::BudgetGrant),
        HintPublish(c::HintPublish),
        StateReported(c::StateReported),
        BudgetGranted(c::BudgetGranted),
        HintPublished(c::HintPublished),
        RaceStarted(c::RaceStarted),
        DistributionChanged(c::DistributionChanged),
        CarRegistered(c::CarRegistered),
        RegistrationRejected(c::RegistrationRejected),
        CommandRejected(c::CommandRejected),
        BudgetReported(c::BudgetReported),
        TurnStarted(c::TurnStarted),
        PhaseStarted(c::PhaseStarted),
        CarMoved(c::CarMoved),
        CarStopped(c::CarStopped),
        ModuleChanged(c::ModuleChanged),
        PenaltyGiven(c::PenaltyGiven),
        EventDrawn(c::EventDrawn),
        EventResolved(c::EventResolved),
        CombatPaired(c::CombatPaired),
        CombatResolved(c::CombatResolved),
        DuelStarted(c::DuelStarted),
        DuelPlayed(c::DuelPlayed),
        DuelResolved(c::DuelResolved),
        AchievementAwarded(c::AchievementAwarded),
        StandingsUpdated(c::StandingsUpdated),
        RaceFinished(c::RaceFinished),
        DecisionRequested(c::DecisionRequested),
        DecisionMade(c::DecisionMade),
        DecisionClosed(c::DecisionClosed),
    }
}

#[derive(Serialize)]
struct Line<'a> {
    #[serde(rename = "type")]
    message_type: &'a str,
    payload: Value,
}

impl RaceMessage {
    /// One JSON line: `{"type":"race.…","payload":{…}}`.
    pub fn json_line(&self) -> Result<String, MappingError> {
        let line = Line {
            message_type: self.message_type(),
            payload: self.payload()?,
        };
        serde_json::to_string(&line).map_err(|e| MappingError::Unwritable {
            message_type: self.message_type().to_string(),
            error: e.to_string(),
        })
    }
}
