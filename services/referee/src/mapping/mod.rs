//! Between the referee's domain and the `table.*` contract messages, declared once: the
//! commands it takes ([`TableCommand`], as the domain's [`Input`]), the events it publishes
//! ([`TableEvent`]: [`Event::to_message`], and back on replay through `TryFrom`) and its
//! refusals ([`TableRejection`]). A new message type is one line in one of them and its
//! conversion.

mod events;
mod values;

use arcade_contracts::table as wire;
use arcade_runtime::MappingError;
use serde_json::Value;

use crate::domain::referee::{AbortGame, BallSeen, GoalReport, StartGame};
use crate::domain::{Event, Input, Rejection};
use crate::table::Ball;

pub use values::{ReplayError, side_in, side_out};
use values::{kind_in, kind_out, players_in};

arcade_runtime::mapping! {
    /// A command addressed to the referee of a table.
    #[derive(Debug, Clone, PartialEq)]
    pub enum TableCommand for Input, of "the referee" {
        /// `table.game.start.v1`.
        Start(wire::TableGameStart),
        /// `table.goal.report.v1`.
        Report(wire::TableGoalReport),
        /// `table.game.abort.v1`.
        Abort(wire::TableGameAbort),
        /// `table.goal.cancel.v1`.
        Cancel(wire::TableGoalCancel),
    }
}

arcade_runtime::mapping! {
    /// A domain event as its contract message.
    #[derive(Debug, Clone, PartialEq)]
    pub enum TableEvent for Event, of "the referee's log" {
        /// `table.game.started.v1`.
        GameStarted(wire::TableGameStarted),
        /// `table.goal.scored.v1`.
        GoalScored(wire::TableGoalScored),
        /// `table.phase.changed.v1`.
        PhaseChanged(wire::TablePhaseChanged),
        /// `table.ibr.changed.v1`.
        IbrChanged(wire::TableIbrChanged),
        /// `table.game.finished.v1` (a game won, timed out or aborted).
        GameFinished(wire::TableGameFinished),
        /// `table.goal.cancelled.v1`.
        GoalCancelled(wire::TableGoalCancelled),
    }
}

arcade_runtime::mapping! {
    /// A refusal as its contract message.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum TableRejection, of "the referee's log" {
        /// `table.game.rejected.v1`.
        Game(wire::TableGameRejected),
        /// `table.goal.rejected.v1`.
        Goal(wire::TableGoalRejected),
    }
}

/// A `table.game.start.v1` as the referee's input; the host stamps its time ([`Input::at`]).
impl From<wire::TableGameStart> for Input {
    fn from(command: wire::TableGameStart) -> Input {
        Input::Start(StartGame {
            table_id: command.table_id,
            game_id: command.game_id,
            rules: Value::Object(command.rules),
            players: command.players.as_ref().map(players_in),
            at_ms: 0,
        })
    }
}

/// A `table.goal.report.v1` as the referee's input; the host stamps its time.
impl From<wire::TableGoalReport> for Input {
    fn from(command: wire::TableGoalReport) -> Input {
        Input::Report(GoalReport {
            table_id: command.table_id,
            game_id: command.game_id,
            side: side_in(command.side),
            kind: kind_in(command.kind),
            player: command.player,
            at_ms: 0,
        })
    }
}

/// A `table.game.abort.v1` as the referee's input; the host stamps its time.
impl From<wire::TableGameAbort> for Input {
    fn from(command: wire::TableGameAbort) -> Input {
        Input::Abort(AbortGame {
            table_id: command.table_id,
            game_id: command.game_id,
            reason: command.reason,
            at_ms: 0,
        })
    }
}

/// A `table.goal.cancel.v1` as the referee's input.
impl From<wire::TableGoalCancel> for Input {
    fn from(c: wire::TableGoalCancel) -> Input {
        let (table_id, game_id, ball, reason) = (c.table_id, c.game_id, c.ball, c.reason);
        Input::Cancel {
            table_id,
            game_id,
            ball,
            reason,
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
            return message.into_domain().map(Fact::Table);
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
            | Rejection::Cancel { game_id, .. } => TableRejection::Game(wire::TableGameRejected {
                table_id,
                game_id: game_id.clone(),
                error,
            }),
            Rejection::Report {
                game_id,
                side,
                kind,
                ..
            } => TableRejection::Goal(wire::TableGoalRejected {
                table_id,
                game_id: game_id.clone(),
                side: side_out(*side),
                kind: kind_out(*kind),
                error,
            }),
        }
    }
}
