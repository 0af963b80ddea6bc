//! Between the telemetry's domain and the contract messages, declared once: the sessions it
//! consumes ([`Consumed`]: `game.session.completed.v1` and `.v2`, as [`Input`]s) and the four
//! `puzzle.*` messages its events become ([`PuzzleMessage`]: [`Event::to_message`], and back
//! on replay through `TryFrom`). A new message type is one line in one of them and its
//! conversion.

use arcade_contracts::game::{
    GameSessionCompleted, GameSessionCompletedV2, Pulse, SessionCompletion,
};
use arcade_contracts::puzzle::{PartitionUpdated, SessionFlagged, SessionRecorded, StatsUpdated};
use arcade_runtime::MappingError;

use crate::domain::strata::{Cell, Stage};
use crate::domain::telemetry::{Event, Flag, Flagged, Input, MoveAt, Recorded, Session};

arcade_runtime::mapping! {
    /// A message the telemetry consumes: a finished session, in either version (both read
    /// as one [`SessionCompletion`], v1's moves unknown).
    #[derive(Debug, Clone, PartialEq)]
    pub enum Consumed for Input, of "the puzzle telemetry" {
        /// `game.session.completed.v1`.
        Completed(GameSessionCompleted),
        /// `game.session.completed.v2`.
        CompletedV2(GameSessionCompletedV2),
    }
}

arcade_runtime::mapping! {
    /// One of the messages the service publishes, as a contract type.
    #[derive(Debug, Clone, PartialEq)]
    pub enum PuzzleMessage for Event, of "the puzzle telemetry's log" {
        /// `puzzle.session.recorded.v1`.
        Recorded(SessionRecorded),
        /// `puzzle.session.flagged.v1`.
        Flagged(SessionFlagged),
        /// `puzzle.stats.updated.v1`.
        Stats(StatsUpdated),
        /// `puzzle.partition.updated.v1`.
        Partition(PartitionUpdated),
    }
}

impl From<GameSessionCompleted> for Input {
    fn from(m: GameSessionCompleted) -> Input {
        Input::Session(SessionCompletion::from(m))
    }
}

impl From<GameSessionCompletedV2> for Input {
    fn from(m: GameSessionCompletedV2) -> Input {
        Input::Session(SessionCompletion::from(m))
    }
}

/// A logged recorded session whose stage is not one of the five.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stage {0}; recorded sessions have stages 1 to 5")]
pub struct StageError(pub u8);

impl Event {
    /// The contract message this event is published as.
    pub fn to_message(&self) -> PuzzleMessage {
        match self {
            Event::Recorded(r) => PuzzleMessage::Recorded(SessionRecorded {
                game_id: r.session.game_id.clone(),
                seed: r.session.seed,
                stage: r.stage.number(),
                outcome: r.session.outcome,
                turns: r.session.turns,
                move_limit: r.move_limit,
                duration_ms: r.session.duration_ms,
                recorded_at_ms: r.at_ms,
                verified: r.verified,
                source_version: r.version,
            }),
            Event::Flagged(f) => PuzzleMessage::Flagged(SessionFlagged {
                game_id: f.session.game_id.clone(),
                reason: f.flag.reason,
                detail: f.flag.describe(&f.session),
                seed: f.session.seed,
                stage: f.session.stage,
                outcome: f.session.outcome,
                turns: f.session.turns,
                duration_ms: f.session.duration_ms,
                move_limit: f.flag.move_limit,
                flagged_at_ms: f.at_ms,
                move_index: f.flag.at_move.map(|m| m.index),
                move_cell: f.flag.at_move.map(|m| Pulse([m.cell.x, m.cell.y])),
                source_version: f.version,
            }),
            Event::StatsPublished(stats) => PuzzleMessage::Stats(stats.clone()),
            Event::PartitionPublished(partition) => PuzzleMessage::Partition(partition.clone()),
        }
    }

    /// The event a logged contract message stands for (replay).
    pub fn from_message(message: PuzzleMessage) -> Result<Event, MappingError> {
        message.into_domain()
    }
}

impl TryFrom<SessionRecorded> for Event {
    type Error = StageError;

    fn try_from(m: SessionRecorded) -> Result<Event, StageError> {
        let stage = Stage::new(m.stage.into()).map_err(|_| StageError(m.stage))?;
        Ok(Event::Recorded(Recorded {
            session: Session {
                game_id: m.game_id.clone(),
                seed: m.seed,
                stage: m.stage,
                outcome: m.outcome,
                turns: m.turns,
                duration_ms: m.duration_ms,
            },
            stage,
            move_limit: m.move_limit,
            at_ms: m.recorded_at_ms,
            verified: m.verified,
            version: m.source_version,
        }))
    }
}

impl From<SessionFlagged> for Event {
    fn from(m: SessionFlagged) -> Event {
        Event::Flagged(Flagged {
            flag: Flag {
                reason: m.reason,
                move_limit: m.move_limit,
                at_move: match (m.move_index, m.move_cell) {
                    (Some(index), Some(Pulse([x, y]))) => Some(MoveAt {
                        index,
                        cell: Cell::new(x, y),
                    }),
                    _ => None,
                },
            },
            session: Session {
                game_id: m.game_id.clone(),
                seed: m.seed,
                stage: m.stage,
                outcome: m.outcome,
                turns: m.turns,
                duration_ms: m.duration_ms,
            },
            at_ms: m.flagged_at_ms,
            version: m.source_version,
        })
    }
}

impl From<StatsUpdated> for Event {
    fn from(m: StatsUpdated) -> Event {
        Event::StatsPublished(m)
    }
}

impl From<PartitionUpdated> for Event {
    fn from(m: PartitionUpdated) -> Event {
        Event::PartitionPublished(m)
    }
}
