//! Version 2 of the referee's snapshots (postcard, field by field), read into version 3's
//! form: the serde form of the state as JSON, so that what the state gained since is filled
//! as version 3 fills it (its default), or the snapshot is refused.

use arcade_runtime::SnapshotError;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::domain::{IbrLock, Phase, Side};

#[derive(Debug, Deserialize)]
struct Table {
    game: Option<Game>,
    /// (hinge, lock): 0 released, 1 locked.
    ibr: Option<(u8, u8)>,
    played: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Game {
    id: String,
    /// The rules document as JSON text.
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
    /// The play before the last ball, while that ball can be taken back: hinge, lock, phase
    /// code, balls.
    before_last: Option<(i64, i64, u8, u64)>,
}

fn payload(reason: impl std::fmt::Display) -> SnapshotError {
    SnapshotError::Payload(format!("version 2: {reason}"))
}

/// The word at `code` of a vocabulary, as serde writes it.
fn word<T: serde::Serialize + Copy>(
    all: &[T],
    code: u8,
    what: &str,
) -> Result<Value, SnapshotError> {
    let value = all
        .get(usize::from(code))
        .ok_or_else(|| payload(format!("{what} code {code}")))?;
    serde_json::to_value(value).map_err(payload)
}

/// A version 2 snapshot as the JSON of version 3.
pub(super) fn read(bytes: &[u8]) -> Result<Value, SnapshotError> {
    let table: Table = postcard::from_bytes(bytes).map_err(payload)?;
    let locks = [IbrLock::Released, IbrLock::Locked];
    let ibr = match table.ibr {
        Some((hinge, lock)) => json!({
            "hinge": word(&locks, hinge, "ball lock")?,
            "lock": word(&locks, lock, "ball lock")?,
        }),
        None => Value::Null,
    };
    let game = table.game.map(game).transpose()?;
    Ok(json!({"game": game, "ibr": ibr, "played": table.played}))
}

fn game(game: Game) -> Result<Value, SnapshotError> {
    let rules: Value = serde_json::from_str(&game.rules)
        .map_err(|e| payload(format!("the rules of game \"{}\": {e}", game.id)))?;
    let play = |hinge: i64, lock: i64, phase: u8, balls: u64, winner: Value| {
        Ok::<_, SnapshotError>(json!({
            "score": {"hinge": hinge, "lock": lock},
            "phase": word(&Phase::ALL, phase, "phase")?,
            "balls": balls,
            "winner": winner,
        }))
    };
    let winner = match game.winner {
        Some(code) => word(&Side::ALL, code, "side")?,
        None => Value::Null,
    };
    let before_last = match game.before_last {
        Some((hinge, lock, phase, balls)) => play(hinge, lock, phase, balls, Value::Null)?,
        None => Value::Null,
    };
    Ok(json!({
        "id": game.id,
        "rules": rules,
        "players": game.players.map(|(hinge, lock)| json!({"hinge": hinge, "lock": lock})),
        "started_at_ms": game.started_at_ms,
        "play": play(game.hinge, game.lock, game.phase, game.balls, winner)?,
        "before_last": before_last,
        "over": game.over,
    }))
}
