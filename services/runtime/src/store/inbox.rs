//! The inbox: which inputs a service has processed, for deduplication.
//!
//! An input is known by a 16-byte digest of its deduplication key (the first half of its
//! SHA-256: two different keys share one with a probability near 2^-64 at four billion keys).
//! The digests of a commit group are written as **one** entry in the log tree, in the group's
//! atomic batch, under [`DIGESTS_PREFIX`] and a chunk number; every digest is also held in
//! memory, so a lookup touches no disk. sled pays per entry: one entry per input made the inbox
//! the pipeline's largest cost. The price is memory, about 20 bytes per processed input (20 MB
//! per million), loaded at start.
//!
//! Each digest comes with an 8-byte digest of the input's body ([`body_digest`]), so that a key
//! seen again with another body is told apart from a redelivery ([`Seen::Different`]): the
//! host dead-letters it instead of dropping it. Keys are scoped by sender (see
//! `inbound::dedupe_key`); inputs recorded before that, without a body digest ([`ANY_BODY`]),
//! keep deduplicating whatever body comes, under their unscoped key too.
//!
//! The earlier layouts are read at start into the same map: chunks of bare 16-byte digests
//! (format 1), and one entry per input in a tree of its own (`inbox`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use sha2::{Digest as _, Sha256};

use super::StoreError;

/// The prefix of the inbox's digest chunks in the log tree: after every sequence number (whose
/// first byte is 0 for the first 2^56 of them), so the log's range scans stop before it.
pub(super) const DIGESTS_PREFIX: &[u8] = &[0xff, b'd'];

/// The end of the log's key space: every inbox entry sorts at or after it.
pub(super) const LOG_END: &[u8] = &[0xff];

/// First byte of a digest chunk of the earlier layout: 16-byte digests, one after the other.
const FORMAT_DIGESTS: u8 = 0x01;

/// First byte of a digest chunk: 24-byte entries, a 16-byte key digest then an 8-byte body
/// digest, one after the other.
const FORMAT_KEYED: u8 = 0x02;

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
    /// Never processed.
    New,
    /// Processed, with the same body (or before bodies were recorded): a duplicate.
    Same,
    /// Its key was processed with another body: not a duplicate, a reused id.
    Different,
}

/// Whether `key` with `body` is in `entries`; `legacy`, the unscoped key it would have had
/// before keys were scoped, matches an entry recorded without a body.
pub fn seen(entries: &Entries, key: u128, legacy: Option<u128>, body: u64) -> Seen {
    match entries.get(&key) {
        Some(&known) if known == ANY_BODY || known == body || body == ANY_BODY => Seen::Same,
        Some(_) => Seen::Different,
        None => match legacy.and_then(|legacy| entries.get(&legacy)) {
            Some(&ANY_BODY) => Seen::Same,
            _ => Seen::New,
        },
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
}

/// Key digests and the body digest of each.
pub type Entries = HashMap<u128, u64, BuildHasherDefault<DigestHasher>>;

/// Every processed input's digest, and where the next chunk goes.
#[derive(Debug, Default)]
pub(super) struct Inbox {
    entries: Entries,
    next_chunk: u64,
}

impl Inbox {
    /// Loads the inbox of a store: its digest chunks and any earlier layout.
    pub fn load(log: &sled::Tree, legacy: Option<&sled::Tree>) -> Result<Self, StoreError> {
        let mut inbox = Inbox::default();
        for item in log.scan_prefix(DIGESTS_PREFIX) {
            let (key, value) = item?;
            let number = chunk_number(&key)?;
            match value.split_first() {
                Some((&FORMAT_KEYED, bytes)) if bytes.len() % 24 == 0 => {
                    for entry in bytes.chunks_exact(24) {
                        let (key, body) = entry.split_at(16);
                        let key: [u8; 16] = key.try_into().expect("16 bytes");
                        let body: [u8; 8] = body.try_into().expect("8 bytes");
                        inbox
                            .entries
                            .insert(u128::from_be_bytes(key), u64::from_be_bytes(body));
                    }
                }
                Some((&FORMAT_DIGESTS, bytes)) if bytes.len() % 16 == 0 => {
                    for digest in bytes.chunks_exact(16) {
                        let digest: [u8; 16] = digest.try_into().expect("16 bytes");
                        inbox.entries.insert(u128::from_be_bytes(digest), ANY_BODY);
                    }
                }
                _ => {
                    return Err(StoreError::Corrupt {
                        seq: 0,
                        reason: format!("inbox chunk {number} is not a list of digests"),
                    });
                }
            }
            inbox.next_chunk = number + 1;
        }
        if let Some(tree) = legacy {
            for item in tree.iter() {
                let (key, _) = item?;
                inbox.entries.insert(digest(&key), ANY_BODY);
            }
        }
        Ok(inbox)
    }

    /// Whether an input with this digest was processed.
    pub fn contains(&self, digest: u128) -> bool {
        self.entries.contains_key(&digest)
    }

    /// What the inbox knows of an input (see [`seen`]).
    pub fn seen(&self, key: u128, legacy: Option<u128>, body: u64) -> Seen {
        seen(&self.entries, key, legacy, body)
    }

    /// Adds a group's entries to `batch` as one chunk; [`Inbox::committed`] once it is applied.
    pub fn write(&self, batch: &mut sled::Batch, entries: &Entries) {
        if entries.is_empty() {
            return;
        }
        let mut key = DIGESTS_PREFIX.to_vec();
        key.extend_from_slice(&self.next_chunk.to_be_bytes());
        let mut value = Vec::with_capacity(1 + 24 * entries.len());
        value.push(FORMAT_KEYED);
        for (digest, body) in entries {
            value.extend_from_slice(&digest.to_be_bytes());
            value.extend_from_slice(&body.to_be_bytes());
        }
        batch.insert(key, value);
    }

    /// The batch written by [`Inbox::write`] was applied.
    pub fn committed(&mut self, entries: &Entries) {
        if entries.is_empty() {
            return;
        }
        self.entries.extend(entries.iter().map(|(k, v)| (*k, *v)));
        self.next_chunk += 1;
    }

    /// Number of processed inputs.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

fn chunk_number(key: &[u8]) -> Result<u64, StoreError> {
    key.get(DIGESTS_PREFIX.len()..)
        .and_then(|rest| rest.try_into().ok())
        .map(u64::from_be_bytes)
        .ok_or_else(|| StoreError::Corrupt {
            seq: 0,
            reason: "an inbox chunk's key is not a chunk number".into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_of_different_keys_differ_and_are_stable() {
        assert_eq!(digest(b"m-1"), digest(b"m-1"));
        assert_ne!(digest(b"m-1"), digest(b"m-2"));
        assert_ne!(digest(b""), digest(b"\0"));
    }

    #[test]
    fn chunks_and_the_earlier_layout_load_into_one_set() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let log = db.open_tree("log").unwrap();
        let legacy = db.open_tree("inbox").unwrap();
        legacy.insert(b"from-the-inbox-tree", &[]).unwrap();
        let mut inbox = Inbox::load(&log, Some(&legacy)).unwrap();
        for group in [&[&b"a"[..], b"b"][..], &[b"c"]] {
            let digests: Entries = group
                .iter()
                .map(|key| (digest(key), body_digest(key)))
                .collect();
            let mut batch = sled::Batch::default();
            inbox.write(&mut batch, &digests);
            log.apply_batch(batch).unwrap();
            inbox.committed(&digests);
        }

        let again = Inbox::load(&log, Some(&legacy)).unwrap();
        for key in [&b"from-the-inbox-tree"[..], b"a", b"b", b"c"] {
            assert!(
                again.contains(digest(key)),
                "{}",
                String::from_utf8_lossy(key)
            );
        }
        assert!(!again.contains(digest(b"d")));
        assert_eq!(again.len(), 4);
        assert_eq!(again.next_chunk, 2, "two chunks written");
    }

    #[test]
    fn a_key_seen_with_another_body_is_told_from_a_duplicate() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let log = db.open_tree("log").unwrap();
        // A chunk of the earlier layout: bare digests of unscoped keys, no bodies.
        log.insert(
            [DIGESTS_PREFIX, &0u64.to_be_bytes()].concat(),
            [&[FORMAT_DIGESTS][..], &digest(b"old-id").to_be_bytes()].concat(),
        )
        .unwrap();
        let mut inbox = Inbox::load(&log, None).unwrap();
        let entries: Entries = [(digest(b"alice\0m-1"), body_digest(b"genuine"))]
            .into_iter()
            .collect();
        let mut batch = sled::Batch::default();
        inbox.write(&mut batch, &entries);
        log.apply_batch(batch).unwrap();
        inbox.committed(&entries);

        let inbox = Inbox::load(&log, None).unwrap();
        let key = digest(b"alice\0m-1");
        assert_eq!(inbox.seen(key, None, body_digest(b"genuine")), Seen::Same);
        assert_eq!(
            inbox.seen(key, None, body_digest(b"forged")),
            Seen::Different
        );
        assert_eq!(
            inbox.seen(
                digest(b"mallory\0m-1"),
                Some(digest(b"m-1")),
                body_digest(b"x")
            ),
            Seen::New,
            "another sender's id is its own"
        );
        let scoped_old = digest(b"alice\0old-id");
        assert_eq!(
            inbox.seen(scoped_old, Some(digest(b"old-id")), body_digest(b"any")),
            Seen::Same,
            "an input recorded before keys were scoped still deduplicates"
        );
        assert_eq!(inbox.next_chunk, 2);
    }

    #[test]
    fn a_damaged_chunk_is_refused() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let log = db.open_tree("log").unwrap();
        log.insert(
            [DIGESTS_PREFIX, &7u64.to_be_bytes()].concat(),
            &[FORMAT_DIGESTS, 1, 2],
        )
        .unwrap();
        let error = Inbox::load(&log, None).unwrap_err().to_string();
        assert!(error.contains("inbox chunk 7"), "{error}");
    }
}
