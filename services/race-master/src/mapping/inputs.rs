//! Commands to the race master as decider inputs.

use arcade_contracts::race as c;
use arcade_runtime::MappingError;

use super::RaceMessage;
use crate::domain::{Input, StartSettings};

/// The input of `race.car.register.v1`.
pub fn input_of_register(m: &c::CarRegister) -> Input {
    Input::Register {
        team: m.team.clone(),
        car: m.car.clone(),
        modules: m.modules,
    }
}

/// The input of `race.decision.made.v1`.
pub fn input_of_answer(m: &c::DecisionMade) -> Input {
    Input::Answer {
        decision_id: m.decision_id,
        team: m.team.clone(),
        car: m.car.clone(),
        answer: m.answer.clone(),
    }
}

/// The input of a command to the master; an error for a fact (the master consumes none).
pub fn input(message: &RaceMessage) -> Result<Input, MappingError> {
    Ok(match message {
        RaceMessage::RaceStart(m) => Input::Start(StartSettings {
            turns: m.turns,
            duration_ms: m.duration_ms,
            turn_interval_ms: m.turn_interval_ms,
            decision_timeout_ms: m.decision_timeout_ms,
            distribution: m.distribution,
        }),
        RaceMessage::DistributionSet(m) => Input::SetDistribution(m.distribution),
        RaceMessage::CarRegister(m) => input_of_register(m),
        RaceMessage::BudgetQuery(m) => Input::QueryBudget {
            team: m.team.clone(),
        },
        RaceMessage::StateQuery(m) => Input::QueryState {
            team: m.team.clone(),
            race: m.race_id,
        },
        RaceMessage::BudgetGrant(m) => Input::Grant {
            team: m.team.clone(),
            amount: m.amount,
            reason: m.reason.clone(),
        },
        RaceMessage::DecisionMade(m) => input_of_answer(m),
        RaceMessage::HintPublish(m) => Input::PublishHint(m.achievement),
        other => {
            return Err(MappingError::refused(
                other.message_type(),
                "it is a fact, not a command to the race master",
            ));
        }
    })
}
