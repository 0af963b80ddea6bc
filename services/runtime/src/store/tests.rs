//! Tests of the store: commits, chunks, reopening, earlier layouts.

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
        let records: Vec<LogRecord> = (batch * 500 + 1..=batch * 500 + 500).map(record).collect();
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
