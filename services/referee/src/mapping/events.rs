//! The referee's events as their `table.*` messages ([`Event::to_message`]) and back from the
//! log (`TryFrom`, through [`TableEvent::into_domain`]).

use std::sync::Arc;

use arcade_contracts::table as wire;
use arcade_runtime::MappingError;
use serde_json::Value;

use super::TableEvent;
use super::values::{
    ReplayError, kind_in, kind_out, lock_in, lock_out, phase_in, phase_out, players_in,
    players_out, score_in, score_out, side_in, side_out,
};
use crate::domain::referee::FinishReason;
use crate::domain::{Event, Ibr, Phase, Rules, Score};

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
            Event::GoalCancelled {
                game_id,
                ball,
                score,
                phase,
                ibr,
                reason,
            } => TableEvent::GoalCancelled(wire::TableGoalCancelled {
                table_id,
                game_id: game_id.clone(),
                ball: *ball,
                score: score_out(*score),
                phase: phase_out(*phase),
                hinge: lock_out(ibr.hinge),
                lock: lock_out(ibr.lock),
                reason: reason.clone(),
            }),
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

impl TryFrom<wire::TableGoalCancelled> for Event {
    type Error = ReplayError;

    fn try_from(m: wire::TableGoalCancelled) -> Result<Event, ReplayError> {
        let ibr = Ibr {
            hinge: lock_in(m.hinge),
            lock: lock_in(m.lock),
        };
        let (score, phase) = (score_in(m.score)?, phase_in(m.phase));
        let (game_id, ball, reason) = (m.game_id, m.ball, m.reason);
        Ok(Event::GoalCancelled {
            game_id,
            ball,
            score,
            phase,
            ibr,
            reason,
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
