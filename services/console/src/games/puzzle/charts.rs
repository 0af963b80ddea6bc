//! The puzzle's statistics as the console folds them from the telemetry's facts: the latest
//! per-stage statistics (`puzzle.stats.updated.v1`), and trends over time folded from each
//! session the telemetry recorded or flagged (`puzzle.session.recorded.v1`,
//! `puzzle.session.flagged.v1`): sessions and wins per stage per hour (the last
//! [`HOURS_KEPT`] hours) and per day (the last [`DAYS_KEPT`] days), on the telemetry's own
//! times (`recordedAtMs`, `flaggedAtMs`), so a replay gives the same buckets. The telemetry is
//! what counts a session once (by its `gameId`) and checks it; the console only draws.

use std::collections::{BTreeMap, VecDeque};

use arcade_contracts::puzzle::{SessionFlagged, SessionRecorded, StatsUpdated};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::observed::Observed;

/// Hourly buckets kept (two days).
pub const HOURS_KEPT: u64 = 48;
/// Daily buckets kept.
pub const DAYS_KEPT: u64 = 60;
/// Sessions listed, the newest.
pub const RECENT: usize = 20;

const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 24 * HOUR_MS;

/// One bucket of one stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    /// Sessions recorded.
    pub sessions: u64,
    /// Of which won.
    pub won: u64,
    /// Sessions flagged (kept out of the statistics).
    pub flagged: u64,
}

/// A time bucket: its start (ms since the epoch) and its counts for stages 1 to 5.
type Buckets = BTreeMap<u64, [Count; 5]>;

/// The statistics and trends.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Charts {
    latest: Option<StatsUpdated>,
    hours: Buckets,
    days: Buckets,
    recent: VecDeque<Value>,
}

impl Charts {
    /// Folds a telemetry fact; returns whether anything shown changed.
    pub fn apply(&mut self, event: &Observed) -> bool {
        match event.message_type.as_str() {
            "puzzle.stats.updated.v1" => match event.payload_as::<StatsUpdated>() {
                Ok(stats) => {
                    self.latest = Some(stats);
                    true
                }
                Err(_) => false,
            },
            "puzzle.session.recorded.v1" => match event.payload_as::<SessionRecorded>() {
                Ok(s) => {
                    let won = s.outcome == arcade_contracts::game::Outcome::Won;
                    self.count(s.stage, s.recorded_at_ms, |c| {
                        c.sessions += 1;
                        c.won += u64::from(won);
                    });
                    self.list(json!({"gameId": s.game_id, "stage": s.stage, "outcome": s.outcome,
                        "turns": s.turns, "moveLimit": s.move_limit, "durationMs": s.duration_ms,
                        "verified": s.verified, "version": s.source_version, "atMs": s.recorded_at_ms}));
                    true
                }
                Err(_) => false,
            },
            "puzzle.session.flagged.v1" => match event.payload_as::<SessionFlagged>() {
                Ok(s) => {
                    self.count(s.stage, s.flagged_at_ms, |c| c.flagged += 1);
                    self.list(
                        json!({"gameId": s.game_id, "stage": s.stage, "outcome": s.outcome,
                        "turns": s.turns, "flagged": s.reason, "detail": s.detail,
                        "version": s.source_version, "atMs": s.flagged_at_ms}),
                    );
                    true
                }
                Err(_) => false,
            },
            _ => false,
        }
    }

    fn count(&mut self, stage: u8, at_ms: u64, add: impl Fn(&mut Count)) {
        if !(1..=5).contains(&stage) {
            return;
        }
        let i = usize::from(stage - 1);
        for (buckets, width, kept) in [
            (&mut self.hours, HOUR_MS, HOURS_KEPT),
            (&mut self.days, DAY_MS, DAYS_KEPT),
        ] {
            let start = at_ms - at_ms % width;
            let newest = buckets.keys().next_back().copied().unwrap_or(start);
            if start + kept * width <= newest {
                continue; // older than what is kept
            }
            add(&mut buckets.entry(start).or_default()[i]);
            let newest = newest.max(start);
            while let Some((&oldest, _)) = buckets.first_key_value() {
                if oldest + kept * width > newest {
                    break;
                }
                buckets.remove(&oldest);
            }
        }
    }

    fn list(&mut self, line: Value) {
        self.recent.push_front(line);
        self.recent.truncate(RECENT);
    }

    /// The view: the latest statistics, the trends (oldest bucket first, each with its start
    /// and per stage `[sessions, won, flagged]`), the newest sessions.
    pub fn view(&self) -> Value {
        let series = |buckets: &Buckets| -> Vec<Value> {
            buckets
                .iter()
                .map(|(start, counts)| {
                    json!({
                        "startMs": start,
                        "stages": counts.iter().map(|c| json!([c.sessions, c.won, c.flagged])).collect::<Vec<_>>(),
                    })
                })
                .collect()
        };
        json!({
            "stats": self.latest,
            "hours": series(&self.hours),
            "days": series(&self.days),
            "recent": self.recent,
        })
    }
}
