//! Strata Relay played on the console: the server holds each game, the page only draws it and
//! sends pulses. Pure (no clock, no I/O, no randomness: the seed and the time come in as values).
//!
//! A game is the fold of the console's own records: [`STARTED`] (game id, seed, stage, when),
//! [`PULSED`] (one accepted pulse), [`COMPLETED`] (the finished session, which the console's
//! log holds as a `game.session.completed.v2` and its relay publishes once) and [`REFUSED`]
//! (an answer to a request the rules refused, for the page; it changes no game). The rules are
//! `arcade-strata-relay`'s: the board is generated again from its seed and stage, and the
//! accepted pulses replayed, whenever it is needed (a few hundred nanoseconds).

use std::collections::BTreeMap;

use arcade_contracts::game::{GameSessionCompletedV2, Outcome, Pulse};
use arcade_strata_relay::{Cell, PulseRefused, Puzzle, Stage, State};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use super::request::{PlayCommand, PlayRefused};
use crate::observed::Observed;

/// A game started (the console's own record, never published).
pub const STARTED: &str = "console.puzzle.started.v1";
/// A pulse accepted (the console's own record, never published).
pub const PULSED: &str = "console.puzzle.pulsed.v1";
/// A request refused by the rules (the console's own record, never published).
pub const REFUSED: &str = "console.puzzle.refused.v1";
/// A session finished: in the log as `game.session.completed.v2`, published by the relay.
pub const COMPLETED: &str = "console.puzzle.completed.v1";

/// The producer version the console's sessions carry (`producerVersion`).
pub const PRODUCER_VERSION: &str = concat!("arcade-console ", env!("CARGO_PKG_VERSION"));

/// Games in progress kept at most. When they are all kept, a new one takes the place of the
/// one left longest, if no pulse came for [`ABANDONED_MS`] (its session is never published: an
/// abandoned board is not a session anyone finished); else it is refused ([`PlayRefused::Full`]),
/// so a game being played is never dropped for another's new one. (Logs written before this
/// rule dropped the oldest in progress beyond the cap; replaying them still does.)
pub const MAX_PLAYING: usize = 1_000;
/// A game in progress with no pulse for this long is abandoned (30 minutes).
pub const ABANDONED_MS: u64 = 30 * 60 * 1_000;
/// Finished games kept (their boards stay on their pages), the newest.
pub const MAX_FINISHED: usize = 200;
/// The longest game id a page may choose (the contract allows 200).
pub const MAX_GAME_ID: usize = 100;

/// One game on the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Play {
    /// Its id (the session's `gameId`).
    pub game_id: String,
    /// The seed.
    pub seed: i64,
    /// The stage.
    pub stage: u8,
    /// Pulses accepted, in order.
    pub moves: Vec<[u8; 2]>,
    /// When it started (ms since the epoch, the console's clock given to `decide`).
    pub started_at_ms: u64,
    /// When its last pulse was accepted.
    pub last_at_ms: u64,
    /// Its order of start, for the bounds.
    pub order: u64,
    /// Whether its session is in the log (then published by the relay).
    pub completed: bool,
}

impl Play {
    /// The board now: generated again and the accepted pulses replayed. `None` only if the
    /// record was not one this console wrote (a seed and stage it accepted always generate).
    pub fn state(&self) -> Option<State> {
        let stage = Stage::new(i64::from(self.stage)).ok()?;
        let mut state = Puzzle::generate(self.seed, stage).ok()?.start();
        for &[x, y] in &self.moves {
            state = state.pulse(Cell::new(x, y)).ok()?.state;
        }
        Some(state)
    }

    /// The view of the game for its page: the board (levels, heights, stone, anchors, charged
    /// cells), moves left and made, and how it stands.
    pub fn view(&self) -> Value {
        let Some(state) = self.state() else {
            return json!({ "gameId": self.game_id, "error": "this game's record does not replay" });
        };
        let charged = state.charged_cells();
        let immutable = state.immutable_cells();
        let cells: Vec<Value> = (0..5u8)
            .flat_map(|y| (0..5u8).map(move |x| Cell::new(x, y)))
            .map(|cell| {
                json!({
                    "x": cell.x,
                    "y": cell.y,
                    "level": state.level(cell),
                    "height": state.height(cell),
                    "stone": immutable.contains(cell) && cell != state.source() && cell != state.target(),
                    "anchor": if cell == state.source() { Some("source") } else if cell == state.target() { Some("target") } else { None },
                    "charged": charged.contains(cell),
                })
            })
            .collect();
        json!({
            "gameId": self.game_id,
            "seed": self.seed,
            "stage": self.stage,
            "moveLimit": self.stage * 2,
            "movesLeft": state.moves_left(),
            "moves": self.moves,
            "status": status(&state),
            "startedAtMs": self.started_at_ms,
            "lastAtMs": self.last_at_ms,
            "published": self.completed,
            "cells": cells,
        })
    }
}

fn status(state: &State) -> &'static str {
    if state.is_won() {
        "won"
    } else if state.is_failed() {
        "failed"
    } else {
        "playing"
    }
}

/// Every game the console keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plays {
    games: BTreeMap<String, Play>,
    /// Games started, in all (the next one's `order`).
    started: u64,
}

impl Plays {
    /// A game.
    pub fn get(&self, game_id: &str) -> Option<&Play> {
        self.games.get(game_id)
    }

    /// Games kept.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether no game is kept.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// The newest finished games (at most `n`), newest first, as short lines.
    pub fn recent(&self, n: usize) -> Vec<Value> {
        let mut done: Vec<&Play> = self.games.values().filter(|p| p.completed).collect();
        done.sort_by_key(|p| std::cmp::Reverse(p.order));
        done.into_iter()
            .take(n)
            .map(|p| {
                let outcome = p.state().map_or("unknown", |s| status(&s));
                json!({"gameId": p.game_id, "seed": p.seed, "stage": p.stage, "outcome": outcome,
                       "turns": p.moves.len(), "durationMs": p.last_at_ms.saturating_sub(p.started_at_ms)})
            })
            .collect()
    }

    /// Decides on a player's request at `now_ms`: the records to append, or why not.
    pub fn decide(&self, command: &PlayCommand, now_ms: u64) -> Result<Vec<Observed>, PlayRefused> {
        match command {
            PlayCommand::Start {
                request,
                game_id,
                seed,
                stage,
            } => {
                let valid = Stage::new(*stage).map_err(|_| PlayRefused::Stage(*stage))?;
                Puzzle::generate(*seed, valid).map_err(|_| PlayRefused::Unplayable {
                    seed: *seed,
                    stage: valid.number(),
                })?;
                if self.games.contains_key(game_id) {
                    return Err(PlayRefused::Exists(game_id.clone()));
                }
                let mut payload = json!({"requestId": request, "gameId": game_id, "seed": seed,
                                         "stage": valid.number(), "atMs": now_ms});
                let playing: Vec<&Play> = self.games.values().filter(|p| !p.completed).collect();
                if playing.len() >= MAX_PLAYING {
                    let left = playing.iter().min_by_key(|p| (p.last_at_ms, p.order));
                    match left.filter(|p| now_ms.saturating_sub(p.last_at_ms) >= ABANDONED_MS) {
                        Some(left) => payload["replaces"] = json!(left.game_id),
                        None => return Err(PlayRefused::Full(playing.len())),
                    }
                }
                Ok(vec![record(STARTED, request, now_ms, payload)])
            }
            PlayCommand::Pulse {
                request,
                game_id,
                x,
                y,
            } => {
                let play = self
                    .games
                    .get(game_id)
                    .ok_or_else(|| PlayRefused::Unknown(game_id.clone()))?;
                let state = play
                    .state()
                    .ok_or_else(|| PlayRefused::Unknown(game_id.clone()))?;
                if state.is_finished() {
                    return Err(PlayRefused::Finished {
                        game_id: game_id.clone(),
                        outcome: status(&state),
                    });
                }
                let (Ok(cx), Ok(cy)) = (u8::try_from(*x), u8::try_from(*y)) else {
                    return Err(PlayRefused::Outside { x: *x, y: *y });
                };
                let cell = Cell::new(cx, cy);
                if !cell.is_inside() {
                    return Err(PlayRefused::Outside { x: *x, y: *y });
                }
                let after = match state.pulse(cell) {
                    Ok(pulsed) => pulsed.state,
                    Err(PulseRefused::Immutable { .. }) => {
                        return Err(PlayRefused::Immutable { x: cx, y: cy });
                    }
                    Err(PulseRefused::Finished { won }) => {
                        return Err(PlayRefused::Finished {
                            game_id: game_id.clone(),
                            outcome: if won { "won" } else { "failed" },
                        });
                    }
                };
                let mut records = vec![record(
                    PULSED,
                    request,
                    now_ms,
                    json!({"requestId": request, "gameId": game_id, "cell": [cx, cy], "atMs": now_ms}),
                )];
                if after.is_finished() {
                    let mut moves: Vec<Pulse> = play.moves.iter().map(|&m| Pulse(m)).collect();
                    moves.push(Pulse([cx, cy]));
                    let session = GameSessionCompletedV2 {
                        game_id: game_id.clone(),
                        seed: play.seed,
                        stage: play.stage,
                        outcome: if after.is_won() {
                            Outcome::Won
                        } else {
                            Outcome::Failed
                        },
                        turns: moves.len() as u32,
                        duration_ms: now_ms.saturating_sub(play.started_at_ms),
                        moves,
                        producer_version: PRODUCER_VERSION.into(),
                    };
                    records.push(completed(&session));
                }
                Ok(records)
            }
        }
    }

    /// Folds one of the console's own records; returns whether a game changed.
    pub fn apply(&mut self, event: &Observed) -> bool {
        match event.message_type.as_str() {
            STARTED => {
                let (Some(game_id), Some(seed), Some(stage), Some(at)) = (
                    event.payload["gameId"].as_str(),
                    event.payload["seed"].as_i64(),
                    event.payload["stage"].as_u64(),
                    event.payload["atMs"].as_u64(),
                ) else {
                    return false;
                };
                self.started += 1;
                if let Some(left) = event.payload.get("replaces").and_then(Value::as_str) {
                    self.games.remove(left);
                }
                self.games.insert(
                    game_id.to_string(),
                    Play {
                        game_id: game_id.to_string(),
                        seed,
                        stage: stage.min(5) as u8,
                        moves: Vec::new(),
                        started_at_ms: at,
                        last_at_ms: at,
                        order: self.started,
                        completed: false,
                    },
                );
                self.bound();
                true
            }
            PULSED => {
                let cell = &event.payload["cell"];
                let (Some(game_id), Some(x), Some(y), Some(at)) = (
                    event.payload["gameId"].as_str(),
                    cell[0].as_u64(),
                    cell[1].as_u64(),
                    event.payload["atMs"].as_u64(),
                ) else {
                    return false;
                };
                let Some(play) = self.games.get_mut(game_id) else {
                    return false;
                };
                play.moves.push([x.min(4) as u8, y.min(4) as u8]);
                play.last_at_ms = at;
                true
            }
            COMPLETED => {
                let Some(play) = event
                    .payload
                    .get("gameId")
                    .and_then(Value::as_str)
                    .and_then(|id| self.games.get_mut(id))
                else {
                    return false;
                };
                play.completed = true;
                self.bound();
                true
            }
            _ => false,
        }
    }

    /// Drops the oldest games beyond [`MAX_PLAYING`] in progress and [`MAX_FINISHED`] finished.
    fn bound(&mut self) {
        for finished in [false, true] {
            let cap = if finished { MAX_FINISHED } else { MAX_PLAYING };
            let mut kept: Vec<(u64, String)> = self
                .games
                .values()
                .filter(|p| p.completed == finished)
                .map(|p| (p.order, p.game_id.clone()))
                .collect();
            if kept.len() > cap {
                kept.sort();
                let excess = kept.len() - cap;
                for (_, id) in kept.into_iter().take(excess) {
                    self.games.remove(&id);
                }
            }
        }
    }
}

/// A record of the console's own (never published but [`COMPLETED`]).
fn record(kind: &str, request: &str, now_ms: u64, payload: Value) -> Observed {
    Observed {
        message_id: request.to_string(),
        message_type: kind.to_string(),
        producer: crate::SERVICE_NAME.to_string(),
        occurred_at: String::new(),
        seen_at_ms: now_ms,
        payload,
    }
}

/// The record of a finished session. Its fields are all the session's own (its `message_id`
/// is its `gameId`, no time but the payload's), so the record decoded from the log's
/// `game.session.completed.v2` is the same as the one decided.
pub fn completed(session: &GameSessionCompletedV2) -> Observed {
    Observed {
        message_id: session.game_id.clone(),
        message_type: COMPLETED.to_string(),
        producer: crate::SERVICE_NAME.to_string(),
        occurred_at: String::new(),
        seen_at_ms: 0,
        // A contract type always serializes.
        payload: serde_json::to_value(session).unwrap_or(Value::Null),
    }
}

/// The record of a refused request, for its answer.
pub fn refused(command: &PlayCommand, why: &PlayRefused, now_ms: u64) -> Observed {
    record(
        REFUSED,
        command.request(),
        now_ms,
        json!({"requestId": command.request(), "error": why.to_string(), "code": why.code()}),
    )
}

#[cfg(test)]
mod tests;
