//! Verified sessions: a session that lists its moves (`game.session.completed.v2`) is replayed
//! through the public pulse rule of the puzzle its `(seed, stage)` generates, and must end as
//! it claims.
//!
//! Checks, in order; the first that fails is the flag, naming the first move that disagrees:
//! 1. stage and seed, as for every session ([`validate`]'s first two rules);
//! 2. as many moves as `turns` (`movesNotTurns`);
//! 3. each move in turn is an accepted pulse: not on stone or an anchor (`moveOnImmutable`),
//!    not after the game was won or its budget spent (`moveAfterEnd`; so a session with more
//!    moves than the move limit is flagged at the first move past it);
//! 4. the replayed end matches the outcome: `won` charges the target at its last move, `failed`
//!    spends the budget without charging it, `abandoned` leaves the game unfinished
//!    (`movesDisagree`, naming the last move; `failedBeforeBudget` when a `failed` session
//!    stops with moves left; `wonWithoutTurn` for a `won` without moves).
//!
//! A session that passes is recorded as verified. Sessions without moves (v1) are checked by
//! [`validate`] alone, as before.

use super::session::{Accepted, Flag, FlagReason, MoveAt, Outcome, Session, validate};
use crate::domain::strata::{Cell, PulseRefused, Puzzle, Stage};

/// Validates a session: by replaying its moves when it lists them, else by [`validate`].
pub fn check(session: &Session, moves: Option<&[Cell]>) -> Result<Accepted, Flag> {
    match moves {
        None => validate(session),
        Some(moves) => replay(session, moves),
    }
}

/// Replays `moves` (see the module docs).
pub fn replay(session: &Session, moves: &[Cell]) -> Result<Accepted, Flag> {
    let flag = |reason, move_limit, at_move| Flag {
        reason,
        move_limit,
        at_move,
    };
    let stage = Stage::new(session.stage.into())
        .map_err(|_| flag(FlagReason::StageOutOfRange, None, None))?;
    let puzzle = Puzzle::generate(session.seed, stage)
        .map_err(|_| flag(FlagReason::UnplayableSeed, None, None))?;
    let limit = Some(puzzle.move_limit());
    if moves.len() as u64 != u64::from(session.turns) {
        return Err(flag(FlagReason::MovesNotTurns, limit, None));
    }
    let at = |i: usize, cell: Cell| {
        Some(MoveAt {
            index: (i + 1).min(usize::from(u8::MAX)) as u8,
            cell,
        })
    };
    let mut state = puzzle.start();
    for (i, &cell) in moves.iter().enumerate() {
        match state.pulse(cell) {
            Ok(pulsed) => state = pulsed.state,
            Err(PulseRefused::Immutable { .. }) => {
                return Err(flag(FlagReason::MoveOnImmutable, limit, at(i, cell)));
            }
            Err(PulseRefused::Finished { .. }) => {
                return Err(flag(FlagReason::MoveAfterEnd, limit, at(i, cell)));
            }
        }
    }
    let last = moves.len().checked_sub(1).and_then(|i| at(i, moves[i]));
    let disagrees = match session.outcome {
        Outcome::Won if moves.is_empty() => Some(FlagReason::WonWithoutTurn),
        Outcome::Won if !state.is_won() => Some(FlagReason::MovesDisagree),
        Outcome::Failed if state.is_won() => Some(FlagReason::MovesDisagree),
        Outcome::Failed if !state.is_failed() => Some(FlagReason::FailedBeforeBudget),
        Outcome::Abandoned if state.is_finished() => Some(FlagReason::MovesDisagree),
        _ => None,
    };
    match disagrees {
        Some(reason @ FlagReason::MovesDisagree) => Err(flag(reason, limit, last)),
        Some(reason) => Err(flag(reason, limit, None)),
        None => Ok(Accepted {
            verified: true,
            stage,
            move_limit: puzzle.move_limit(),
        }),
    }
}
