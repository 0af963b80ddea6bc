//! The on-disk format of the referee's state snapshots (`arcade_runtime::Snapshot`).
//!
//! Version 2, postcard (version 1 lacked the play before the last ball; its snapshots are
//! skipped and the log replayed): the current (or last) game — its id, its rules document as JSON text
//! (the rules' own format, parsed again on load with [`Rules::reload`]), players, clock start,
//! score, phase, balls, winner, whether it is over, the play before the last ball — the ball locks last decided, and every
//! game id ever started on the table. These structs are the format; the domain's types never
//! go to disk.

use std::sync::Arc;

use arcade_runtime::{Snapshot, SnapshotError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::game::Play;
use crate::domain::referee::{GameState, Players};
use crate::domain::{Ibr, IbrLock, Phase, Rules, Score, Side, TableState};
use crate::service::RefereeService;
use crate::table::BallLocks;

#[derive(Debug, Serialize, Deserialize)]
struct TableV1 {
    game: Option<GameV1>,
    /// (hinge, lock): 0 released, 1 locked.
    ibr: Option<(u8, u8)>,
    played: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct GameV1 {
    id: String,
    rules: String,
    players: Option<(Vec<String>, Vec<String>)>,
    started_at_ms: u64,
    hinge: i64,
    lock: i64,
    /// 0 default, 1 tie-break, 2 timeout.
    phase: u8,
    balls: u64,
    /// 0 hinge, 1 lock.
    winner: Option<u8>,
    over: bool,
    /// Before the last ball, while it can be cancelled: hinge, lock, phase code, balls.
    before_last: Option<(i64, i64, u8, u64)>,
}

fn payload(reason: impl Into<String>) -> SnapshotError {
    SnapshotError::Payload(reason.into())
}

fn lock_code(lock: IbrLock) -> u8 {
    match lock {
        IbrLock::Released => 0,
        IbrLock::Locked => 1,
    }
}

fn lock_of(code: u8) -> Result<IbrLock, SnapshotError> {
    match code {
        0 => Ok(IbrLock::Released),
        1 => Ok(IbrLock::Locked),
        other => Err(payload(format!("ball lock code {other}"))),
    }
}

fn side_of(code: u8) -> Result<Side, SnapshotError> {
    match code {
        0 => Ok(Side::Hinge),
        1 => Ok(Side::Lock),
        other => Err(payload(format!("side code {other}"))),
    }
}

fn game_v1(game: &GameState) -> GameV1 {
    GameV1 {
        id: game.id.clone(),
        rules: Value::Object(game.rules.source().clone()).to_string(),
        players: game
            .players
            .as_ref()
            .map(|p| (p.hinge.clone(), p.lock.clone())),
        started_at_ms: game.started_at_ms,
        hinge: game.play.score.hinge,
        lock: game.play.score.lock,
        phase: phase_code(game.play.phase),
        balls: game.play.balls,
        winner: game.play.winner.map(|side| match side {
            Side::Hinge => 0,
            Side::Lock => 1,
        }),
        over: game.over,
        before_last: game
            .before_last
            .map(|p| (p.score.hinge, p.score.lock, phase_code(p.phase), p.balls)),
    }
}

fn phase_code(phase: Phase) -> u8 {
    match phase {
        Phase::Default => 0,
        Phase::TieBreak => 1,
        Phase::Timeout => 2,
    }
}

fn phase_of(code: u8) -> Result<Phase, SnapshotError> {
    match code {
        0 => Ok(Phase::Default),
        1 => Ok(Phase::TieBreak),
        2 => Ok(Phase::Timeout),
        other => Err(payload(format!("phase code {other}"))),
    }
}

fn game_from(game: GameV1) -> Result<GameState, SnapshotError> {
    let document: Value = serde_json::from_str(&game.rules)
        .map_err(|e| payload(format!("the rules of game \"{}\": {e}", game.id)))?;
    let rules = Rules::reload(&document)
        .map_err(|e| payload(format!("the rules of game \"{}\": {e}", game.id)))?;
    Ok(GameState {
        rules: Arc::new(rules),
        players: game.players.map(|(hinge, lock)| Players { hinge, lock }),
        started_at_ms: game.started_at_ms,
        play: Play {
            score: Score {
                hinge: game.hinge,
                lock: game.lock,
            },
            phase: phase_of(game.phase)?,
            balls: game.balls,
            winner: game.winner.map(side_of).transpose()?,
        },
        before_last: game
            .before_last
            .map(|(hinge, lock, phase, balls)| {
                Ok::<_, SnapshotError>(Play {
                    score: Score { hinge, lock },
                    phase: phase_of(phase)?,
                    balls,
                    winner: None,
                })
            })
            .transpose()?,
        over: game.over,
        id: game.id,
    })
}

impl<L: BallLocks + Send + 'static> Snapshot for RefereeService<L> {
    const VERSION: u32 = 2;

    fn encode(state: &TableState) -> Vec<u8> {
        let snapshot = TableV1 {
            game: state.game.as_ref().map(game_v1),
            ibr: state
                .ibr
                .map(|ibr| (lock_code(ibr.hinge), lock_code(ibr.lock))),
            played: state.played.iter().cloned().collect(),
        };
        // Plain integers, strings and vectors always serialize.
        postcard::to_allocvec(&snapshot).unwrap_or_default()
    }

    fn decode(bytes: &[u8]) -> Result<TableState, SnapshotError> {
        let snapshot: TableV1 = postcard::from_bytes(bytes).map_err(|e| payload(e.to_string()))?;
        Ok(TableState {
            game: snapshot.game.map(game_from).transpose()?,
            ibr: snapshot
                .ibr
                .map(|(hinge, lock)| {
                    Ok::<_, SnapshotError>(Ibr {
                        hinge: lock_of(hinge)?,
                        lock: lock_of(lock)?,
                    })
                })
                .transpose()?,
            played: snapshot.played.into_iter().collect(),
        })
    }
}
