//! `table.*`: the table referee's commands and facts (foosball games, goals, phases, ball locks).
//!
//! Commands go to the queue of the referee of one table, `referee.<tableId>`; facts are
//! published on the topic exchange. Every message names its `tableId` and `gameId`.
//!
//! Layout: the vocabulary shared by the messages (sides, ball kinds, phases, ball locks,
//! scores, players) here, with the names rules documents and the wire spell; [`requests`] (the
//! commands to a referee and their direct answers) and [`play`] (the facts of a game), each
//! type there next to its catalog entry and example.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::MessageType;

/// The queue of the referee of a table.
pub fn referee_queue(table_id: &str) -> String {
    format!("referee.{table_id}")
}

/// A side of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The hinge side.
    Hinge,
    /// The lock side.
    Lock,
}

/// How a ball went in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BallKind {
    /// A plain goal.
    Goal,
    /// A ball that went in and came back out.
    Inout,
}

/// A phase of a game, as named in the rules document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Normal play.
    Default,
    /// Tie-break, entered when `conditions.tie_break.start_rule` holds.
    TieBreak,
    /// Entered when the game clock reaches `timeout_s`.
    Timeout,
}

/// The state of one side's ball return (IBR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IbrLock {
    /// The ball is kept.
    Locked,
    /// The ball is given back.
    Released,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    /// Won under the `default` or `tie_break` conditions.
    Win,
    /// Won under the `timeout` conditions, after the game clock reached `timeout_s`.
    Timeout,
    /// Ended by `table.game.abort.v1`, without a winner (since 2026-12).
    Aborted,
}

/// Both sides' scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
pub struct Score {
    /// The hinge side's score.
    pub hinge: u64,
    /// The lock side's score.
    pub lock: u64,
}

/// The players of a game, by side.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Players {
    /// Names or ids of the players on the hinge side.
    #[serde(default)]
    pub hinge: Vec<String>,
    /// Names or ids of the players on the lock side.
    #[serde(default)]
    pub lock: Vec<String>,
}

impl Side {
    /// Both sides, hinge first.
    pub const ALL: [Side; 2] = [Side::Hinge, Side::Lock];

    /// The name used in rules documents and on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Side::Hinge => "hinge",
            Side::Lock => "lock",
        }
    }

    /// The opponent.
    pub fn other(self) -> Side {
        match self {
            Side::Hinge => Side::Lock,
            Side::Lock => Side::Hinge,
        }
    }
}

impl BallKind {
    /// Both kinds, goal first.
    pub const ALL: [BallKind; 2] = [BallKind::Goal, BallKind::Inout];

    /// The name used in rules documents and on the wire.
    pub fn name(self) -> &'static str {
        match self {
            BallKind::Goal => "goal",
            BallKind::Inout => "inout",
        }
    }
}

impl Phase {
    /// Every phase, in the order of the rules document.
    pub const ALL: [Phase; 3] = [Phase::Default, Phase::TieBreak, Phase::Timeout];

    /// The name used in rules documents and on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Default => "default",
            Phase::TieBreak => "tie_break",
            Phase::Timeout => "timeout",
        }
    }
}

impl IbrLock {
    /// The name used on the wire.
    pub fn name(self) -> &'static str {
        match self {
            IbrLock::Locked => "locked",
            IbrLock::Released => "released",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for BallKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for IbrLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Score {
    /// A score.
    pub fn new(hinge: u64, lock: u64) -> Score {
        Score { hinge, lock }
    }

    /// The score of one side.
    pub fn of(&self, side: Side) -> u64 {
        match side {
            Side::Hinge => self.hinge,
            Side::Lock => self.lock,
        }
    }

    /// Adds `points` (possibly negative) to one side, floored at 0.
    pub fn add(&mut self, side: Side, points: i64) {
        let slot = match side {
            Side::Hinge => &mut self.hinge,
            Side::Lock => &mut self.lock,
        };
        *slot = slot.saturating_add_signed(points);
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hinge {} – lock {}", self.hinge, self.lock)
    }
}

mod examples;
pub mod play;
pub mod requests;

pub use play::*;
pub use requests::*;

/// The message types of this module: the requests and their answers, then the facts of play.
pub fn types() -> Vec<MessageType> {
    let mut all = requests::types();
    all.extend(play::types());
    all
}
