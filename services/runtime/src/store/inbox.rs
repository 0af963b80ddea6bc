//! The inbox: which inputs a service has processed, for deduplication, within a window.
//!
//! An input is known by a 16-byte digest of its deduplication key (the first half of its
//! SHA-256: two different keys share one with a probability near 2^-64 at four billion keys).
//! The digests of a commit group are written as **one** entry in the log tree, in the group's
//! atomic batch, under [`DIGESTS_PREFIX`] and a chunk number, with the time it was written
//! (the runtime's [`Clock`]); every digest is also held in memory, so a lookup touches no disk.
//! sled pays per entry: one entry per input made the inbox the pipeline's largest cost. In
//! memory a digest takes one 24-byte map entry (key and body digest, 8-byte aligned); a chunk
//! keeps only its number and time, and is read back from disk when it is pruned.
//!
//! **The deduplication window.** A chunk is kept for the window (`--dedupe-window`, default
//! [`DEFAULT_WINDOW`], 7 days) after it was written, then pruned — from memory and from disk —
//! by [`Inbox::expired`] / `Store::prune_inbox`, which the runtime calls in the background. So
//! the inbox holds the keys of one window (plus at most one pruning interval), not of the
//! service's whole history: memory and disk stay flat once the window is full. A redelivery
//! whose key was pruned is applied again: the window must be longer than any redelivery or
//! republish can be late (seconds to hours on both transports; see docs/DESIGN.md).
//!
//! Each digest comes with an 8-byte digest of the input's body ([`body_digest`]), so that a key
//! seen again with another body is told apart from a redelivery ([`Seen::Different`]): the
//! host dead-letters it instead of dropping it. Keys are scoped by sender (see
//! `inbound::dedupe_key`); inputs recorded before that, without a body digest ([`ANY_BODY`]),
//! keep deduplicating whatever body comes, under their unscoped key too.
//!
//! Chunks of the first layout (bare digests, no time) and the earlier layout, one entry per
//! input in a tree of its own (`inbox`), are read at start into the same map and count as
//! written then.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use sha2::{Digest as _, Sha256};

use super::StoreError;
use crate::clock::Clock;
use crate::duration::{DurationSyntax, UP_TO_DAYS};

/// How long processed keys are kept when nothing else is said: 7 days, as NServiceBus keeps its
/// outbox deduplication data.
pub const DEFAULT_WINDOW: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// The prefix of the inbox's digest chunks in the log tree: after every sequence number (whose
/// first byte is 0 for the first 2^56 of them), so the log's range scans stop before it.
pub(super) const DIGESTS_PREFIX: &[u8] = &[0xff, b'd'];

/// The end of the log's key space: every inbox entry sorts at or after it.
pub(super) const LOG_END: &[u8] = &[0xff];

/// First byte of a digest chunk of the first layout: 16-byte digests, one after the other.
const FORMAT_DIGESTS: u8 = 0x01;

/// First byte of a timed digest chunk: the time it was written (u64 big-endian, ms since the
/// epoch), then 24-byte entries, a 16-byte key digest and an 8-byte body digest, one after the
/// other.
const FORMAT_TIMED: u8 = 0x02;

/// Bytes of one entry of a timed chunk.
const ENTRY: usize = 24;

/// The body digest of an input recorded without one: any body deduplicates against it.
pub const ANY_BODY: u64 = 0;

/// The digest of an input's body ([`ANY_BODY`] is never one).
pub fn body_digest(body: &[u8]) -> u64 {
    let hash = Sha256::digest(body);
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&hash[..8]);
    u64::from_be_bytes(bytes).max(1)
}

/// What the inbox knows of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Never processed (or not within the window).
    New,
    /// Processed, with the same body (or before bodies were recorded): a duplicate.
    Same,
    /// Its key was processed with another body: not a duplicate, a reused id.
    Different,
}

/// The keys an input had before the present scoping, looked up when its own key is not known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Earlier {
    /// The bare message id, before keys were scoped by sender: matches an entry recorded
    /// without a body.
    pub unscoped: Option<u128>,
    /// For a message with no proven sender, the key it had when its producer's name scoped it
    /// like a sender's: matches only with the same body (any other entry there may be a proven
    /// sender's, and is not this message's to collide with).
    pub producer_scoped: Option<u128>,
}

/// Whether `key` with `body` is in `entries`, or one of its `earlier` keys is.
pub fn seen(entries: &Entries, key: u128, earlier: Earlier, body: u64) -> Seen {
    seen_in(|key| entries.get(&key).copied(), key, earlier, body)
}

/// [`seen`], in whatever map `known` looks digests up.
fn seen_in(known: impl Fn(u128) -> Option<u64>, key: u128, earlier: Earlier, body: u64) -> Seen {
    match known(key) {
        Some(known) if known == ANY_BODY || known == body || body == ANY_BODY => Seen::Same,
        Some(_) => Seen::Different,
        None => {
            let was = |key: Option<u128>| key.and_then(&known);
            match (was(earlier.unscoped), was(earlier.producer_scoped)) {
                (Some(ANY_BODY), _) => Seen::Same,
                (_, Some(known)) if known == body => Seen::Same,
                _ => Seen::New,
            }
        }
    }
}

/// The digest of a deduplication key.
pub fn digest(key: &[u8]) -> u128 {
    let hash = Sha256::digest(key);
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&hash[..16]);
    u128::from_be_bytes(bytes)
}

/// Digests are uniform already: hash them by their low 64 bits.
#[derive(Debug, Default, Clone, Copy)]
pub struct DigestHasher(u64);

impl Hasher for DigestHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u128 digests are hashed with it; keep whatever bytes come, folded.
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 ^= u64::from_le_bytes(word);
        }
    }

    fn write_u128(&mut self, value: u128) {
        self.0 = value as u64;
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// A key digest as two words, so that a map entry of it and a body digest is 24 bytes (a
/// `u128` is 16-byte aligned, which makes the same entry 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key(u64, u64);

impl From<u128> for Key {
    fn from(digest: u128) -> Self {
        Key((digest >> 64) as u64, digest as u64)
    }
}

impl std::hash::Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.1);
    }
}

/// The inbox's own map: [`Entries`] with 24-byte entries.
type Held = HashMap<Key, u64, BuildHasherDefault<DigestHasher>>;

/// Key digests and the body digest of each.
pub type Entries = HashMap<u128, u64, BuildHasherDefault<DigestHasher>>;

/// One commit group's chunk: its number and when it was written (its digests are on disk).
#[derive(Debug)]
struct Chunk {
    number: u64,
    written_ms: u64,
}

/// The digests of the window, the chunks they came in (oldest first), and where the next chunk
/// goes.
#[derive(Debug)]
pub(super) struct Inbox {
    entries: Held,
    chunks: VecDeque<Chunk>,
    next_chunk: u64,
    window_ms: u64,
    clock: Clock,
}

impl Inbox {
    /// Loads the inbox of a store: its digest chunks and any earlier layout. Chunks with no time
    /// count as written `clock`'s now.
    pub fn load(
        log: &sled::Tree,
        legacy: Option<&sled::Tree>,
        clock: Clock,
    ) -> Result<Self, StoreError> {
        let now = clock.now_ms();
        let mut inbox = Inbox {
            entries: Held::default(),
            chunks: VecDeque::new(),
            next_chunk: 0,
            window_ms: duration_ms(DEFAULT_WINDOW),
            clock,
        };
        // The chunks first, so that the map is sized once: growing it chunk by chunk would
        // rehash it a dozen times and touch twice its memory (a start's largest cost).
        let stored: Vec<(sled::IVec, sled::IVec)> =
            log.scan_prefix(DIGESTS_PREFIX).collect::<Result<_, _>>()?;
        let keys: usize = (stored.iter()).map(|(_, v)| v.len() / ENTRY).sum();
        inbox.entries.reserve(keys);
        inbox.chunks.reserve(stored.len());
        for (key, value) in stored {
            let number = chunk_number(&key)?;
            let (written_ms, entries) = parse_chunk(number, &value, now)?;
            inbox.entries.extend(
                entries
                    .into_iter()
                    .map(|(key, body)| (Key::from(key), body)),
            );
            inbox.chunks.push_back(Chunk { number, written_ms });
            inbox.next_chunk = number + 1;
        }
        if let Some(tree) = legacy {
            for item in tree.iter() {
                let (key, _) = item?;
                inbox.entries.insert(digest(&key).into(), ANY_BODY);
            }
        }
        Ok(inbox)
    }

    /// Keeps keys for `window` after they were written, by `clock`.
    pub fn keep_for(&mut self, window: std::time::Duration, clock: Clock) {
        self.window_ms = duration_ms(window);
        self.clock = clock;
    }

    /// Whether an input with this digest was processed (within the window).
    pub fn contains(&self, digest: u128) -> bool {
        self.entries.contains_key(&Key::from(digest))
    }

    /// What the inbox knows of an input (see [`seen`]).
    pub fn seen(&self, key: u128, earlier: Earlier, body: u64) -> Seen {
        let known = |key: u128| self.entries.get(&Key::from(key)).copied();
        seen_in(known, key, earlier, body)
    }

    /// Adds a group's digests to `batch` as one chunk, stamped with the clock's now;
    /// [`Inbox::committed`] once it is applied.
    pub fn write(&self, batch: &mut sled::Batch, entries: &Entries) -> Option<u64> {
        if entries.is_empty() {
            return None;
        }
        let now = self.clock.now_ms();
        let mut value = Vec::with_capacity(9 + ENTRY * entries.len());
        value.push(FORMAT_TIMED);
        value.extend_from_slice(&now.to_be_bytes());
        for (digest, body) in entries {
            value.extend_from_slice(&digest.to_be_bytes());
            value.extend_from_slice(&body.to_be_bytes());
        }
        batch.insert(chunk_key(self.next_chunk), value);
        Some(now)
    }

    /// The batch written by [`Inbox::write`] (at `written_ms`) was applied.
    pub fn committed(&mut self, entries: &Entries, written_ms: Option<u64>) {
        let Some(written_ms) = written_ms else { return };
        self.entries
            .extend(entries.iter().map(|(k, v)| (Key::from(*k), *v)));
        self.chunks.push_back(Chunk {
            number: self.next_chunk,
            written_ms,
        });
        self.next_chunk += 1;
    }

    /// The keys of the chunks older than the window, to remove from the log tree.
    fn expired(&self) -> Vec<Vec<u8>> {
        let horizon = self.clock.now_ms().saturating_sub(self.window_ms);
        self.chunks
            .iter()
            .take_while(|chunk| chunk.written_ms < horizon)
            .map(|chunk| chunk_key(chunk.number))
            .collect()
    }

    /// Removes the chunks older than the window from `log` (one atomic batch, durable with the
    /// next flush) and their digests from memory, reading each chunk before it goes. Returns how
    /// many keys were forgotten.
    pub fn prune(&mut self, log: &sled::Tree) -> Result<usize, StoreError> {
        let expired = self.expired();
        if expired.is_empty() {
            return Ok(0);
        }
        let now = self.clock.now_ms();
        let mut forgotten = Vec::new();
        let mut batch = sled::Batch::default();
        for (key, chunk) in expired.iter().zip(&self.chunks) {
            if let Some(value) = log.get(key)? {
                let (_, entries) = parse_chunk(chunk.number, &value, now)?;
                forgotten.extend(entries.into_iter().map(|(key, _)| Key::from(key)));
            }
            batch.remove(key.as_slice());
        }
        log.apply_batch(batch)?;
        let before = self.entries.len();
        self.chunks.drain(..expired.len());
        for key in &forgotten {
            self.entries.remove(key);
        }
        if self.entries.capacity() > 2 * self.entries.len().max(1024) {
            self.entries.shrink_to_fit();
        }
        Ok(before - self.entries.len())
    }

    /// Number of processed inputs remembered.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

/// How `--dedupe-window` writes a duration.
const WINDOW: DurationSyntax = DurationSyntax {
    units: UP_TO_DAYS,
    examples: "7d or 12h",
    off: false,
};

/// Reads a deduplication window: a whole number and a unit, `ms`, `s`, `m`, `h` or `d`
/// (`7d`, `36h`, `1m`); at least one second.
pub fn parse_window(text: &str) -> Result<std::time::Duration, String> {
    let window = WINDOW.parse(text)?;
    if window < std::time::Duration::from_secs(1) {
        return Err(format!(
            "\"{}\" is shorter than a second: redeliveries would be applied again",
            text.trim()
        ));
    }
    Ok(window)
}

fn duration_ms(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// A chunk's time (`now` for the first layout, which had none) and its (key, body) digests.
fn parse_chunk(number: u64, value: &[u8], now: u64) -> Result<(u64, Vec<(u128, u64)>), StoreError> {
    let damaged = || StoreError::Damaged {
        what: format!("inbox chunk {number}"),
        reason: "it is not a list of digests".into(),
    };
    let key = |bytes: &[u8]| u128::from_be_bytes(bytes.try_into().expect("16 bytes"));
    match value.split_first() {
        Some((&FORMAT_DIGESTS, bytes)) if bytes.len() % 16 == 0 => Ok((
            now,
            bytes.chunks_exact(16).map(|d| (key(d), ANY_BODY)).collect(),
        )),
        Some((&FORMAT_TIMED, rest)) if rest.len() >= 8 && (rest.len() - 8) % ENTRY == 0 => {
            let (time, bytes) = rest.split_at(8);
            let time: [u8; 8] = time.try_into().map_err(|_| damaged())?;
            let entries = bytes
                .chunks_exact(ENTRY)
                .map(|entry| {
                    let (digest, body) = entry.split_at(16);
                    let body: [u8; 8] = body.try_into().expect("8 bytes");
                    (key(digest), u64::from_be_bytes(body))
                })
                .collect();
            Ok((u64::from_be_bytes(time), entries))
        }
        _ => Err(damaged()),
    }
}

fn chunk_key(number: u64) -> Vec<u8> {
    let mut key = DIGESTS_PREFIX.to_vec();
    key.extend_from_slice(&number.to_be_bytes());
    key
}

fn chunk_number(key: &[u8]) -> Result<u64, StoreError> {
    key.get(DIGESTS_PREFIX.len()..)
        .and_then(|rest| rest.try_into().ok())
        .map(u64::from_be_bytes)
        .ok_or_else(|| StoreError::Damaged {
            what: format!("an inbox chunk's key of {} bytes", key.len()),
            reason: "it is not a chunk number".into(),
        })
}

#[cfg(test)]
mod tests;
