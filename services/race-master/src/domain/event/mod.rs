//! The race master's own facts. Each becomes one `race.*` contract message (see `wire`), and
//! carries everything `evolve` needs: every random draw's outcome is in here, so replaying the
//! log rebuilds the race without drawing again.

use super::car::{CarState, Name};
use super::decision::{Answer, Question};
use super::duel::{Play, StepOutcome};
use super::rules::{Achievement, Distribution, EventKind, Module, Modules};

mod parts;

pub use parts::*;

/// How a decision was closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Closure {
    /// Answered in time.
    Answered(Answer),
    /// Answered another question.
    WrongAnswer(Answer),
    /// No answer before the deadline.
    NoAnswer,
}

/// The settings a race started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// When.
    pub at_ms: u64,
    /// Turns, if limited.
    pub turns: Option<u32>,
    /// Length.
    pub duration_ms: u64,
    /// Least time between turn starts.
    pub turn_interval_ms: u64,
    /// Time to answer.
    pub decision_timeout_ms: u64,
    /// Odds.
    pub distribution: Distribution,
    /// SHA-256 of the seed's little-endian bytes.
    pub seed_sha256: [u8; 32],
}

/// A fact of the race.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // each variant is documented by its contract type in `race.*`
pub enum Event {
    RaceStarted(Started),
    DistributionChanged(Distribution),
    CarRegistered {
        team: Name,
        car: Name,
        modules: Modules,
        price: u32,
        budget_left: u32,
        starts_turn: u32,
    },
    RegistrationRejected {
        team: String,
        car: String,
        problem: RegistrationProblem,
        reason: String,
    },
    CommandRejected {
        command: String,
        team: Option<String>,
        decision_id: Option<u64>,
        reason: String,
    },
    BudgetReported {
        team: Name,
        budget: u32,
        points: u32,
        cars: Vec<Name>,
    },
    StateReported {
        team: Name,
        turn: u32,
        budget: u32,
        points: u32,
        cars: Vec<CarStatus>,
    },
    BudgetGranted {
        team: Name,
        amount: u32,
        reason: Option<String>,
        budget_left: u32,
    },
    HintPublished {
        turn: u32,
        achievement: Achievement,
    },
    TurnStarted {
        turn: u32,
        at_ms: u64,
        joining: Vec<Name>,
    },
    PhaseStarted {
        turn: u32,
        phase: Phase,
    },
    CarMoved {
        car: Name,
        team: Name,
        turn: u32,
        from: u32,
        to: u32,
        reason: MoveReason,
        turns_to_miss: u32,
    },
    CarStopped {
        car: Name,
        team: Name,
        reason: StopReason,
        square: u32,
    },
    ModuleChanged {
        car: Name,
        team: Name,
        module: Module,
        gained: bool,
        reason: ModuleReason,
        modules: Modules,
    },
    PenaltyGiven {
        car: Name,
        team: Name,
        decision_id: u64,
        reason: PenaltyReason,
        turns_to_miss: u32,
        correction: Option<CarState>,
    },
    EventDrawn {
        car: Name,
        team: Name,
        turn: u32,
        roll: u32,
        event: EventKind,
        pirates: Option<Modules>,
    },
    EventResolved {
        car: Name,
        team: Name,
        event: EventKind,
        outcome: EventOutcome,
        roll: Option<u32>,
        module: Option<Module>,
        price: Option<u32>,
        duel_id: Option<u32>,
        turns_to_miss: u32,
    },
    CombatPaired {
        combat_id: u32,
        turn: u32,
        square: u32,
        fighters: [Fighter; 2],
    },
    CombatResolved {
        combat_id: u32,
        outcome: CombatOutcome,
        winner: Option<Name>,
        loser: Option<Name>,
        loser_turns_to_miss: u32,
        duel_id: Option<u32>,
    },
    DuelStarted {
        duel_id: u32,
        combat_id: Option<u32>,
        turn: u32,
        fighters: [Fighter; 2],
        first_player: usize,
    },
    DuelPlayed {
        duel_id: u32,
        step: u32,
        fighter: usize,
        play: Play,
        outcome: StepOutcome,
        squares: [u32; 2],
        drew: u32,
    },
    DuelResolved(Box<Transcript>),
    AchievementAwarded {
        team: Name,
        car: Name,
        achievement: Achievement,
        money: u32,
        points: u32,
        budget_left: u32,
    },
    StandingsUpdated {
        turn: u32,
        standings: Vec<TeamStanding>,
    },
    RaceFinished {
        turn: u32,
        at_ms: u64,
        reason: FinishReason,
        bonuses: Vec<Bonus>,
        standings: Vec<TeamStanding>,
        seed: u64,
    },
    DecisionRequested {
        decision_id: u64,
        team: Name,
        car: Name,
        turn: u32,
        deadline_ms: u64,
        question: Question,
    },
    DecisionClosed {
        decision_id: u64,
        team: Name,
        car: Name,
        closure: Closure,
    },
}
