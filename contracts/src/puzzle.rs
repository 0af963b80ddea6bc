//! `puzzle.*`: the puzzle telemetry service's facts — each `game.session.completed.v1` it
//! consumes becomes either `puzzle.session.recorded.v1` (counted in the statistics) or
//! `puzzle.session.flagged.v1` (impossible under Strata Relay's rules, kept out), and the
//! per-stage statistics are published periodically as `puzzle.stats.updated.v1`. A partitioned
//! instance (one of N, each counting a share of the games) also publishes its raw, mergeable
//! counters as `puzzle.partition.updated.v1`, from which the statistics of all partitions are
//! rebuilt exactly.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::game::{Outcome, Pulse};

/// `puzzle.session.recorded.v1`: a session passed validation and is counted in the statistics.
/// Carries every field the statistics need, so they rebuild from the log alone.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A puzzle session passed validation and is counted in the statistics.")]
pub struct SessionRecorded {
    /// Identifier of the session, as its producer gave it.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// Seed of the puzzle's generator.
    pub seed: i64,
    /// Difficulty stage, 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    pub stage: u8,
    /// How the session ended.
    pub outcome: Outcome,
    /// Pulses played.
    pub turns: u32,
    /// The move limit the generator gives for this seed and stage (2 × stage).
    #[schemars(range(min = 2, max = 10))]
    pub move_limit: u8,
    /// Wall-clock length of the session in milliseconds.
    pub duration_ms: u64,
    /// When the telemetry service recorded it, in milliseconds since the Unix epoch.
    pub recorded_at_ms: u64,
    /// Whether its moves were replayed through the puzzle and give its outcome (sessions that
    /// list their moves, `game.session.completed.v2`). Came with v2; absent means false.
    #[serde(default)]
    pub verified: bool,
    /// The version of `game.session.completed` the session arrived in. Came with v2; absent
    /// means 1.
    #[serde(default = "version_one")]
    #[schemars(range(min = 1))]
    pub source_version: u8,
}

fn version_one() -> u8 {
    1
}

/// Why a session cannot have happened under Strata Relay's rules.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "camelCase")]
pub enum FlagReason {
    /// The stage is not 1 to 5.
    StageOutOfRange,
    /// The generator builds no puzzle for this seed and stage.
    UnplayableSeed,
    /// More turns than the move limit of the puzzle.
    TurnsAboveLimit,
    /// `failed` before the whole move budget was used: a game fails only when no move is left.
    FailedBeforeBudget,
    /// `won` without a single pulse: every generated puzzle starts unsolved.
    WonWithoutTurn,
    /// `won` in fewer turns than any solution of this puzzle (checked exactly up to 2 turns).
    WonFasterThanPossible,
    /// `abandoned` with the whole budget used: the game had already ended as won or failed.
    AbandonedAfterBudget,
    /// The session lists another number of moves than its `turns` (v2).
    MovesNotTurns,
    /// A listed move pulses stone or an anchor, which the puzzle refuses (v2).
    MoveOnImmutable,
    /// A listed move comes after the game had ended, won or with its budget spent (v2).
    MoveAfterEnd,
    /// The listed moves replay to another outcome than the one claimed (v2).
    MovesDisagree,
}

/// `puzzle.session.flagged.v1`: a session is impossible under the puzzle's rules; it is kept
/// out of the statistics. Carries the offending session's fields as received.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schemars(
    description = "A puzzle session is impossible under Strata Relay's rules and was kept out of the statistics."
)]
pub struct SessionFlagged {
    /// Identifier of the session, as its producer gave it.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// Which rule the session breaks.
    pub reason: FlagReason,
    /// The reason in words, with the numbers involved.
    pub detail: String,
    /// Seed of the puzzle's generator, as received.
    pub seed: i64,
    /// Stage, as received (possibly out of range: that may be the reason).
    pub stage: u8,
    /// Outcome, as received.
    pub outcome: Outcome,
    /// Turns, as received.
    pub turns: u32,
    /// Duration in milliseconds, as received.
    pub duration_ms: u64,
    /// The move limit the generator gives for this seed and stage; absent when there is no
    /// such puzzle (stage out of range, unplayable seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2, max = 10))]
    pub move_limit: Option<u8>,
    /// When the telemetry service flagged it, in milliseconds since the Unix epoch.
    pub flagged_at_ms: u64,
    /// The first listed move that disagrees, from 1, when replaying the moves found the flaw
    /// (v2 sessions). Came with v2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub move_index: Option<u8>,
    /// The cell of that move. Came with v2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_cell: Option<Pulse>,
    /// The version of `game.session.completed` the session arrived in. Came with v2; absent
    /// means 1.
    #[serde(default = "version_one")]
    #[schemars(range(min = 1))]
    pub source_version: u8,
}

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

mod messages;

pub use messages::types;
