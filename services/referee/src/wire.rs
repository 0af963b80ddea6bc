//! Conversions between the referee's domain and the `table.*` contract messages: commands in,
//! events out, and events back in when the runtime replays the log.

use std::sync::Arc;

use arcade_contracts::table as wire;
use serde_json::Value;

use crate::domain::referee::{AbortGame, FinishReason, GoalReport, Players, StartGame};
use crate::domain::{
    BallKind, Event, Ibr, IbrLock, Phase, Rejection, Rules, RulesError, Score, Side,
};

/// A domain event as its contract message.
#[derive(Debug, Clone, PartialEq)]
pub enum TableEvent {
    /// `table.game.started.v1`.
    GameStarted(wire::TableGameStarted),
    /// `table.goal.scored.v1`.
    GoalScored(wire::TableGoalScored),
    /// `table.phase.changed.v1`.
    PhaseChanged(wire::TablePhaseChanged),
    /// `table.ibr.changed.v1`.
    IbrChanged(wire::TableIbrChanged),
    /// `table.game.finished.v1`.
    GameFinished(wire::TableGameFinished),
}

/// A refusal as its contract message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableRejection {
    /// `table.game.rejected.v1`.
    Game(wire::TableGameRejected),
    /// `table.goal.rejected.v1`.
    Goal(wire::TableGoalRejected),
}

/// A message from the log that cannot be turned back into a domain event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
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
            } => TableEvent::GameFinished(wire::TableGameFinished {
                table_id,
                game_id: game_id.clone(),
                winner: Some(side_out(*winner)),
                score: score_out(*score),
                phase: phase_out(*phase),
                duration_ms: *duration_ms,
                reason: match reason {
                    FinishReason::Win => wire::FinishReason::Win,
                    FinishReason::Timeout => wire::FinishReason::Timeout,
                },
                abort_reason: None,
            }),
            Event::GameAborted {
                game_id,
                score,
                phase,
                duration_ms,
                reason,
            } => TableEvent::GameFinished(wire::TableGameFinished {
                table_id,
                game_id: game_id.clone(),
                winner: None,
                score: score_out(*score),
                phase: phase_out(*phase),
                duration_ms: *duration_ms,
                reason: wire::FinishReason::Aborted,
                abort_reason: reason.clone(),
            }),
        }
    }

    /// The domain event of a logged message (replay). Fails only on a log no referee wrote.
    pub fn from_message(message: &TableEvent) -> Result<Event, WireError> {
        Ok(match message {
            TableEvent::GameStarted(m) => Event::GameStarted {
                game_id: m.game_id.clone(),
                rules: Arc::new(Rules::reload(&Value::Object(m.rules.clone())).map_err(
                    |error| WireError::Rules {
                        game_id: m.game_id.clone(),
                        error,
                    },
                )?),
                players: m.players.as_ref().map(players_in),
                started_at_ms: m.started_at_ms,
                score: score_in(m.score)?,
            },
            TableEvent::GoalScored(m) => Event::GoalScored {
                game_id: m.game_id.clone(),
                side: side_in(m.side),
                kind: kind_in(m.kind),
                counted: m.counted,
                score: score_in(m.score)?,
                phase: phase_in(m.phase),
                ball: m.ball,
                clock_ms: m.clock_ms,
                player: m.player.clone(),
            },
            TableEvent::PhaseChanged(m) => Event::PhaseChanged {
                game_id: m.game_id.clone(),
                from: phase_in(m.from),
                to: phase_in(m.to),
                score: score_in(m.score)?,
                clock_ms: m.clock_ms,
            },
            TableEvent::IbrChanged(m) => Event::IbrChanged {
                game_id: m.game_id.clone(),
                ibr: Ibr {
                    hinge: lock_in(m.hinge),
                    lock: lock_in(m.lock),
                },
            },
            TableEvent::GameFinished(m) => {
                let reason = match (m.reason, m.winner) {
                    (wire::FinishReason::Aborted, _) => None,
                    (wire::FinishReason::Win, Some(winner)) => Some((FinishReason::Win, winner)),
                    (wire::FinishReason::Timeout, Some(winner)) => {
                        Some((FinishReason::Timeout, winner))
                    }
                    (_, None) => return Err(WireError::NoWinner(m.game_id.clone())),
                };
                match reason {
                    Some((reason, winner)) => Event::GameFinished {
                        game_id: m.game_id.clone(),
                        winner: side_in(winner),
                        score: score_in(m.score)?,
                        phase: phase_in(m.phase),
                        duration_ms: m.duration_ms,
                        reason,
                    },
                    None => Event::GameAborted {
                        game_id: m.game_id.clone(),
                        score: score_in(m.score)?,
                        phase: phase_in(m.phase),
                        duration_ms: m.duration_ms,
                        reason: m.abort_reason.clone(),
                    },
                }
            }
        })
    }
}

impl TableEvent {
    /// The versioned message type.
    pub fn message_type(&self) -> &'static str {
        use arcade_contracts::Message;
        match self {
            TableEvent::GameStarted(_) => wire::TableGameStarted::TYPE,
            TableEvent::GoalScored(_) => wire::TableGoalScored::TYPE,
            TableEvent::PhaseChanged(_) => wire::TablePhaseChanged::TYPE,
            TableEvent::IbrChanged(_) => wire::TableIbrChanged::TYPE,
            TableEvent::GameFinished(_) => wire::TableGameFinished::TYPE,
        }
    }
}

impl Rejection {
    /// The contract message of this refusal, for the referee of `table_id`.
    pub fn to_message(&self, table_id: &str) -> TableRejection {
        let (table_id, error) = (table_id.to_string(), self.to_string());
        match self {
            Rejection::Start { game_id, .. } => TableRejection::Game(wire::TableGameRejected {
                table_id,
                game_id: game_id.clone(),
                error,
            }),
            Rejection::Abort { game_id, .. } => TableRejection::Game(wire::TableGameRejected {
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

/// The decider input of a `table.game.start.v1`, handled at `at_ms` (ms since epoch).
pub fn start_game(command: &wire::TableGameStart, at_ms: u64) -> StartGame {
    StartGame {
        table_id: command.table_id.clone(),
        game_id: command.game_id.clone(),
        rules: Value::Object(command.rules.clone()),
        players: command.players.as_ref().map(players_in),
        at_ms,
    }
}

/// The decider input of a `table.goal.report.v1`, handled at `at_ms` (ms since epoch).
pub fn goal_report(command: &wire::TableGoalReport, at_ms: u64) -> GoalReport {
    GoalReport {
        table_id: command.table_id.clone(),
        game_id: command.game_id.clone(),
        side: side_in(command.side),
        kind: kind_in(command.kind),
        player: command.player.clone(),
        at_ms,
    }
}

/// The decider input of a `table.game.abort.v1`, handled at `at_ms` (ms since epoch).
pub fn abort_game(command: &wire::TableGameAbort, at_ms: u64) -> AbortGame {
    AbortGame {
        table_id: command.table_id.clone(),
        game_id: command.game_id.clone(),
        reason: command.reason.clone(),
        at_ms,
    }
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

fn kind_out(kind: BallKind) -> wire::BallKind {
    match kind {
        BallKind::Goal => wire::BallKind::Goal,
        BallKind::Inout => wire::BallKind::Inout,
    }
}

fn kind_in(kind: wire::BallKind) -> BallKind {
    match kind {
        wire::BallKind::Goal => BallKind::Goal,
        wire::BallKind::Inout => BallKind::Inout,
    }
}

fn phase_out(phase: Phase) -> wire::Phase {
    match phase {
        Phase::Default => wire::Phase::Default,
        Phase::TieBreak => wire::Phase::TieBreak,
        Phase::Timeout => wire::Phase::Timeout,
    }
}

fn phase_in(phase: wire::Phase) -> Phase {
    match phase {
        wire::Phase::Default => Phase::Default,
        wire::Phase::TieBreak => Phase::TieBreak,
        wire::Phase::Timeout => Phase::Timeout,
    }
}

fn lock_out(lock: IbrLock) -> wire::IbrLock {
    match lock {
        IbrLock::Locked => wire::IbrLock::Locked,
        IbrLock::Released => wire::IbrLock::Released,
    }
}

fn lock_in(lock: wire::IbrLock) -> IbrLock {
    match lock {
        wire::IbrLock::Locked => IbrLock::Locked,
        wire::IbrLock::Released => IbrLock::Released,
    }
}

/// Scores are never negative (every change is floored at 0).
fn score_out(score: Score) -> wire::Score {
    let points = |n: i64| u64::try_from(n).unwrap_or(0);
    wire::Score {
        hinge: points(score.hinge),
        lock: points(score.lock),
    }
}

fn score_in(score: wire::Score) -> Result<Score, WireError> {
    let points = |n: u64| i64::try_from(n).map_err(|_| WireError::Score(n));
    Ok(Score {
        hinge: points(score.hinge)?,
        lock: points(score.lock)?,
    })
}

fn players_out(players: &Players) -> wire::Players {
    wire::Players {
        hinge: players.hinge.clone(),
        lock: players.lock.clone(),
    }
}

fn players_in(players: &wire::Players) -> Players {
    Players {
        hinge: players.hinge.clone(),
        lock: players.lock.clone(),
    }
}
