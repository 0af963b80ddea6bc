//! Reading a stopped service's store from another process, for operators (`arcade log`): its
//! log from any sequence number, a check of every log chunk and snapshot, and its figures.
//!
//! [`Inspect::open`] never creates a store (a directory without a database is refused), takes
//! no lock wait (a store held by a running process is [`StoreError::InUse`] at once), and
//! writes nothing: no cursor, no inbox pruning, no tree created. sled's own recovery on open is
//! the same one a start runs.

use std::path::{Path, PathBuf};

use super::inbox::{Inbox, LOG_END};
use super::{LogRecord, Storage, StoreError, chunk, seq_of, snapshot};

/// A service's store opened to be read.
#[derive(Debug)]
pub struct Inspect {
    db: sled::Db,
    dir: PathBuf,
}

/// One damaged thing found by [`Inspect::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// `log` or `snapshot`.
    pub kind: &'static str,
    /// The log entry's sequence number (the first unreadable record of a chunk), or the entry
    /// the snapshot covers; `None` when it is not known (a key that is not a sequence number).
    pub seq: Option<u64>,
    /// What is wrong.
    pub reason: String,
}

/// What [`Inspect::verify`] read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verified {
    /// Log chunks read.
    pub chunks: u64,
    /// Records read back whole.
    pub records: u64,
    /// Snapshots read.
    pub snapshots: u64,
    /// Everything damaged, in the order found.
    pub damage: Vec<Damage>,
}

/// A store's figures (see [`Inspect::stats`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Records in the log.
    pub events: u64,
    /// The first sequence number the log still has (1 unless retention pruned its front).
    pub first: u64,
    /// One past the last sequence number.
    pub end: u64,
    /// Bytes of the store's files on disk.
    pub bytes_on_disk: u64,
    /// The newest snapshot: the entry it covers and when it was taken (ms since the epoch);
    /// `None` when there is none or the newest is unreadable.
    pub snapshot: Option<(u64, u64)>,
    /// Keys the inbox remembers.
    pub inbox_keys: u64,
    /// The relay cursor: the next entry to publish (0: never set).
    pub relay_cursor: u64,
    /// Entries not yet published: the log's end minus the relay cursor.
    pub backlog: u64,
}

/// Whether sled failed to open a database because another handle holds its file lock. sled
/// 0.34 reports it as an `Other` I/O error whose text names the lock and the OS's `WouldBlock`
/// (`config.rs`); a `WouldBlock` error is taken as it too.
pub(crate) fn lock_held(error: &sled::Error) -> bool {
    match error {
        sled::Error::Io(e) => {
            e.kind() == std::io::ErrorKind::WouldBlock || {
                let text = e.to_string();
                text.starts_with("could not acquire lock on") && text.contains("WouldBlock")
            }
        }
        _ => false,
    }
}

/// [`StoreError::InUse`] for a held lock, else the sled error.
pub(super) fn in_use(dir: &Path, error: sled::Error) -> StoreError {
    if lock_held(&error) {
        StoreError::InUse {
            path: dir.to_path_buf(),
        }
    } else {
        StoreError::Sled(error)
    }
}

impl Inspect {
    /// Opens the store in `dir` (`DATA/<service>`) to read it, whatever its sizing.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        if !dir.join("db").is_file() {
            return Err(StoreError::NotAStore {
                path: dir.to_path_buf(),
            });
        }
        let db = match Storage::Server.config(8 << 20).path(dir).open() {
            // sled refuses a database made with another segment size: the edge's.
            Err(sled::Error::Unsupported(_)) => Storage::Compact.config(0).path(dir).open(),
            other => other,
        }
        .map_err(|e| in_use(dir, e))?;
        Ok(Inspect {
            db,
            dir: dir.to_path_buf(),
        })
    }

    fn tree(&self, name: &str) -> Result<Option<sled::Tree>, StoreError> {
        if self
            .db
            .tree_names()
            .iter()
            .any(|n| n.as_ref() == name.as_bytes())
        {
            Ok(Some(self.db.open_tree(name)?))
        } else {
            Ok(None)
        }
    }

    /// The first sequence number the log still has: the cursor `log_start` retention keeps
    /// (1 when nothing was pruned).
    pub fn first(&self) -> Result<u64, StoreError> {
        Ok(match self.tree("cursors")? {
            Some(cursors) => match cursors.get(super::retention::LOG_START)? {
                Some(v) => seq_of(&v)?.max(1),
                None => 1,
            },
            None => 1,
        })
    }

    /// Up to `limit` records from `from` on, in order.
    pub fn read_from(&self, from: u64, limit: usize) -> Result<Vec<(u64, LogRecord)>, StoreError> {
        let Some(log) = self.tree("log")? else {
            return Ok(Vec::new());
        };
        let from_key = from.to_be_bytes();
        let start = match log.range(..=from_key).next_back() {
            Some(item) => item?.0,
            None => sled::IVec::from(&from_key),
        };
        let mut out = Vec::new();
        for item in log.range(start.as_ref()..LOG_END) {
            if out.len() >= limit {
                break;
            }
            let (key, value) = item?;
            let wanted = limit - out.len();
            out.extend(
                chunk::decode(&key, &value)?
                    .into_iter()
                    .filter(|(seq, _)| *seq >= from)
                    .take(wanted),
            );
        }
        Ok(out)
    }

    /// Reads every log chunk and every snapshot and reports what is damaged: a chunk that does
    /// not decode, a gap or overlap between chunks, a snapshot whose frame fails its checks or
    /// that covers entries beyond the log.
    pub fn verify(&self) -> Result<Verified, StoreError> {
        let mut out = Verified::default();
        // The front retention pruned is not damage; a gap after it is.
        let start = self.first()?;
        let mut end = start;
        if let Some(log) = self.tree("log")? {
            let mut expected: Option<u64> = Some(start);
            for item in log.range(..LOG_END) {
                let (key, value) = item?;
                out.chunks += 1;
                let first = match seq_of(&key) {
                    Ok(first) => first,
                    Err(_) => {
                        out.damage.push(Damage {
                            kind: "log",
                            seq: expected,
                            reason: format!(
                                "a key of {} bytes is not a sequence number",
                                key.len()
                            ),
                        });
                        continue;
                    }
                };
                if let Some(expected) = expected
                    && expected != first
                    // A chunk before the start: one a crash kept while it was being pruned.
                    && first >= start
                {
                    out.damage.push(Damage {
                        kind: "log",
                        seq: Some(expected.min(first)),
                        reason: format!(
                            "the log jumps from entry {} to entry {first}",
                            expected - 1
                        ),
                    });
                }
                match chunk::decode(&key, &value) {
                    Ok(records) => {
                        out.records += records.len() as u64;
                        let next = first + records.len() as u64;
                        expected = Some(expected.map_or(next, |e| e.max(next)));
                        end = end.max(next);
                    }
                    Err(StoreError::Corrupt { seq, reason }) => {
                        out.damage.push(Damage {
                            kind: "log",
                            seq: Some(seq),
                            reason,
                        });
                        // The chunk's length is unknown: the next one is taken as it comes.
                        expected = None;
                        end = end.max(first + 1);
                    }
                    Err(other) => return Err(other),
                }
            }
        }
        if let Some(tree) = self.tree("snapshots")? {
            for item in tree.iter() {
                let (key, bytes) = item?;
                out.snapshots += 1;
                let Ok(seq) = seq_of(&key) else {
                    out.damage.push(Damage {
                        kind: "snapshot",
                        seq: None,
                        reason: format!("a key of {} bytes is not a sequence number", key.len()),
                    });
                    continue;
                };
                match snapshot::parse(&snapshot::Stored { seq, bytes }, None) {
                    Ok(frame) if frame.seq >= end => out.damage.push(Damage {
                        kind: "snapshot",
                        seq: Some(seq),
                        reason: format!("it covers entry {seq}, beyond the log's end {end}"),
                    }),
                    Ok(_) => {}
                    Err(e) => out.damage.push(Damage {
                        kind: "snapshot",
                        seq: Some(seq),
                        reason: e.to_string(),
                    }),
                }
            }
        }
        Ok(out)
    }

    /// The store's figures. The log's records are counted by decoding its chunks (a damaged
    /// one is an error: see [`Inspect::verify`]).
    pub fn stats(&self) -> Result<Stats, StoreError> {
        let mut events = 0;
        let first = self.first()?;
        let mut end = first;
        let mut inbox_keys = 0;
        if let Some(log) = self.tree("log")? {
            for item in log.range(..LOG_END) {
                let (key, value) = item?;
                let records = chunk::decode(&key, &value)?;
                events += records.len() as u64;
                if let Some((seq, _)) = records.last() {
                    end = end.max(seq + 1);
                }
            }
            let legacy = self.tree("inbox")?;
            let inbox = Inbox::load(&log, legacy.as_ref(), crate::clock::Clock::system())?;
            inbox_keys = inbox.len() as u64;
        }
        let snapshot = match self.tree("snapshots")? {
            Some(tree) => match tree.iter().next_back().transpose()? {
                Some((key, bytes)) => {
                    let seq = seq_of(&key)?;
                    snapshot::parse(&snapshot::Stored { seq, bytes }, None)
                        .ok()
                        .map(|frame| (frame.seq, frame.taken_ms))
                }
                None => None,
            },
            None => None,
        };
        let relay_cursor = match self.tree("cursors")? {
            Some(cursors) => match cursors.get(crate::store::RELAY_CURSOR)? {
                Some(v) => seq_of(&v)?,
                None => 0,
            },
            None => 0,
        };
        Ok(Stats {
            events,
            first,
            end,
            bytes_on_disk: dir_bytes(&self.dir).map_err(sled::Error::Io)?,
            snapshot,
            inbox_keys,
            relay_cursor,
            backlog: end.saturating_sub(relay_cursor.max(1)),
        })
    }
}

/// Bytes of the files under `dir`.
fn dir_bytes(dir: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += if meta.is_dir() {
            dir_bytes(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn record(n: u32) -> LogRecord {
        LogRecord {
            envelope: arcade_contracts::Envelope {
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

    #[tokio::test]
    async fn a_stopped_store_reads_verifies_and_counts_and_a_held_one_is_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc");
        assert!(matches!(
            Inspect::open(&path),
            Err(StoreError::NotAStore { .. })
        ));
        assert!(!path.exists(), "opening to read creates nothing");
        {
            let store = Store::open(&path).unwrap();
            store.commit(Some(b"a"), &[record(1), record(2)]).unwrap();
            store.commit(Some(b"b"), &[record(3)]).unwrap();
            store.set_cursor(crate::store::RELAY_CURSOR, 2).unwrap();
            store
                .write_snapshot(2, snapshot::encode(1, 2, 1_000, &[], b"s"))
                .unwrap();
            store.flush().await.unwrap();
            let held = Inspect::open(&path).unwrap_err();
            assert!(matches!(held, StoreError::InUse { .. }), "{held}");
            assert!(held.to_string().contains("in use by a running process"));
        }
        let inspect = Inspect::open(&path).unwrap();
        let seqs: Vec<u64> = inspect
            .read_from(2, 10)
            .unwrap()
            .iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(seqs, vec![2, 3]);
        let stats = inspect.stats().unwrap();
        assert_eq!(
            (
                stats.events,
                stats.end,
                stats.inbox_keys,
                stats.relay_cursor,
                stats.backlog
            ),
            (3, 4, 2, 2, 2)
        );
        assert_eq!(stats.snapshot, Some((2, 1_000)));
        assert!(stats.bytes_on_disk > 0);
        let verified = inspect.verify().unwrap();
        assert_eq!((verified.records, verified.snapshots), (3, 1));
        assert!(verified.damage.is_empty(), "{:?}", verified.damage);
        let log = inspect.db.open_tree("log").unwrap();
        let (key, value) = log.iter().next().unwrap().unwrap();
        let mut bad = value.to_vec();
        bad[0] ^= 0x40;
        log.insert(key, bad).unwrap();
        let snaps = inspect.db.open_tree("snapshots").unwrap();
        let (key, value) = snaps.iter().next().unwrap().unwrap();
        let mut bad = value.to_vec();
        let at = bad.len() - 1;
        bad[at] ^= 1;
        snaps.insert(key, bad).unwrap();
        snaps.insert(b"odd", b"x".to_vec()).unwrap();
        let damage = inspect.verify().unwrap().damage;
        assert_eq!(
            damage.iter().map(|d| (d.kind, d.seq)).collect::<Vec<_>>(),
            vec![("log", Some(1)), ("snapshot", Some(2)), ("snapshot", None)],
            "{damage:?}"
        );
        assert_eq!(
            damage[2].reason, "a key of 3 bytes is not a sequence number",
            "a damage whose entry is not known says no entry"
        );
    }
}
