//! One partition's statistics on the wire (`puzzle.partition.updated.v1`) and back.
//!
//! A partitioned telemetry instance counts a share of the games. What it publishes for the
//! others to merge is its raw [`Stats`]: every counter of every stage and the duration sketch
//! as its non-empty buckets, so that [`Stats::from_partition`] rebuilds exactly the `Stats`
//! that [`Stats::to_partition`] wrote, and [`Stats::merge`] of all partitions gives exactly the
//! statistics of one instance fed every session. Decoding checks that the counters hold
//! together (a message that does not is refused, naming the field) so a merged view is never
//! built from a damaged one.

use arcade_contracts::Message;
use arcade_contracts::puzzle::{DurationCounts, PartitionStage, PartitionUpdated};

use super::sketch::{BUCKETS, DurationSketch, bucket_of};
use super::stats::{StageStats, Stats};
use crate::domain::strata::{MAX_WITNESS, Stage};

/// Which share of the games an instance counts: partition `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Partition {
    index: u32,
    count: u32,
}

/// A partition that does not exist (`index ≥ count`, or no partitions at all).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("partition {index} of {count} does not exist: partitions are 0 to N − 1 of N ≥ 1")]
pub struct NoSuchPartition {
    /// The index given.
    pub index: u32,
    /// The count given.
    pub count: u32,
}

impl Partition {
    /// Partition `index` (from 0) of `count`.
    pub fn new(index: u32, count: u32) -> Result<Self, NoSuchPartition> {
        if count == 0 || index >= count {
            return Err(NoSuchPartition { index, count });
        }
        Ok(Partition { index, count })
    }

    /// Partition `index` of `count` as given, unchecked: for a caller that has checked them
    /// (or wants them published as they are: a reader of `puzzle.partition.updated.v1` refuses
    /// an impossible one, naming the field).
    pub(crate) fn unchecked(index: u32, count: u32) -> Self {
        Partition { index, count }
    }

    /// Its index, from 0.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many partitions there are.
    pub fn count(self) -> u32 {
        self.count
    }
}

impl std::fmt::Display for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A `puzzle.partition.updated.v1` whose counters do not hold together: the field (a JSON
/// path in the payload, e.g. `stages[2].durations.buckets[4]`) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message_type} {field}: {problem}", message_type = PartitionUpdated::TYPE)]
pub struct PartitionError {
    /// Where in the payload.
    pub field: String,
    /// What is wrong there.
    pub problem: String,
}

fn invalid(field: impl Into<String>, problem: impl Into<String>) -> PartitionError {
    PartitionError {
        field: field.into(),
        problem: problem.into(),
    }
}

/// `a + b + …`, or an error on `field` when it overflows `u64`.
fn total<'a>(
    values: impl IntoIterator<Item = &'a u64>,
    field: &str,
) -> Result<u64, PartitionError> {
    values.into_iter().try_fold(0u64, |sum, v| {
        sum.checked_add(*v)
            .ok_or_else(|| invalid(field, "the counts overflow a 64-bit integer"))
    })
}

fn sketch_to_wire(sketch: &DurationSketch) -> DurationCounts {
    DurationCounts {
        buckets: sketch
            .buckets()
            .map(|(bucket, count)| [bucket as u64, count])
            .collect(),
        total: sketch.count(),
        sum_ms: sketch.sum().to_string(),
        min_ms: sketch.min(),
        max_ms: sketch.max(),
    }
}

fn sketch_from_wire(wire: &DurationCounts, at: &str) -> Result<DurationSketch, PartitionError> {
    let field = |name: &str| format!("{at}.{name}");
    let sum: u128 = wire
        .sum_ms
        .parse()
        .ok()
        .filter(|_| wire.sum_ms.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| {
            invalid(
                field("sumMs"),
                format!("{:?} is not a decimal integer", wire.sum_ms),
            )
        })?;
    if wire.total == 0 {
        if !wire.buckets.is_empty() {
            return Err(invalid(field("buckets"), "buckets without any session"));
        }
        if wire.min_ms.is_some() || wire.max_ms.is_some() {
            return Err(invalid(
                field(if wire.min_ms.is_some() {
                    "minMs"
                } else {
                    "maxMs"
                }),
                "present without any session",
            ));
        }
        if sum != 0 {
            return Err(invalid(field("sumMs"), "not 0 without any session"));
        }
        return Ok(DurationSketch::default());
    }
    let min = wire
        .min_ms
        .ok_or_else(|| invalid(field("minMs"), "null with sessions counted"))?;
    let max = wire
        .max_ms
        .ok_or_else(|| invalid(field("maxMs"), "null with sessions counted"))?;
    if min > max {
        return Err(invalid(
            field("minMs"),
            format!("{min} is above maxMs {max}"),
        ));
    }
    let mut counts = vec![0u64; BUCKETS];
    let mut previous: Option<u64> = None;
    for (i, &[bucket, count]) in wire.buckets.iter().enumerate() {
        let here = format!("{at}.buckets[{i}]");
        if bucket >= BUCKETS as u64 {
            return Err(invalid(
                here,
                format!("bucket {bucket} does not exist (0 to {})", BUCKETS - 1),
            ));
        }
        if previous.is_some_and(|p| p >= bucket) {
            return Err(invalid(
                here,
                format!(
                    "bucket {bucket} is not after the previous one: buckets go by increasing index, once each"
                ),
            ));
        }
        if count == 0 {
            return Err(invalid(
                here,
                format!("bucket {bucket} is listed with no session"),
            ));
        }
        counts[bucket as usize] = count;
        previous = Some(bucket);
    }
    let counted = total(counts.iter(), &field("buckets"))?;
    if counted != wire.total {
        return Err(invalid(
            field("buckets"),
            format!("the counts add up to {counted}, not total {}", wire.total),
        ));
    }
    // The exact extremes lie in the first and the last non-empty bucket.
    let first = wire.buckets.first().map_or(0, |b| b[0]) as usize;
    let last = wire.buckets.last().map_or(0, |b| b[0]) as usize;
    if bucket_of(min) != first {
        return Err(invalid(
            field("minMs"),
            format!("{min} ms is not in the first non-empty bucket ({first})"),
        ));
    }
    if bucket_of(max) != last {
        return Err(invalid(
            field("maxMs"),
            format!("{max} ms is not in the last non-empty bucket ({last})"),
        ));
    }
    let n = u128::from(wire.total);
    if sum < u128::from(min) * n || sum > u128::from(max) * n {
        return Err(invalid(
            field("sumMs"),
            format!(
                "{sum} is outside {} sessions of {min} to {max} ms",
                wire.total
            ),
        ));
    }
    Ok(DurationSketch {
        counts,
        total: wire.total,
        sum,
        max,
        min,
    })
}

fn stage_to_wire(stage: Stage, s: &StageStats) -> PartitionStage {
    PartitionStage {
        stage: stage.number(),
        sessions: s.sessions,
        won: s.won,
        failed: s.failed,
        abandoned: s.abandoned,
        flagged: s.flagged,
        turns_histogram: s.turns.to_vec(),
        turns_total: s.turns_total,
        won_turns_total: s.won_turns_total,
        budget_total: s.budget_total,
        exhausted_budget: s.exhausted_budget,
        verified: s.verified,
        v1_sessions: s.v1,
        v2_sessions: s.v2,
        durations: sketch_to_wire(&s.durations),
    }
}

fn stage_from_wire(
    stage: Stage,
    wire: &PartitionStage,
    at: &str,
) -> Result<StageStats, PartitionError> {
    let field = |name: &str| format!("{at}.{name}");
    if wire.stage != stage.number() {
        return Err(invalid(
            field("stage"),
            format!(
                "{} where stage {} belongs (stages 1 to 5 in order)",
                wire.stage,
                stage.number()
            ),
        ));
    }
    let outcomes = total(
        [&wire.won, &wire.failed, &wire.abandoned],
        &field("sessions"),
    )?;
    if outcomes != wire.sessions {
        return Err(invalid(
            field("sessions"),
            format!(
                "{} sessions but won + failed + abandoned = {outcomes}",
                wire.sessions
            ),
        ));
    }
    let turns: [u64; MAX_WITNESS + 1] =
        wire.turns_histogram
            .clone()
            .try_into()
            .map_err(|t: Vec<u64>| {
                invalid(
                    field("turnsHistogram"),
                    format!(
                        "{} entries, not {} (0 to {MAX_WITNESS} turns)",
                        t.len(),
                        MAX_WITNESS + 1
                    ),
                )
            })?;
    let in_histogram = total(turns.iter(), &field("turnsHistogram"))?;
    if in_histogram != wire.sessions {
        return Err(invalid(
            field("turnsHistogram"),
            format!("counts {in_histogram} sessions, not {}", wire.sessions),
        ));
    }
    let turns_played: u128 = turns
        .iter()
        .enumerate()
        .map(|(n, count)| n as u128 * u128::from(*count))
        .sum();
    if turns_played != u128::from(wire.turns_total) {
        return Err(invalid(
            field("turnsTotal"),
            format!(
                "{} but the histogram holds {turns_played} turns",
                wire.turns_total
            ),
        ));
    }
    if wire.won_turns_total > wire.turns_total {
        return Err(invalid(
            field("wonTurnsTotal"),
            format!(
                "{} is above turnsTotal {}",
                wire.won_turns_total, wire.turns_total
            ),
        ));
    }
    for (name, value) in [
        ("exhaustedBudget", wire.exhausted_budget),
        ("verified", wire.verified),
    ] {
        if value > wire.sessions {
            return Err(invalid(
                field(name),
                format!("{value} is above sessions {}", wire.sessions),
            ));
        }
    }
    let arrived = total([&wire.v1_sessions, &wire.v2_sessions], &field("v2Sessions"))?;
    let counted = total([&wire.sessions, &wire.flagged], &field("flagged"))?;
    if arrived != counted {
        return Err(invalid(
            field("v2Sessions"),
            format!(
                "v1Sessions + v2Sessions = {arrived}, but {counted} sessions were recorded or flagged"
            ),
        ));
    }
    let durations = sketch_from_wire(&wire.durations, &field("durations"))?;
    if durations.count() != wire.sessions {
        return Err(invalid(
            field("durations.total"),
            format!(
                "{} durations for {} sessions",
                durations.count(),
                wire.sessions
            ),
        ));
    }
    Ok(StageStats {
        sessions: wire.sessions,
        won: wire.won,
        failed: wire.failed,
        abandoned: wire.abandoned,
        flagged: wire.flagged,
        turns,
        turns_total: wire.turns_total,
        won_turns_total: wire.won_turns_total,
        budget_total: wire.budget_total,
        exhausted_budget: wire.exhausted_budget,
        durations,
        verified: wire.verified,
        v1: wire.v1_sessions,
        v2: wire.v2_sessions,
    })
}

impl Stats {
    /// The published form of these statistics as partition `partition`'s, as of `at_ms`.
    pub fn to_partition(&self, partition: Partition, at_ms: u64) -> PartitionUpdated {
        PartitionUpdated {
            partition: partition.index(),
            partitions: partition.count(),
            published_at_ms: at_ms,
            flagged: self.flagged,
            stages: Stage::ALL
                .iter()
                .map(|&stage| stage_to_wire(stage, self.stage(stage)))
                .collect(),
        }
    }

    /// Rebuilds the statistics a `puzzle.partition.updated.v1` carries, and which partition
    /// they are; refuses one whose counters do not hold together, naming the field.
    pub fn from_partition(wire: &PartitionUpdated) -> Result<(Partition, Stats), PartitionError> {
        if wire.partitions == 0 {
            return Err(invalid("partitions", "0: there is at least one partition"));
        }
        let partition = Partition::new(wire.partition, wire.partitions).map_err(|_| {
            invalid(
                "partition",
                format!(
                    "{} is not one of the {} partitions (0 to {})",
                    wire.partition,
                    wire.partitions,
                    wire.partitions - 1
                ),
            )
        })?;
        if wire.stages.len() != Stage::ALL.len() {
            return Err(invalid(
                "stages",
                format!("{} entries, not {}", wire.stages.len(), Stage::ALL.len()),
            ));
        }
        let mut stats = Stats::default();
        for (i, (&stage, stage_wire)) in Stage::ALL.iter().zip(&wire.stages).enumerate() {
            stats.stages[stage.index()] =
                stage_from_wire(stage, stage_wire, &format!("stages[{i}]"))?;
        }
        let by_stage = total(stats.stages.iter().map(|s| &s.flagged), "flagged")?;
        if wire.flagged < by_stage {
            return Err(invalid(
                "flagged",
                format!(
                    "{} is below the stages' flagged sessions ({by_stage})",
                    wire.flagged
                ),
            ));
        }
        stats.flagged = wire.flagged;
        Ok((partition, stats))
    }
}
