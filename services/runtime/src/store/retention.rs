//! Log retention: the chunks of the log a service no longer needs are removed, whole, from the
//! front of the log, archived first when an archive directory is set.
//!
//! A chunk may go when every record in it is
//! - covered by a snapshot this build decodes (the oldest of the kept ones that does, so that
//!   the fallback snapshot can still be restored too),
//! - behind the relay cursor (published), and
//! - older than the history kept (`--log-history`, default [`DEFAULT_HISTORY`]), by the
//!   `occurred_at` of its last record (the host's clock when it was decided).
//!
//! The first sequence number still in the log is kept as the cursor [`LOG_START`], written
//! before the chunks are removed, so that a reader tells a pruned front from a damaged log. A
//! store without that cursor (every store before retention) starts at 1.
//!
//! An archive is one gzip'd file of JSON lines per pruned range, named
//! `<service>-<first seq>-<last seq>.jsonl.gz` (zero-padded, so names sort in log order); each
//! line is `{"seq": N, "envelope": …, "queue": …, "traceparent": …}` (the last two when set),
//! which `arcade log --archive FILE` prints again. It is written to a temporary name, synced
//! and renamed before the chunks are removed: a crash leaves the chunks (pruned again later,
//! into a file of the same or a longer range) or the archive and a removal to redo, never a
//! lost record.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::inbox::LOG_END;
use super::{LogRecord, Store, StoreError, chunk, seq_of, snapshot};
use crate::duration::{DurationSyntax, UP_TO_DAYS};

/// How long the log keeps records beyond what the state needs: 120 days, a season of weekly
/// bar nights (September to Christmas, or January to Easter) with its finals, so that a
/// season's games can be read back with `arcade log` until the next one starts.
pub const DEFAULT_HISTORY: Duration = Duration::from_secs(120 * 24 * 3600);

/// The cursor holding the first sequence number the log still has (absent: 1).
pub const LOG_START: &str = "log_start";

/// At most this many chunks are pruned in one pass (a few MB at a time; the pruner goes on
/// until nothing more is due).
const CHUNKS_PER_PASS: usize = 256;

/// How `--log-history` writes a duration.
const HISTORY: DurationSyntax = DurationSyntax {
    units: UP_TO_DAYS,
    examples: "120d or 36h",
    off: true,
};

/// Reads a log history setting: a whole number and a unit (`120d`, `36h`); `off` (or `0`): the
/// log is kept whole (`None`).
pub fn parse_history(text: &str) -> Result<Option<Duration>, String> {
    let history = HISTORY.parse(text)?;
    Ok((!history.is_zero()).then_some(history))
}

/// How a service's log is kept: how much history beyond what its state needs, and where the
/// pruned records go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retention {
    /// History kept (`None`: the whole log is kept).
    pub history: Option<Duration>,
    /// Where pruned records are archived (`None`: they are dropped).
    pub archive: Option<PathBuf>,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            history: Some(DEFAULT_HISTORY),
            archive: None,
        }
    }
}

impl Retention {
    /// The whole log kept.
    pub const KEEP_ALL: Retention = Retention {
        history: None,
        archive: None,
    };
}

/// What may be pruned: records below `below` (by seq) in chunks whose last record occurred
/// before `before_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// One past the last record that may go (from [`Store::safe_end`]).
    pub below: u64,
    /// Only chunks whose last record occurred before this (ms since the epoch) go.
    pub before_ms: u64,
}

/// What one pass removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// The first record removed.
    pub first: u64,
    /// One past the last record removed: the log's new start.
    pub end: u64,
    /// Chunks removed.
    pub chunks: usize,
    /// The archive file written, when archiving.
    pub archive: Option<PathBuf>,
}

/// One line of an archive file.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    seq: u64,
    #[serde(flatten)]
    record: LogRecord,
}

/// The file name of the archive of `service`'s records `first..=last`.
pub fn archive_name(service: &str, first: u64, last: u64) -> String {
    format!("{service}-{first:012}-{last:012}.jsonl.gz")
}

fn occurred_ms(record: &LogRecord) -> Option<u64> {
    chrono::DateTime::parse_from_rfc3339(&record.envelope.occurred_at)
        .ok()
        .and_then(|t| u64::try_from(t.timestamp_millis()).ok())
}

fn archive_error(path: &Path, reason: impl std::fmt::Display) -> StoreError {
    StoreError::Archive {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

/// An archive being written under a temporary name.
struct Writer {
    tmp: PathBuf,
    out: flate2::write::GzEncoder<BufWriter<std::fs::File>>,
}

impl Writer {
    fn create(dir: &Path, service: &str) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| archive_error(dir, e))?;
        let tmp = dir.join(format!(".{service}.jsonl.gz.tmp"));
        let file = std::fs::File::create(&tmp).map_err(|e| archive_error(&tmp, e))?;
        Ok(Writer {
            out: flate2::write::GzEncoder::new(
                BufWriter::new(file),
                flate2::Compression::default(),
            ),
            tmp,
        })
    }

    fn write(&mut self, seq: u64, record: LogRecord) -> Result<(), StoreError> {
        serde_json::to_writer(&mut self.out, &Line { seq, record })
            .map_err(|e| archive_error(&self.tmp, e))?;
        self.out
            .write_all(b"\n")
            .map_err(|e| archive_error(&self.tmp, e))
    }

    /// Finishes, syncs and renames the file to `name`.
    fn finish(self, name: &str) -> Result<PathBuf, StoreError> {
        let tmp = self.tmp;
        let file = self
            .out
            .finish()
            .and_then(|w| w.into_inner().map_err(|e| e.into_error()))
            .map_err(|e| archive_error(&tmp, e))?;
        file.sync_all().map_err(|e| archive_error(&tmp, e))?;
        let dir = tmp.parent().unwrap_or(Path::new("."));
        let path = dir.join(name);
        std::fs::rename(&tmp, &path).map_err(|e| archive_error(&path, e))?;
        if let Ok(dir) = std::fs::File::open(dir) {
            // The rename is durable with the directory (not possible everywhere: best effort).
            let _ = dir.sync_all();
        }
        Ok(path)
    }
}

/// Reads an archive file back: its records with their sequence numbers, in the file's order.
pub fn read_archive(path: &Path) -> Result<Vec<(u64, LogRecord)>, StoreError> {
    let file = std::fs::File::open(path).map_err(|e| archive_error(path, e))?;
    let reader = BufReader::new(flate2::read::MultiGzDecoder::new(BufReader::new(file)));
    let mut out = Vec::new();
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| archive_error(path, format!("line {}: {e}", n + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let Line { seq, record } = serde_json::from_str(&line)
            .map_err(|e| archive_error(path, format!("line {}: {e}", n + 1)))?;
        out.push((seq, record));
    }
    Ok(out)
}

impl Store {
    /// The first sequence number the log still has (1 when nothing was ever pruned).
    pub fn first(&self) -> Result<u64, StoreError> {
        Ok(self.cursor(LOG_START)?.max(1))
    }

    /// One past the last record retention may remove: what the oldest snapshot that
    /// `decodes` (of those kept) covers, and what the relay published. With no snapshot that
    /// decodes, the log's start: nothing may go.
    pub fn safe_end(&self, decodes: impl Fn(&snapshot::Frame) -> bool) -> Result<u64, StoreError> {
        let end = self.end();
        let covered = self
            .snapshots()?
            .iter()
            .filter_map(|stored| snapshot::parse(stored, None).ok())
            .filter(|frame| frame.seq < end && decodes(frame))
            .map(|frame| frame.seq)
            .min();
        let first = self.first()?;
        let Some(covered) = covered else {
            return Ok(first);
        };
        let published = self.cursor(super::RELAY_CURSOR)?.max(1);
        Ok((covered + 1).min(published).max(first))
    }

    /// Whether the oldest chunk of the log could go under `limits` (a cheap look before the
    /// snapshots are decoded for [`Store::safe_end`]).
    pub fn oldest_chunk_due(&self, limits: Limits) -> Result<bool, StoreError> {
        let Some(item) = self.log.range(..LOG_END).next() else {
            return Ok(false);
        };
        let (key, value) = item?;
        Ok(chunk_due(&chunk::decode(&key, &value)?, limits))
    }

    /// Prunes everything due now: the chunks before what the oldest snapshot that `decodes`
    /// covers and the relay published (and before `cap`, when given), whose records occurred
    /// before `before_ms`, archived into `archive` when given. The snapshots are decoded only
    /// when the oldest chunk is due by the cheaper tests.
    pub fn apply_retention(
        &self,
        service: &str,
        before_ms: u64,
        cap: Option<u64>,
        archive: Option<&Path>,
        decodes: impl Fn(&snapshot::Frame) -> bool,
    ) -> Result<Vec<Pruned>, StoreError> {
        let published = self.cursor(super::RELAY_CURSOR)?.max(1);
        let cap = cap.unwrap_or(u64::MAX);
        let cheap = Limits {
            below: self.end().min(published).min(cap),
            before_ms,
        };
        if !self.oldest_chunk_due(cheap)? {
            return Ok(Vec::new());
        }
        let limits = Limits {
            below: self.safe_end(decodes)?.min(cap),
            before_ms,
        };
        let mut done = Vec::new();
        while let Some(pruned) = self.prune_log(service, limits, archive)? {
            done.push(pruned);
        }
        Ok(done)
    }

    /// Removes from the front of the log the whole chunks `limits` allow, at most a few
    /// hundred at a time, archiving them first into `archive` (a directory) when one is given.
    /// Durable with the next flush. `None` when nothing was due.
    pub fn prune_log(
        &self,
        service: &str,
        limits: Limits,
        archive: Option<&Path>,
    ) -> Result<Option<Pruned>, StoreError> {
        let mut writer = None;
        let mut keys = Vec::new();
        let mut range: Option<(u64, u64)> = None;
        for item in self.log.range(..LOG_END) {
            if keys.len() >= CHUNKS_PER_PASS {
                break;
            }
            let (key, value) = item?;
            let records = chunk::decode(&key, &value)?;
            if !chunk_due(&records, limits) {
                break;
            }
            let first = seq_of(&key)?;
            let last = records.last().map_or(first, |(seq, _)| *seq);
            range = Some((range.map_or(first, |(f, _)| f), last));
            if let Some(dir) = archive {
                if writer.is_none() {
                    writer = Some(Writer::create(dir, service)?);
                }
                if let Some(writer) = writer.as_mut() {
                    for (seq, record) in records {
                        writer.write(seq, record)?;
                    }
                }
            }
            keys.push(key);
        }
        let Some((first, last)) = range else {
            return Ok(None);
        };
        let archived = match writer {
            Some(writer) => Some(writer.finish(&archive_name(service, first, last))?),
            None => None,
        };
        self.set_cursor(LOG_START, last + 1)?;
        let mut batch = sled::Batch::default();
        for key in &keys {
            batch.remove(key);
        }
        self.log.apply_batch(batch)?;
        Ok(Some(Pruned {
            first,
            end: last + 1,
            chunks: keys.len(),
            archive: archived,
        }))
    }
}

/// Whether a chunk's records may all go under `limits`.
fn chunk_due(records: &[(u64, LogRecord)], limits: Limits) -> bool {
    let Some((last, record)) = records.last() else {
        return false;
    };
    *last < limits.below && occurred_ms(record).is_some_and(|ms| ms < limits.before_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histories_read_with_their_units_and_off_keeps_everything() {
        assert_eq!(
            parse_history("120d"),
            Ok(Some(Duration::from_secs(120 * 86_400)))
        );
        assert_eq!(parse_history("off"), Ok(None));
        assert_eq!(parse_history("0"), Ok(None));
        assert!(parse_history("120").unwrap_err().contains("no unit"));
        assert!(parse_history("3w").unwrap_err().contains("unknown unit"));
    }

    const DAY: u64 = 86_400_000;

    fn record(n: u64, at_ms: u64) -> LogRecord {
        LogRecord {
            envelope: arcade_contracts::Envelope {
                message_id: format!("m{n}"),
                message_type: "test.thing.happened.v1".into(),
                correlation_id: "c".into(),
                causation_id: None,
                producer: "test".into(),
                sender: None,
                occurred_at: crate::clock::rfc3339_ms(at_ms),
                payload: serde_json::json!({ "n": n }),
            },
            queue: None,
            traceparent: Some(format!("00-{n:032x}-{n:016x}-01")),
        }
    }

    /// A store of 20 records in 20 chunks, one a day from day 0; snapshots at `snapshots`
    /// (frames whose state is the seq's text), the relay cursor at `published`.
    fn store(snapshots: &[u64], published: u64) -> Store {
        let store = Store::temporary().unwrap();
        for n in 1..=20 {
            store.commit(None, &[record(n, n * DAY)]).unwrap();
        }
        for &seq in snapshots {
            let frame = snapshot::encode(1, seq, 0, &[], seq.to_string().as_bytes());
            store.write_snapshot(seq, frame).unwrap();
        }
        store
            .set_cursor(super::super::RELAY_CURSOR, published)
            .unwrap();
        store
    }

    fn seqs(store: &Store) -> Vec<u64> {
        store.replay().map(|r| r.unwrap().0).collect()
    }

    #[test]
    fn only_chunks_behind_the_oldest_decodable_snapshot_the_cursor_and_the_history_go() {
        let any = |_: &snapshot::Frame| true;
        // History: records of day 15 and later stay; snapshots 10 and 12; published to 18.
        let s = store(&[10, 12], 18);
        let done = s.apply_retention("svc", 15 * DAY, None, None, any).unwrap();
        assert_eq!(done.len(), 1);
        assert_eq!((done[0].first, done[0].end, done[0].chunks), (1, 11, 10));
        assert_eq!(
            seqs(&s),
            (11..=20).collect::<Vec<_>>(),
            "the fallback snapshot's tail stays"
        );
        assert_eq!(s.first().unwrap(), 11);
        // Only the newest snapshot decodes: up to it.
        let s = store(&[10, 12], 18);
        let newest = |f: &snapshot::Frame| f.state == b"12";
        s.apply_retention("svc", 15 * DAY, None, None, newest)
            .unwrap();
        assert_eq!(s.first().unwrap(), 13);
        // None decodes: nothing goes.
        let s = store(&[10, 12], 18);
        let none = |_: &snapshot::Frame| false;
        assert!(
            s.apply_retention("svc", 15 * DAY, None, None, none)
                .unwrap()
                .is_empty()
        );
        assert_eq!(s.first().unwrap(), 1);
        // The relay has published up to 5 only.
        let s = store(&[10, 12], 5);
        s.apply_retention("svc", 15 * DAY, None, None, any).unwrap();
        assert_eq!(seqs(&s)[0], 5);
        // The history: only records of before day 4 go.
        let s = store(&[10, 12], 18);
        s.apply_retention("svc", 4 * DAY, None, None, any).unwrap();
        assert_eq!(seqs(&s)[0], 4);
        // An explicit cap.
        let s = store(&[10, 12], 18);
        s.apply_retention("svc", 15 * DAY, Some(3), None, any)
            .unwrap();
        assert_eq!(seqs(&s)[0], 3);
    }

    #[test]
    fn pruned_records_are_archived_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&[19, 20], 21);
        let before: Vec<(u64, LogRecord)> = s.replay().map(|r| r.unwrap()).collect();
        let any = |_: &snapshot::Frame| true;
        let done = s
            .apply_retention("svc", 12 * DAY, None, Some(dir.path()), any)
            .unwrap();
        let file = done[0].archive.clone().unwrap();
        assert_eq!(
            file.file_name().unwrap().to_str().unwrap(),
            "svc-000000000001-000000000011.jsonl.gz"
        );
        let archived = read_archive(&file).unwrap();
        assert_eq!(archived, before[..11].to_vec());
        // The rest later, into a second file; together they are the whole log.
        let done = s
            .apply_retention("svc", 30 * DAY, None, Some(dir.path()), any)
            .unwrap();
        assert_eq!((done[0].first, done[0].end), (12, 20));
        let mut all = archived;
        all.extend(read_archive(done[0].archive.as_ref().unwrap()).unwrap());
        assert_eq!(all, before[..19].to_vec());
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    }

    #[tokio::test]
    async fn a_log_pruned_to_its_end_keeps_its_numbering_across_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc");
        {
            let s = Store::open(&path).unwrap();
            for n in 1..=5 {
                s.commit(None, &[record(n, n * DAY)]).unwrap();
            }
            s.write_snapshot(5, snapshot::encode(1, 5, 0, &[], b"5"))
                .unwrap();
            s.set_cursor(super::super::RELAY_CURSOR, 6).unwrap();
            s.apply_retention("svc", 99 * DAY, None, None, |_| true)
                .unwrap();
            assert!(seqs(&s).is_empty());
            s.flush().await.unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!((s.first().unwrap(), s.end()), (6, 6));
        drop(s);
        let inspect = super::super::Inspect::open(&path).unwrap();
        let verified = inspect.verify().unwrap();
        assert!(verified.damage.is_empty(), "{:?}", verified.damage);
        assert_eq!(inspect.stats().unwrap().first, 6);
    }

    #[test]
    fn a_gap_after_the_start_is_still_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc");
        {
            let s = Store::open(&path).unwrap();
            for n in 1..=5 {
                s.commit(None, &[record(n, n * DAY)]).unwrap();
            }
            s.set_cursor(LOG_START, 2).unwrap();
            s.log.remove(3u64.to_be_bytes()).unwrap();
        }
        let damage = super::super::Inspect::open(&path)
            .unwrap()
            .verify()
            .unwrap()
            .damage;
        assert_eq!(damage.len(), 1, "{damage:?}");
        assert!(
            damage[0].reason.contains("from entry 2 to entry 4"),
            "{damage:?}"
        );
    }

    #[test]
    fn archive_names_sort_in_log_order() {
        assert_eq!(
            archive_name("console", 1, 4096),
            "console-000000000001-000000004096.jsonl.gz"
        );
        assert!(archive_name("x", 9, 10) < archive_name("x", 11, 200));
    }
}
