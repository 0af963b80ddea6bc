//! The telemetry decider: each finished session (`game.session.completed.v1` or `.v2`, one
//! shape after upcasting) becomes a recorded or a flagged session; a tick publishes the
//! statistics when new sessions arrived since the last time.
//!
//! Identity: a session is its `gameId`. A session whose `gameId` was already recorded or
//! flagged (the same session resent under another message id, or sent again in another
//! version) is a repeat: nothing is decided, and the host counts it as a duplicate. The first
//! arrival wins; a v2 after its v1 does not re-verify the session. The `gameId`s are
//! remembered for a window ([`SessionWindow`], 7 days by default) on the times of the events
//! that counted them, not forever: a resend later than that counts again.
//!
//! Publication: at most one `puzzle.stats.updated.v1` per interval (the decider's setting,
//! [`PUBLISH_INTERVAL_MS`] by default), and only when a session was recorded or flagged since
//! the last one. The first session after a quiet
//! period is published at the next tick; a burst is summarised once per interval.
//!
//! Partitions: an instance counting one partition of the games ([`PuzzleTelemetry::partitioned`])
//! publishes, with each `puzzle.stats.updated.v1` of its share, the same statistics as raw
//! counters (`puzzle.partition.updated.v1`, [`Event::PartitionPublished`]), from which all
//! partitions' statistics merge exactly. Both are events of the same decision, so both are in
//! the log, or neither.

use std::convert::Infallible;

use arcade_contracts::game::Pulse;
use arcade_contracts::game::SessionCompletion;
use arcade_contracts::puzzle::{PartitionUpdated, SessionFlagged, SessionRecorded, StatsUpdated};

use super::partition::Partition;
use super::session::Session;
use super::stats::Stats;
use super::verify::check;
use super::window::{SESSION_WINDOW_MS, SessionWindow};
use crate::domain::strata::Stage;

/// The default shortest time between two statistics publications.
pub const PUBLISH_INTERVAL_MS: u64 = 5_000;

/// The puzzle telemetry service's decision logic. Its settings are the publication interval
/// ([`PUBLISH_INTERVAL_MS`] by default) and how long a session's `gameId` is remembered
/// ([`SESSION_WINDOW_MS`] by default); the rules are the puzzle's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PuzzleTelemetry {
    publish_every_ms: u64,
    session_window_ms: u64,
    partition: Option<Partition>,
}

impl Default for PuzzleTelemetry {
    fn default() -> Self {
        PuzzleTelemetry {
            publish_every_ms: PUBLISH_INTERVAL_MS,
            session_window_ms: SESSION_WINDOW_MS,
            partition: None,
        }
    }
}

/// What the decider is asked to handle.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A session ended (`game.session.completed.v1` or `.v2`, from any producer).
    Session(SessionCompletion),
    /// The deadline given by [`PuzzleTelemetry::next_deadline`] has passed.
    Tick,
}

/// The service's own events; each is one contract message, which it holds (see
/// [`Event::to_message`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `puzzle.session.recorded.v1`: a session that passed validation, its stage valid.
    Recorded(SessionRecorded),
    /// `puzzle.session.flagged.v1`: a session that breaks the rules.
    Flagged(SessionFlagged),
    /// `puzzle.stats.updated.v1`: the statistics as published.
    StatsPublished(StatsUpdated),
    /// `puzzle.partition.updated.v1`: a partitioned instance's statistics as raw counters,
    /// published with each [`Event::StatsPublished`].
    PartitionPublished(PartitionUpdated),
}

/// The fold of the service's events: the statistics and the publication schedule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TelemetryState {
    pub(crate) stats: Stats,
    pub(crate) pending_since_ms: Option<u64>,
    pub(crate) last_published_ms: Option<u64>,
    /// The `gameId` of every session recorded or flagged within the window.
    pub(crate) sessions: SessionWindow,
}

impl TelemetryState {
    /// No session yet, remembering `gameId`s for `window_ms` (the default state remembers them
    /// for [`SESSION_WINDOW_MS`](super::SESSION_WINDOW_MS)).
    pub fn with_session_window(window_ms: u64) -> Self {
        TelemetryState {
            sessions: SessionWindow::new(window_ms),
            ..TelemetryState::default()
        }
    }

    /// The `gameId`s remembered, and for how long.
    pub fn sessions(&self) -> &SessionWindow {
        &self.sessions
    }

    /// The statistics so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The statistics in their published form, as of `now_ms` (for the HTTP endpoint).
    pub fn snapshot(&self, now_ms: u64) -> StatsUpdated {
        self.stats.to_contract(now_ms)
    }

    /// When the statistics were last published.
    pub fn last_published_ms(&self) -> Option<u64> {
        self.last_published_ms
    }

    /// Whether a session with this `gameId` was already recorded or flagged, within the window.
    pub fn has_session(&self, game_id: &str) -> bool {
        self.sessions.contains(game_id)
    }
}

impl PuzzleTelemetry {
    /// A decider publishing the statistics at most once every `publish_every_ms` (0: as soon
    /// as a session arrived, at most once per tick).
    pub fn publishing_every(publish_every_ms: u64) -> Self {
        PuzzleTelemetry {
            publish_every_ms,
            ..PuzzleTelemetry::default()
        }
    }

    /// The same decider, remembering each session's `gameId` for `window_ms` (at least 1 ms).
    pub fn remembering_sessions_for(self, window_ms: u64) -> Self {
        PuzzleTelemetry {
            session_window_ms: window_ms.max(1),
            ..self
        }
    }

    /// How long a session's `gameId` is remembered, in milliseconds.
    pub fn session_window_ms(&self) -> u64 {
        self.session_window_ms
    }

    /// The same decider counting partition `partition` of the games: each publication of the
    /// statistics comes with `puzzle.partition.updated.v1`.
    pub fn partitioned(self, partition: Partition) -> Self {
        PuzzleTelemetry {
            partition: Some(partition),
            ..self
        }
    }

    /// The partition this decider counts, if partitioned.
    pub fn partition(&self) -> Option<Partition> {
        self.partition
    }

    /// The state before any event, with this decider's window: what the log is folded on.
    pub fn initial_state(&self) -> TelemetryState {
        TelemetryState::with_session_window(self.session_window_ms)
    }

    /// The shortest time between two statistics publications, in milliseconds.
    pub fn publish_every_ms(&self) -> u64 {
        self.publish_every_ms
    }

    /// Decides what an input means. Never refuses: a session is an event, not a request, so an
    /// impossible one is flagged rather than rejected.
    pub fn decide(
        &self,
        state: &TelemetryState,
        input: &Input,
        now_ms: u64,
    ) -> Result<Vec<Event>, Infallible> {
        Ok(match input {
            Input::Session(completed) if state.has_session(&completed.game_id) => Vec::new(),
            Input::Session(completed) => {
                let session = Session::from(completed);
                let moves = super::session::cells(completed);
                let version = completed.version;
                let Session {
                    seed,
                    stage,
                    outcome,
                    turns,
                    duration_ms,
                    ..
                } = session;
                vec![match check(&session, moves.as_deref()) {
                    Ok(accepted) => Event::Recorded(SessionRecorded {
                        game_id: session.game_id,
                        seed,
                        stage: accepted.stage.number(),
                        outcome,
                        turns,
                        move_limit: accepted.move_limit,
                        duration_ms,
                        recorded_at_ms: now_ms,
                        verified: accepted.verified,
                        source_version: version,
                    }),
                    Err(flag) => Event::Flagged(SessionFlagged {
                        reason: flag.reason,
                        detail: flag.describe(&session),
                        game_id: session.game_id,
                        seed,
                        stage,
                        outcome,
                        turns,
                        duration_ms,
                        move_limit: flag.move_limit,
                        flagged_at_ms: now_ms,
                        move_index: flag.at_move.map(|m| m.index),
                        move_cell: flag.at_move.map(|m| Pulse([m.cell.x, m.cell.y])),
                        source_version: version,
                    }),
                }]
            }
            Input::Tick => match self.next_deadline(state) {
                Some(deadline) if now_ms >= deadline => {
                    let mut events = vec![Event::StatsPublished(state.stats.to_contract(now_ms))];
                    if let Some(partition) = self.partition {
                        events.push(Event::PartitionPublished(
                            state.stats.to_partition(partition, now_ms),
                        ));
                    }
                    events
                }
                _ => Vec::new(),
            },
        })
    }

    /// Whether an input repeats a session already counted (same `gameId`, any version): the
    /// host absorbs it as a duplicate instead of deciding.
    pub fn is_repeat(state: &TelemetryState, input: &Input) -> bool {
        matches!(input, Input::Session(s) if state.has_session(&s.game_id))
    }

    /// Applies one of the service's events to the state. No validation here: it happened.
    pub fn evolve(state: &mut TelemetryState, event: &Event) {
        match event {
            Event::Recorded(r) => {
                // Recorded with a valid stage; one that is not (a log altered) counts nothing.
                let Ok(stage) = Stage::new(r.stage.into()) else {
                    return;
                };
                let stats = &mut state.stats;
                stats.record(stage, r.outcome, r.turns, r.move_limit, r.duration_ms);
                stats.arrived(Some(stage), r.source_version, r.verified);
                state.sessions.insert(&r.game_id, r.recorded_at_ms);
                state.pending_since_ms.get_or_insert(r.recorded_at_ms);
            }
            Event::Flagged(f) => {
                let stage = Stage::new(f.stage.into()).ok();
                state.stats.flag(stage);
                state.stats.arrived(stage, f.source_version, false);
                state.sessions.insert(&f.game_id, f.flagged_at_ms);
                state.pending_since_ms.get_or_insert(f.flagged_at_ms);
            }
            Event::StatsPublished(published) => {
                state.last_published_ms = Some(published.published_at_ms);
                state.pending_since_ms = None;
            }
            // Published with the statistics, whose event moves the schedule; it carries the
            // counters, which the state already holds.
            Event::PartitionPublished(_) => {}
        }
    }

    /// When the host should send a [`Input::Tick`]: when sessions wait to be published, the
    /// later of the first one's arrival and one interval after the last publication.
    pub fn next_deadline(&self, state: &TelemetryState) -> Option<u64> {
        let pending = state.pending_since_ms?;
        Some(match state.last_published_ms {
            Some(last) => pending.max(last.saturating_add(self.publish_every_ms)),
            None => pending,
        })
    }
}
