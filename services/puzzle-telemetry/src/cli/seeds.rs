//! The `--seeds` argument: `A..B` (end excluded), `A..=B` (end included) or a single seed.

use std::fmt;
use std::str::FromStr;

/// A non-empty range of seeds, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedRange {
    first: i64,
    last: i64,
}

/// Why a `--seeds` value is not a range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeedRangeError {
    /// An end is not an integer.
    #[error("\"{0}\" is not a seed (an integer); write A..B, A..=B or A")]
    NotASeed(String),
    /// The range has no seed.
    #[error("the seed range {0} is empty; write A..B with A < B (or A..=B with A ≤ B)")]
    Empty(String),
}

impl SeedRange {
    /// The seeds `first..=last`; `None` if `last < first`.
    pub fn inclusive(first: i64, last: i64) -> Option<Self> {
        (first <= last).then_some(SeedRange { first, last })
    }

    /// The seeds, in increasing order.
    pub fn iter(self) -> impl Iterator<Item = i64> {
        self.first..=self.last
    }
}

impl fmt::Display for SeedRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={}", self.first, self.last)
    }
}

fn seed(text: &str) -> Result<i64, SeedRangeError> {
    text.trim()
        .parse()
        .map_err(|_| SeedRangeError::NotASeed(text.to_string()))
}

impl FromStr for SeedRange {
    type Err = SeedRangeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let empty = || SeedRangeError::Empty(text.to_string());
        if let Some((a, b)) = text.split_once("..=") {
            SeedRange::inclusive(seed(a)?, seed(b)?).ok_or_else(empty)
        } else if let Some((a, b)) = text.split_once("..") {
            let (first, end) = (seed(a)?, seed(b)?);
            let last = end.checked_sub(1).ok_or_else(empty)?;
            SeedRange::inclusive(first, last).ok_or_else(empty)
        } else {
            let one = seed(text)?;
            Ok(SeedRange {
                first: one,
                last: one,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seeds of the range `text` gives.
    fn seeds(text: &str) -> Vec<i64> {
        text.parse::<SeedRange>().unwrap().iter().collect()
    }

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(seeds("3..6"), [3, 4, 5]);
        assert_eq!(seeds("3..=6").len(), 4);
        assert_eq!(seeds("-2..1"), [-2, -1, 0]);
        assert_eq!(seeds("42"), [42]);
    }

    #[test]
    fn refuses_empty_ranges_and_non_integers() {
        assert_eq!(
            "5..5".parse::<SeedRange>(),
            Err(SeedRangeError::Empty("5..5".into()))
        );
        assert_eq!(
            "9..=1".parse::<SeedRange>(),
            Err(SeedRangeError::Empty("9..=1".into()))
        );
        assert_eq!(
            "a..3".parse::<SeedRange>(),
            Err(SeedRangeError::NotASeed("a".into()))
        );
        assert!("1..".parse::<SeedRange>().is_err());
    }
}
