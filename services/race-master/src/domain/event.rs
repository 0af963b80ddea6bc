//! The race master's own facts. Each is one `race.*` contract message and holds it (see
//! `mapping`), and carries everything `evolve` needs: every random draw's outcome is in here,
//! so replaying the log rebuilds the race without drawing again.

use arcade_contracts::race as c;

/// The reasons, outcomes, standings and bonuses the facts tell: the contract's own types, the
/// same things.
pub use arcade_contracts::race::{
    Bonus, BonusKind, CombatOutcome, DecisionClosure, DuelReason, EventOutcome, FinishReason,
    ModuleChange, ModuleReason, MoveReason, PenaltyReason, Phase, RegistrationProblem, StopReason,
    TeamStanding,
};

/// A fact of the race: its contract message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // each variant is documented by its contract type in `race.*`
pub enum Event {
    RaceStarted(c::RaceStarted),
    DistributionChanged(c::DistributionChanged),
    CarRegistered(c::CarRegistered),
    RegistrationRejected(c::RegistrationRejected),
    CommandRejected(c::CommandRejected),
    BudgetReported(c::BudgetReported),
    StateReported(c::StateReported),
    BudgetGranted(c::BudgetGranted),
    HintPublished(c::HintPublished),
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
    DuelResolved(Box<c::DuelResolved>),
    AchievementAwarded(c::AchievementAwarded),
    StandingsUpdated(c::StandingsUpdated),
    RaceFinished(c::RaceFinished),
    DecisionRequested(c::DecisionRequested),
    DecisionClosed(c::DecisionClosed),
}
