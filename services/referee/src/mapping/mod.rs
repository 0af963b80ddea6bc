//! Between the referee's domain and the `table.*` contract messages, declared once: the
//! commands it takes ([`TableCommand`], into the domain's [`Input`]), the events it publishes
//! ([`TableEvent`], in [`events`]) and its refusals ([`TableRejection`]). A new message type
//! is one line in one of them, and one line each way to and from the domain.

mod events;

use arcade_contracts::table as contract;
use arcade_runtime::MappingError;
use serde_json::Value;

pub use events::{ReplayError, TableEvent};

use crate::domain::referee::{AbortGame, BallSeen, GoalReport, StartGame};
use crate::domain::{Event, Input, Rejection};
use crate::table::Ball;

arcade_runtime::mapping! {
    /// A command addressed to the referee of a table.
    #[derive(Debug, Clone, PartialEq)]
    pub enum TableCommand, of "the referee" {
        /// `table.game.start.v1`.
        Start(contract::TableGameStart),
        /// `table.goal.report.v1`.
        Report(contract::TableGoalReport),
        /// `table.game.abort.v1`.
        Abort(contract::TableGameAbort),
        /// `table.goal.cancel.v1`.
        Cancel(contract::TableGoalCancel),
    }
}

arcade_runtime::mapping! {
    /// A refusal as its contract message.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum TableRejection, of "the referee's log" {
        /// `table.game.rejected.v1`.
        Game(contract::TableGameRejected),
        /// `table.goal.rejected.v1`.
        Goal(contract::TableGoalRejected),
    }
}

/// A command (or any of its contract types) as the referee's input; the host stamps its time
/// ([`Input::at`]).
impl<C: Into<TableCommand>> From<C> for Input {
    fn from(command: C) -> Input {
        match command.into() {
            TableCommand::Start(c) => Input::Start(StartGame {
                table_id: c.table_id,
                game_id: c.game_id,
                rules: Value::Object(c.rules),
                players: c.players,
                at_ms: 0,
            }),
            TableCommand::Report(c) => Input::Report(GoalReport {
                table_id: c.table_id,
                game_id: c.game_id,
                side: c.side,
                kind: c.kind,
                player: c.player,
                at_ms: 0,
            }),
            TableCommand::Abort(c) => Input::Abort(AbortGame {
                table_id: c.table_id,
                game_id: c.game_id,
                reason: c.reason,
                at_ms: 0,
            }),
            TableCommand::Cancel(c) => Input::Cancel(c),
        }
    }
}

/// A ball the sensors saw, as the referee's input; the host stamps its time.
impl From<Ball> for Input {
    fn from(ball: Ball) -> Input {
        Input::Ball(BallSeen {
            side: ball.side,
            kind: ball.kind,
            at_ms: 0,
        })
    }
}

/// What the referee service logs and publishes: the table's facts and its refusals.
#[derive(Debug, Clone, PartialEq)]
pub enum Fact {
    /// A fact of the game (`table.game.started.v1`, `table.goal.scored.v1`, …).
    Table(Event),
    /// A refused command (`table.game.rejected.v1`, `table.goal.rejected.v1`).
    Refused(TableRejection),
}

impl Fact {
    /// A fact back from the log (replay): an event or a refusal.
    pub fn from_log(message_type: &str, payload: &Value) -> Result<Fact, MappingError> {
        if let Some(message) = TableEvent::read(message_type, payload)? {
            return Event::try_from(message).map(Fact::Table);
        }
        match TableRejection::read(message_type, payload)? {
            Some(refusal) => Ok(Fact::Refused(refusal)),
            None => Err(MappingError::unknown(
                message_type,
                "the referee's log",
                &[TableEvent::TYPES, TableRejection::TYPES].concat(),
            )),
        }
    }
}

impl Rejection {
    /// The contract message of this refusal, for the referee of `table_id`.
    pub fn to_message(&self, table_id: &str) -> TableRejection {
        let (table_id, error) = (table_id.to_string(), self.to_string());
        match self {
            Rejection::Start { game_id, .. }
            | Rejection::Abort { game_id, .. }
            | Rejection::Cancel { game_id, .. } => {
                TableRejection::Game(contract::TableGameRejected {
                    table_id,
                    game_id: game_id.clone(),
                    error,
                })
            }
            Rejection::Report {
                game_id,
                side,
                kind,
                ..
            } => TableRejection::Goal(contract::TableGoalRejected {
                table_id,
                game_id: game_id.clone(),
                side: *side,
                kind: *kind,
                error,
            }),
        }
    }
}
