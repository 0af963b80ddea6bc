//! `decide`, `evolve` and `next_deadline` of the [`Referee`]: the rules of the game live in
//! [`Play`]; this file only turns its results into events and events back into state.

use std::sync::Arc;

use arcade_contracts::table::{
    FinishReason, TableGameFinished, TableGoalCancel, TableGoalCancelled, TableIbrChanged,
};

use super::{
    AbortGame, BallSeen, Event, GameRefusal, GameState, GoalReport, Input, Referee, Rejection,
    StartGame, StartRefusal, TableState,
};
use crate::domain::game::Play;
use crate::domain::rules::Rules;
use crate::domain::terms::{Ibr, Phase};

mod balls;
use balls::{Seen, ball, own_goal, tick};

impl Referee {
    /// The referee of table `table_id`; it refuses commands addressed to another table.
    pub fn new(table_id: impl Into<String>) -> Referee {
        Referee {
            table_id: table_id.into(),
        }
    }

    /// The table it referees.
    pub fn table_id(&self) -> &str {
        &self.table_id
    }

    /// The events an input produces, or why a request is refused. Deterministic: time comes in
    /// the input.
    pub fn decide(&self, state: &TableState, input: &Input) -> Result<Vec<Event>, Rejection> {
        match input {
            Input::Start(start) => self.start(state, start),
            Input::Ball(BallSeen { side, kind, at_ms }) => Ok(match &state.game {
                Some(game) if game.in_progress() => {
                    let seen = Seen {
                        side: *side,
                        kind: *kind,
                        player: None,
                        own_goal: false,
                        at_ms: *at_ms,
                    };
                    ball(&self.table_id, game, state.ibr, seen)
                }
                _ => Vec::new(),
            }),
            Input::Report(report) => {
                let game = self.reported_game(state, report)?;
                let own_goal = own_goal(game, report).map_err(|reason| Rejection::Report {
                    game_id: game.id.clone(),
                    side: report.side,
                    kind: report.kind,
                    reason,
                })?;
                let seen = Seen {
                    side: report.side,
                    kind: report.kind,
                    player: report.player.as_deref(),
                    own_goal,
                    at_ms: report.at_ms,
                };
                Ok(ball(&self.table_id, game, state.ibr, seen))
            }
            Input::Abort(abort) => self.abort(state, abort),
            Input::Cancel(cancel) => self.cancel(state, cancel),
            Input::Tick { now_ms } => Ok(match &state.game {
                Some(game) if game.in_progress() => tick(&self.table_id, game, state.ibr, *now_ms),
                _ => Vec::new(),
            }),
        }
    }

    /// Folds one event into the state. No rules here: events carry what they set.
    pub fn evolve(state: &mut TableState, event: &Event) {
        match event {
            Event::GameStarted {
                game_id,
                rules,
                players,
                started_at_ms,
                score,
                ..
            } => {
                let mut play = Play::start(rules);
                play.score = *score;
                state.played.insert(game_id.clone());
                state.game = Some(GameState {
                    id: game_id.clone(),
                    rules: Arc::clone(rules),
                    players: players.clone(),
                    started_at_ms: *started_at_ms,
                    play,
                    before_last: None,
                    over: false,
                });
            }
            Event::GoalScored(m) => {
                if let Some(game) = &mut state.game {
                    game.before_last = Some(game.play);
                    game.play.balls = m.ball;
                    game.play.score = m.score;
                }
            }
            Event::PhaseChanged(m) => {
                if let Some(game) = &mut state.game {
                    game.play.phase = m.to;
                    game.play.score = m.score;
                    // The clock does not go back: a cancel after the timeout stays in it.
                    if let (Phase::Timeout, Some(before)) = (m.to, &mut game.before_last) {
                        before.phase = Phase::Timeout;
                    }
                }
            }
            Event::GoalCancelled(m) => {
                if let Some(game) = &mut state.game {
                    game.play.balls = m.ball.saturating_sub(1);
                    game.play.score = m.score;
                    game.play.phase = m.phase;
                    game.play.winner = None;
                    game.before_last = None;
                }
            }
            Event::IbrChanged(m) => state.ibr = Some(Ibr::new(m.hinge, m.lock)),
            Event::GameFinished(m) => {
                if let Some(game) = &mut state.game {
                    game.play.winner = m.winner;
                    game.over = true;
                }
            }
        }
    }

    /// When the runtime must send a [`Input::Tick`] (ms since epoch): the timeout of a game in
    /// progress that has not timed out yet.
    pub fn next_deadline(state: &TableState) -> Option<u64> {
        let game = state.game.as_ref().filter(|g| g.in_progress())?;
        if game.play.phase == Phase::Timeout {
            return None;
        }
        Some(game.started_at_ms.saturating_add(game.rules.timeout_ms()?))
    }

    fn start(&self, state: &TableState, start: &StartGame) -> Result<Vec<Event>, Rejection> {
        let refuse = |reason| Rejection::Start {
            game_id: start.game_id.clone(),
            reason,
        };
        if start.table_id != self.table_id {
            let this = self.table_id.clone();
            return Err(refuse(StartRefusal::WrongTable {
                addressed: start.table_id.clone(),
                this,
            }));
        }
        if let Some(game) = state.game.as_ref().filter(|g| g.in_progress()) {
            return Err(refuse(StartRefusal::GameInProgress(game.id.clone())));
        }
        if state.played(&start.game_id) {
            return Err(refuse(StartRefusal::AlreadyPlayed(start.game_id.clone())));
        }
        let rules =
            Rules::parse(&start.rules).map_err(|e| refuse(StartRefusal::InvalidRules(e)))?;
        let play = Play::start(&rules);
        let ibr = play.ibr(&rules);
        let mut events = vec![Event::GameStarted {
            table_id: self.table_id.clone(),
            game_id: start.game_id.clone(),
            rules: Arc::new(rules),
            players: start.players.clone(),
            started_at_ms: start.at_ms,
            score: play.score,
        }];
        if state.ibr != Some(ibr) {
            events.push(ibr_changed(&self.table_id, &start.game_id, ibr));
        }
        Ok(events)
    }

    /// Ends the game in progress without a winner: both ball returns are released.
    fn abort(&self, state: &TableState, abort: &AbortGame) -> Result<Vec<Event>, Rejection> {
        let refuse = |reason| Rejection::Abort {
            game_id: abort.game_id.clone(),
            reason,
        };
        let game = self
            .game_in_progress(state, &abort.table_id, Some(&abort.game_id))
            .map_err(refuse)?;
        let mut events = Vec::new();
        if state.ibr != Some(Ibr::RELEASED) {
            events.push(ibr_changed(&self.table_id, &game.id, Ibr::RELEASED));
        }
        events.push(Event::GameFinished(TableGameFinished {
            table_id: self.table_id.clone(),
            game_id: game.id.clone(),
            winner: None,
            score: game.play.score,
            phase: game.play.phase,
            duration_ms: abort.at_ms.saturating_sub(game.started_at_ms),
            reason: FinishReason::Aborted,
            abort_reason: abort.reason.clone(),
        }));
        Ok(events)
    }

    /// Takes back the game's last ball: the play before it, and the ball locks of that play.
    fn cancel(
        &self,
        state: &TableState,
        cancel: &TableGoalCancel,
    ) -> Result<Vec<Event>, Rejection> {
        let refuse = |reason| Rejection::Cancel {
            game_id: cancel.game_id.clone(),
            reason,
        };
        let game = self
            .game_in_progress(state, &cancel.table_id, Some(&cancel.game_id))
            .map_err(refuse)?;
        let before = game
            .before_last
            .ok_or_else(|| refuse(GameRefusal::NoBall(game.id.clone())))?;
        let last = game.play.balls;
        if let Some(named) = cancel.ball
            && named != last
        {
            return Err(refuse(GameRefusal::NotTheLastBall { named, last }));
        }
        let ibr = before.ibr(&game.rules);
        let mut events = vec![Event::GoalCancelled(TableGoalCancelled {
            table_id: self.table_id.clone(),
            game_id: game.id.clone(),
            ball: last,
            score: before.score,
            phase: before.phase,
            hinge: ibr.hinge,
            lock: ibr.lock,
            reason: cancel.reason.clone(),
        })];
        if state.ibr != Some(ibr) {
            events.push(ibr_changed(&self.table_id, &game.id, ibr));
        }
        Ok(events)
    }

    /// The table's game, in progress, that a request names (`game_id`, or whichever game when
    /// `None`) on the table it names.
    fn game_in_progress<'s>(
        &self,
        state: &'s TableState,
        table_id: &str,
        game_id: Option<&str>,
    ) -> Result<&'s GameState, GameRefusal> {
        if table_id != self.table_id {
            return Err(GameRefusal::WrongTable {
                addressed: table_id.to_string(),
                this: self.table_id.clone(),
            });
        }
        let game = state.game.as_ref().ok_or(GameRefusal::NoGame)?;
        if game_id.is_some_and(|id| id != game.id) {
            return Err(GameRefusal::OtherGame {
                current: game.id.clone(),
            });
        }
        if !game.in_progress() {
            return Err(GameRefusal::Finished(game.id.clone()));
        }
        Ok(game)
    }

    fn reported_game<'s>(
        &self,
        state: &'s TableState,
        report: &GoalReport,
    ) -> Result<&'s GameState, Rejection> {
        let named = report
            .game_id
            .clone()
            .or_else(|| state.game.as_ref().map(|g| g.id.clone()))
            .unwrap_or_default();
        let refuse = |reason| Rejection::Report {
            game_id: named.clone(),
            side: report.side,
            kind: report.kind,
            reason,
        };
        self.game_in_progress(state, &report.table_id, report.game_id.as_deref())
            .map_err(refuse)
    }
}

/// `table.ibr.changed.v1` of game `game_id` on table `table_id`: the ball locks `ibr`.
fn ibr_changed(table_id: &str, game_id: &str, ibr: Ibr) -> Event {
    Event::IbrChanged(TableIbrChanged {
        table_id: table_id.to_string(),
        game_id: game_id.to_string(),
        hinge: ibr.hinge,
        lock: ibr.lock,
    })
}
