//! Between the telemetry's domain and the contract messages, declared once: the sessions it
//! consumes ([`Consumed`]: `game.session.completed.v1` and `.v2`, as [`Input`]s) and the four
//! `puzzle.*` messages its events become ([`PuzzleMessage`]: [`Event::to_message`], and back
//! on replay through `TryFrom`). A new message type is one line in one of them and its
//! conversion.

use arcade_contracts::game::{
    GameSessionCompleted, GameSessionCompletedV2, Outcome as WireOutcome, Pulse, SessionCompletion,
};
use arcade_contracts::puzzle::{
    FlagReason as WireReason, PartitionUpdated, SessionFlagged, SessionRecorded, StatsUpdated,
};
use arcade_runtime::MappingError;

use crate::domain::strata::{Cell, Stage};
use crate::domain::telemetry::{
    Event, Flag, FlagReason, Flagged, Input, MoveAt, Outcome, Recorded, Session,
};

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
        }))
    }
}

impl From<SessionFlagged> for Event {
    fn from(m: SessionFlagged) -> Event {
        Event::Flagged(Flagged {
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
