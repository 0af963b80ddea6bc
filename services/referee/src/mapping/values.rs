//! The referee's values between the domain and the `table.*` contract shapes: sides, ball
//! kinds, phases, locks, scores and players.

use arcade_contracts::table as wire;

use crate::domain::referee::Players;
use crate::domain::{BallKind, IbrLock, Phase, RulesError, Score, Side};

/// A message from the log that cannot be turned back into a domain event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The rules of a started game no longer parse.
    #[error("the rules of game \"{game_id}\" do not parse: {error}")]
    Rules {
        /// The game.
        game_id: String,
        /// Why.
        error: RulesError,
    },
    /// A score beyond what the referee counts.
    #[error("score {0} is out of range")]
    Score(u64),
    /// A game won without a winner.
    #[error("game \"{0}\" finished with reason win or timeout but names no winner")]
    NoWinner(String),
}

/// A domain side on the wire.
pub fn side_out(side: Side) -> wire::Side {
    match side {
        Side::Hinge => wire::Side::Hinge,
        Side::Lock => wire::Side::Lock,
    }
}

/// A wire side in the domain.
pub fn side_in(side: wire::Side) -> Side {
    match side {
        wire::Side::Hinge => Side::Hinge,
        wire::Side::Lock => Side::Lock,
    }
}

pub(super) fn kind_out(kind: BallKind) -> wire::BallKind {
    match kind {
        BallKind::Goal => wire::BallKind::Goal,
        BallKind::Inout => wire::BallKind::Inout,
    }
}

pub(super) fn kind_in(kind: wire::BallKind) -> BallKind {
    match kind {
        wire::BallKind::Goal => BallKind::Goal,
        wire::BallKind::Inout => BallKind::Inout,
    }
}

pub(super) fn phase_out(phase: Phase) -> wire::Phase {
    match phase {
        Phase::Default => wire::Phase::Default,
        Phase::TieBreak => wire::Phase::TieBreak,
        Phase::Timeout => wire::Phase::Timeout,
    }
}

pub(super) fn phase_in(phase: wire::Phase) -> Phase {
    match phase {
        wire::Phase::Default => Phase::Default,
        wire::Phase::TieBreak => Phase::TieBreak,
        wire::Phase::Timeout => Phase::Timeout,
    }
}

pub(super) fn lock_out(lock: IbrLock) -> wire::IbrLock {
    match lock {
        IbrLock::Locked => wire::IbrLock::Locked,
        IbrLock::Released => wire::IbrLock::Released,
    }
}

pub(super) fn lock_in(lock: wire::IbrLock) -> IbrLock {
    match lock {
        wire::IbrLock::Locked => IbrLock::Locked,
        wire::IbrLock::Released => IbrLock::Released,
    }
}

/// Scores are never negative (every change is floored at 0).
pub(super) fn score_out(score: Score) -> wire::Score {
    let points = |n: i64| u64::try_from(n).unwrap_or(0);
    wire::Score {
        hinge: points(score.hinge),
        lock: points(score.lock),
    }
}

pub(super) fn score_in(score: wire::Score) -> Result<Score, ReplayError> {
    let points = |n: u64| i64::try_from(n).map_err(|_| ReplayError::Score(n));
    Ok(Score {
        hinge: points(score.hinge)?,
        lock: points(score.lock)?,
    })
}

pub(super) fn players_out(players: &Players) -> wire::Players {
    wire::Players {
        hinge: players.hinge.clone(),
        lock: players.lock.clone(),
    }
}

pub(super) fn players_in(players: &wire::Players) -> Players {
    Players {
        hinge: players.hinge.clone(),
        lock: players.lock.clone(),
    }
}
