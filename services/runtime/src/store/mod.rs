//! A service's own sled database: the event **log** (seq-ordered envelopes), the **inbox** of
//! processed message ids, and persisted **cursors** (how far the relay has published).
//!
//! The host decides a batch of inputs into a [`Pending`] group, then commits the group
//! atomically: every input's events are appended and every input's id is recorded, or nothing
//! is. Durability comes from [`Store::flush`], called once per batch before the batch's inputs
//! are acked (group commit).
//!
//! Layout: one sled tree, `log`, holds the log in chunks (`chunk.rs`: sled pays per entry, and
//! many times per byte) under 8-byte sequence numbers, then the inbox (`inbox.rs`: one entry of
//! digests per group, all of them also in memory), so that a group is one atomic `sled::Batch`
//! on one tree.

mod chunk;
mod inbox;
mod inspect;
mod stable;

pub use self::inspect::{Damage, Inspect, Stats, Verified};

pub(crate) use self::stable::Stable;
pub use self::stable::{SyncCount, fail_syncs, syncs};
pub mod snapshot;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arcade_contracts::Envelope;
use serde::{Deserialize, Serialize};

use self::inbox::{ANY_BODY, Entries, Inbox, LOG_END, digest};
pub use self::inbox::{
    DEFAULT_WINDOW as DEFAULT_DEDUPE_WINDOW, parse_window as parse_dedupe_window,
};
pub use self::inbox::{Seen, body_digest};

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
    /// An input was processed before: nothing was written.
    Duplicate,
}

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

/// The newest records, kept decoded for the relay, which reads right behind the host: most
/// reads then cost no sled lookup and no JSON. Bounded; older reads go to sled.
#[derive(Debug)]
struct Tail {
    /// Sequence number of `records[0]`.
    first: u64,
    records: VecDeque<Arc<LogRecord>>,
    capacity: usize,
}

impl Tail {
    fn new(end: u64, capacity: usize) -> Self {
        Tail {
            first: end,
            records: VecDeque::new(),
            capacity,
        }
    }

    fn append(&mut self, records: Vec<LogRecord>) {
        self.records.extend(records.into_iter().map(Arc::new));
        let over = self.records.len().saturating_sub(self.capacity);
        self.records.drain(..over);
        self.first += over as u64;
    }

    /// Up to `limit` records from `from`, if the tail holds `from`.
    fn read(&self, from: u64, limit: usize) -> Option<Vec<(u64, Arc<LogRecord>)>> {
        let skip = usize::try_from(from.checked_sub(self.first)?).ok()?;
        if skip >= self.records.len() {
            return None;
        }
        Some(
            self.records
                .iter()
                .skip(skip)
                .take(limit)
                .enumerate()
                .map(|(i, r)| (from + i as u64, r.clone()))
                .collect(),
        )
    }
}

/// Inputs decided but not yet committed: their inbox keys and the records of their events, in
/// order. Built by the host during a batch, committed at its end by [`Store::commit_pending`].
#[derive(Debug)]
pub struct Pending {
    first: u64,
    digests: Entries,
    records: Vec<LogRecord>,
}

impl Pending {
    /// Whether an input with this key is in the group.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.digests.contains_key(&digest(key))
    }

    /// What the group knows of an input: its key and the digest of its body
    /// ([`body_digest`]); see [`Store::seen`].
    pub fn seen(&self, key: &[u8], body: u64) -> Seen {
        inbox::seen(&self.digests, digest(key), None, body)
    }

    /// Adds an input's records, and its inbox key if it came from the bus (any body
    /// deduplicates against it: prefer [`Pending::add_input`]).
    pub fn add(&mut self, inbox_key: Option<&[u8]>, records: Vec<LogRecord>) {
        if let Some(key) = inbox_key {
            self.digests.insert(digest(key), ANY_BODY);
        }
        self.records.extend(records);
    }

    /// Adds the records of an input from the bus, its inbox key and its body's digest.
    pub fn add_input(&mut self, inbox_key: &[u8], body: u64, records: Vec<LogRecord>) {
        self.digests.insert(digest(inbox_key), body);
        self.records.extend(records);
    }

    /// Whether there is nothing to commit.
    pub fn is_empty(&self) -> bool {
        self.digests.is_empty() && self.records.is_empty()
    }
}

/// A flush of a sled database under way: it resolves when everything written to the database
/// before it started is durable — on stable storage, as `fdatasync` defines it: sled's flush,
/// then [`Stable::sync`] (`stable.rs` says what sled leaves unsynced and what is guaranteed).
/// Every commit path of every store (a host's batch, a store's flush, a publication to the
/// embedded bus, its close) goes through [`Flush::start`].
///
/// sled 0.34's own `flush_async` runs on sled's small I/O thread pool and deadlocks when several
/// flushes are awaited at once (spacejam/sled#1241, #1308: every pool thread waits for a write
/// that needs a pool thread). Seen here with 16 concurrent `arcade send`s; so the synchronous
/// flush runs on tokio's blocking pool instead, without blocking the async runtime.
#[derive(Debug)]
pub struct Flush(tokio::task::JoinHandle<sled::Result<usize>>);

impl Flush {
    /// Starts flushing `db` and syncing it to stable storage.
    pub(crate) fn start(db: &sled::Db, stable: &Arc<Stable>) -> Self {
        let db = db.clone();
        let stable = stable.clone();
        Flush(tokio::task::spawn_blocking(move || {
            let flushed = db.flush()?;
            stable.sync()?;
            Ok(flushed)
        }))
    }
}

impl std::future::Future for Flush {
    type Output = sled::Result<()>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0)
            .poll(cx)
            .map(|joined| match joined {
                Ok(flushed) => flushed.map(|_| ()),
                Err(e) => Err(sled::Error::ReportableBug(format!(
                    "the flush task failed: {e}"
                ))),
            })
    }
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

    /// How many of the newest records the store keeps decoded for the relay.
    fn tail_records(self) -> usize {
        match self {
            Storage::Server => 4096,
            Storage::Compact => 64,
        }
    }

    /// The largest chunk of the log or of a queue, before compression (see [`crate::chunk`]).
    /// A server's batches of a few hundred events fit one or two chunks; measured with the
    /// pipeline bench, 16 KiB to 256 KiB, 128 KiB was the fastest. The edge commits a handful of
    /// small events at a time and keeps its sled leaves small.
    pub(crate) fn chunk_bytes(self) -> usize {
        match self {
            Storage::Server => 128 << 10,
            Storage::Compact => 8 << 10,
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
        let db =
            open_db(storage.config(32 << 20).path(dir)).map_err(|e| inspect::in_use(dir, e))?;
        let stable = Stable::open(dir).map_err(sled::Error::Io)?;
        Self::with_db(db, stable, storage)
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
        Ok(Store {
            db,
            stable: Arc::new(stable),
            log,
            inbox: Mutex::new(inbox),
            cursors,
            next_seq: AtomicU64::new(next),
            chunk_bytes: storage.chunk_bytes(),
            tail: Mutex::new(Tail::new(next, storage.tail_records())),
        })
    }

    /// Whether an input with this deduplication key was processed.
    pub fn is_processed(&self, key: &[u8]) -> Result<bool, StoreError> {
        Ok(self.inbox().contains(digest(key)))
    }

    /// What the inbox knows of an input: its deduplication key, the key it had before keys
    /// were scoped by sender (`legacy`), and the digest of its body ([`body_digest`]).
    pub fn seen(&self, key: &[u8], legacy: Option<&[u8]>, body: u64) -> Seen {
        self.inbox().seen(digest(key), legacy.map(digest), body)
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
    /// Only one task may commit to a store at a time (its host).
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
        let mut inbox = self.inbox();
        let expired = inbox.expired();
        if expired.is_empty() {
            return Ok(0);
        }
        let mut batch = sled::Batch::default();
        for key in &expired {
            batch.remove(key.as_slice());
        }
        self.log.apply_batch(batch)?;
        let before = inbox.len();
        inbox.pruned(expired.len());
        Ok(before - inbox.len())
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

/// Opens a sled database, waiting up to five seconds for its file lock while another handle
/// lets go of it (a host dropped without shutdown whose last flush is still running on the
/// blocking pool; `arcade log --follow` reading between its looks). Another process holding it
/// is still an error, after the wait.
pub(crate) fn open_db(config: sled::Config) -> sled::Result<sled::Db> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match config.open() {
            Err(e) if inspect::lock_held(&e) && std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
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
                sender: None,
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

    #[test]
    fn a_batch_is_split_into_chunks_and_read_back_from_any_sequence_number() {
        let store = Store::temporary().unwrap();
        let mut pending = store.pending();
        let records: Vec<LogRecord> = (1..=2000).map(record).collect();
        pending.add(Some(b"in-1"), records[..100].to_vec());
        pending.add(Some(b"in-2"), records[100..].to_vec());
        assert!(pending.contains(b"in-2") && !pending.contains(b"in-3"));
        assert_eq!(
            store.commit_pending(pending).unwrap(),
            Commit::Appended {
                first: 1,
                end: 2001
            }
        );
        assert!(
            store.log.len() > 1,
            "2,000 records of ~250 bytes exceed one 128 KiB chunk"
        );
        assert!(store.is_processed(b"in-1").unwrap() && store.is_processed(b"in-2").unwrap());
        for from in [1, 2, 57, 150, 1999, 2000] {
            let read = store.read_from(from, 7).unwrap();
            let expected: Vec<(u64, LogRecord)> = (from..=2000)
                .take(7)
                .map(|seq| (seq, record(seq as u32)))
                .collect();
            assert_eq!(read, expected, "from {from}");
        }
        assert!(store.read_from(2001, 10).unwrap().is_empty());
        let replayed: Vec<u64> = store.replay().map(|r| r.unwrap().0).collect();
        assert_eq!(replayed, (1..=2000).collect::<Vec<_>>());
        // A group started before another commit is refused, not appended at the wrong place.
        let stale = store.pending();
        store.commit(None, &[record(2001)]).unwrap();
        let mut stale = stale;
        stale.add(None, vec![record(999)]);
        assert!(store.commit_pending(stale).is_err());
        assert_eq!(store.end(), 2002);
    }

    #[test]
    fn a_log_written_one_record_per_entry_is_still_read() {
        let dir = tempfile::tempdir().unwrap();
        {
            // The format before chunks: one JSON record per entry, keyed by its seq.
            let db = sled::open(dir.path()).unwrap();
            let log = db.open_tree("log").unwrap();
            for seq in 1..=3u64 {
                let json = serde_json::to_vec(&record(seq as u32)).unwrap();
                log.insert(seq.to_be_bytes(), json).unwrap();
            }
            db.flush().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.end(), 4);
        store.commit(Some(b"new"), &[record(4), record(5)]).unwrap();
        let all: Vec<(u64, LogRecord)> = store.replay().map(|r| r.unwrap()).collect();
        assert_eq!(
            all,
            (1..=5).map(|s| (s, record(s as u32))).collect::<Vec<_>>()
        );
        assert_eq!(store.read_from(3, 2).unwrap()[1].0, 4);
    }

    #[test]
    fn a_damaged_entry_is_reported_with_its_sequence_number() {
        let store = Store::temporary().unwrap();
        store
            .log
            .insert(7u64.to_be_bytes(), crate::chunk::seal(&[9, 0, 0, 0, b'{']))
            .unwrap();
        let error = store.read_from(1, 10).unwrap_err().to_string();
        assert!(
            error.contains("log entry 7") && error.contains("inside a record"),
            "{error}"
        );
        store.log.insert(8u64.to_be_bytes(), &[0x7f]).unwrap();
        let error = store.replay().last().unwrap().unwrap_err().to_string();
        assert!(
            error.contains("log entry 8") && error.contains("0x7f"),
            "{error}"
        );
    }

    #[test]
    fn shared_reads_match_the_log_whether_from_memory_or_from_sled() {
        let store = Store::temporary().unwrap();
        for batch in 0..12u32 {
            let records: Vec<LogRecord> =
                (batch * 500 + 1..=batch * 500 + 500).map(record).collect();
            store.commit(None, &records).unwrap();
        }
        // 6,000 records; the newest 4,096 are in memory, the older ones only in sled.
        for from in [1, 1500, 1904, 1905, 1906, 5000, 6000] {
            let shared: Vec<(u64, LogRecord)> = store
                .read_shared(from, 300)
                .unwrap()
                .into_iter()
                .map(|(seq, r)| (seq, (*r).clone()))
                .collect();
            assert_eq!(shared, store.read_from(from, 300).unwrap(), "from {from}");
            assert_eq!(shared[0], (from, record(from as u32)));
        }
        assert!(store.read_shared(6001, 10).unwrap().is_empty());
    }

    #[test]
    fn an_inbox_kept_in_its_own_tree_is_still_consulted() {
        let dir = tempfile::tempdir().unwrap();
        {
            // Before the inbox moved into the log tree it had a tree of its own.
            let db = sled::open(dir.path()).unwrap();
            db.open_tree("inbox")
                .unwrap()
                .insert(b"old-input", &1u64.to_be_bytes())
                .unwrap();
            db.flush().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        assert!(store.is_processed(b"old-input").unwrap());
        assert_eq!(
            store.commit(Some(b"old-input"), &[record(1)]).unwrap(),
            Commit::Duplicate
        );
        store.commit(Some(b"new-input"), &[record(1)]).unwrap();
        assert!(store.is_processed(b"new-input").unwrap());
        assert_eq!(store.inbox_len(), 2);
        let fresh = Store::temporary().unwrap();
        assert!(
            !fresh.db.tree_names().iter().any(|n| n.as_ref() == b"inbox"),
            "a new store makes no inbox tree"
        );
    }
}
