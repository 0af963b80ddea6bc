//! The `gameId`s the telemetry remembers, for a window: what makes a resent session a repeat,
//! without keeping every session ever seen.
//!
//! A `gameId` is filed under the time of the event that counted its session (the recorded or
//! flagged event's own `at_ms`, never the wall clock: replaying the log files it in the same
//! place). Times are cut into buckets of a 64th of the window; a bucket is dropped once the
//! newest time seen is more than the window after its end, so every `gameId` is remembered for
//! at least the window (and at most one bucket longer) after its session was counted, measured
//! on the times of the sessions that came since. A resend of a forgotten `gameId` counts again:
//! the window must be longer than any producer resends a session late.
//!
//! The set then holds one window of sessions, however long the history: its memory and the
//! snapshot that holds it stay flat once the window is full. A `gameId` is held as a 16-byte
//! digest (the first half of its SHA-256; two ids share one with a probability near 2^-64 at
//! four billion ids), whatever the id's length: 40 bytes of memory a session, 16 in a snapshot.

use std::collections::{BTreeMap, HashMap};

use sha2::{Digest as _, Sha256};

/// How long a session's `gameId` is remembered when nothing else is said: 7 days, as the
/// runtime's inbox keeps its deduplication keys (`--dedupe-window`).
pub const SESSION_WINDOW_MS: u64 = 7 * 24 * 3_600 * 1_000;

/// Buckets per window.
const BUCKETS: u64 = 64;

/// The digest of a `gameId`, as two words (a map entry of it and a bucket is 24 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct IdDigest(u64, u64);

impl IdDigest {
    /// The digest of `game_id`.
    pub(crate) fn of(game_id: &str) -> Self {
        let hash = Sha256::digest(game_id.as_bytes());
        IdDigest::from_bytes(hash[..16].try_into().expect("16 bytes"))
    }

    /// Its 16 bytes, as a snapshot stores them.
    pub(crate) fn to_bytes(self) -> [u8; 16] {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.0.to_be_bytes());
        bytes[8..].copy_from_slice(&self.1.to_be_bytes());
        bytes
    }

    /// A digest from the 16 bytes of [`IdDigest::to_bytes`].
    pub(crate) fn from_bytes(bytes: [u8; 16]) -> Self {
        let word = |i: usize| u64::from_be_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        IdDigest(word(0), word(8))
    }
}

/// The `gameId`s of the sessions counted within the window (see the module's documentation).
#[derive(Debug, Clone)]
pub struct SessionWindow {
    window_ms: u64,
    /// The newest event time filed, if any.
    newest_ms: Option<u64>,
    /// Each remembered `gameId`'s digest and the bucket it is filed under.
    ids: HashMap<IdDigest, u64>,
    /// The `gameId`s filed under each bucket, oldest bucket first. An id filed again under a
    /// later bucket stays listed in the earlier one, where it is ignored.
    buckets: BTreeMap<u64, Vec<IdDigest>>,
}

impl Default for SessionWindow {
    fn default() -> Self {
        SessionWindow::new(SESSION_WINDOW_MS)
    }
}

/// Two windows are equal when they remember the same ids under the same buckets and would
/// forget them alike (the stale listings of re-filed ids are no part of what they hold).
impl PartialEq for SessionWindow {
    fn eq(&self, other: &Self) -> bool {
        self.window_ms == other.window_ms
            && self.newest_ms == other.newest_ms
            && self.ids == other.ids
    }
}

impl SessionWindow {
    /// An empty window remembering ids for `window_ms` (at least 1 ms).
    pub fn new(window_ms: u64) -> Self {
        SessionWindow {
            window_ms: window_ms.max(1),
            newest_ms: None,
            ids: HashMap::new(),
            buckets: BTreeMap::new(),
        }
    }

    /// How long an id is remembered, in milliseconds.
    pub fn window_ms(&self) -> u64 {
        self.window_ms
    }

    /// The newest event time filed, if any.
    pub fn newest_ms(&self) -> Option<u64> {
        self.newest_ms
    }

    /// The width of a bucket.
    fn bucket_ms(&self) -> u64 {
        (self.window_ms / BUCKETS).max(1)
    }

    /// Whether a session with this `gameId` was counted within the window.
    pub fn contains(&self, game_id: &str) -> bool {
        self.ids.contains_key(&IdDigest::of(game_id))
    }

    /// How many `gameId`s are remembered.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Files `game_id` under the time `at_ms` of the event that counted it (a later time than
    /// the one it is filed under moves it there), then forgets the buckets the window left.
    pub fn insert(&mut self, game_id: &str, at_ms: u64) {
        let bucket = at_ms / self.bucket_ms();
        self.newest_ms = Some(self.newest_ms.map_or(at_ms, |n| n.max(at_ms)));
        let id = IdDigest::of(game_id);
        if self.ids.get(&id).is_none_or(|&filed| filed < bucket) {
            self.ids.insert(id, bucket);
            self.buckets.entry(bucket).or_default().push(id);
        }
        self.prune();
    }

    /// Drops every bucket that ends more than the window before the newest time.
    fn prune(&mut self) {
        let Some(newest) = self.newest_ms else { return };
        // Bucket b covers [b·w, (b+1)·w): it is kept while (b+1)·w > newest − window.
        let first_kept = newest.saturating_sub(self.window_ms) / self.bucket_ms();
        while let Some(entry) = self.buckets.first_entry() {
            if *entry.key() >= first_kept {
                break;
            }
            let (bucket, ids) = entry.remove_entry();
            for id in ids {
                if self.ids.get(&id) == Some(&bucket) {
                    self.ids.remove(&id);
                }
            }
        }
    }

    /// The remembered ids' digests, by bucket, oldest first (each id once, under its bucket).
    pub(crate) fn by_bucket(&self) -> Vec<(u64, Vec<IdDigest>)> {
        let mut out: BTreeMap<u64, Vec<IdDigest>> = BTreeMap::new();
        for (id, bucket) in &self.ids {
            out.entry(*bucket).or_default().push(*id);
        }
        out.into_iter().collect()
    }

    /// A window from its parts (a snapshot); `Err` names an id listed twice.
    pub(crate) fn from_parts(
        window_ms: u64,
        newest_ms: Option<u64>,
        buckets: Vec<(u64, Vec<IdDigest>)>,
    ) -> Result<Self, String> {
        let mut window = SessionWindow::new(window_ms);
        window.newest_ms = newest_ms;
        window
            .ids
            .reserve(buckets.iter().map(|(_, ids)| ids.len()).sum());
        for (bucket, ids) in buckets {
            let filed = window.buckets.entry(bucket).or_default();
            filed.reserve(ids.len());
            for id in ids {
                if window.ids.insert(id, bucket).is_some() {
                    let hex: String = id.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
                    return Err(format!("the gameId of digest {hex} is listed twice"));
                }
                filed.push(id);
            }
        }
        Ok(window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: u64 = 24 * 3_600 * 1_000;

    #[test]
    fn an_id_is_kept_for_the_window_and_forgotten_after_it() {
        let mut w = SessionWindow::new(7 * DAY);
        w.insert("a", 10 * DAY);
        w.insert("b", 16 * DAY);
        assert!(w.contains("a") && w.contains("b"));
        // Exactly the window after: still there (at most one bucket longer).
        w.insert("c", 17 * DAY);
        assert!(w.contains("a"));
        w.insert("d", 17 * DAY + 7 * DAY / 64 + 1);
        assert!(!w.contains("a") && w.contains("b"), "{w:?}");
        assert_eq!(w.len(), 3);
    }

    #[test]
    fn an_id_filed_again_later_stays_until_the_window_leaves_the_later_time() {
        let mut w = SessionWindow::new(64);
        w.insert("a", 0);
        w.insert("a", 50);
        w.insert("b", 100);
        assert!(w.contains("a"), "re-filed at 50: {w:?}");
        w.insert("b", 116);
        assert!(!w.contains("a"));
        // An event older than the window is forgotten at once, on every path alike.
        w.insert("old", 1);
        assert!(!w.contains("old"));
    }

    #[test]
    fn parts_round_trip_and_an_id_listed_twice_is_refused() {
        let mut w = SessionWindow::new(1_000);
        for (i, at) in [5u64, 300, 301, 900, 1_200].into_iter().enumerate() {
            w.insert(&format!("g{i}"), at);
        }
        w.insert("g0", 1_250);
        let back = SessionWindow::from_parts(w.window_ms(), w.newest_ms(), w.by_bucket()).unwrap();
        assert_eq!(back, w);
        let x = IdDigest::of("x");
        let twice = vec![(1, vec![x]), (2, vec![x])];
        assert!(
            SessionWindow::from_parts(1_000, Some(2), twice)
                .unwrap_err()
                .contains("2d711642b726b04401627ca9fbac32f5 is listed twice")
        );
    }
}
