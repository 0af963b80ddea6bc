//! The on-disk format of the telemetry's state snapshots (`arcade_runtime::Snapshot`).
//!
//! Version 3, postcard: every counter of every stage (sessions, outcomes, turns histogram,
//! budgets, durations sketch, verified, v1 and v2 arrivals), the flagged total, the
//! publication schedule, and the window of `gameId`s (what makes a resend a repeat): its
//! length, the newest event time it saw, and the 16-byte digests of the `gameId`s it
//! remembers, by time bucket. These structs are the format; the domain's types never go to
//! disk.
//!
//! Version 2 is the same with the `gameId`s as text; this build reads it (digesting them).
//! Version 1 held every `gameId` ever counted, so it grew with the history; this build does
//! not read it: the runtime skips such a snapshot and replays the log, which files the ids in
//! the window again.

use arcade_runtime::{Codec, Snapshot, SnapshotError};
use serde::{Deserialize, Serialize};

use crate::domain::strata::MAX_WITNESS;
use crate::domain::telemetry::IdDigest;
use crate::domain::telemetry::{
    DurationSketch, SKETCH_BUCKETS, SessionWindow, StageStats, Stats, TelemetryState,
};
use crate::service::TelemetryService;

/// The state; version 2 is the same with a [`WindowV2`].
#[derive(Debug, Serialize, Deserialize)]
struct Telemetry<W> {
    stages: Vec<StageV1>,
    flagged: u64,
    pending_since_ms: Option<u64>,
    last_published_ms: Option<u64>,
    window: W,
}

/// The `gameId` window.
#[derive(Debug, Serialize, Deserialize)]
struct WindowV3 {
    window_ms: u64,
    newest_ms: Option<u64>,
    /// Bucket number (event time / (window / 64)) and the digests of the ids filed under it.
    buckets: Vec<(u64, Vec<[u8; 16]>)>,
}

/// The `gameId` window of version 2: the ids as text.
#[derive(Debug, Serialize, Deserialize)]
struct WindowV2 {
    window_ms: u64,
    newest_ms: Option<u64>,
    buckets: Vec<(u64, Vec<String>)>,
}

impl From<WindowV2> for WindowV3 {
    fn from(w: WindowV2) -> Self {
        let digest = |id: String| IdDigest::of(&id).to_bytes();
        WindowV3 {
            window_ms: w.window_ms,
            newest_ms: w.newest_ms,
            buckets: (w.buckets.into_iter())
                .map(|(bucket, ids)| (bucket, ids.into_iter().map(digest).collect()))
                .collect(),
        }
    }
}

/// A stage's counters (unchanged since version 1).
#[derive(Debug, Serialize, Deserialize)]
struct StageV1 {
    sessions: u64,
    won: u64,
    failed: u64,
    abandoned: u64,
    flagged: u64,
    turns: Vec<u64>,
    turns_total: u64,
    won_turns_total: u64,
    budget_total: u64,
    exhausted_budget: u64,
    durations: SketchV1,
    verified: u64,
    v1: u64,
    v2: u64,
}

/// A durations sketch (unchanged since version 1).
#[derive(Debug, Serialize, Deserialize)]
struct SketchV1 {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    max: u64,
    min: u64,
}

fn stage_v1(s: &StageStats) -> StageV1 {
    StageV1 {
        sessions: s.sessions,
        won: s.won,
        failed: s.failed,
        abandoned: s.abandoned,
        flagged: s.flagged,
        turns: s.turns.to_vec(),
        turns_total: s.turns_total,
        won_turns_total: s.won_turns_total,
        budget_total: s.budget_total,
        exhausted_budget: s.exhausted_budget,
        durations: SketchV1 {
            counts: s.durations.counts.clone(),
            total: s.durations.total,
            sum: s.durations.sum,
            max: s.durations.max,
            min: s.durations.min,
        },
        verified: s.verified,
        v1: s.v1,
        v2: s.v2,
    }
}

fn payload(reason: impl Into<String>) -> SnapshotError {
    SnapshotError::Payload(reason.into())
}

fn stage_from(s: StageV1) -> Result<StageStats, SnapshotError> {
    let turns: [u64; MAX_WITNESS + 1] = s.turns.try_into().map_err(|t: Vec<u64>| {
        payload(format!(
            "a stage has {} turn counts, not {}",
            t.len(),
            MAX_WITNESS + 1
        ))
    })?;
    let d = s.durations;
    if !(d.counts.is_empty() || d.counts.len() == SKETCH_BUCKETS) {
        return Err(payload(format!(
            "a durations sketch has {} buckets, not {SKETCH_BUCKETS}",
            d.counts.len()
        )));
    }
    if d.counts.iter().sum::<u64>() != d.total {
        return Err(payload("a durations sketch's buckets do not add up"));
    }
    Ok(StageStats {
        sessions: s.sessions,
        won: s.won,
        failed: s.failed,
        abandoned: s.abandoned,
        flagged: s.flagged,
        turns,
        turns_total: s.turns_total,
        won_turns_total: s.won_turns_total,
        budget_total: s.budget_total,
        exhausted_budget: s.exhausted_budget,
        durations: DurationSketch {
            counts: d.counts,
            total: d.total,
            sum: d.sum,
            max: d.max,
            min: d.min,
        },
        verified: s.verified,
        v1: s.v1,
        v2: s.v2,
    })
}

impl Snapshot for TelemetryService {
    const VERSION: u32 = 3;

    fn encode(state: &TelemetryState) -> Vec<u8> {
        let snapshot = Telemetry {
            stages: state.stats.stages.iter().map(stage_v1).collect(),
            flagged: state.stats.flagged,
            pending_since_ms: state.pending_since_ms,
            last_published_ms: state.last_published_ms,
            window: WindowV3 {
                window_ms: state.sessions.window_ms(),
                newest_ms: state.sessions.newest_ms(),
                buckets: (state.sessions.by_bucket().into_iter())
                    .map(|(bucket, ids)| {
                        (bucket, ids.into_iter().map(IdDigest::to_bytes).collect())
                    })
                    .collect(),
            },
        };
        // Plain integers, strings and vectors always serialize.
        postcard::to_allocvec(&snapshot).unwrap_or_default()
    }

    fn decode(bytes: &[u8]) -> Result<TelemetryState, SnapshotError> {
        let snapshot: Telemetry<WindowV3> =
            postcard::from_bytes(bytes).map_err(|e| payload(e.to_string()))?;
        state_from(snapshot)
    }

    fn decode_older(version: u32, bytes: &[u8]) -> Option<Result<TelemetryState, SnapshotError>> {
        (version == 2).then(|| {
            let v2: Telemetry<WindowV2> =
                postcard::from_bytes(bytes).map_err(|e| payload(e.to_string()))?;
            state_from(Telemetry {
                stages: v2.stages,
                flagged: v2.flagged,
                pending_since_ms: v2.pending_since_ms,
                last_published_ms: v2.last_published_ms,
                window: v2.window.into(),
            })
        })
    }
}

/// The state from a snapshot of this version (or one brought to it).
fn state_from(snapshot: Telemetry<WindowV3>) -> Result<TelemetryState, SnapshotError> {
    let count = snapshot.stages.len();
    let stages: Vec<StageStats> = snapshot
        .stages
        .into_iter()
        .map(stage_from)
        .collect::<Result<_, _>>()?;
    let stages: [StageStats; 5] = stages
        .try_into()
        .map_err(|_| payload(format!("{count} stages, not 5")))?;
    let window = snapshot.window;
    if window.window_ms == 0 {
        return Err(payload("the gameId window is 0 ms long"));
    }
    let buckets = (window.buckets.into_iter())
        .map(|(bucket, ids)| (bucket, ids.into_iter().map(IdDigest::from_bytes).collect()))
        .collect();
    let sessions = SessionWindow::from_parts(window.window_ms, window.newest_ms, buckets)
        .map_err(|e| payload(format!("the gameId window: {e}")))?;
    Ok(TelemetryState {
        stats: Stats {
            stages,
            flagged: snapshot.flagged,
        },
        pending_since_ms: snapshot.pending_since_ms,
        last_published_ms: snapshot.last_published_ms,
        sessions,
    })
}

impl TelemetryService {
    /// The service's snapshot codec.
    pub fn codec() -> Codec<TelemetryState> {
        Codec::of::<Self>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::telemetry::SESSION_WINDOW_MS;

    /// A version 2 snapshot (the `gameId`s as text) reads into the state a version 3 one holds:
    /// the same ids remembered under the same buckets.
    #[test]
    fn a_version_2_snapshot_reads_with_its_ids_digested() {
        let mut state = TelemetryState::default();
        let day = 24 * 3_600 * 1_000;
        for (i, at) in [1u64, 2, 3 * day, 3 * day + 5].into_iter().enumerate() {
            state
                .sessions
                .insert(&format!("game-{i}"), 1_800_000_000_000 + at);
        }
        let by_text = |ids: Vec<&str>| ids.into_iter().map(String::from).collect::<Vec<_>>();
        let bucket = |at: u64| (1_800_000_000_000 + at) / (SESSION_WINDOW_MS / 64);
        let v2 = Telemetry {
            stages: (state.stats.stages.iter()).map(stage_v1).collect(),
            flagged: 0,
            pending_since_ms: None,
            last_published_ms: None,
            window: WindowV2 {
                window_ms: SESSION_WINDOW_MS,
                newest_ms: state.sessions.newest_ms(),
                buckets: vec![
                    (bucket(1), by_text(vec!["game-0", "game-1"])),
                    (bucket(3 * day), by_text(vec!["game-2", "game-3"])),
                ],
            },
        };
        let bytes = postcard::to_allocvec(&v2).unwrap();
        let read = TelemetryService::decode_older(2, &bytes).unwrap().unwrap();
        assert_eq!(read, state);
        assert!(read.sessions.contains("game-3") && !read.sessions.contains("game-4"));
        let current = TelemetryService::decode(&TelemetryService::encode(&state)).unwrap();
        assert_eq!(current, state);
        assert!(TelemetryService::decode_older(1, &bytes).is_none());
    }
}
