//! The referee of one table as a decider: `decide` turns an input (game start, ball, goal
//! report, clock tick) into events, `evolve` folds events into the state, and `next_deadline`
//! says when the runtime must send the next tick (the timeout). State is rebuilt from events
//! alone: the game start event carries the rules document, every later event the facts it set.

use std::sync::Arc;

use arcade_contracts::table::{
    TableGameFinished, TableGoalCancel, TableGoalCancelled, TableGoalScored, TableIbrChanged,
    TablePhaseChanged,
};
use serde::{Deserialize, Serialize};

use super::game::Play;
use super::rules::{Rules, RulesError};
use super::terms::{BallKind, Ibr, Score, Side};

/// What the referee reacts to: the one enum of its inputs, the commands off the wire (through
/// their `From` impls in [`crate::mapping`]), the sensors' balls and the runtime's clock.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Start a game.
    Start(StartGame),
    /// The goal sensors saw a ball. Ignored when no game is being played.
    Ball(BallSeen),
    /// A goal reported by a person or another program. Refused when it does not fit.
    Report(GoalReport),
    /// End the game in progress without a winner. Refused when it does not fit.
    Abort(AbortGame),
    /// Cancel the last ball of the game in progress: refused once the game is finished, when
    /// it has no ball to cancel, or when its `ball` is not the last.
    Cancel(TableGoalCancel),
    /// The clock (ms since epoch), sent by the runtime at [`Referee::next_deadline`].
    Tick {
        /// Now, in ms since epoch.
        now_ms: u64,
    },
}

impl Input {
    /// This input as handled at `now_ms` (ms since epoch): a command off the wire or a ball from
    /// the sensors carries no time of its own, the host stamps it with its clock. A tick keeps
    /// its own.
    pub fn at(self, now_ms: u64) -> Input {
        match self {
            Input::Start(start) => Input::Start(StartGame {
                at_ms: now_ms,
                ..start
            }),
            Input::Ball(ball) => Input::Ball(BallSeen {
                at_ms: now_ms,
                ..ball
            }),
            Input::Report(report) => Input::Report(GoalReport {
                at_ms: now_ms,
                ..report
            }),
            Input::Abort(abort) => Input::Abort(AbortGame {
                at_ms: now_ms,
                ..abort
            }),
            untimed => untimed,
        }
    }
}

/// The referee's facts; each is one `table.*` message. Those that are the same thing as their
/// message hold it (naming the table); a game start holds its checked rules.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `table.game.started.v1`.
    GameStarted {
        /// The table.
        table_id: String,
        /// The game.
        game_id: String,
        /// The checked rules (the document goes on the wire).
        rules: Arc<Rules>,
        /// The players, if named.
        players: Option<Players>,
        /// Start of the game clock (ms since epoch).
        started_at_ms: u64,
        /// The initial score.
        score: Score,
    },
    /// A ball went in (counted, or a rehearsal ball).
    GoalScored(TableGoalScored),
    /// The game entered another phase.
    PhaseChanged(TablePhaseChanged),
    /// The ball locks to apply (only when one changes).
    IbrChanged(TableIbrChanged),
    /// The last ball was taken back; the game is as it was before it.
    GoalCancelled(TableGoalCancelled),
    /// The game ended: won (`winner`, reason `win` or `timeout`) or aborted (no winner).
    GameFinished(TableGameFinished),
}

impl Event {
    /// The game it is about.
    pub fn game_id(&self) -> &str {
        match self {
            Event::GameStarted { game_id, .. } => game_id,
            Event::GoalScored(m) => &m.game_id,
            Event::PhaseChanged(m) => &m.game_id,
            Event::IbrChanged(m) => &m.game_id,
            Event::GoalCancelled(m) => &m.game_id,
            Event::GameFinished(m) => &m.game_id,
        }
    }
}

/// Why a game start was refused (`table.game.rejected.v1`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartRefusal {
    /// The command names another table.
    #[error("this referee is table \"{this}\", not \"{addressed}\"")]
    WrongTable {
        /// The table named by the command.
        addressed: String,
        /// This referee's table.
        this: String,
    },
    /// The rules document is invalid.
    #[error("invalid rules: {0}")]
    InvalidRules(RulesError),
    /// A game is being played on the table.
    #[error("game \"{0}\" is still being played on this table")]
    GameInProgress(String),
    /// The same game id was already played.
    #[error("game \"{0}\" was already played on this table")]
    AlreadyPlayed(String),
}

/// Why a request about the table's game was refused: an abort (`table.game.rejected.v1`) or a
/// reported goal (`table.goal.rejected.v1`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameRefusal {
    /// The command names another table.
    #[error("this referee is table \"{this}\", not \"{addressed}\"")]
    WrongTable {
        /// The table named by the command.
        addressed: String,
        /// This referee's table.
        this: String,
    },
    /// No game was ever started on this table.
    #[error("no game has been started on this table")]
    NoGame,
    /// The request names another game than the table's.
    #[error("the game on this table is \"{current}\"")]
    OtherGame {
        /// The table's current (or last) game.
        current: String,
    },
    /// A cancel finds no ball to take back: none yet, or the last one was cancelled already.
    #[error("game \"{0}\" has no ball to cancel")]
    NoBall(String),
    /// A cancel names another ball than the game's last.
    #[error("ball {named} is not the last ball of the game, {last} is")]
    NotTheLastBall {
        /// The ball named.
        named: u64,
        /// The game's last ball.
        last: u64,
    },
    /// The game is over already.
    #[error("game \"{0}\" is finished")]
    Finished(String),
    /// A reported goal names a player who is not one of the game's.
    #[error("\"{player}\" does not play in game \"{game}\" ({players})")]
    NotAPlayer {
        /// The player named.
        player: String,
        /// The game.
        game: String,
        /// Its players: `hinge: alice, carol; lock: bob`.
        players: String,
    },
}

/// Why an abort was refused (`table.game.rejected.v1`).
pub type AbortRefusal = GameRefusal;

/// Why a reported goal was refused (`table.goal.rejected.v1`).
pub type ReportRefusal = GameRefusal;

/// A refused request; the runtime turns it into a `*.rejected.v1` message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// A refused `table.game.start.v1`.
    #[error("{reason}")]
    Start {
        /// The game it was meant to start.
        game_id: String,
        /// Why.
        reason: StartRefusal,
    },
    /// A refused `table.goal.report.v1`.
    #[error("{reason}")]
    Report {
        /// The game it named, else the table's current (or last) game, else empty.
        game_id: String,
        /// The side reported.
        side: Side,
        /// The kind reported.
        kind: BallKind,
        /// Why.
        reason: ReportRefusal,
    },
    /// A refused `table.game.abort.v1`.
    #[error("cannot abort: {reason}")]
    Abort {
        /// The game it was meant to end.
        game_id: String,
        /// Why.
        reason: AbortRefusal,
    },
    /// A refused `table.goal.cancel.v1`.
    #[error("cannot cancel: {reason}")]
    Cancel {
        /// The game it named.
        game_id: String,
        /// Why.
        reason: GameRefusal,
    },
}

/// The current (or last) game of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    pub(crate) id: String,
    /// On disk as its document, checked again on load.
    #[serde(with = "super::rules::as_document")]
    pub(crate) rules: Arc<Rules>,
    pub(crate) players: Option<Players>,
    pub(crate) started_at_ms: u64,
    pub(crate) play: Play,
    /// The play before the last ball, while that ball can be cancelled.
    pub(crate) before_last: Option<Play>,
    /// Set by its `table.game.finished.v1`: won, or aborted without a winner.
    pub(crate) over: bool,
}

impl GameState {
    /// The game's id.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// Its rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// Its players, if named.
    pub fn players(&self) -> Option<&Players> {
        self.players.as_ref()
    }
    /// Start of its clock (ms since epoch).
    pub fn started_at_ms(&self) -> u64 {
        self.started_at_ms
    }
    /// Score, phase, balls, winner.
    pub fn play(&self) -> &Play {
        &self.play
    }
    /// Whether it is still being played.
    pub fn in_progress(&self) -> bool {
        !self.over
    }
}

/// The referee's state: a fold of its events. Its snapshots are its serde form
/// ([`crate::snapshot`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableState {
    pub(crate) game: Option<GameState>,
    pub(crate) ibr: Option<Ibr>,
    /// Every game id ever started on the table: an id is used once.
    pub(crate) played: std::collections::HashSet<String>,
}

impl TableState {
    /// The current (or last) game.
    pub fn game(&self) -> Option<&GameState> {
        self.game.as_ref()
    }
    /// The ball locks last decided; `None` before the first game.
    pub fn ibr(&self) -> Option<Ibr> {
        self.ibr
    }
    /// Whether a game of this id was ever started on the table.
    pub fn played(&self, game_id: &str) -> bool {
        self.played.contains(game_id)
    }
}

/// The referee of one table.
#[derive(Debug, Clone)]
pub struct Referee {
    table_id: String,
}

mod decide;
mod input;

pub use arcade_contracts::table::{FinishReason, Players};
pub use input::{AbortGame, BallSeen, GoalReport, StartGame};
