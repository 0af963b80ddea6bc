//! A commit group: inputs decided but not yet committed.

use super::LogRecord;
use super::inbox::{self, ANY_BODY, Entries, Seen, digest};

/// Inputs decided but not yet committed: their inbox keys and the records of their events, in
/// order. Built by the host during a batch, committed at its end by [`Store::commit_pending`].
#[derive(Debug)]
pub struct Pending {
    pub(super) first: u64,
    pub(super) digests: Entries,
    pub(super) records: Vec<LogRecord>,
}

impl Pending {
    /// Whether an input with this key is in the group.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.digests.contains_key(&digest(key))
    }

    /// What the group knows of an input: the digests of its key
    /// ([`key_digest`](super::key_digest)) and of its body ([`body_digest`](super::body_digest));
    /// see [`Store::seen`](super::Store::seen).
    pub fn seen(&self, key: u128, body: u64) -> Seen {
        inbox::seen(&self.digests, key, inbox::Earlier::default(), body)
    }

    /// Adds an input's records, and its inbox key if it came from the bus (any body
    /// deduplicates against it: prefer [`Pending::add_input`]).
    pub fn add(&mut self, inbox_key: Option<&[u8]>, records: Vec<LogRecord>) {
        if let Some(key) = inbox_key {
            self.digests.insert(digest(key), ANY_BODY);
        }
        self.records.extend(records);
    }

    /// Adds the records of an input from the bus, the digests of its inbox key
    /// ([`key_digest`](super::key_digest)) and of its body.
    pub fn add_input(&mut self, key: u128, body: u64, records: Vec<LogRecord>) {
        self.digests.insert(key, body);
        self.records.extend(records);
    }

    /// Whether there is nothing to commit.
    pub fn is_empty(&self) -> bool {
        self.digests.is_empty() && self.records.is_empty()
    }
}
