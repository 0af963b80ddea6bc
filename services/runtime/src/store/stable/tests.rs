//! Tests of stable storage: grouped syncs, poison, blob files.

use super::*;
use std::ffi::OsStr;
use std::sync::Arc;

#[test]
fn concurrent_syncs_share_one_and_each_waits_for_one_started_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = sled::Config::new().path(dir.path()).open().unwrap();
    let stable = Arc::new(Stable::open(dir.path()).unwrap());
    db.insert(b"k", b"v").unwrap();
    db.flush().unwrap();
    let before = syncs(dir.path()).completed;
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let stable = stable.clone();
            std::thread::spawn(move || stable.sync())
        })
        .collect();
    for thread in threads {
        thread.join().unwrap().unwrap();
    }
    let done = syncs(dir.path()).completed - before;
    assert!((1..=8).contains(&done), "{done} syncs for 8 callers");
    let group = stable.lock();
    assert!(!group.running && group.completed == group.started);
}

#[test]
fn a_failed_sync_fails_every_later_one() {
    let dir = tempfile::tempdir().unwrap();
    let _db = sled::Config::new().path(dir.path()).open().unwrap();
    let stable = Stable::open(dir.path()).unwrap();
    stable.sync().unwrap();
    fail_syncs(dir.path(), 1);
    let first = stable.sync().unwrap_err().to_string();
    assert!(first.contains("injected failure"), "{first}");
    let later = stable.sync().unwrap_err().to_string();
    assert!(
        later.contains("an earlier sync failed") && later.contains("injected failure"),
        "{later}"
    );
    assert_eq!(syncs(dir.path()).failed, 1);
}

#[test]
fn new_blob_files_are_synced_once_and_their_directory_with_them() {
    let dir = tempfile::tempdir().unwrap();
    // A 64 KiB segment makes anything over 16 KiB a blob file of its own.
    let db = sled::Config::new()
        .path(dir.path())
        .segment_size(64 << 10)
        .open()
        .unwrap();
    let stable = Stable::open(dir.path()).unwrap();
    db.insert(b"big", vec![7u8; 40 << 10]).unwrap();
    db.flush().unwrap();
    stable.sync().unwrap();
    let files = stable.files.as_ref().unwrap();
    let known = files.known.lock().unwrap();
    assert!(!known.1.is_empty(), "the 40 KiB value is a blob file");
    assert_eq!(known.1, names(&dir.path().join("blobs")).unwrap());
}

#[test]
fn an_open_after_a_clean_close_syncs_only_the_blob_files_it_did_not_name() {
    let dir = tempfile::tempdir().unwrap();
    let open = || {
        sled::Config::new()
            .path(dir.path())
            .segment_size(64 << 10)
            .open()
            .unwrap()
    };
    let db = open();
    let stable = Stable::open(dir.path()).unwrap();
    for k in 0..3u8 {
        db.insert([k], vec![k; 40 << 10]).unwrap();
    }
    db.flush().unwrap();
    stable.sync().unwrap();
    let blobs = names(&dir.path().join("blobs")).unwrap().len();
    assert!(blobs >= 3, "{blobs} blob files");
    drop(stable);
    drop(db);

    // Closed cleanly: nothing to sync again.
    let db = open();
    let stable = Stable::open(dir.path()).unwrap();
    assert_eq!(stable.files.as_ref().unwrap().synced_at_open, 0);
    // A blob written and never synced (the process dies before its commit's sync).
    db.insert(b"late", vec![9u8; 40 << 10]).unwrap();
    db.flush().unwrap();
    std::mem::forget(stable);
    drop(db);
    let db = open();
    let stable = Stable::open(dir.path()).unwrap();
    assert_eq!(
        stable.files.as_ref().unwrap().synced_at_open,
        1,
        "the blob the last close did not name"
    );
    drop(stable);
    drop(db);

    // A list that names nothing (cut short, lost): every blob file is synced.
    std::fs::write(dir.path().join(SYNCED_BLOBS), "").unwrap();
    let _db = open();
    let stable = Stable::open(dir.path()).unwrap();
    assert_eq!(stable.files.as_ref().unwrap().synced_at_open, blobs + 1);
}

/// A fresh sled database and its stable side.
fn opened() -> (tempfile::TempDir, sled::Db, Stable) {
    let dir = tempfile::tempdir().unwrap();
    let db = sled::Config::new().path(dir.path()).open().unwrap();
    let stable = Stable::open(dir.path()).unwrap();
    (dir, db, stable)
}

/// As sled writes a blob file: created, written in parts, closed.
fn start_blob(dir: &Path, name: &str) -> File {
    use std::io::Write;
    let path = dir.join("blobs").join(name);
    let mut blob = File::options()
        .write(true)
        .create_new(true)
        .open(path)
        .unwrap();
    blob.write_all(b"crc!k").unwrap();
    blob
}

fn blob_syncs(stable: &Stable) -> u64 {
    let files = stable.files.as_ref().unwrap();
    files.blob_syncs.load(std::sync::atomic::Ordering::Relaxed)
}

#[cfg(target_os = "linux")]
#[test]
fn a_blob_file_sled_is_still_writing_is_synced_after_its_close_not_before() {
    use std::io::Write;
    let (dir, _db, stable) = opened();
    let files = stable.files.as_ref().unwrap();
    assert!(files.watch.lock().unwrap().is_some(), "inotify is there");
    let before = blob_syncs(&stable);

    let mut blob = start_blob(dir.path(), "123456");
    stable.sync().unwrap();
    assert_eq!(
        blob_syncs(&stable),
        before,
        "not synced while being written"
    );
    blob.write_all(&[1; 4096]).unwrap();
    drop(blob);
    stable.sync().unwrap();
    assert_eq!(blob_syncs(&stable), before + 1, "synced once closed");
    assert!(files.known.lock().unwrap().1.contains(OsStr::new("123456")));
    stable.sync().unwrap();
    assert_eq!(blob_syncs(&stable), before + 1, "and not again");

    std::fs::remove_file(dir.path().join("blobs").join("123456")).unwrap();
    stable.sync().unwrap();
    assert!(
        !files.known.lock().unwrap().1.contains(OsStr::new("123456")),
        "a removed blob file leaves the list of synced ones"
    );
}

/// A blob file as sled writes it, complete: the CRC-32 of the kind byte and the data, the kind,
/// the data.
fn write_blob(dir: &Path, name: &str, data: &[u8]) {
    let mut rest = vec![1u8];
    rest.extend_from_slice(data);
    let mut bytes = crc32fast::hash(&rest).to_le_bytes().to_vec();
    bytes.extend(rest);
    std::fs::write(dir.join("blobs").join(name), bytes).unwrap();
}

#[test]
fn without_inotify_a_sync_lists_the_directories_and_syncs_new_blob_files_once_complete() {
    let (dir, _db, stable) = opened();
    #[cfg(target_os = "linux")]
    {
        *stable.files.as_ref().unwrap().watch.lock().unwrap() = None;
    }
    let before = blob_syncs(&stable);
    write_blob(dir.path(), "7", &[7; 1000]);
    write_blob(dir.path(), "8", &[8; 1000]);
    let unfinished = start_blob(dir.path(), "9");
    stable.sync().unwrap();
    assert_eq!(blob_syncs(&stable), before + 2, "the two complete ones");
    drop(unfinished);
    write_blob(dir.path(), "9", &[9; 1000]);
    stable.sync().unwrap();
    assert_eq!(blob_syncs(&stable), before + 3, "the third once complete");
    stable.sync().unwrap();
    assert_eq!(blob_syncs(&stable), before + 3, "each once");
    let known = stable.files.as_ref().unwrap().known.lock().unwrap();
    assert_eq!(known.1, names(&dir.path().join("blobs")).unwrap());
}

#[cfg(target_os = "linux")]
#[test]
fn a_watched_directory_that_goes_away_turns_the_syncs_to_listing() {
    let (dir, _db, stable) = opened();
    let files = stable.files.as_ref().unwrap();
    let blobs = dir.path().join("blobs");
    std::fs::remove_dir_all(&blobs).unwrap();
    std::fs::create_dir(&blobs).unwrap();
    stable.sync().unwrap();
    assert!(
        files.watch.lock().unwrap().is_none(),
        "the watch on the removed directory is given up"
    );
    let before = blob_syncs(&stable);
    write_blob(dir.path(), "9", b"data");
    stable.sync().unwrap();
    assert_eq!(blob_syncs(&stable), before + 1, "found by listing");
}
