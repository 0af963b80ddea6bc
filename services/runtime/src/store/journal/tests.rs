//! Tests of the journal: frames read back in order, a torn tail, damage, rotation.

use super::*;

fn writes_of(n: u8) -> Writes {
    let mut writes = Writes::default();
    writes.insert(b"log", &[n; 8], &vec![n; 100 + n as usize]);
    writes.insert(b"cursors", b"relay", &u64::from(n).to_be_bytes());
    writes
}

fn read_back(dir: &Path) -> io::Result<(Vec<Vec<u8>>, Found)> {
    let mut payloads = Vec::new();
    let found = recover(dir, None, |_, payload| {
        payloads.push(payload.to_vec());
        Ok(())
    })?;
    Ok((payloads, found))
}

#[test]
fn frames_are_read_back_in_order_with_their_writes() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::create(dir.path(), 0, 0, 1 << 20).unwrap();
    for n in 0..3 {
        drop(journal.append(&writes_of(n)).unwrap());
    }
    journal.sync(|| Ok(())).unwrap();
    let (payloads, found) = read_back(dir.path()).unwrap();
    assert_eq!(payloads.len(), 3);
    assert_eq!((found.frames, found.next_frame, found.next_file), (3, 3, 1));
    let second = writes(&payloads[1]).unwrap();
    assert_eq!(
        second,
        vec![
            Write {
                tree: b"log",
                key: &[1; 8],
                value: &[1; 101],
            },
            Write {
                tree: b"cursors",
                key: b"relay",
                value: &1u64.to_be_bytes(),
            },
        ]
    );
}

#[test]
fn a_frame_cut_short_by_a_crash_ends_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::create(dir.path(), 0, 0, 1 << 20).unwrap();
    for n in 0..3 {
        drop(journal.append(&writes_of(n)).unwrap());
    }
    drop(journal);
    let path = dir.path().join(file_name(0));
    let len = std::fs::metadata(&path).unwrap().len();
    for cut in [1, 5, 20, 120] {
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(len - cut).unwrap();
        let (payloads, found) = read_back(dir.path()).unwrap();
        assert_eq!(payloads.len(), 2, "cut {cut} bytes");
        assert_eq!(found.next_frame, 2);
        file.set_len(len).unwrap();
    }
}

#[test]
fn a_damaged_frame_followed_by_whole_ones_is_an_error_naming_where() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::create(dir.path(), 0, 0, 1 << 20).unwrap();
    for n in 0..3 {
        drop(journal.append(&writes_of(n)).unwrap());
    }
    drop(journal);
    let path = dir.path().join(file_name(0));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[20] ^= 0xff; // inside the first frame's payload
    std::fs::write(&path, &bytes).unwrap();
    let error = read_back(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("journal frame 1") && error.contains("follows a damaged frame"),
        "{error}"
    );
    assert!(
        error.contains("journal.0000000000000000 at byte 0"),
        "{error}"
    );
}

#[test]
fn a_sync_over_the_limit_starts_a_new_file_checkpoints_and_deletes_the_old() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::create(dir.path(), 7, 40, 300).unwrap();
    drop(journal.append(&writes_of(1)).unwrap());
    let mut checkpoints = 0;
    journal
        .sync(|| {
            checkpoints += 1;
            Ok(())
        })
        .unwrap();
    assert_eq!(checkpoints, 0, "under the limit: a sync only");
    drop(journal.append(&writes_of(2)).unwrap());
    drop(journal.append(&writes_of(3)).unwrap());
    journal
        .sync(|| {
            checkpoints += 1;
            Ok(())
        })
        .unwrap();
    assert_eq!(checkpoints, 1);
    assert!(
        !dir.path().join(file_name(7)).exists(),
        "the old file is gone"
    );
    drop(journal.append(&writes_of(4)).unwrap());
    journal.sync(|| Ok(())).unwrap();
    let (payloads, found) = read_back(dir.path()).unwrap();
    assert_eq!(payloads.len(), 1, "only the frame after the checkpoint");
    assert_eq!((found.next_frame, found.next_file), (44, 9));
}

#[test]
fn a_failed_checkpoint_keeps_the_old_file_and_fails_later_syncs() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::create(dir.path(), 0, 0, 100).unwrap();
    drop(journal.append(&writes_of(1)).unwrap());
    let error = journal
        .sync(|| Err(io::Error::other("sled could not flush")))
        .unwrap_err();
    assert!(error.to_string().contains("sled could not flush"));
    assert!(
        dir.path().join(file_name(0)).exists(),
        "its frames are kept"
    );
    let later = journal.sync(|| Ok(())).unwrap_err().to_string();
    assert!(later.contains("an earlier sync failed"), "{later}");
    let (payloads, _) = read_back(dir.path()).unwrap();
    assert_eq!(payloads.len(), 1);
}

#[test]
fn frames_numbered_out_of_order_are_damage() {
    let dir = tempfile::tempdir().unwrap();
    let first = Journal::create(dir.path(), 0, 0, 1 << 20).unwrap();
    drop(first.append(&writes_of(1)).unwrap());
    let second = Journal::create(dir.path(), 1, 5, 1 << 20).unwrap();
    drop(second.append(&writes_of(2)).unwrap());
    let error = read_back(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("journal frame 5") && error.contains("frame 1 was expected"),
        "{error}"
    );
}

#[test]
fn a_payload_that_does_not_parse_names_the_write() {
    let mut writes = writes_of(1);
    writes.bytes.truncate(writes.bytes.len() - 3);
    let error = super::writes(&writes.bytes).unwrap_err();
    assert_eq!(error, "write 1 is cut short");
    writes.bytes[0] = 200;
    assert_eq!(
        super::writes(&writes.bytes).unwrap_err(),
        "write 0 is cut short"
    );
}

#[test]
fn frames_sled_has_applied_are_skipped_and_a_gap_after_them_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::create(dir.path(), 0, 10, 1 << 20).unwrap();
    for n in 0..4 {
        drop(journal.append(&writes_of(n)).unwrap());
    }
    let mut applied = Vec::new();
    let found = recover(dir.path(), Some(11), |number, _| {
        applied.push(number);
        Ok(())
    })
    .unwrap();
    assert_eq!(applied, vec![12, 13]);
    assert_eq!((found.frames, found.next_frame), (2, 14));
    let error = recover(dir.path(), Some(7), |_, _| Ok(()))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("journal frame 10") && error.contains("frame 8 was expected"),
        "{error}"
    );
    let found = recover(dir.path(), Some(20), |_, _| panic!("all applied")).unwrap();
    assert_eq!((found.frames, found.next_frame), (0, 21));
}
