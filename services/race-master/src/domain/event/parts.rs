//! The small facts' parts: reasons, outcomes, fighters, standings, bonuses, the duel transcript.
//! The reasons, outcomes and standings are the contract's own types (`race.*`): the domain names the same
//! things, so it uses them as they are.

pub use arcade_contracts::race::{
    BonusKind, CombatOutcome, DuelReason, EventOutcome, FinishReason, ModuleReason, MoveReason,
    PenaltyReason, Phase, RegistrationProblem, StopReason, TeamStanding,
};

use crate::domain::car::Name;
use crate::domain::duel::Step;
use crate::domain::rules::Modules;

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
