//! A service's own sled database: the event **log** (seq-ordered envelopes), the **inbox** of
//! processed message ids, and persisted **cursors** (how far the relay has published).
//!
//! Handling one incoming message is one sled transaction over the log and the inbox: it fails
//! as a whole if the message was processed before, and otherwise appends every event and
//! records the message. Durability comes from [`Store::flush`], called once per batch before
//! the batch's inputs are acked (group commit).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use arcade_contracts::Envelope;
use serde::{Deserialize, Serialize};
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionError};

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
    /// A log entry could not be read back.
    #[error("event store: log entry {seq} is unreadable: {reason}")]
    Corrupt {
        /// Its sequence number.
        seq: u64,
        /// What is wrong.
        reason: String,
    },
}

/// The result of committing one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// The events were appended at these sequence numbers (inclusive; empty when none).
    Appended {
        /// First sequence number used.
        first: u64,
        /// One past the last sequence number used.
        end: u64,
    },
    /// The input was processed before: nothing was written.
    Duplicate,
}

/// A service's event store.
#[derive(Debug)]
pub struct Store {
    db: sled::Db,
    log: sled::Tree,
    inbox: sled::Tree,
    cursors: sled::Tree,
    next_seq: AtomicU64,
}

/// How sled is sized on disk and in memory.
///
/// The default suits a server: 512 KiB segments, a page cache bound of a few tens of MB per
/// database. `Storage::Compact` is for the edge (a referee on a BeagleBone): 64 KiB segments and
/// a 4 MiB cache bound, so memory stays small however long the log grows. sled records the
/// segment size in the database and refuses to reopen it with another one: choose once per
/// data dir.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Storage {
    /// sled's defaults (512 KiB segments), a page cache of a few tens of MB.
    #[default]
    Server,
    /// 64 KiB segments and a 4 MiB page cache.
    Compact,
}

impl Storage {
    /// The sled configuration; `server_cache` is the page cache of the server sizing.
    pub(crate) fn config(self, server_cache: u64) -> sled::Config {
        match self {
            Storage::Server => sled::Config::new().cache_capacity(server_cache),
            Storage::Compact => sled::Config::new()
                .cache_capacity(4 << 20)
                .segment_size(64 << 10),
        }
    }
}

impl Store {
    /// Opens (or creates) the store in `dir`.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        Self::open_with(dir, Storage::default())
    }

    /// Opens (or creates) the store in `dir` with the given sled sizing.
    pub fn open_with(dir: &Path, storage: Storage) -> Result<Self, StoreError> {
        Self::with_db(open_db(storage.config(32 << 20).path(dir))?)
    }

    /// A store in a temporary directory, removed when dropped.
    pub fn temporary() -> Result<Self, StoreError> {
        Self::with_db(sled::Config::new().temporary(true).open()?)
    }

    fn with_db(db: sled::Db) -> Result<Self, StoreError> {
        let log = db.open_tree("log")?;
        let inbox = db.open_tree("inbox")?;
        let cursors = db.open_tree("cursors")?;
        let next = match log.last()? {
            Some((key, _)) => seq_of(&key)? + 1,
            None => 1,
        };
        Ok(Store {
            db,
            log,
            inbox,
            cursors,
            next_seq: AtomicU64::new(next),
        })
    }

    /// Whether an input with this deduplication key was processed.
    pub fn is_processed(&self, key: &[u8]) -> Result<bool, StoreError> {
        Ok(self.inbox.contains_key(key)?)
    }

    /// In one transaction: unless `inbox_key` is already in the inbox, append `records` and
    /// record `inbox_key`. Without a key (a timer or a local input) the records are appended.
    /// Only one task may commit to a store at a time (its host).
    pub fn commit(
        &self,
        inbox_key: Option<&[u8]>,
        records: &[LogRecord],
    ) -> Result<Commit, StoreError> {
        let first = self.next_seq.load(Ordering::SeqCst);
        let mut encoded = Vec::with_capacity(records.len());
        for record in records {
            encoded.push(serde_json::to_vec(record).map_err(|e| StoreError::Corrupt {
                seq: first,
                reason: e.to_string(),
            })?);
        }
        let result = (&self.log, &self.inbox).transaction(|(log, inbox)| {
            if let Some(key) = inbox_key {
                if inbox.get(key)?.is_some() {
                    return Err(ConflictableTransactionError::Abort(()));
                }
                inbox.insert(key, &first.to_be_bytes())?;
            }
            for (offset, bytes) in encoded.iter().enumerate() {
                log.insert(&(first + offset as u64).to_be_bytes(), bytes.as_slice())?;
            }
            Ok(())
        });
        match result {
            Ok(()) => {
                let end = first + records.len() as u64;
                self.next_seq.store(end, Ordering::SeqCst);
                Ok(Commit::Appended { first, end })
            }
            Err(TransactionError::Abort(())) => Ok(Commit::Duplicate),
            Err(TransactionError::Storage(e)) => Err(e.into()),
        }
    }

    /// Makes every commit so far durable.
    pub async fn flush(&self) -> Result<(), StoreError> {
        flush_db(&self.db).await?;
        Ok(())
    }

    /// One past the last sequence number written.
    pub fn end(&self) -> u64 {
        self.next_seq.load(Ordering::SeqCst)
    }

    /// Up to `limit` records from `from` on, in order.
    pub fn read_from(&self, from: u64, limit: usize) -> Result<Vec<(u64, LogRecord)>, StoreError> {
        self.log
            .range(from.to_be_bytes()..)
            .take(limit)
            .map(decode_entry)
            .collect()
    }

    /// Every record in order, for replay.
    pub fn replay(&self) -> impl Iterator<Item = Result<(u64, LogRecord), StoreError>> + '_ {
        self.log.iter().map(decode_entry)
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
        self.inbox.len()
    }
}

fn seq_of(bytes: &[u8]) -> Result<u64, StoreError> {
    bytes
        .try_into()
        .map(u64::from_be_bytes)
        .map_err(|_| StoreError::Corrupt {
            seq: 0,
            reason: "a key is not a sequence number".into(),
        })
}

fn decode_entry(
    item: sled::Result<(sled::IVec, sled::IVec)>,
) -> Result<(u64, LogRecord), StoreError> {
    let (key, value) = item?;
    let seq = seq_of(&key)?;
    let record = serde_json::from_slice(&value).map_err(|e| StoreError::Corrupt {
        seq,
        reason: e.to_string(),
    })?;
    Ok((seq, record))
}

/// Opens a sled database, waiting up to five seconds for its file lock while another handle
/// in this process lets go of it (a host dropped without shutdown whose last flush is still
/// running on the blocking pool). Another process holding it is still an error, after the wait.
pub(crate) fn open_db(config: sled::Config) -> sled::Result<sled::Db> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match config.open() {
            Err(sled::Error::Io(e))
                if e.kind() == std::io::ErrorKind::WouldBlock
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Makes everything written to `db` durable, without blocking the async runtime.
///
/// sled 0.34's own `flush_async` runs on sled's small I/O thread pool and deadlocks when several
/// flushes are awaited at once (spacejam/sled#1241, #1308: every pool thread waits for a write
/// that needs a pool thread). Seen here with 16 concurrent `arcade send`s; so the synchronous
/// flush runs on tokio's blocking pool instead.
pub(crate) async fn flush_db(db: &sled::Db) -> sled::Result<usize> {
    let db = db.clone();
    tokio::task::spawn_blocking(move || db.flush())
        .await
        .map_err(|e| sled::Error::ReportableBug(format!("the flush task failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(n: u32) -> LogRecord {
        LogRecord {
            envelope: Envelope {
                message_id: format!("m{n}"),
                message_type: "test.thing.happened.v1".into(),
                correlation_id: "c".into(),
                causation_id: None,
                producer: "test".into(),
                occurred_at: "2026-11-29T12:00:00.000Z".into(),
                payload: serde_json::json!({ "n": n }),
            },
            queue: None,
            traceparent: None,
        }
    }

    #[test]
    fn a_compact_store_keeps_its_log_and_cannot_be_reopened_with_another_sizing() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open_with(dir.path(), Storage::Compact).unwrap();
            store
                .commit(Some(b"in-1"), &[record(1), record(2)])
                .unwrap();
            store.db.flush().unwrap();
        }
        let store = Store::open_with(dir.path(), Storage::Compact).unwrap();
        assert_eq!(store.end(), 3, "the log survives a reopen");
        drop(store);
        let Err(error) = Store::open(dir.path()) else {
            panic!("a store made with another segment size must be refused")
        };
        assert!(error.to_string().contains("io buffer size"), "{error}");
    }

    #[test]
    fn a_processed_input_appends_nothing_the_second_time() {
        let store = Store::temporary().unwrap();
        assert_eq!(
            store
                .commit(Some(b"in-1"), &[record(1), record(2)])
                .unwrap(),
            Commit::Appended { first: 1, end: 3 }
        );
        assert_eq!(
            store.commit(Some(b"in-1"), &[record(9)]).unwrap(),
            Commit::Duplicate
        );
        assert_eq!(
            store.commit(None, &[record(3)]).unwrap(),
            Commit::Appended { first: 3, end: 4 }
        );
        let all: Vec<u64> = store.replay().map(|r| r.unwrap().0).collect();
        assert_eq!(all, vec![1, 2, 3]);
        assert_eq!(store.read_from(2, 10).unwrap()[0].1, record(2));
        assert!(store.is_processed(b"in-1").unwrap());
        assert!(!store.is_processed(b"in-2").unwrap());
    }

    #[tokio::test]
    async fn log_cursors_and_inbox_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            store.commit(Some(b"a"), &[record(1)]).unwrap();
            store.set_cursor("relay", 2).unwrap();
            store.flush().await.unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.end(), 2);
        assert_eq!(store.cursor("relay").unwrap(), 2);
        assert_eq!(store.cursor("other").unwrap(), 0);
        assert_eq!(
            store.commit(Some(b"a"), &[record(1)]).unwrap(),
            Commit::Duplicate
        );
    }
}
