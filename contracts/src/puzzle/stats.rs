//! The per-stage statistics (`puzzle.stats.updated.v1`) and one partition's mergeable counters
//! (`puzzle.partition.updated.v1`). Each type is listed as a message, with its example, at the
//! end of the file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A range of session durations and how many sessions fell in it.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DurationBucket {
    /// Lowest duration of the range, in milliseconds.
    pub from_ms: u64,
    /// Highest duration of the range, in milliseconds (inclusive).
    pub to_ms: u64,
    /// Sessions whose duration is in the range.
    pub count: u64,
}

/// Session durations of one stage.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DurationStats {
    /// Median duration in ms (nearest rank; within 3.2 % of the exact value, exact below
    /// 16 ms); null without sessions.
    pub p50_ms: Option<u64>,
    /// 90th percentile in ms, same accuracy.
    pub p90_ms: Option<u64>,
    /// 99th percentile in ms, same accuracy.
    pub p99_ms: Option<u64>,
    /// Mean duration in ms (exact, rounded down); null without sessions.
    pub mean_ms: Option<u64>,
    /// Longest session in ms (exact); null without sessions.
    pub max_ms: Option<u64>,
    /// The distribution for charts: quarter-octave ranges with at least one session, in order.
    pub buckets: Vec<DurationBucket>,
}

/// Statistics of one stage, over its recorded (not flagged) sessions.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StageStats {
    /// The stage, 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    pub stage: u8,
    /// The stage's move limit (2 × stage).
    #[schemars(range(min = 2, max = 10))]
    pub move_limit: u8,
    /// Recorded sessions.
    pub sessions: u64,
    /// Sessions won.
    pub won: u64,
    /// Sessions failed (whole budget used).
    pub failed: u64,
    /// Sessions abandoned.
    pub abandoned: u64,
    /// Sessions of this stage flagged as impossible (not counted above).
    pub flagged: u64,
    /// `won / sessions`, from 0 to 1; null without sessions.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub win_rate: Option<f64>,
    /// Sessions by turns played: entry `n` counts the sessions of `n` turns, `0..=moveLimit`.
    pub turns_histogram: Vec<u64>,
    /// Mean turns over all sessions; null without sessions.
    pub mean_turns: Option<f64>,
    /// Mean turns of the won sessions; null without wins.
    pub mean_turns_won: Option<f64>,
    /// Turns played over the move budget available, from 0 to 1 (1: every session used its
    /// whole budget); null without sessions.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub budget_use: Option<f64>,
    /// Sessions that used their whole move budget (won on the last move, or failed).
    pub exhausted_budget: u64,
    /// Session durations.
    pub duration: DurationStats,
    /// Recorded sessions whose moves were replayed and agree (v2). Came with v2.
    #[serde(default)]
    pub verified: u64,
    /// Sessions of this stage received as `game.session.completed.v1`, recorded or flagged.
    /// Came with v2.
    #[serde(default)]
    pub v1_sessions: u64,
    /// Sessions of this stage received as `game.session.completed.v2`, recorded or flagged.
    /// Came with v2.
    #[serde(default)]
    pub v2_sessions: u64,
    /// `v2Sessions / (v1Sessions + v2Sessions)`: how far producers have migrated; null without
    /// sessions. Came with v2.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub v2_share: Option<f64>,
}

/// `puzzle.stats.updated.v1`: the per-stage statistics, published periodically while
/// sessions arrive.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "Per-stage statistics of Strata Relay sessions.")]
pub struct StatsUpdated {
    /// When they were computed, in milliseconds since the Unix epoch.
    pub published_at_ms: u64,
    /// Recorded sessions, all stages.
    pub sessions: u64,
    /// Flagged sessions, all stages (including stages out of range).
    pub flagged: u64,
    /// One entry per stage, stages 1 to 5 in order.
    #[schemars(length(min = 5, max = 5))]
    pub stages: Vec<StageStats>,
}

/// The durations sketch of one stage, as its non-empty buckets: enough to rebuild it exactly
/// and merge it with another partition's (add the counts bucket by bucket).
///
/// The buckets tile all of `u64` milliseconds on a fixed log scale: bucket `b < 16` holds
/// exactly `b` ms; above, each power of two is split in 16 equal buckets, so bucket
/// `b ≥ 16` (with `o = (b − 16) / 16`, `s = (b − 16) mod 16`) holds
/// `[(16 + s) << o, (17 + s) << o)`. There are 976 buckets, `0` to `975`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct DurationCounts {
    /// `[bucketIndex, count]` of every bucket holding at least one session, by increasing
    /// index; the counts add up to `total`.
    pub buckets: Vec<[u64; 2]>,
    /// Sessions counted.
    pub total: u64,
    /// Sum of the durations in ms, as a decimal string: it may exceed what a JSON number
    /// holds exactly (the sketch keeps it as a 128-bit integer).
    #[schemars(regex(pattern = r"^(0|[1-9][0-9]{0,38})$"))]
    pub sum_ms: String,
    /// Shortest duration in ms; null without sessions.
    pub min_ms: Option<u64>,
    /// Longest duration in ms; null without sessions.
    pub max_ms: Option<u64>,
}

/// The raw counters of one stage in one partition: sums of these over partitions are the
/// counters of all of them.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PartitionStage {
    /// The stage, 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    pub stage: u8,
    /// Recorded sessions.
    pub sessions: u64,
    /// Sessions won.
    pub won: u64,
    /// Sessions failed.
    pub failed: u64,
    /// Sessions abandoned.
    pub abandoned: u64,
    /// Sessions of this stage flagged as impossible (not counted above).
    pub flagged: u64,
    /// Sessions by turns played: entry `n` counts the sessions of `n` turns, `0..=10` (the
    /// largest move limit), whatever the stage.
    #[schemars(length(min = 11, max = 11))]
    pub turns_histogram: Vec<u64>,
    /// Sum of the turns of all sessions.
    pub turns_total: u64,
    /// Sum of the turns of the won sessions.
    pub won_turns_total: u64,
    /// Sum of the sessions' move limits.
    pub budget_total: u64,
    /// Sessions that used their whole move budget.
    pub exhausted_budget: u64,
    /// Recorded sessions whose moves were replayed and agree.
    pub verified: u64,
    /// Sessions received as `game.session.completed.v1`, recorded or flagged.
    pub v1_sessions: u64,
    /// Sessions received as `game.session.completed.v2`, recorded or flagged.
    pub v2_sessions: u64,
    /// Session durations.
    pub durations: DurationCounts,
}

/// `puzzle.partition.updated.v1`: one partition's statistics in full, mergeable form,
/// published by a partitioned telemetry instance each time it publishes
/// `puzzle.stats.updated.v1`. The newest one of every partition, merged (counters summed,
/// duration buckets summed bucket by bucket), gives exactly the statistics one instance fed
/// every session would publish (`arcade puzzle stats --partitions N`).
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
#[schemars(
    description = "One partition of the puzzle telemetry's statistics, as raw counters that merge exactly."
)]
pub struct PartitionUpdated {
    /// Which partition, from 0 to `partitions − 1`.
    pub partition: u32,
    /// How many partitions the games are split into.
    #[schemars(range(min = 1))]
    pub partitions: u32,
    /// When they were computed, in milliseconds since the Unix epoch (the same as the
    /// partition's `puzzle.stats.updated.v1` published with it).
    pub published_at_ms: u64,
    /// Flagged sessions, all stages (including stages out of range).
    pub flagged: u64,
    /// One entry per stage, stages 1 to 5 in order.
    #[schemars(length(min = 5, max = 5))]
    pub stages: Vec<PartitionStage>,
}

messages! {
    Event StatsUpdated: "puzzle.stats.updated.v1" => {
        let stage = |n: u8, won: u64, failed: u64, abandoned: u64| {
            let sessions = won + failed + abandoned;
            let limit = 2 * n;
            let mut turns_histogram = vec![0; limit as usize + 1];
            turns_histogram[0] = abandoned;
            turns_histogram[limit as usize] = won + failed;
            StageStats {
                stage: n,
                move_limit: limit,
                sessions,
                won,
                failed,
                abandoned,
                flagged: 0,
                win_rate: Some(won as f64 / sessions as f64),
                turns_histogram,
                mean_turns: Some(f64::from(limit) * (won + failed) as f64 / sessions as f64),
                mean_turns_won: Some(f64::from(limit)),
                budget_use: Some((won + failed) as f64 / sessions as f64),
                exhausted_budget: won + failed,
                duration: DurationStats {
                    p50_ms: Some(12_000 * u64::from(n)),
                    p90_ms: Some(20_000 * u64::from(n)),
                    p99_ms: Some(31_000 * u64::from(n)),
                    mean_ms: Some(13_500 * u64::from(n)),
                    max_ms: Some(33_000 * u64::from(n)),
                    buckets: vec![DurationBucket {
                        from_ms: 8_192 * u64::from(n),
                        to_ms: 40_959 * u64::from(n),
                        count: sessions,
                    }],
                },
                verified: sessions / 2,
                v1_sessions: sessions - sessions / 2,
                v2_sessions: sessions / 2,
                v2_share: Some((sessions / 2) as f64 / sessions as f64),
            }
        };
        StatsUpdated {
            published_at_ms: 1_767_225_605_000,
            sessions: 40,
            flagged: 1,
            stages: vec![
                stage(1, 9, 1, 2),
                stage(2, 7, 2, 1),
                stage(3, 4, 3, 1),
                stage(4, 2, 3, 1),
                stage(5, 1, 2, 1),
            ],
        }
    };
    Event PartitionUpdated: "puzzle.partition.updated.v1" => {
        let stage = |n: u8, won: u64, failed: u64, abandoned: u64| {
            let limit = 2 * u64::from(n);
            let mut turns_histogram = vec![0; 11];
            turns_histogram[0] = abandoned;
            turns_histogram[limit as usize] = won + failed;
            let sessions = won + failed + abandoned;
            // Every session of stage n lasts 12 s × n, so one bucket holds them all (stage
            // 1: bucket 16 + 9 × 16 + 7 = 167, [11 776, 12 288) ms).
            let ms = 12_000 * u64::from(n);
            let bucket = |v: u64| {
                let octave = 63 - v.leading_zeros();
                16 + u64::from(octave - 4) * 16 + ((v >> (octave - 4)) & 15)
            };
            PartitionStage {
                stage: n,
                sessions,
                won,
                failed,
                abandoned,
                flagged: 0,
                turns_histogram,
                turns_total: limit * (won + failed),
                won_turns_total: limit * won,
                budget_total: limit * sessions,
                exhausted_budget: won + failed,
                verified: sessions / 2,
                v1_sessions: sessions - sessions / 2,
                v2_sessions: sessions / 2,
                durations: DurationCounts {
                    buckets: vec![[bucket(ms), sessions]],
                    total: sessions,
                    sum_ms: (ms * sessions).to_string(),
                    min_ms: Some(ms),
                    max_ms: Some(ms),
                },
            }
        };
        PartitionUpdated {
            partition: 1,
            partitions: 2,
            published_at_ms: 1_767_225_605_000,
            flagged: 1,
            stages: vec![
                stage(1, 5, 1, 1),
                stage(2, 4, 1, 0),
                stage(3, 2, 2, 1),
                stage(4, 1, 1, 0),
                stage(5, 0, 1, 1),
            ],
        }
    };
}
