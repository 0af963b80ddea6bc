//! Between the telemetry's domain and the contract messages, declared once: the sessions it
//! consumes ([`Consumed`]: `game.session.completed.v1` and `.v2`, as [`Input`]s) and the four
//! `puzzle.*` messages its events hold ([`PuzzleMessage`]: [`Event::to_message`], and back on
//! replay through `From`). A new message type is one line in one of them and its arm.

use arcade_contracts::game::{GameSessionCompleted, GameSessionCompletedV2, SessionCompletion};
use arcade_contracts::puzzle::{PartitionUpdated, SessionFlagged, SessionRecorded, StatsUpdated};

use crate::domain::telemetry::{Event, Input};

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
    pub enum PuzzleMessage, of "the puzzle telemetry's log" {
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

impl Event {
    /// The contract message this event is published as.
    pub fn to_message(&self) -> PuzzleMessage {
        match self.clone() {
            Event::Recorded(m) => m.into(),
            Event::Flagged(m) => m.into(),
            Event::StatsPublished(m) => m.into(),
            Event::PartitionPublished(m) => m.into(),
        }
    }
}

/// The event a logged contract message stands for (replay).
impl From<PuzzleMessage> for Event {
    fn from(message: PuzzleMessage) -> Event {
        match message {
            PuzzleMessage::Recorded(m) => Event::Recorded(m),
            PuzzleMessage::Flagged(m) => Event::Flagged(m),
            PuzzleMessage::Stats(m) => Event::StatsPublished(m),
            PuzzleMessage::Partition(m) => Event::PartitionPublished(m),
        }
    }
}
