//! Between the referee's domain and the `table.*` contract messages, declared once: the
//! commands it takes ([`TableCommand`], as the domain's [`Input`]), the events it publishes
//! ([`TableEvent`]: [`Event::to_message`], and back on replay through `TryFrom`) and its
//! refusals ([`TableRejection`]). A new message type is one line in one of them and its
//! conversion.

mod values;

use std::sync::Arc;

use arcade_contracts::table as wire;
use arcade_runtime::MappingError;
use serde_json::Value;

use crate::domain::referee::FinishReason;
use crate::domain::referee::{AbortGame, BallSeen, GoalReport, StartGame};
use crate::domain::{Event, Ibr, Input, Phase, Rejection, Rules, Score};
use crate::table::Ball;

pub use values::{ReplayError, side_in, side_out};
use values::{
    kind_in, kind_out, lock_in, lock_out, phase_in, phase_out, players_in, players_out, score_in,
    score_out,
};

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

impl Event {
    /// The contract message of this event, for the referee of `table_id`.
    pub fn to_message(&self, table_id: &str) -> TableEvent {
        let table_id = table_id.to_string();
        match self {
            Event::GameStarted {
                game_id,
                rules,
                players,
                started_at_ms,
                score,
            } => TableEvent::GameStarted(wire::TableGameStarted {
                table_id,
                game_id: game_id.clone(),
                rules: rules.source().clone(),
                players: players.as_ref().map(players_out),
                started_at_ms: *started_at_ms,
                score: score_out(*score),
                rules_text: rules.explain(),
            }),
            Event::GoalScored {
                game_id,
                side,
                kind,
                counted,
                score,
                phase,
                ball,
                clock_ms,
                player,
                own_goal,
            } => TableEvent::GoalScored(wire::TableGoalScored {
                table_id,
                game_id: game_id.clone(),
                side: side_out(*side),
                kind: kind_out(*kind),
                counted: *counted,
                score: score_out(*score),
                phase: phase_out(*phase),
                ball: *ball,
                clock_ms: *clock_ms,
                player: player.clone(),
                own_goal: *own_goal,
            }),
            Event::PhaseChanged {
                game_id,
                from,
                to,
                score,
                clock_ms,
            } => TableEvent::PhaseChanged(wire::TablePhaseChanged {
                table_id,
                game_id: game_id.clone(),
                from: phase_out(*from),
                to: phase_out(*to),
                score: score_out(*score),
                clock_ms: *clock_ms,
            }),
            Event::IbrChanged { game_id, ibr } => TableEvent::IbrChanged(wire::TableIbrChanged {
                table_id,
                game_id: game_id.clone(),
                hinge: lock_out(ibr.hinge),
                lock: lock_out(ibr.lock),
            }),
            Event::GameFinished {
                game_id,
                winner,
                score,
                phase,
                duration_ms,
                reason,
            } => {
                let reason = match reason {
                    FinishReason::Win => wire::FinishReason::Win,
                    FinishReason::Timeout => wire::FinishReason::Timeout,
                };
                TableEvent::GameFinished(wire::TableGameFinished {
                    winner: Some(side_out(*winner)),
                    ..game_finished(table_id, game_id, *score, *phase, *duration_ms, reason)
                })
            }
            Event::GameAborted {
                game_id,
                score,
                phase,
                duration_ms,
                reason,
            } => TableEvent::GameFinished(wire::TableGameFinished {
                abort_reason: reason.clone(),
                ..game_finished(
                    table_id,
                    game_id,
                    *score,
                    *phase,
                    *duration_ms,
                    wire::FinishReason::Aborted,
                )
            }),
        }
    }
}

/// `table.game.finished.v1` of a game that ended for `reason` with `score`, in `phase`, after
/// `duration_ms`: no winner nor abort reason (the caller sets the one it has).
fn game_finished(
    table_id: String,
    game_id: &str,
    score: Score,
    phase: Phase,
    duration_ms: u64,
    reason: wire::FinishReason,
) -> wire::TableGameFinished {
    wire::TableGameFinished {
        table_id,
        game_id: game_id.to_string(),
        winner: None,
        score: score_out(score),
        phase: phase_out(phase),
        duration_ms,
        reason,
        abort_reason: None,
    }
}

impl Event {
    /// The domain event of a logged message (replay). Fails only on a log no referee wrote.
    pub fn from_message(message: &TableEvent) -> Result<Event, MappingError> {
        message.clone().into_domain()
    }
}

impl TryFrom<wire::TableGameStarted> for Event {
    type Error = ReplayError;

    fn try_from(m: wire::TableGameStarted) -> Result<Event, ReplayError> {
        let rules = Rules::reload(&Value::Object(m.rules)).map_err(|error| ReplayError::Rules {
            game_id: m.game_id.clone(),
            error,
        })?;
        Ok(Event::GameStarted {
            game_id: m.game_id,
            rules: Arc::new(rules),
            players: m.players.as_ref().map(players_in),
            started_at_ms: m.started_at_ms,
            score: score_in(m.score)?,
        })
    }
}

impl TryFrom<wire::TableGoalScored> for Event {
    type Error = ReplayError;

    fn try_from(m: wire::TableGoalScored) -> Result<Event, ReplayError> {
        Ok(Event::GoalScored {
            game_id: m.game_id,
            side: side_in(m.side),
            kind: kind_in(m.kind),
            counted: m.counted,
            score: score_in(m.score)?,
            phase: phase_in(m.phase),
            ball: m.ball,
            clock_ms: m.clock_ms,
            player: m.player,
            own_goal: m.own_goal,
        })
    }
}

impl TryFrom<wire::TablePhaseChanged> for Event {
    type Error = ReplayError;

    fn try_from(m: wire::TablePhaseChanged) -> Result<Event, ReplayError> {
        Ok(Event::PhaseChanged {
            game_id: m.game_id,
            from: phase_in(m.from),
            to: phase_in(m.to),
            score: score_in(m.score)?,
            clock_ms: m.clock_ms,
        })
    }
}

impl From<wire::TableIbrChanged> for Event {
    fn from(m: wire::TableIbrChanged) -> Event {
        Event::IbrChanged {
            game_id: m.game_id,
            ibr: Ibr {
                hinge: lock_in(m.hinge),
                lock: lock_in(m.lock),
            },
        }
    }
}

impl TryFrom<wire::TableGameFinished> for Event {
    type Error = ReplayError;

    fn try_from(m: wire::TableGameFinished) -> Result<Event, ReplayError> {
        let (reason, winner) = match (m.reason, m.winner) {
            (wire::FinishReason::Aborted, _) => {
                return Ok(Event::GameAborted {
                    score: score_in(m.score)?,
                    phase: phase_in(m.phase),
                    duration_ms: m.duration_ms,
                    reason: m.abort_reason,
                    game_id: m.game_id,
                });
            }
            (wire::FinishReason::Win, Some(winner)) => (FinishReason::Win, winner),
            (wire::FinishReason::Timeout, Some(winner)) => (FinishReason::Timeout, winner),
            (_, None) => return Err(ReplayError::NoWinner(m.game_id)),
        };
        Ok(Event::GameFinished {
            winner: side_in(winner),
            score: score_in(m.score)?,
            phase: phase_in(m.phase),
            duration_ms: m.duration_ms,
            reason,
            game_id: m.game_id,
        })
    }
}

impl Rejection {
    /// The contract message of this refusal, for the referee of `table_id`.
    pub fn to_message(&self, table_id: &str) -> TableRejection {
        let (table_id, error) = (table_id.to_string(), self.to_string());
        match self {
            Rejection::Start { game_id, .. } | Rejection::Abort { game_id, .. } => {
                TableRejection::Game(wire::TableGameRejected {
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
