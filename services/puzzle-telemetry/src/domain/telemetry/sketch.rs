//! A fixed log-scale histogram of durations: small, mergeable, rebuilt exactly from the same
//! values in any order, and accurate to 3.2 % on every percentile.
//!
//! Values below 16 ms have one bucket each. Above, every power of two is split in 16 equal
//! buckets (the 4 bits after the leading one), so a bucket `[lo, lo + w)` has `w ≤ lo / 16`;
//! reporting its midpoint errs by at most `w / 2 ≤ lo / 32`, i.e. 3.125 % of the true value.
//! 976 buckets cover all of `u64`; they are allocated on the first value.

const EXACT: usize = 16;
const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
pub(crate) const BUCKETS: usize = EXACT + (64 - SUB_BITS as usize) * SUB;

/// Durations of one stage's sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DurationSketch {
    pub(crate) counts: Vec<u64>,
    pub(crate) total: u64,
    pub(crate) sum: u128,
    pub(crate) max: u64,
    pub(crate) min: u64,
}

/// The bucket holding `value`.
pub(crate) fn bucket_of(value: u64) -> usize {
    if value < EXACT as u64 {
        return value as usize;
    }
    let octave = 63 - value.leading_zeros();
    let sub = (value >> (octave - SUB_BITS)) as usize & (SUB - 1);
    EXACT + (octave - SUB_BITS) as usize * SUB + sub
}

/// The lowest value of a bucket and its width.
fn bounds_of(bucket: usize) -> (u64, u64) {
    if bucket < EXACT {
        return (bucket as u64, 1);
    }
    let shift = ((bucket - EXACT) / SUB) as u32;
    let sub = ((bucket - EXACT) % SUB) as u64;
    ((SUB as u64 + sub) << shift, 1 << shift)
}

impl DurationSketch {
    /// Counts one duration.
    pub fn record(&mut self, value: u64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS];
            self.min = value;
        }
        self.counts[bucket_of(value)] += 1;
        self.total += 1;
        self.sum += u128::from(value);
        self.max = self.max.max(value);
        self.min = self.min.min(value);
    }

    /// Adds another sketch's durations to this one, bucket by bucket: the result is exactly
    /// the sketch of both sets of durations recorded into one (in any order), so its
    /// percentiles are those one sketch fed everything gives.
    pub fn merge(&mut self, other: &DurationSketch) {
        if other.total == 0 {
            return;
        }
        if self.total == 0 {
            *self = other.clone();
            return;
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self.total += other.total;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
        self.min = self.min.min(other.min);
    }

    /// The non-empty buckets as `(index, count)`, by increasing index.
    pub fn buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, count)| **count > 0)
            .map(|(bucket, count)| (bucket, *count))
    }

    /// Sum of the durations.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Number of durations counted.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The nearest-rank percentile (`permille` 1–1000, e.g. 990 for p99): the midpoint of the
    /// bucket holding the value of rank `⌈n · permille / 1000⌉`, clamped to the exact min/max.
    pub fn percentile(&self, permille: u32) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let permille = u64::from(permille.clamp(1, 1000));
        let rank = (self.total * permille).div_ceil(1000).max(1);
        let mut seen = 0;
        for (bucket, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let (lo, width) = bounds_of(bucket);
                return Some((lo + width / 2).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    /// Mean duration, rounded down (exact).
    pub fn mean(&self) -> Option<u64> {
        (self.total > 0).then(|| (self.sum / u128::from(self.total)) as u64)
    }

    /// Longest duration (exact).
    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }

    /// Shortest duration (exact).
    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }

    /// The distribution in quarter-octave ranges `(from, to inclusive, count)`, non-empty only.
    pub fn coarse_buckets(&self) -> Vec<(u64, u64, u64)> {
        let mut out: Vec<(u64, u64, u64)> = Vec::new();
        for (bucket, &count) in self.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            let group = if bucket < EXACT {
                bucket
            } else {
                EXACT + (bucket - EXACT) / 4
            };
            let first = if bucket < EXACT {
                bucket
            } else {
                EXACT + (group - EXACT) * 4
            };
            let last = if bucket < EXACT { bucket } else { first + 3 };
            let (from, _) = bounds_of(first);
            let (last_lo, last_width) = bounds_of(last);
            let to = last_lo + (last_width - 1);
            match out.last_mut() {
                Some(range) if range.0 == from => range.2 += count,
                _ => out.push((from, to, count)),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_whole_range_without_gaps() {
        let mut next = 0u64;
        for bucket in 0..BUCKETS {
            let (lo, width) = bounds_of(bucket);
            assert_eq!(lo, next, "bucket {bucket}");
            assert_eq!(bucket_of(lo), bucket);
            assert_eq!(bucket_of(lo + (width - 1)), bucket);
            next = lo.wrapping_add(width);
        }
        assert_eq!(next, 0, "the last bucket ends at u64::MAX");
    }

    #[test]
    fn percentiles_are_within_the_stated_accuracy() {
        let mut sketch = DurationSketch::default();
        let mut values: Vec<u64> = (0..10_000u64)
            .map(|i| 500 + (i * i * 7919) % 400_000)
            .collect();
        for &v in &values {
            sketch.record(v);
        }
        values.sort_unstable();
        for permille in [500u32, 900, 990, 1000] {
            let rank = (values.len() as u64 * u64::from(permille)).div_ceil(1000) as usize;
            let exact = values[rank - 1] as f64;
            let got = sketch.percentile(permille).unwrap() as f64;
            assert!(
                (got - exact).abs() <= exact / 32.0,
                "p{permille}: {got} vs {exact}"
            );
        }
    }

    #[test]
    fn small_values_are_exact_and_an_empty_sketch_has_no_percentile() {
        let mut sketch = DurationSketch::default();
        assert_eq!(sketch.percentile(500), None);
        for v in [3, 3, 7, 9, 15] {
            sketch.record(v);
        }
        assert_eq!(sketch.percentile(500), Some(7));
        assert_eq!(sketch.percentile(1000), Some(15));
        assert_eq!(sketch.mean(), Some(7));
    }
}
