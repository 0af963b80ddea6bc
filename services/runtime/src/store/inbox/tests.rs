//! Tests of the inbox: digests, layouts, the window.

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
    let mut inbox = Inbox::load(&log, Some(&legacy), Clock::system()).unwrap();
    for group in [&[&b"a"[..], b"b"][..], &[b"c"]] {
        let digests: Entries = group
            .iter()
            .map(|key| (digest(key), body_digest(key)))
            .collect();
        let mut batch = sled::Batch::default();
        let written = inbox.write(&mut batch, &digests);
        log.apply_batch(batch).unwrap();
        inbox.committed(&digests, written);
    }
    // A chunk of the first layout (no time) is still read.
    log.insert(
        chunk_key(2),
        [
            &[FORMAT_DIGESTS][..],
            &digest(b"first-layout").to_be_bytes(),
        ]
        .concat(),
    )
    .unwrap();

    let again = Inbox::load(&log, Some(&legacy), Clock::system()).unwrap();
    for key in [
        &b"from-the-inbox-tree"[..],
        b"a",
        b"b",
        b"c",
        b"first-layout",
    ] {
        assert!(
            again.contains(digest(key)),
            "{}",
            String::from_utf8_lossy(key)
        );
    }
    assert!(!again.contains(digest(b"d")));
    assert_eq!(again.len(), 5);
    assert_eq!(again.next_chunk, 3, "three chunks written");
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
    let error = Inbox::load(&log, None, Clock::system())
        .unwrap_err()
        .to_string();
    assert!(error.contains("inbox chunk 7"), "{error}");
}

#[test]
fn windows_read_with_their_unit_and_bad_ones_say_why() {
    use std::time::Duration;
    assert_eq!(parse_window("7d"), Ok(Duration::from_secs(7 * 86_400)));
    assert_eq!(parse_window(" 1m "), Ok(Duration::from_secs(60)));
    assert_eq!(parse_window("1500ms"), Ok(Duration::from_millis(1500)));
    assert!(parse_window("7").unwrap_err().contains("no unit"));
    assert!(parse_window("7w").unwrap_err().contains("\"w\""));
    assert!(parse_window("soon").unwrap_err().contains("not a duration"));
    assert!(
        parse_window("0s")
            .unwrap_err()
            .contains("shorter than a second")
    );
    assert!(parse_window("99999999999999999d").is_err());
}

#[tokio::test(start_paused = true)]
async fn chunks_older_than_the_window_expire_and_younger_ones_stay() {
    let db = sled::Config::new().temporary(true).open().unwrap();
    let log = db.open_tree("log").unwrap();
    let clock = Clock::starting_at(1_000_000);
    let mut inbox = Inbox::load(&log, None, clock).unwrap();
    inbox.keep_for(std::time::Duration::from_secs(60), clock);
    let commit = |inbox: &mut Inbox, key: &[u8]| {
        let digests: Entries = [(digest(key), body_digest(key))].into_iter().collect();
        let mut batch = sled::Batch::default();
        let written = inbox.write(&mut batch, &digests);
        log.apply_batch(batch).unwrap();
        inbox.committed(&digests, written);
    };
    commit(&mut inbox, b"old");
    tokio::time::advance(std::time::Duration::from_secs(30)).await;
    commit(&mut inbox, b"young");
    assert!(inbox.expired().is_empty(), "nothing is older than 60 s yet");
    tokio::time::advance(std::time::Duration::from_secs(31)).await;
    assert_eq!(inbox.expired(), vec![chunk_key(0)], "only the first chunk");
    assert_eq!(inbox.prune(&log).unwrap(), 1, "one key forgotten");
    assert_eq!(
        log.get(chunk_key(0)).unwrap(),
        None,
        "the chunk left the disk"
    );
    assert!(log.get(chunk_key(1)).unwrap().is_some());
    assert!(!inbox.contains(digest(b"old")));
    assert!(inbox.contains(digest(b"young")));
    assert_eq!(inbox.len(), 1);
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
    let mut inbox = Inbox::load(&log, None, Clock::system()).unwrap();
    let entries: Entries = [(digest(b"alice\0m-1"), body_digest(b"genuine"))]
        .into_iter()
        .collect();
    let mut batch = sled::Batch::default();
    let written = inbox.write(&mut batch, &entries);
    log.apply_batch(batch).unwrap();
    inbox.committed(&entries, written);

    let inbox = Inbox::load(&log, None, Clock::system()).unwrap();
    let key = digest(b"alice\0m-1");
    assert_eq!(
        inbox.seen(key, Earlier::default(), body_digest(b"genuine")),
        Seen::Same
    );
    assert_eq!(
        inbox.seen(key, Earlier::default(), body_digest(b"forged")),
        Seen::Different
    );
    assert_eq!(
        inbox.seen(digest(b"mallory\0m-1"), unscoped(b"m-1"), body_digest(b"x")),
        Seen::New,
        "another sender's id is its own"
    );
    let scoped_old = digest(b"alice\0old-id");
    assert_eq!(
        inbox.seen(scoped_old, unscoped(b"old-id"), body_digest(b"any")),
        Seen::Same,
        "an input recorded before keys were scoped still deduplicates"
    );
    // An anonymous message recorded when its producer's name scoped it: the same message
    // again is a duplicate; a message of another body there (a proven sender's) is not its.
    let anonymous = digest(b"\0anonymous\0alice\0m-1");
    let producer_scoped = Earlier {
        unscoped: None,
        producer_scoped: Some(key),
    };
    assert_eq!(
        inbox.seen(anonymous, producer_scoped, body_digest(b"genuine")),
        Seen::Same,
        "an anonymous message recorded under its producer's scope still deduplicates"
    );
    assert_eq!(
        inbox.seen(anonymous, producer_scoped, body_digest(b"squat")),
        Seen::New,
        "an anonymous message never collides with what a proven sender recorded"
    );
    assert_eq!(inbox.next_chunk, 2);
}

fn unscoped(id: &[u8]) -> Earlier {
    Earlier {
        unscoped: Some(digest(id)),
        producer_scoped: None,
    }
}
