//! The data of the referee's inputs: a game start, a ball seen, a reported goal, an abort.

use serde_json::Value;

use super::Players;
use crate::domain::terms::{BallKind, Side};

/// A request to start a game (`table.game.start.v1`).
#[derive(Debug, Clone, PartialEq)]
pub struct StartGame {
    /// The table it is addressed to.
    pub table_id: String,
    /// The game's id, chosen by the server.
    pub game_id: String,
    /// The rules document, parsed and checked here.
    pub rules: Value,
    /// The players, if the server named them.
    pub players: Option<Players>,
    /// When it is handled (ms since epoch): the game clock starts here.
    pub at_ms: u64,
}

/// A ball seen by the table's goal sensors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BallSeen {
    /// The side that scored.
    pub side: Side,
    /// How it went in.
    pub kind: BallKind,
    /// When it was seen (ms since epoch).
    pub at_ms: u64,
}

/// A goal reported from outside the table (`table.goal.report.v1`): a table without sensors,
/// a scorekeeper's tablet, the demo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalReport {
    /// The table it is addressed to.
    pub table_id: String,
    /// The game it is meant for; a report for another game is refused. `None`: the game in
    /// progress, whichever it is.
    pub game_id: Option<String>,
    /// The side that scored.
    pub side: Side,
    /// How it went in.
    pub kind: BallKind,
    /// Who scored, if the reporter names a person; passed on to `table.goal.scored.v1`. When
    /// the game names its players, it must be one of them; one of the other side scores an
    /// own goal.
    pub player: Option<String>,
    /// When it is handled (ms since epoch).
    pub at_ms: u64,
}

/// A request to end the game on the table without a winner (`table.game.abort.v1`): rules
/// that can never be won, a game left unfinished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbortGame {
    /// The table it is addressed to.
    pub table_id: String,
    /// The game to end; an abort of another game is refused.
    pub game_id: String,
    /// Why, as the organiser puts it.
    pub reason: Option<String>,
    /// When it is handled (ms since epoch).
    pub at_ms: u64,
}
