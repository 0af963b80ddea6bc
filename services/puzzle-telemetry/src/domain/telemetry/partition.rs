//! One partition's statistics as a `puzzle.partition.updated.v1` and back.
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

mod decode;

use self::decode::{stage_from_contract, total};
use super::sketch::DurationSketch;
use super::stats::{StageStats, Stats};
use crate::domain::strata::Stage;

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

fn sketch_to_contract(sketch: &DurationSketch) -> DurationCounts {
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

fn stage_to_contract(stage: Stage, s: &StageStats) -> PartitionStage {
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
        durations: sketch_to_contract(&s.durations),
    }
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
                .map(|&stage| stage_to_contract(stage, self.stage(stage)))
                .collect(),
        }
    }

    /// Rebuilds the statistics a `puzzle.partition.updated.v1` carries, and which partition
    /// they are; refuses one whose counters do not hold together, naming the field.
    pub fn from_partition(
        message: &PartitionUpdated,
    ) -> Result<(Partition, Stats), PartitionError> {
        if message.partitions == 0 {
            return Err(invalid("partitions", "0: there is at least one partition"));
        }
        let partition = Partition::new(message.partition, message.partitions).map_err(|_| {
            invalid(
                "partition",
                format!(
                    "{} is not one of the {} partitions (0 to {})",
                    message.partition,
                    message.partitions,
                    message.partitions - 1
                ),
            )
        })?;
        if message.stages.len() != Stage::ALL.len() {
            return Err(invalid(
                "stages",
                format!("{} entries, not {}", message.stages.len(), Stage::ALL.len()),
            ));
        }
        let mut stats = Stats::default();
        for (i, (&stage, entry)) in Stage::ALL.iter().zip(&message.stages).enumerate() {
            stats.stages[stage.index()] =
                stage_from_contract(stage, entry, &format!("stages[{i}]"))?;
        }
        let by_stage = total(stats.stages.iter().map(|s| &s.flagged), "flagged")?;
        if message.flagged < by_stage {
            return Err(invalid(
                "flagged",
                format!(
                    "{} is below the stages' flagged sessions ({by_stage})",
                    message.flagged
                ),
            ));
        }
        stats.flagged = message.flagged;
        Ok((partition, stats))
    }
}
