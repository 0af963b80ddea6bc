//! What one ball, a tick or a timeout make of a game in progress: its events, from [`Play`]'s
//! results.

use arcade_contracts::table::{
    FinishReason, TableGameFinished, TableGoalScored, TablePhaseChanged,
};

use super::super::{Event, GameRefusal, GameState, GoalReport};
use super::ibr_changed;
use crate::domain::game::Play;
use crate::domain::terms::{BallKind, Ibr, Phase, Side};

/// A ball, from the sensors or a report.
pub(super) struct Seen<'a> {
    pub(super) side: Side,
    pub(super) kind: BallKind,
    pub(super) player: Option<&'a str>,
    pub(super) own_goal: bool,
    pub(super) at_ms: u64,
}

/// Whether a reported goal is an own goal: its player is on the other side than the one it
/// counts for. A player who is on neither side is refused; a game whose players were not
/// named, or a report naming nobody, checks nothing.
pub(super) fn own_goal(game: &GameState, report: &GoalReport) -> Result<bool, GameRefusal> {
    let (Some(player), Some(players)) = (report.player.as_deref(), game.players.as_ref()) else {
        return Ok(false);
    };
    let on = |names: &[String]| names.iter().any(|name| name == player);
    let (own, other) = match report.side {
        Side::Hinge => (&players.hinge, &players.lock),
        Side::Lock => (&players.lock, &players.hinge),
    };
    if on(own) {
        Ok(false)
    } else if on(other) {
        Ok(true)
    } else {
        Err(GameRefusal::NotAPlayer {
            player: player.to_string(),
            game: game.id.clone(),
            players: format!(
                "hinge: {}; lock: {}",
                players.hinge.join(", "),
                players.lock.join(", ")
            ),
        })
    }
}

/// A ball in a game in progress: first the timeout if the clock passed it, then the ball (if
/// the timeout did not end the game), then the ball locks and the end of the game.
pub(super) fn ball(table: &str, game: &GameState, ibr: Option<Ibr>, seen: Seen<'_>) -> Vec<Event> {
    let Seen {
        side,
        kind,
        player,
        own_goal,
        at_ms,
    } = seen;
    let clock_ms = at_ms.saturating_sub(game.started_at_ms);
    let mut events = Vec::new();
    let mut play = timeout(table, game, clock_ms, &mut events);
    if play.winner.is_none() {
        let counted = !play.next_is_rehearsal(&game.rules);
        let next = play.after_ball(&game.rules, side, kind);
        events.push(Event::GoalScored(TableGoalScored {
            table_id: table.to_string(),
            game_id: game.id.clone(),
            side,
            kind,
            counted,
            score: next.score,
            phase: play.phase,
            ball: next.balls,
            clock_ms,
            player: player.map(str::to_string),
            own_goal,
        }));
        phase_change(table, game, &play, &next, clock_ms, &mut events);
        play = next;
    }
    settle(table, game, ibr, &play, clock_ms, &mut events);
    events
}

pub(super) fn tick(table: &str, game: &GameState, ibr: Option<Ibr>, now_ms: u64) -> Vec<Event> {
    let clock_ms = now_ms.saturating_sub(game.started_at_ms);
    let mut events = Vec::new();
    let play = timeout(table, game, clock_ms, &mut events);
    if !events.is_empty() {
        settle(table, game, ibr, &play, clock_ms, &mut events);
    }
    events
}

/// The play once the clock reads `clock_ms`, pushing the phase change if it timed out.
fn timeout(table: &str, game: &GameState, clock_ms: u64, events: &mut Vec<Event>) -> Play {
    match game.play.after_clock(&game.rules, clock_ms) {
        Some(next) => {
            phase_change(table, game, &game.play, &next, clock_ms, events);
            next
        }
        None => game.play,
    }
}

fn phase_change(
    table: &str,
    game: &GameState,
    before: &Play,
    after: &Play,
    clock_ms: u64,
    events: &mut Vec<Event>,
) {
    if before.phase != after.phase {
        events.push(Event::PhaseChanged(TablePhaseChanged {
            table_id: table.to_string(),
            game_id: game.id.clone(),
            from: before.phase,
            to: after.phase,
            score: after.score,
            clock_ms,
        }));
    }
}

/// The ball locks (when they change) and the end of the game (when it was just won).
fn settle(
    table: &str,
    game: &GameState,
    ibr: Option<Ibr>,
    play: &Play,
    clock_ms: u64,
    events: &mut Vec<Event>,
) {
    let next = play.ibr(&game.rules);
    if ibr != Some(next) {
        events.push(ibr_changed(table, &game.id, next));
    }
    if let Some(winner) = play.winner {
        let reason = if play.phase == Phase::Timeout {
            FinishReason::Timeout
        } else {
            FinishReason::Win
        };
        events.push(Event::GameFinished(TableGameFinished {
            table_id: table.to_string(),
            game_id: game.id.clone(),
            winner: Some(winner),
            score: play.score,
            phase: play.phase,
            duration_ms: clock_ms,
            reason,
            abort_reason: None,
        }));
    }
}
