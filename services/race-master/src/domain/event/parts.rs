//! The small facts' parts: reasons, outcomes, fighters, standings, bonuses, the duel transcript.

use crate::domain::car::Name;
use crate::domain::duel::Step;
use crate::domain::rules::Modules;

/// Why a registration was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegistrationProblem {
    /// A name that does not follow `^[a-z0-9][a-z0-9-]{0,31}$`.
    BadName,
    /// The car's name is taken.
    NameTaken,
    /// More than 10 modules.
    TooManyModules,
    /// No pilot.
    NoPilot,
    /// More than the team's budget.
    OverBudget,
    /// The race is over.
    RaceFinished,
}

/// A step of a turn after "on track".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Random events.
    Events,
    /// Combats.
    Combats,
    /// State checks.
    StateChecks,
}

/// Why a car's square changed (or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveReason {
    /// One square per engine.
    OnTrack,
    /// A turn missed.
    MissedTurn,
    /// Bought at a garage: one square back.
    Garage,
}

/// Why a car left the race.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// No engine.
    NoEngine,
    /// No pilot.
    NoPilot,
    /// No weapon in a fight.
    Destroyed,
}

/// What made a module come or go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleReason {
    /// A mine.
    MineField,
    /// Found in a wreck.
    Wreck,
    /// Snakes in a wreck.
    Snakes,
    /// Bought at a garage.
    Garage,
    /// Lost a duel.
    DuelLost,
}

/// Why a car was penalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PenaltyReason {
    /// No answer in time.
    NoAnswer,
    /// An answer to another question.
    WrongAnswer,
    /// A wrong state report.
    WrongState,
}

/// A car as a state report gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarStatus {
    /// The car.
    pub car: Name,
    /// Squares driven.
    pub square: u32,
    /// The farthest square reached.
    pub farthest: u32,
    /// Its modules.
    pub modules: Modules,
    /// Turns to miss.
    pub turns_to_miss: u32,
    /// The turn it starts racing.
    pub starts_turn: u32,
    /// Why it left the race, if it did.
    pub stopped: Option<StopReason>,
}

/// How a car's event ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventOutcome {
    /// Met with turns to miss: no effect.
    Skipped,
    /// Crossed unhurt.
    CrossedUnhurt,
    /// Crossed, lost a module.
    CrossedHurt,
    /// Went around.
    WentAround,
    /// Explored, found nothing.
    FoundNothing,
    /// Explored, found a module.
    FoundModule,
    /// Explored, met snakes.
    Snakes,
    /// Did not explore.
    Ignored,
    /// Bought a module.
    Bought,
    /// Could not pay.
    CannotAfford,
    /// Bought nothing.
    Declined,
    /// No answer.
    NoAnswer,
    /// Wrong answer.
    WrongAnswer,
    /// Beat the pirates.
    FightWon,
    /// Lost to the pirates.
    FightLost,
    /// Drew with the pirates.
    FightDrawn,
    /// No weapon against the pirates.
    Destroyed,
}

/// One side of a combat or duel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fighter {
    /// The car; `None` for the pirates.
    pub car: Option<Name>,
    /// Its team (`pirates` for the pirates).
    pub team: Name,
    /// Its weapons.
    pub weapons: u32,
}

/// How a combat between two cars ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CombatOutcome {
    /// Neither wanted to fight.
    Declined,
    /// A car with no weapon was destroyed.
    Destroyed,
    /// A duel was won.
    Won,
    /// The duel was drawn.
    Drawn,
}

/// A duel's whole story.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The duel.
    pub duel_id: u32,
    /// Its combat; `None` against pirates.
    pub combat_id: Option<u32>,
    /// Fighter 0 and 1.
    pub fighters: [Fighter; 2],
    /// The deck's initial order, top first.
    pub deck: Vec<u8>,
    /// Who played first.
    pub first_player: usize,
    /// The hands dealt.
    pub hands: [Vec<u8>; 2],
    /// Every answer.
    pub steps: Vec<Step>,
    /// The winner; `None` for a draw.
    pub winner: Option<usize>,
    /// Why it ended.
    pub reason: DuelReason,
}

/// Why a duel ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuelReason {
    /// Hit.
    Hit,
    /// Defender parried with its last cards.
    DefenderOutOfCards,
    /// Illegal answer.
    IllegalAnswer,
    /// No legal answer.
    NoLegalAnswer,
    /// No answer in time.
    NoAnswer,
    /// Answer to another question.
    WrongAnswer,
    /// The deck ran out.
    DeckExhausted,
}

/// One line of the standings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// Place from 1 (shared on equal points).
    pub rank: u32,
    /// The team.
    pub team: Name,
    /// All points.
    pub points: u32,
    /// Points from farthest squares.
    pub distance_points: u32,
    /// Points from achievements.
    pub achievement_points: u32,
    /// Points from end bonuses.
    pub bonus_points: u32,
    /// Farthest squares added up.
    pub distance: u32,
    /// Fights won.
    pub fights_won: u32,
    /// Money left.
    pub budget: u32,
    /// Cars still racing.
    pub cars_racing: u32,
    /// Cars registered.
    pub cars: u32,
}

/// One of the four end bonuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BonusKind {
    /// Owner of the car with most fights won.
    CarMostFightsWon,
    /// Team with most fights won.
    TeamMostFightsWon,
    /// Owner of the car that went farthest.
    CarFarthest,
    /// Team with the greatest distance.
    TeamFarthest,
}

/// An end bonus given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bonus {
    /// Which.
    pub kind: BonusKind,
    /// The best value.
    pub value: u32,
    /// The teams that earned it.
    pub teams: Vec<Name>,
    /// The cars behind it (per-car bonuses).
    pub cars: Vec<Name>,
    /// Points to each team.
    pub points: u32,
}

/// Why the race ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// All turns played.
    Turns,
    /// Time ran out.
    Duration,
}
