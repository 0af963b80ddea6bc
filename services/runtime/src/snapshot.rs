//! Snapshots of a service's state: the codec each service owns ([`Snapshot`]), the runtime's
//! frame around it, and when the host takes one ([`SnapshotPolicy`]).
//!
//! A snapshot is the state after the log entry `seq` (a fold of entries `1..=seq`), encoded by
//! the service in an on-disk format of its own (a dedicated struct in the service crate, or its
//! state's serde form as the referee's), tagged with that format's version. The runtime wraps it in a frame
//! (`store::snapshot`): a magic, the frame and codec versions, the covered `seq`, when it was
//! taken, the host's flows, and a CRC-32 of all of it. A restart loads the newest snapshot it
//! can read and replays only the entries after it; a damaged one, or one of a version this
//! build does not read, is skipped with a warning, and the previous one (two are kept) or the
//! whole log is used instead.

pub(crate) mod codec;

use std::time::Duration;

pub use self::codec::{Codec, SnapshotError};
use crate::decider::Decider;
use crate::duration::{DurationSyntax, UP_TO_DAYS};

/// A service's own on-disk format for its state.
///
/// `decode(encode(s))` must equal `s` in everything `decide` and `evolve` read; each service
/// checks it with a property test (restored + tail == the full replay). Changing the format
/// means a new `VERSION`: snapshots of the old one are then skipped and the log replayed,
/// unless [`Snapshot::decode_older`] still reads them.
pub trait Snapshot: Decider {
    /// The format version written by [`Snapshot::encode`], read by [`Snapshot::decode`].
    const VERSION: u32;

    /// The state as bytes.
    fn encode(state: &Self::State) -> Vec<u8>;

    /// The state back from bytes of this format version.
    fn decode(bytes: &[u8]) -> Result<Self::State, SnapshotError>;

    /// The state back from bytes of an older format `version` that this build still reads;
    /// `None` for a version it does not read (the host skips the snapshot). None by default.
    fn decode_older(version: u32, bytes: &[u8]) -> Option<Result<Self::State, SnapshotError>> {
        let _ = (version, bytes);
        None
    }
}

impl<St> Codec<St> {
    /// The codec of a service that implements [`Snapshot`].
    pub fn of<S: Snapshot<State = St>>() -> Self {
        Codec {
            version: S::VERSION,
            encode: S::encode,
            decode: S::decode,
            decode_older: S::decode_older,
            fits: None,
        }
    }

    /// The same codec, for a service whose restored state must fit its settings: `fits`
    /// answers `Err(why)` for a state folded under others (a service started with another
    /// window), and the host skips that snapshot as it skips a damaged one, folding the log
    /// from an older one or from [`crate::Decider::initial_state`].
    pub fn fitting(
        mut self,
        fits: impl Fn(&St) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.fits = Some(std::sync::Arc::new(fits));
        self
    }
}

/// When the host takes a snapshot: after `every` new log entries, or after `interval` when at
/// least one entry came since the last one; both off (`every == 0`, `interval == None`) turns
/// snapshots off (none written, none read: a restart replays the whole log). Whatever the
/// setting, a snapshot is not taken while the previous one is being written, nor sooner than
/// 20 times its encoding took, so that snapshots cost the consuming loop at most about 5 %.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotPolicy {
    /// New log entries between two snapshots (0: not by count).
    pub every: u64,
    /// Longest time between two snapshots while entries come (`None`: not by time).
    pub interval: Option<Duration>,
}

impl SnapshotPolicy {
    /// 10,000 entries or 60 s.
    pub const DEFAULT: SnapshotPolicy = SnapshotPolicy {
        every: 10_000,
        interval: Some(Duration::from_secs(60)),
    };

    /// No snapshots: every restart replays the whole log.
    pub const OFF: SnapshotPolicy = SnapshotPolicy {
        every: 0,
        interval: None,
    };

    /// Whether snapshots are taken and read.
    pub fn enabled(&self) -> bool {
        self.every > 0 || self.interval.is_some()
    }

    /// Whether a snapshot is due, `entries` log entries and `elapsed` after the last one.
    pub fn due(&self, entries: u64, elapsed: Duration) -> bool {
        entries > 0
            && ((self.every > 0 && entries >= self.every)
                || self.interval.is_some_and(|interval| elapsed >= interval))
    }
}

impl SnapshotPolicy {
    /// The policy of the settings `--snapshot-every N` and `--snapshot-interval D` (a zero
    /// interval: not by time).
    pub fn from_settings(every: u64, interval: Duration) -> Self {
        SnapshotPolicy {
            every,
            interval: (!interval.is_zero()).then_some(interval),
        }
    }
}

impl Default for SnapshotPolicy {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How `--snapshot-interval` writes a duration.
const INTERVAL: DurationSyntax = DurationSyntax {
    units: UP_TO_DAYS,
    examples: "60s, 5m or 1h",
    off: true,
};

/// Reads a snapshot interval setting: a number with a unit (`ms`, `s`, `m`, `h`, `d`), e.g.
/// `60s` or `5m`; `0` or `off`: not by time.
pub fn parse_interval(text: &str) -> Result<Duration, String> {
    INTERVAL.parse(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_read_with_their_units_and_bad_ones_say_why() {
        assert_eq!(parse_interval("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_interval("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_interval("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_interval("off"), Ok(Duration::ZERO));
        assert!(parse_interval("60").unwrap_err().contains("no unit"));
        assert!(parse_interval("6w").unwrap_err().contains("unknown unit"));
        assert!(parse_interval("s").unwrap_err().contains("whole number"));
    }

    #[test]
    fn a_snapshot_is_due_by_count_or_by_time_and_never_without_new_entries() {
        let policy = SnapshotPolicy {
            every: 100,
            interval: Some(Duration::from_secs(10)),
        };
        assert!(!policy.due(99, Duration::from_secs(1)));
        assert!(policy.due(100, Duration::from_secs(1)));
        assert!(policy.due(1, Duration::from_secs(10)));
        assert!(!policy.due(0, Duration::from_secs(100)));
        assert!(!SnapshotPolicy::OFF.enabled());
        assert!(!SnapshotPolicy::OFF.due(1_000_000, Duration::from_secs(1_000)));
        let by_count = SnapshotPolicy {
            every: 5,
            interval: None,
        };
        assert!(by_count.enabled() && !by_count.due(4, Duration::from_secs(1_000)));
    }
}
