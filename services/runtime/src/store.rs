//! A service's own sled database: the event **log** (seq-ordered envelopes), the **inbox** of
//! processed message ids, and persisted **cursors** (how far the relay has published).
//!
//! The host decides a batch of inputs into a [`Pending`] group, then commits the group
//! atomically: every input's events are appended and every input's id is recorded, or nothing
//! is. Durability comes from [`Store::flush`], called once per batch before the batch's inputs
//! are acked (group commit).
//!
//! The front of the log goes once snapshots cover it and its history is past
//! (`retention.rs`): the log then starts at the cursor `log_start`, not at 1.
//!
//! Layout: one sled tree, `log`, holds the log in chunks (`chunk.rs`: sled pays per entry, and
//! many times per byte) under 8-byte sequence numbers, then the inbox (`inbox.rs`: one entry of
//! digests per group, all of them also in memory), so that a group is one atomic `sled::Batch`
//! on one tree.

mod chunk;
mod flush;
mod inbox;
mod inspect;
mod pending;
pub mod retention;
mod stable;
mod storage;
mod tail;

pub use self::inspect::{Damage, Inspect, Stats, Verified};

pub use self::flush::Flush;
pub(crate) use self::inspect::lock_held;
pub use self::pending::Pending;
pub(crate) use self::stable::Stable;
pub use self::stable::{SyncCount, delay_syncs, fail_syncs, syncs};
pub use self::storage::Storage;
pub(crate) use self::storage::open_db;
pub mod snapshot;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arcade_contracts::Envelope;
use serde::{Deserialize, Serialize};

pub use self::inbox::{
    DEFAULT_WINDOW as DEFAULT_DEDUPE_WINDOW, parse_window as parse_dedupe_window,
};
pub use self::inbox::{Earlier, Seen, body_digest, digest as key_digest};
use self::inbox::{Entries, Inbox, LOG_END, digest};
use self::tail::Tail;

/// One entry of the log: an event and where it is to be delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// The event, with its identities.
    pub envelope: Envelope,
    /// `None`: published on the topic exchange; `Some(queue)`: sent to that queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// The W3C trace context of the span that produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
}

/// Errors of the store. All of them are infrastructure errors: the input is not acked and will
/// be delivered again.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// sled failed.
    #[error("event store: {0}")]
    Sled(#[from] sled::Error),
    /// Another process (a running `arcade run`) holds the store's database.
    #[error(
        "the data dir {} is in use by a running process (stop it first, or read it while stopped)",
        path.display()
    )]
    InUse {
        /// The service's store directory.
        path: std::path::PathBuf,
    },
    /// The directory holds no store.
    #[error("{} holds no service store (no sled database there)", path.display())]
    NotAStore {
        /// The directory.
        path: std::path::PathBuf,
    },
    /// A log entry could not be read back.
    #[error("event store: log entry {seq} is unreadable: {reason}")]
    Corrupt {
        /// Its sequence number.
        seq: u64,
        /// What is wrong.
        reason: String,
    },
    /// An archive of pruned log records could not be written or read.
    #[error("log archive {}: {reason}", path.display())]
    Archive {
        /// The archive file or directory.
        path: std::path::PathBuf,
        /// What failed.
        reason: String,
    },
    /// A part of the store that is not a log entry (a key, an inbox chunk) could not be read
    /// back.
    #[error("event store: {what} is unreadable: {reason}")]
    Damaged {
        /// Which part, as far as it is known (`a log key of 3 bytes`, `inbox chunk 7`).
        what: String,
        /// What is wrong.
        reason: String,
    },
}

/// The result of committing inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// The events were appended at these sequence numbers (inclusive; empty when none).
    Appended {
        /// First sequence number used.
        first: u64,
        /// One past the last sequence number used.
        end: u64,
    },
    /// An input was processed before: nothing was written (only [`Store::commit`], in tests).
    #[cfg(test)]
    Duplicate,
}

/// Name of the relay's cursor in the store.
pub const RELAY_CURSOR: &str = "relay";

/// A service's event store.
#[derive(Debug)]
pub struct Store {
    db: sled::Db,
    stable: Arc<Stable>,
    log: sled::Tree,
    inbox: Mutex<Inbox>,
    cursors: sled::Tree,
    next_seq: AtomicU64,
    chunk_bytes: usize,
    tail: Mutex<Tail>,
}

impl Store {
    /// Opens (or creates) the store in `dir`.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        Self::open_with(dir, Storage::default())
    }

    /// Opens (or creates) the store in `dir` with the given sled sizing.
    pub fn open_with(dir: &Path, storage: Storage) -> Result<Self, StoreError> {
        let db =
            open_db(storage.config(32 << 20).path(dir)).map_err(|e| inspect::in_use(dir, e))?;
        let stable = Stable::open(dir).map_err(sled::Error::Io)?;
        Self::with_db(db, stable, storage)
    }

    /// Opens the existing store in `dir` whatever its sizing (sled refuses a database made
    /// with another segment size: the edge's), for an operator's tool on a stopped data dir.
    pub fn open_existing(dir: &Path) -> Result<Self, StoreError> {
        match Self::open_with(dir, Storage::Server) {
            Err(StoreError::Sled(sled::Error::Unsupported(_))) => {
                Self::open_with(dir, Storage::Compact)
            }
            other => other,
        }
    }

    /// A store in a temporary directory, removed when dropped.
    pub fn temporary() -> Result<Self, StoreError> {
        Self::with_db(
            sled::Config::new().temporary(true).open()?,
            Stable::temporary(),
            Storage::default(),
        )
    }

    fn with_db(db: sled::Db, stable: Stable, storage: Storage) -> Result<Self, StoreError> {
        let log = db.open_tree("log")?;
        // Stores written before the inbox moved into the log tree kept it in a tree of its own.
        let legacy_inbox = if db.tree_names().iter().any(|name| name.as_ref() == b"inbox") {
            Some(db.open_tree("inbox")?)
        } else {
            None
        };
        let inbox = Inbox::load(&log, legacy_inbox.as_ref(), crate::clock::Clock::system())?;
        let cursors = db.open_tree("cursors")?;
        let next = match log.range(..LOG_END).next_back().transpose()? {
            Some((key, value)) => match chunk::decode(&key, &value)?.last() {
                Some((seq, _)) => seq + 1,
                None => seq_of(&key)? + 1,
            },
            None => 1,
        };
        // A log pruned to its end keeps no chunk to number from: its start says where it is.
        let next = match cursors.get(retention::LOG_START)? {
            Some(start) => next.max(seq_of(&start)?),
            None => next,
        };
        Ok(Store {
            db,
            stable: Arc::new(stable),
            log,
            inbox: Mutex::new(inbox),
            cursors,
            next_seq: AtomicU64::new(next),
            chunk_bytes: storage.chunk_bytes(),
            tail: Mutex::new(Tail::new(
                next,
                storage.tail_records(),
                storage.tail_bytes(),
            )),
        })
    }

    /// Whether an input with this deduplication key was processed.
    pub fn is_processed(&self, key: &[u8]) -> Result<bool, StoreError> {
        Ok(self.inbox().contains(digest(key)))
    }

    /// What the inbox knows of an input: the digests ([`key_digest`]) of its deduplication
    /// key and of the keys it had `earlier`, and the digest of its body ([`body_digest`]).
    pub fn seen(&self, key: u128, earlier: Earlier, body: u64) -> Seen {
        self.inbox().seen(key, earlier, body)
    }

    fn inbox(&self) -> std::sync::MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An empty group of inputs, numbered from the end of the log.
    pub fn pending(&self) -> Pending {
        Pending {
            first: self.end(),
            digests: Entries::default(),
            records: Vec::new(),
        }
    }

    /// In one transaction: unless `inbox_key` is already in the inbox, append `records` and
    /// record `inbox_key`. Without a key (a timer or a local input) the records are appended.
    /// Only one task may commit to a store at a time (its host). The host commits groups
    /// ([`Store::commit_pending`]); this one-input form serves the store's tests.
    #[cfg(test)]
    pub fn commit(
        &self,
        inbox_key: Option<&[u8]>,
        records: &[LogRecord],
    ) -> Result<Commit, StoreError> {
        if let Some(key) = inbox_key
            && self.is_processed(key)?
        {
            return Ok(Commit::Duplicate);
        }
        let mut pending = self.pending();
        pending.add(inbox_key, records.to_vec());
        self.commit_pending(pending)
    }

    /// Commits a group atomically: every record appended and every inbox key recorded, or
    /// nothing. The group must come from [`Store::pending`] since the last commit, and its keys
    /// must have been checked with [`Store::is_processed`] (its host is the store's only
    /// writer, so nothing can record them in between).
    pub fn commit_pending(&self, pending: Pending) -> Result<Commit, StoreError> {
        let first = self.next_seq.load(Ordering::SeqCst);
        if pending.first != first {
            return Err(StoreError::Corrupt {
                seq: pending.first,
                reason: format!(
                    "a commit group numbered from {} cannot be appended at {first}",
                    pending.first
                ),
            });
        }
        if pending.is_empty() {
            return Ok(Commit::Appended { first, end: first });
        }
        let mut batch = sled::Batch::default();
        for (key, bytes) in chunk::encode(first, &pending.records, self.chunk_bytes)? {
            batch.insert(&key, bytes);
        }
        let mut inbox = self.inbox();
        let written = inbox.write(&mut batch, &pending.digests);
        self.log.apply_batch(batch)?;
        inbox.committed(&pending.digests, written);
        drop(inbox);
        let end = first + pending.records.len() as u64;
        let mut tail = self.tail.lock().unwrap_or_else(|p| p.into_inner());
        tail.append(pending.records);
        self.next_seq.store(end, Ordering::SeqCst);
        Ok(Commit::Appended { first, end })
    }

    /// Makes every commit so far durable.
    pub async fn flush(&self) -> Result<(), StoreError> {
        Ok(self.start_flush().await?)
    }

    /// Starts making every commit so far durable; the returned future resolves when it is.
    /// Commits made meanwhile are not covered (the next flush covers them).
    pub fn start_flush(&self) -> Flush {
        Flush::start(&self.db, &self.stable)
    }

    /// One past the last sequence number written.
    pub fn end(&self) -> u64 {
        self.next_seq.load(Ordering::SeqCst)
    }

    /// Up to `limit` records from `from` on, in order, shared: from memory when they are among
    /// the newest, else from sled.
    pub fn read_shared(
        &self,
        from: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Arc<LogRecord>)>, StoreError> {
        let recent = self
            .tail
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .read(from, limit);
        match recent {
            Some(records) => Ok(records),
            None => Ok(self
                .read_from(from, limit)?
                .into_iter()
                .map(|(seq, record)| (seq, Arc::new(record)))
                .collect()),
        }
    }

    /// Up to `limit` records from `from` on, in order.
    pub fn read_from(&self, from: u64, limit: usize) -> Result<Vec<(u64, LogRecord)>, StoreError> {
        let from_key = from.to_be_bytes();
        // The entry holding `from` starts at or before it.
        let start = match self.log.range(..=from_key).next_back() {
            Some(item) => item?.0,
            None => sled::IVec::from(&from_key),
        };
        let mut out = Vec::new();
        for item in self.log.range(start.as_ref()..LOG_END) {
            if out.len() >= limit {
                break;
            }
            let (key, value) = item?;
            let records = chunk::decode(&key, &value)?;
            let wanted = limit - out.len();
            out.extend(
                records
                    .into_iter()
                    .filter(|(seq, _)| *seq >= from)
                    .take(wanted),
            );
        }
        Ok(out)
    }

    /// Every record in order, for replay.
    pub fn replay(&self) -> impl Iterator<Item = Result<(u64, LogRecord), StoreError>> + '_ {
        self.log.range(..LOG_END).flat_map(|item| {
            let records = item
                .map_err(StoreError::from)
                .and_then(|(key, value)| chunk::decode(&key, &value));
            match records {
                Ok(records) => records.into_iter().map(Ok).collect::<Vec<_>>(),
                Err(e) => vec![Err(e)],
            }
        })
    }

    /// A persisted cursor (0 when never set).
    pub fn cursor(&self, name: &str) -> Result<u64, StoreError> {
        Ok(match self.cursors.get(name)? {
            Some(v) => seq_of(&v)?,
            None => 0,
        })
    }

    /// Moves a cursor. Durable with the next flush; a cursor that goes back after a crash only
    /// republishes what consumers already deduplicate.
    pub fn set_cursor(&self, name: &str, value: u64) -> Result<(), StoreError> {
        self.cursors.insert(name, &value.to_be_bytes())?;
        Ok(())
    }

    /// Number of processed inputs remembered by the inbox.
    pub fn inbox_len(&self) -> usize {
        self.inbox().len()
    }

    /// Keeps processed keys for `window` after they were committed, by `clock` (the default is
    /// [`DEFAULT_DEDUPE_WINDOW`] by the system clock). A redelivery whose key was pruned is
    /// applied again.
    pub fn keep_inbox_for(&self, window: std::time::Duration, clock: crate::clock::Clock) {
        self.inbox().keep_for(window, clock);
    }

    /// Removes the inbox's keys older than the window, from disk (one atomic batch, durable
    /// with the next flush) and from memory. Returns how many keys it removed.
    pub fn prune_inbox(&self) -> Result<usize, StoreError> {
        self.inbox().prune(&self.log)
    }
}

fn seq_of(bytes: &[u8]) -> Result<u64, StoreError> {
    bytes
        .try_into()
        .map(u64::from_be_bytes)
        .map_err(|_| StoreError::Damaged {
            what: format!("a key of {} bytes", bytes.len()),
            reason: "it is not a sequence number (8 bytes)".into(),
        })
}

#[cfg(test)]
mod tests;
