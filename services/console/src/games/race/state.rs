//! The parts of the race's read model ([`super::projection::Race`]): its settings, the cars
//! on the ring, each turn's story, how it ended, its notices, and what is kept of each.

use arcade_contracts::race::{Bonus, FinishReason, Modules, StopReason, TeamStanding};
use serde::{Deserialize, Serialize};

use super::lines;

/// Squares on the ring.
pub const RING: u32 = 300;
/// Cars kept (a hackathon has a few dozen); beyond this, new cars are not shown.
pub const MAX_CARS: usize = 500;
/// Turns whose story is kept (the newest).
pub const KEPT_TURNS: usize = 60;
/// Lines kept in one turn's story; the rest are counted.
pub const MAX_LINES: usize = 400;
/// Hints, achievements and operator refusals kept (the newest).
pub const MAX_NEWS: usize = 50;

/// Where the race is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// Cars register; not started.
    #[default]
    Registration,
    /// Turns are played.
    Running,
    /// Over: standings final, seed revealed.
    Finished,
}

/// The race's settings, from `race.started.v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// When it started (ms since the epoch).
    pub at_ms: u64,
    /// Turns, if limited.
    pub turns: Option<u32>,
    /// Its length in ms.
    pub duration_ms: u64,
    /// Least time between turns.
    pub turn_interval_ms: u64,
    /// Time a car has to answer.
    pub decision_timeout_ms: u64,
    /// SHA-256 of the seed (the commitment; the seed itself only at the end).
    pub seed_sha256: String,
}

/// A car on the ring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Car {
    /// Its name.
    pub car: String,
    /// Its team.
    pub team: String,
    /// Its modules.
    pub modules: Modules,
    /// Squares driven from the start line.
    pub square: u32,
    /// Where it stands on the ring (`square % 300`).
    pub ring: u32,
    /// Turns it still misses.
    pub turns_to_miss: u32,
    /// The turn it starts racing.
    pub starts_turn: u32,
    /// Why it left the race, if it did.
    pub stopped: Option<StopReason>,
    /// Combats it won.
    pub fights_won: u32,
}

/// One turn's story.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// The turn.
    pub turn: u32,
    /// When it started (ms since the epoch).
    pub at_ms: u64,
    /// What happened, in order.
    pub lines: Vec<lines::Line>,
    /// Lines over [`MAX_LINES`], not kept.
    pub dropped: u32,
    /// The standings after it, once scored.
    pub standings: Option<Vec<TeamStanding>>,
}

/// How the race ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finished {
    /// The last turn.
    pub turn: u32,
    /// When.
    pub at_ms: u64,
    /// Why.
    pub reason: FinishReason,
    /// The end bonuses.
    pub bonuses: Vec<Bonus>,
    /// The seed, revealed by `race.finished.v1`.
    pub seed: String,
}

/// A public notice: a hint, an achievement, a refused organiser command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    /// The turn it came with.
    pub turn: u32,
    /// When the console saw it.
    pub seen_at_ms: u64,
    /// What it is about (an achievement's title, a command's type).
    pub title: String,
    /// What it says.
    pub text: String,
}
