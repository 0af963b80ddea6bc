//! Conversions between the telemetry's domain types and the wire contract: the consumed
//! `game.session.completed.v1`, and the four `puzzle.*` messages its events become.

use arcade_contracts::Message;
use arcade_contracts::game::{
    GameSessionCompleted, Outcome as WireOutcome, Pulse, SessionCompletion,
};
use arcade_contracts::puzzle::{
    FlagReason as WireReason, PartitionUpdated, SessionFlagged, SessionRecorded, StatsUpdated,
};

use super::decider::{Event, Flagged, Recorded};
use super::session::{Flag, FlagReason, MoveAt, Outcome, Session};
use crate::domain::strata::{Cell, Stage};

impl From<&SessionCompletion> for Session {
    fn from(m: &SessionCompletion) -> Self {
        Session {
            game_id: m.game_id.clone(),
            seed: m.seed,
            stage: m.stage,
            outcome: m.outcome.into(),
            turns: m.turns,
            duration_ms: m.duration_ms,
        }
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

impl From<WireOutcome> for Outcome {
    fn from(outcome: WireOutcome) -> Self {
        match outcome {
            WireOutcome::Won => Outcome::Won,
            WireOutcome::Failed => Outcome::Failed,
            WireOutcome::Abandoned => Outcome::Abandoned,
        }
    }
}

impl From<Outcome> for WireOutcome {
    fn from(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Won => WireOutcome::Won,
            Outcome::Failed => WireOutcome::Failed,
            Outcome::Abandoned => WireOutcome::Abandoned,
        }
    }
}

impl From<&GameSessionCompleted> for Session {
    fn from(m: &GameSessionCompleted) -> Self {
        Session {
            game_id: m.game_id.clone(),
            seed: m.seed,
            stage: m.stage,
            outcome: m.outcome.into(),
            turns: m.turns,
            duration_ms: m.duration_ms,
        }
    }
}

impl From<&Session> for GameSessionCompleted {
    fn from(s: &Session) -> Self {
        GameSessionCompleted {
            game_id: s.game_id.clone(),
            seed: s.seed,
            stage: s.stage,
            outcome: s.outcome.into(),
            turns: s.turns,
            duration_ms: s.duration_ms,
        }
    }
}

impl From<FlagReason> for WireReason {
    fn from(reason: FlagReason) -> Self {
        match reason {
            FlagReason::StageOutOfRange => WireReason::StageOutOfRange,
            FlagReason::UnplayableSeed => WireReason::UnplayableSeed,
            FlagReason::TurnsAboveLimit => WireReason::TurnsAboveLimit,
            FlagReason::FailedBeforeBudget => WireReason::FailedBeforeBudget,
            FlagReason::WonWithoutTurn => WireReason::WonWithoutTurn,
            FlagReason::WonFasterThanPossible => WireReason::WonFasterThanPossible,
            FlagReason::AbandonedAfterBudget => WireReason::AbandonedAfterBudget,
            FlagReason::MovesNotTurns => WireReason::MovesNotTurns,
            FlagReason::MoveOnImmutable => WireReason::MoveOnImmutable,
            FlagReason::MoveAfterEnd => WireReason::MoveAfterEnd,
            FlagReason::MovesDisagree => WireReason::MovesDisagree,
        }
    }
}

impl From<WireReason> for FlagReason {
    fn from(reason: WireReason) -> Self {
        match reason {
            WireReason::StageOutOfRange => FlagReason::StageOutOfRange,
            WireReason::UnplayableSeed => FlagReason::UnplayableSeed,
            WireReason::TurnsAboveLimit => FlagReason::TurnsAboveLimit,
            WireReason::FailedBeforeBudget => FlagReason::FailedBeforeBudget,
            WireReason::WonWithoutTurn => FlagReason::WonWithoutTurn,
            WireReason::WonFasterThanPossible => FlagReason::WonFasterThanPossible,
            WireReason::AbandonedAfterBudget => FlagReason::AbandonedAfterBudget,
            WireReason::MovesNotTurns => FlagReason::MovesNotTurns,
            WireReason::MoveOnImmutable => FlagReason::MoveOnImmutable,
            WireReason::MoveAfterEnd => FlagReason::MoveAfterEnd,
            WireReason::MovesDisagree => FlagReason::MovesDisagree,
        }
    }
}

/// One of the messages the service publishes, as a contract type.
#[derive(Debug, Clone, PartialEq)]
pub enum PuzzleMessage {
    /// `puzzle.session.recorded.v1`.
    Recorded(SessionRecorded),
    /// `puzzle.session.flagged.v1`.
    Flagged(SessionFlagged),
    /// `puzzle.stats.updated.v1`.
    Stats(StatsUpdated),
    /// `puzzle.partition.updated.v1`.
    Partition(PartitionUpdated),
}

/// A logged message that is not one of this service's events.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The type is not one the puzzle telemetry publishes.
    #[error("\"{0}\" is not a puzzle telemetry event")]
    UnknownType(String),
    /// The payload does not decode as its type.
    #[error("{message_type} payload does not decode: {reason}")]
    Payload {
        /// The message type.
        message_type: &'static str,
        /// What serde said.
        reason: String,
    },
    /// A recorded session with a stage outside 1–5.
    #[error("{message_type} has stage {stage}; recorded sessions have stages 1 to 5")]
    Stage {
        /// The message type.
        message_type: &'static str,
        /// The stage found.
        stage: u8,
    },
}

fn decode<M: Message>(payload: serde_json::Value) -> Result<M, DecodeError> {
    serde_json::from_value(payload).map_err(|e| DecodeError::Payload {
        message_type: M::TYPE,
        reason: e.to_string(),
    })
}

impl PuzzleMessage {
    /// Its versioned type name (the routing key).
    pub fn message_type(&self) -> &'static str {
        match self {
            PuzzleMessage::Recorded(_) => SessionRecorded::TYPE,
            PuzzleMessage::Flagged(_) => SessionFlagged::TYPE,
            PuzzleMessage::Stats(_) => StatsUpdated::TYPE,
            PuzzleMessage::Partition(_) => PartitionUpdated::TYPE,
        }
    }

    /// Its JSON payload.
    pub fn to_json(&self) -> serde_json::Value {
        let value = match self {
            PuzzleMessage::Recorded(m) => serde_json::to_value(m),
            PuzzleMessage::Flagged(m) => serde_json::to_value(m),
            PuzzleMessage::Stats(m) => serde_json::to_value(m),
            PuzzleMessage::Partition(m) => serde_json::to_value(m),
        };
        value.unwrap_or(serde_json::Value::Null)
    }

    /// Decodes a logged payload by its type name.
    pub fn from_json(message_type: &str, payload: serde_json::Value) -> Result<Self, DecodeError> {
        match message_type {
            SessionRecorded::TYPE => decode(payload).map(PuzzleMessage::Recorded),
            SessionFlagged::TYPE => decode(payload).map(PuzzleMessage::Flagged),
            StatsUpdated::TYPE => decode(payload).map(PuzzleMessage::Stats),
            PartitionUpdated::TYPE => decode(payload).map(PuzzleMessage::Partition),
            other => Err(DecodeError::UnknownType(other.to_string())),
        }
    }
}

impl Event {
    /// The contract message this event is published as.
    pub fn to_message(&self) -> PuzzleMessage {
        match self {
            Event::Recorded(r) => PuzzleMessage::Recorded(SessionRecorded {
                game_id: r.session.game_id.clone(),
                seed: r.session.seed,
                stage: r.stage.number(),
                outcome: r.session.outcome.into(),
                turns: r.session.turns,
                move_limit: r.move_limit,
                duration_ms: r.session.duration_ms,
                recorded_at_ms: r.at_ms,
                verified: r.verified,
                source_version: r.version,
            }),
            Event::Flagged(f) => PuzzleMessage::Flagged(SessionFlagged {
                game_id: f.session.game_id.clone(),
                reason: f.flag.reason.into(),
                detail: f.flag.describe(&f.session),
                seed: f.session.seed,
                stage: f.session.stage,
                outcome: f.session.outcome.into(),
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
    pub fn from_message(message: PuzzleMessage) -> Result<Event, DecodeError> {
        Ok(match message {
            PuzzleMessage::Recorded(m) => {
                let stage = Stage::new(m.stage.into()).map_err(|_| DecodeError::Stage {
                    message_type: SessionRecorded::TYPE,
                    stage: m.stage,
                })?;
                Event::Recorded(Recorded {
                    session: Session {
                        game_id: m.game_id,
                        seed: m.seed,
                        stage: m.stage,
                        outcome: m.outcome.into(),
                        turns: m.turns,
                        duration_ms: m.duration_ms,
                    },
                    stage,
                    move_limit: m.move_limit,
                    at_ms: m.recorded_at_ms,
                    verified: m.verified,
                    version: m.source_version,
                })
            }
            PuzzleMessage::Flagged(m) => Event::Flagged(Flagged {
                flag: Flag {
                    reason: m.reason.into(),
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
                    game_id: m.game_id,
                    seed: m.seed,
                    stage: m.stage,
                    outcome: m.outcome.into(),
                    turns: m.turns,
                    duration_ms: m.duration_ms,
                },
                at_ms: m.flagged_at_ms,
                version: m.source_version,
            }),
            PuzzleMessage::Stats(m) => Event::StatsPublished(m),
            PuzzleMessage::Partition(m) => Event::PartitionPublished(m),
        })
    }
}
