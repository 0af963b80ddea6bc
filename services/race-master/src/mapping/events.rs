//! Domain facts to contract messages and back (what replay reads from the log): each fact
//! holds its message, so each direction is one line per fact.

use arcade_runtime::MappingError;

use super::RaceMessage;
use crate::domain::event::Event;

/// The contract message of a fact.
pub fn encode(event: &Event) -> RaceMessage {
    match event.clone() {
        Event::RaceStarted(m) => m.into(),
        Event::DistributionChanged(m) => m.into(),
        Event::CarRegistered(m) => m.into(),
        Event::RegistrationRejected(m) => m.into(),
        Event::CommandRejected(m) => m.into(),
        Event::BudgetReported(m) => m.into(),
        Event::StateReported(m) => m.into(),
        Event::BudgetGranted(m) => m.into(),
        Event::HintPublished(m) => m.into(),
        Event::TurnStarted(m) => m.into(),
        Event::PhaseStarted(m) => m.into(),
        Event::CarMoved(m) => m.into(),
        Event::CarStopped(m) => m.into(),
        Event::ModuleChanged(m) => m.into(),
        Event::PenaltyGiven(m) => m.into(),
        Event::EventDrawn(m) => m.into(),
        Event::EventResolved(m) => m.into(),
        Event::CombatPaired(m) => m.into(),
        Event::CombatResolved(m) => m.into(),
        Event::DuelStarted(m) => m.into(),
        Event::DuelPlayed(m) => m.into(),
        Event::DuelResolved(m) => (*m).into(),
        Event::AchievementAwarded(m) => m.into(),
        Event::StandingsUpdated(m) => m.into(),
        Event::RaceFinished(m) => m.into(),
        Event::DecisionRequested(m) => m.into(),
        Event::DecisionClosed(m) => m.into(),
    }
}

/// The domain fact of a message the master published; an error for a command, or for a
/// start whose seed hash is not 32 bytes of hex, naming the message type.
pub fn decode(message: &RaceMessage) -> Result<Event, MappingError> {
    use RaceMessage as M;
    Ok(match message.clone() {
        M::RaceStarted(m) => {
            let mut hash = [0u8; 32];
            hex::decode_to_slice(&m.seed_sha256, &mut hash).map_err(|e| {
                MappingError::invalid(message.message_type(), format!("seedSha256: {e}"))
            })?;
            Event::RaceStarted(m)
        }
        M::DistributionChanged(m) => Event::DistributionChanged(m),
        M::CarRegistered(m) => Event::CarRegistered(m),
        M::RegistrationRejected(m) => Event::RegistrationRejected(m),
        M::CommandRejected(m) => Event::CommandRejected(m),
        M::BudgetReported(m) => Event::BudgetReported(m),
        M::StateReported(m) => Event::StateReported(m),
        M::BudgetGranted(m) => Event::BudgetGranted(m),
        M::HintPublished(m) => Event::HintPublished(m),
        M::TurnStarted(m) => Event::TurnStarted(m),
        M::PhaseStarted(m) => Event::PhaseStarted(m),
        M::CarMoved(m) => Event::CarMoved(m),
        M::CarStopped(m) => Event::CarStopped(m),
        M::ModuleChanged(m) => Event::ModuleChanged(m),
        M::PenaltyGiven(m) => Event::PenaltyGiven(m),
        M::EventDrawn(m) => Event::EventDrawn(m),
        M::EventResolved(m) => Event::EventResolved(m),
        M::CombatPaired(m) => Event::CombatPaired(m),
        M::CombatResolved(m) => Event::CombatResolved(m),
        M::DuelStarted(m) => Event::DuelStarted(m),
        M::DuelPlayed(m) => Event::DuelPlayed(m),
        M::DuelResolved(m) => Event::DuelResolved(Box::new(m)),
        M::AchievementAwarded(m) => Event::AchievementAwarded(m),
        M::StandingsUpdated(m) => Event::StandingsUpdated(m),
        M::RaceFinished(m) => Event::RaceFinished(m),
        M::DecisionRequested(m) => Event::DecisionRequested(m),
        M::DecisionClosed(m) => Event::DecisionClosed(m),
        M::RaceStart(_)
        | M::DistributionSet(_)
        | M::CarRegister(_)
        | M::BudgetQuery(_)
        | M::StateQuery(_)
        | M::BudgetGrant(_)
        | M::HintPublish(_)
        | M::DecisionMade(_) => {
            return Err(MappingError::invalid(
                message.message_type(),
                "it is a command, not a fact of the race master",
            ));
        }
    })
}
