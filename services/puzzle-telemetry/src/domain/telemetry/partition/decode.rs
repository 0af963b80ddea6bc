//! Reading one partition's statistics back from `puzzle.partition.updated.v1`: every counter
//! is checked to hold together with the others, and a field that does not is named.

use arcade_contracts::puzzle::{DurationCounts, PartitionStage};

use super::{PartitionError, invalid};
use crate::domain::strata::{MAX_WITNESS, Stage};
use crate::domain::telemetry::sketch::{BUCKETS, DurationSketch, bucket_of};
use crate::domain::telemetry::stats::StageStats;

/// `a + b + …`, or an error on `field` when it overflows `u64`.
pub(super) fn total<'a>(
    values: impl IntoIterator<Item = &'a u64>,
    field: &str,
) -> Result<u64, PartitionError> {
    values.into_iter().try_fold(0u64, |sum, v| {
        sum.checked_add(*v)
            .ok_or_else(|| invalid(field, "the counts overflow a 64-bit integer"))
    })
}

fn sketch_from_contract(
    durations: &DurationCounts,
    at: &str,
) -> Result<DurationSketch, PartitionError> {
    let field = |name: &str| format!("{at}.{name}");
    let sum: u128 = durations
        .sum_ms
        .parse()
        .ok()
        .filter(|_| durations.sum_ms.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| {
            invalid(
                field("sumMs"),
                format!("{:?} is not a decimal integer", durations.sum_ms),
            )
        })?;
    if durations.total == 0 {
        if !durations.buckets.is_empty() {
            return Err(invalid(field("buckets"), "buckets without any session"));
        }
        if durations.min_ms.is_some() || durations.max_ms.is_some() {
            return Err(invalid(
                field(if durations.min_ms.is_some() {
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
    let min = durations
        .min_ms
        .ok_or_else(|| invalid(field("minMs"), "null with sessions counted"))?;
    let max = durations
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
    for (i, &[bucket, count]) in durations.buckets.iter().enumerate() {
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
    if counted != durations.total {
        return Err(invalid(
            field("buckets"),
            format!(
                "the counts add up to {counted}, not total {}",
                durations.total
            ),
        ));
    }
    // The exact extremes lie in the first and the last non-empty bucket.
    let first = durations.buckets.first().map_or(0, |b| b[0]) as usize;
    let last = durations.buckets.last().map_or(0, |b| b[0]) as usize;
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
    let n = u128::from(durations.total);
    if sum < u128::from(min) * n || sum > u128::from(max) * n {
        return Err(invalid(
            field("sumMs"),
            format!(
                "{sum} is outside {} sessions of {min} to {max} ms",
                durations.total
            ),
        ));
    }
    Ok(DurationSketch {
        counts,
        total: durations.total,
        sum,
        max,
        min,
    })
}

pub(super) fn stage_from_contract(
    stage: Stage,
    entry: &PartitionStage,
    at: &str,
) -> Result<StageStats, PartitionError> {
    let field = |name: &str| format!("{at}.{name}");
    if entry.stage != stage.number() {
        return Err(invalid(
            field("stage"),
            format!(
                "{} where stage {} belongs (stages 1 to 5 in order)",
                entry.stage,
                stage.number()
            ),
        ));
    }
    let outcomes = total(
        [&entry.won, &entry.failed, &entry.abandoned],
        &field("sessions"),
    )?;
    if outcomes != entry.sessions {
        return Err(invalid(
            field("sessions"),
            format!(
                "{} sessions but won + failed + abandoned = {outcomes}",
                entry.sessions
            ),
        ));
    }
    let turns: [u64; MAX_WITNESS + 1] =
        entry
            .turns_histogram
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
    if in_histogram != entry.sessions {
        return Err(invalid(
            field("turnsHistogram"),
            format!("counts {in_histogram} sessions, not {}", entry.sessions),
        ));
    }
    let turns_played: u128 = turns
        .iter()
        .enumerate()
        .map(|(n, count)| n as u128 * u128::from(*count))
        .sum();
    if turns_played != u128::from(entry.turns_total) {
        return Err(invalid(
            field("turnsTotal"),
            format!(
                "{} but the histogram holds {turns_played} turns",
                entry.turns_total
            ),
        ));
    }
    if entry.won_turns_total > entry.turns_total {
        return Err(invalid(
            field("wonTurnsTotal"),
            format!(
                "{} is above turnsTotal {}",
                entry.won_turns_total, entry.turns_total
            ),
        ));
    }
    for (name, value) in [
        ("exhaustedBudget", entry.exhausted_budget),
        ("verified", entry.verified),
    ] {
        if value > entry.sessions {
            return Err(invalid(
                field(name),
                format!("{value} is above sessions {}", entry.sessions),
            ));
        }
    }
    let arrived = total(
        [&entry.v1_sessions, &entry.v2_sessions],
        &field("v2Sessions"),
    )?;
    let counted = total([&entry.sessions, &entry.flagged], &field("flagged"))?;
    if arrived != counted {
        return Err(invalid(
            field("v2Sessions"),
            format!(
                "v1Sessions + v2Sessions = {arrived}, but {counted} sessions were recorded or flagged"
            ),
        ));
    }
    let durations = sketch_from_contract(&entry.durations, &field("durations"))?;
    if durations.count() != entry.sessions {
        return Err(invalid(
            field("durations.total"),
            format!(
                "{} durations for {} sessions",
                durations.count(),
                entry.sessions
            ),
        ));
    }
    Ok(StageStats {
        sessions: entry.sessions,
        won: entry.won,
        failed: entry.failed,
        abandoned: entry.abandoned,
        flagged: entry.flagged,
        turns,
        turns_total: entry.turns_total,
        won_turns_total: entry.won_turns_total,
        budget_total: entry.budget_total,
        exhausted_budget: entry.exhausted_budget,
        durations,
        verified: entry.verified,
        v1: entry.v1_sessions,
        v2: entry.v2_sessions,
    })
}
