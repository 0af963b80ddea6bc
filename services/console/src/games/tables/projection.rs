//! The tables' read model: every table a referee published about, with its current (or last)
//! game — score, phase, clock start, ball-return locks, the last goals — and the last refusal
//! (a start or abort the referee rejected, a goal report it refused), whose error names the
//! rules document's JSON path.
//!
//! Pure: folded from `table.*` events only; times come from the events.

use std::collections::BTreeMap;

use arcade_contracts::Message;
use arcade_contracts::table::{
    BallKind, FinishReason, IbrLock, Phase, Players, Score, Side, TableGameFinished,
    TableGameRejected, TableGameStarted, TableGoalCancelled, TableGoalRejected, TableGoalScored,
    TableIbrChanged, TablePhaseChanged,
};
use serde::{Deserialize, Serialize};

use crate::observed::Observed;
use crate::projection::{ReadModel, of_topic};

/// Goals kept per game (the newest).
pub const LAST_GOALS: usize = 10;

/// Tables kept: a bar has a few, a tournament a few dozen; beyond this, new tables are not
/// shown (never unbounded memory from a producer that invents table ids).
pub const MAX_TABLES: usize = 1_000;

/// Every table seen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tables {
    tables: BTreeMap<String, Table>,
}

/// One table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Table {
    /// The table.
    pub table_id: String,
    /// The referee instance that publishes for it (`referee.t1`).
    pub referee: String,
    /// The game in progress, or the last one.
    pub game: Option<Game>,
    /// Games finished on this table (won or aborted).
    pub games_finished: u64,
    /// The last request the referee refused.
    pub last_rejection: Option<Rejection>,
    /// When the console last saw an event of this table (ms since the epoch).
    pub last_seen_ms: u64,
}

/// A game on a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Game {
    /// The game.
    pub game_id: String,
    /// Start of its clock (ms since the epoch); `None` when the console did not see the start.
    pub started_at_ms: Option<u64>,
    /// The rules' `timeout_s`, when they have one.
    pub timeout_s: Option<u64>,
    /// The players, if named.
    pub players: Option<Players>,
    /// The rules in plain words, one line per rule, as the referee explained them in
    /// `table.game.started.v1` (empty from a referee that predates it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_text: Vec<String>,
    /// The score.
    pub score: Score,
    /// The phase.
    pub phase: Phase,
    /// The ball returns.
    pub ibr: Locks,
    /// Balls played, rehearsal balls included.
    pub balls: u64,
    /// The last goals, newest first.
    pub goals: Vec<Goal>,
    /// How it ended, once it has.
    pub finished: Option<Finished>,
}

/// Both ball returns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Locks {
    /// The hinge side's.
    pub hinge: IbrLock,
    /// The lock side's.
    pub lock: IbrLock,
}

/// A ball that went in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Goal {
    /// Who scored.
    pub side: Side,
    /// How.
    pub kind: BallKind,
    /// `false` for a rehearsal ball.
    pub counted: bool,
    /// The score after it.
    pub score: Score,
    /// The phase it was played in.
    pub phase: Phase,
    /// Its number in the game.
    pub ball: u64,
    /// Game clock when it went in.
    pub clock_ms: u64,
    /// The person, when the report named one.
    pub player: Option<String>,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finished {
    /// The winner; `None` when aborted.
    pub winner: Option<Side>,
    /// Why it ended.
    pub reason: FinishReason,
    /// Its length.
    pub duration_ms: u64,
    /// The organiser's reason for an abort.
    pub abort_reason: Option<String>,
}

/// A request the referee refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejection {
    /// `game` (a start or an abort) or `goal` (a report).
    pub what: String,
    /// The game the request named.
    pub game_id: String,
    /// The referee's reason (for rules: the JSON path and what is wrong there).
    pub error: String,
    /// When the console saw it.
    pub seen_at_ms: u64,
}

impl Tables {
    /// A table, if seen.
    pub fn table(&self, table_id: &str) -> Option<&Table> {
        self.tables.get(table_id)
    }

    /// Every table, by id.
    pub fn all(&self) -> impl Iterator<Item = &Table> {
        self.tables.values()
    }

    fn entry(&mut self, table_id: &str, event: &Observed) -> Option<&mut Table> {
        if !self.tables.contains_key(table_id) && self.tables.len() >= MAX_TABLES {
            return None;
        }
        let table = self
            .tables
            .entry(table_id.to_string())
            .or_insert_with(|| Table {
                table_id: table_id.to_string(),
                referee: event.producer.clone(),
                game: None,
                games_finished: 0,
                last_rejection: None,
                last_seen_ms: 0,
            });
        table.referee.clone_from(&event.producer);
        table.last_seen_ms = event.seen_at_ms;
        Some(table)
    }

    fn fold(&mut self, event: &Observed) -> Option<()> {
        match event.message_type.as_str() {
            TableGameStarted::TYPE => {
                let m: TableGameStarted = event.payload_as().ok()?;
                let table = self.entry(&m.table_id, event)?;
                table.game = Some(Game {
                    timeout_s: m.rules.get("timeout_s").and_then(|v| v.as_u64()),
                    players: m.players,
                    rules_text: m.rules_text,
                    ..Game::new(m.game_id, Some(m.started_at_ms), m.score)
                });
            }
            TableGoalScored::TYPE => {
                let m: TableGoalScored = event.payload_as().ok()?;
                let game = self.game(event, &m.table_id, &m.game_id, m.score)?;
                game.score = m.score;
                game.phase = m.phase;
                game.balls = game.balls.max(m.ball);
                game.goals.insert(
                    0,
                    Goal {
                        side: m.side,
                        kind: m.kind,
                        counted: m.counted,
                        score: m.score,
                        phase: m.phase,
                        ball: m.ball,
                        clock_ms: m.clock_ms,
                        player: m.player,
                    },
                );
                game.goals.truncate(LAST_GOALS);
            }
            TableGoalCancelled::TYPE => {
                let m: TableGoalCancelled = event.payload_as().ok()?;
                let game = self.game(event, &m.table_id, &m.game_id, m.score)?;
                game.score = m.score;
                game.phase = m.phase;
                game.balls = m.ball.saturating_sub(1);
                game.goals.retain(|goal| goal.ball != m.ball);
            }
            TablePhaseChanged::TYPE => {
                let m: TablePhaseChanged = event.payload_as().ok()?;
                let game = self.game(event, &m.table_id, &m.game_id, m.score)?;
                game.phase = m.to;
                game.score = m.score;
            }
            TableIbrChanged::TYPE => {
                let m: TableIbrChanged = event.payload_as().ok()?;
                let current = self.entry(&m.table_id, event)?;
                let score = current
                    .game
                    .as_ref()
                    .map_or(Score { hinge: 0, lock: 0 }, |g| g.score);
                let game = current.game_for(&m.game_id, score);
                game.ibr = Locks {
                    hinge: m.hinge,
                    lock: m.lock,
                };
            }
            TableGameFinished::TYPE => {
                let m: TableGameFinished = event.payload_as().ok()?;
                let table = self.entry(&m.table_id, event)?;
                table.games_finished += 1;
                let game = table.game_for(&m.game_id, m.score);
                game.score = m.score;
                game.phase = m.phase;
                game.finished = Some(Finished {
                    winner: m.winner,
                    reason: m.reason,
                    duration_ms: m.duration_ms,
                    abort_reason: m.abort_reason,
                });
            }
            TableGameRejected::TYPE => {
                let m: TableGameRejected = event.payload_as().ok()?;
                self.rejected(event, "game", &m.table_id, m.game_id, m.error)?;
            }
            TableGoalRejected::TYPE => {
                let m: TableGoalRejected = event.payload_as().ok()?;
                self.rejected(event, "goal", &m.table_id, m.game_id, m.error)?;
            }
            _ => return None,
        }
        Some(())
    }

    /// The game `game_id` of table `table_id` ([`Table::game_for`]), if the table is kept.
    fn game(
        &mut self,
        event: &Observed,
        table_id: &str,
        game_id: &str,
        score: Score,
    ) -> Option<&mut Game> {
        Some(self.entry(table_id, event)?.game_for(game_id, score))
    }

    /// A request the referee refused (`what`: `game` or `goal`), as the table's last.
    fn rejected(
        &mut self,
        event: &Observed,
        what: &str,
        table_id: &str,
        game_id: String,
        error: String,
    ) -> Option<()> {
        self.entry(table_id, event)?.last_rejection = Some(Rejection {
            what: what.into(),
            game_id,
            error,
            seen_at_ms: event.seen_at_ms,
        });
        Some(())
    }
}

impl Table {
    /// The table's game `game_id`; a game the console did not see start (it joined late) is
    /// begun from what this event says.
    fn game_for(&mut self, game_id: &str, score: Score) -> &mut Game {
        if self.game.as_ref().is_some_and(|g| g.game_id != game_id) {
            self.game = None;
        }
        self.game
            .get_or_insert_with(|| Game::new(game_id.to_string(), None, score))
    }
}

impl Game {
    fn new(game_id: String, started_at_ms: Option<u64>, score: Score) -> Self {
        Game {
            game_id,
            started_at_ms,
            timeout_s: None,
            players: None,
            rules_text: Vec::new(),
            score,
            phase: Phase::Default,
            ibr: Locks {
                hinge: IbrLock::Released,
                lock: IbrLock::Released,
            },
            balls: 0,
            goals: Vec::new(),
            finished: None,
        }
    }
}

impl ReadModel for Tables {
    const KEY: &'static str = "tables";
    const VERSION: u32 = 1;

    fn apply(&mut self, event: &Observed) -> bool {
        of_topic(event, "table") && self.fold(event).is_some()
    }
}
