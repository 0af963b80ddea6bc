//! A finished session and its validation against Strata Relay's rules.
//!
//! Decisions where the issue leaves room:
//! - `abandoned` is accepted with any number of turns below the move limit, 0 included (the
//!   player opened the board and left). With the whole budget used the game had already ended
//!   as won or failed, so `abandoned` there is flagged (`abandonedAfterBudget`).
//! - `won` is accepted with 1 to `limit` turns, the limit included (playing the witness uses
//!   exactly the limit). A win in 1 or 2 turns is also checked exactly against the puzzle: if no
//!   multiset of that many pulses wins it, it is flagged (`wonFasterThanPossible`). Longer wins
//!   are not searched (the cost grows with the number of multisets; see
//!   [`State::min_turns_to_win`](crate::domain::strata::State::min_turns_to_win)).
//! - `failed` must have exactly `limit` turns: a game fails only when no move is left.
//! - Checks run in this order and the first broken rule is the reason: stage, seed, turns
//!   above the limit, then the outcome's rule.

use arcade_contracts::game::{Pulse, SessionCompletion};

use crate::domain::strata::{Cell, Puzzle, Stage};

/// The deepest claimed win that validation checks exactly by search.
pub const WIN_SEARCH_TURNS: u32 = 2;

/// How a session ended: the contract's outcome, which the rules read as it is.
pub use arcade_contracts::game::Outcome;
/// Which rule a session breaks: the contract's reason, which `puzzle.session.flagged.v1`
/// carries as it is (a win faster than possible is checked up to [`WIN_SEARCH_TURNS`]).
pub use arcade_contracts::puzzle::FlagReason;

/// A finished session as its producer reported it: the six fields every version of
/// `game.session.completed` carries, stage validated, not trusted. The contract's
/// `game.session.completed.v1`, the same thing.
pub use arcade_contracts::game::GameSessionCompleted as Session;

/// A session that passed validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// Whether its moves were replayed and give its outcome (v2); false when unknown (v1).
    pub verified: bool,
    /// The validated stage.
    pub stage: Stage,
    /// The move limit of the session's puzzle.
    pub move_limit: u8,
}

/// The listed move a verified session's flag names: its 1-based position and its cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveAt {
    /// Position in the session's moves, from 1.
    pub index: u8,
    /// The cell pulsed.
    pub cell: Cell,
}

/// Why a session was flagged, with the move limit when the puzzle exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    /// The broken rule.
    pub reason: FlagReason,
    /// The puzzle's move limit, when there is a puzzle.
    pub move_limit: Option<u8>,
    /// The first listed move that disagrees, for the reasons found by replaying the moves.
    pub at_move: Option<MoveAt>,
}

impl Flag {
    /// The reason in words, with the session's numbers.
    pub fn describe(&self, session: &Session) -> String {
        let Session {
            seed, stage, turns, ..
        } = session;
        let at = self.at_move.map_or_else(
            || "a move".to_string(),
            |m| format!("move {} ({}, {})", m.index, m.cell.x, m.cell.y),
        );
        let limit = self
            .move_limit
            .map_or_else(|| "?".to_string(), |l| l.to_string());
        match self.reason {
            FlagReason::StageOutOfRange => {
                format!("stage {stage} does not exist; stages are 1 to 5")
            }
            FlagReason::UnplayableSeed => {
                format!("the generator builds no puzzle for seed {seed} at stage {stage}")
            }
            FlagReason::TurnsAboveLimit => format!(
                "{turns} turns, above the move limit of {limit} for seed {seed} at stage {stage}"
            ),
            FlagReason::FailedBeforeBudget => format!(
                "failed after {turns} turns, but a game fails only when its {limit} moves are spent"
            ),
            FlagReason::WonWithoutTurn => {
                "won without a single turn, but every puzzle starts unsolved".to_string()
            }
            FlagReason::WonFasterThanPossible => format!(
                "won in {turns} turns, but no {turns} pulses solve seed {seed} at stage {stage}"
            ),
            FlagReason::AbandonedAfterBudget => format!(
                "abandoned after {turns} turns, but with its {limit} moves spent the game had already ended"
            ),
            FlagReason::MovesNotTurns => {
                format!("{turns} turns, but another number of moves is listed")
            }
            FlagReason::MoveOnImmutable => {
                format!("{at} pulses stone or an anchor, which the puzzle refuses")
            }
            FlagReason::MoveAfterEnd => {
                format!("{at} comes after the game had already ended")
            }
            FlagReason::MovesDisagree => match session.outcome {
                Outcome::Won => format!("{at} is the last and the target is not charged: not won"),
                Outcome::Failed => format!("{at} charges the target: won, not failed"),
                Outcome::Abandoned => format!("{at} ends the game, so it was not abandoned"),
            },
        }
    }
}

/// Validates a session against the rules: its puzzle must exist, its turns must fit the move
/// limit the generator gives for `(seed, stage)`, and its outcome must be consistent with its
/// turns (see the module docs for the exact rules).
pub fn validate(session: &Session) -> Result<Accepted, Flag> {
    let flag = |reason, move_limit| Flag {
        reason,
        move_limit,
        at_move: None,
    };
    let stage =
        Stage::new(session.stage.into()).map_err(|_| flag(FlagReason::StageOutOfRange, None))?;
    let puzzle = Puzzle::generate(session.seed, stage)
        .map_err(|_| flag(FlagReason::UnplayableSeed, None))?;
    let limit = puzzle.move_limit();
    let turns = session.turns;
    let broken = if turns > u32::from(limit) {
        Some(FlagReason::TurnsAboveLimit)
    } else {
        match session.outcome {
            Outcome::Failed if turns < u32::from(limit) => Some(FlagReason::FailedBeforeBudget),
            Outcome::Won if turns == 0 => Some(FlagReason::WonWithoutTurn),
            Outcome::Won
                if turns <= WIN_SEARCH_TURNS
                    && puzzle.start().min_turns_to_win(turns as u8).is_none() =>
            {
                Some(FlagReason::WonFasterThanPossible)
            }
            Outcome::Abandoned if turns == u32::from(limit) => {
                Some(FlagReason::AbandonedAfterBudget)
            }
            _ => None,
        }
    };
    match broken {
        Some(reason) => Err(flag(reason, Some(limit))),
        None => Ok(Accepted {
            verified: false,
            stage,
            move_limit: limit,
        }),
    }
}

/// The listed moves of a session as cells; `None` when the producer did not list them (v1).
pub(crate) fn cells(m: &SessionCompletion) -> Option<Vec<Cell>> {
    m.moves.as_ref().map(|moves| {
        moves
            .iter()
            .map(|Pulse([x, y])| Cell::new(*x, *y))
            .collect()
    })
}
