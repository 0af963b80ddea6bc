//! Commits that survive a power loss: what [`super::Flush`] does after sled's own flush.
//!
//! sled 0.34's flush writes its buffers to the file `db` with `pwrite` and, on Linux,
//! `sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)` (`pagecache/iobuf.rs`): the data pages
//! reach the device, but no file metadata (the new size of a file that grew) is written and
//! the drive's volatile cache is not flushed, so a power loss can still take them. Values over
//! a quarter of a segment go to files of their own under `blobs/`, written with `write_all`
//! and never synced (`pagecache/blob_io.rs`); `conf` is written at creation and never synced;
//! snapshots (`snap.<lsn>`) are synced, then renamed, with no sync of the directory.
//!
//! So after sled's flush, [`Stable::sync`] calls `fdatasync` (`File::sync_data`) on `db` and
//! on every blob file it has not synced yet, and `fsync` on `blobs/` and on the database's
//! directory whenever the names in them changed since the last sync (a file created, renamed
//! or removed). At open it syncs `conf`, `db`, both directories and the parent of the
//! database's directory. What `fdatasync` guarantees is then what a commit guarantees: the
//! data and what is needed to read it back are on stable storage, the drive's write cache
//! flushed, on a file system and device that honour flushes (ext4, xfs, btrfs; not a drive
//! that lies about its cache).
//!
//! Syncing every blob file at open costs a few milliseconds a file, and the blob files are kept
//! with the log, so that cost grew with the history. When a database is closed without a failed
//! sync, the names of the blob files its syncs covered are written to [`SYNCED_BLOBS`] in its
//! directory; the next open syncs only the blob files not named there (sled never rewrites a
//! blob file: its name is the log sequence number of its write). The list is a lower bound
//! whatever happens to it: written after the syncs it names, lost or cut short by a crash it
//! only names fewer files, so more are synced.
//!
//! A sync does not list the directories (`blobs/` grows with the log: a sync that listed it cost
//! milliseconds once the log held tens of thousands of blob files): on Linux, inotify tells it
//! which blob files sled closed after writing since the last sync, and whether names came or
//! went (`watch`). It syncs those files, and a directory only when its names changed. A blob
//! file sled is still writing (the next batch's, while this one's sync runs) is synced by the
//! sync after its close, which is before any flush covering it returns. When inotify cannot
//! be had (another system, no inotify instance left) or may have missed events (its queue
//! overflowed), the sync lists both directories and syncs the blob files it has not seen that
//! are complete (their CRC matches, as sled checks it when it reads one); one that is not yet is
//! left for a later sync.
//!
//! Syncs are grouped: a sync covers every flush that finished before it started, so
//! concurrent commits to one database (several publishers to the embedded bus) share one
//! `fdatasync`. A failed sync poisons the database: on Linux the kernel may drop the pages it
//! could not write and report success on the next `fsync`, so every later sync fails too,
//! naming the first error, until the process reopens the database from what is on disk.

use std::collections::BTreeSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};

mod counts;
#[cfg(target_os = "linux")]
mod watch;

use self::counts::counters;
pub use self::counts::{SyncCount, delay_syncs, fail_syncs, syncs};

/// The stable-storage side of one sled database.
#[derive(Debug)]
pub(crate) struct Stable {
    /// `None` for a temporary database (nothing of it is meant to outlive the process).
    files: Option<Files>,
    group: Mutex<Group>,
    done: Condvar,
}

/// The file, in a database's directory, naming the blob files already on stable storage.
pub(crate) const SYNCED_BLOBS: &str = "arcade-synced-blobs";

#[derive(Debug)]
struct Files {
    dir: PathBuf,
    data: File,
    /// Names seen, and synced, at the last sync: the database's directory and `blobs/`.
    known: Mutex<(BTreeSet<std::ffi::OsString>, BTreeSet<std::ffi::OsString>)>,
    /// Blob files synced at open (those the last close did not name in [`SYNCED_BLOBS`]).
    synced_at_open: usize,
    /// What changed since the last sync; `None`: list the directories at every sync.
    #[cfg(target_os = "linux")]
    watch: Mutex<Option<watch::Watch>>,
    /// Blob files synced since the database was opened (at open too).
    blob_syncs: std::sync::atomic::AtomicU64,
}

/// What changed in a database's directories since the last sync.
#[derive(Debug, Default, PartialEq, Eq)]
struct Changes {
    /// Names came or went in the database's directory.
    top: bool,
    /// Names came or went in `blobs/`.
    blobs: bool,
    /// Blob files closed after writing, or renamed into `blobs/`: complete, to be synced.
    written: BTreeSet<std::ffi::OsString>,
    /// Blob files removed, or renamed away.
    removed: BTreeSet<std::ffi::OsString>,
}

#[derive(Debug, Default)]
struct Group {
    /// Number of syncs started; the one under way, if any, is number `started`.
    started: u64,
    /// The highest-numbered sync that completed.
    completed: u64,
    running: bool,
    /// The first failed sync: the database cannot be trusted to be durable any more.
    failed: Option<String>,
}

impl Stable {
    /// The database in `dir`, just opened by sled: syncs what sled created without syncing.
    pub(crate) fn open(dir: &Path) -> io::Result<Self> {
        let data = File::open(dir.join("db"))?;
        data.sync_data()?;
        let conf = dir.join("conf");
        if conf.exists() {
            File::open(&conf)?.sync_data()?;
        }
        let mut files = Files {
            dir: dir.to_path_buf(),
            data,
            known: Mutex::new((BTreeSet::new(), synced_before(dir))),
            synced_at_open: 0,
            // Watching from before the listing below: nothing falls between the two.
            #[cfg(target_os = "linux")]
            watch: Mutex::new(watch(dir)),
            blob_syncs: Default::default(),
        };
        files.synced_at_open = files.sync_names(true)?;
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
        Ok(Self::with(Some(files)))
    }

    /// A temporary database: syncs are counted, nothing is written.
    pub(crate) fn temporary() -> Self {
        Self::with(None)
    }

    fn with(files: Option<Files>) -> Self {
        Stable {
            files,
            group: Mutex::new(Group::default()),
            done: Condvar::new(),
        }
    }

    /// Makes everything sled has flushed so far reach stable storage. Call it after the flush
    /// returns: it returns once a sync that started after the call has completed (its own, or
    /// a concurrent caller's).
    pub(crate) fn sync(&self) -> io::Result<()> {
        let mut group = self.lock();
        let needed = group.started + 1;
        loop {
            if let Some(first) = &group.failed {
                return Err(poisoned(first));
            }
            if group.completed >= needed {
                return Ok(());
            }
            if group.running {
                group = self.done.wait(group).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            group.running = true;
            group.started += 1;
            let number = group.started;
            drop(group);
            let result = self.sync_now();
            group = self.lock();
            group.running = false;
            match &result {
                Ok(()) => group.completed = number,
                Err(e) => group.failed = Some(e.to_string()),
            }
            self.done.notify_all();
            if let Some(files) = &self.files {
                counters().record(&files.dir, result.is_ok());
            }
            return result;
        }
    }

    fn lock(&self) -> MutexGuard<'_, Group> {
        self.group.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn sync_now(&self) -> io::Result<()> {
        let Some(files) = &self.files else {
            return Ok(());
        };
        if let Some(error) = counters().injected(&files.dir) {
            return Err(error);
        }
        if let Some(delay) = counters().delay(&files.dir) {
            std::thread::sleep(delay);
        }
        files
            .data
            .sync_data()
            .map_err(|e| named(e, &files.dir.join("db")))?;
        files.sync_names(false).map(|_| ())
    }
}

impl Files {
    /// Syncs new blob files, then each directory whose names changed (all of them when `all`);
    /// returns how many blob files it synced.
    fn sync_names(&self, all: bool) -> io::Result<usize> {
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        let blobs_dir = self.dir.join("blobs");
        if !all && let Some(changes) = self.changes() {
            let mut synced = 0;
            for name in &changes.written {
                synced += self.sync_blob(&blobs_dir, name)?;
                known.1.insert(name.clone());
            }
            for name in &changes.removed {
                known.1.remove(name);
            }
            if changes.blobs {
                sync_dir(&blobs_dir)?;
            }
            if changes.top {
                sync_dir(&self.dir)?;
            }
            return Ok(synced);
        }
        let mut blobs = names(&blobs_dir)?;
        let mut synced = 0;
        let mut unfinished = Vec::new();
        for name in blobs.difference(&known.1) {
            // Listed while sled may still be writing it (the next batch's): left for a later
            // sync, which finds it complete (it is, before any flush covering it returns).
            if !all && !blob_complete(&blobs_dir.join(name))? {
                unfinished.push(name.clone());
                continue;
            }
            synced += self.sync_blob(&blobs_dir, name)?;
        }
        if all || blobs != known.1 {
            sync_dir(&blobs_dir)?;
        }
        let top = names(&self.dir)?;
        if all || top != known.0 {
            sync_dir(&self.dir)?;
        }
        for name in &unfinished {
            blobs.remove(name);
        }
        *known = (top, blobs);
        Ok(synced)
    }

    /// Syncs one blob file; 0 if sled has collected it meanwhile (nothing to keep), else 1.
    fn sync_blob(&self, blobs_dir: &Path, name: &std::ffi::OsStr) -> io::Result<usize> {
        let path = blobs_dir.join(name);
        match File::open(&path) {
            Ok(blob) => {
                blob.sync_data().map_err(|e| named(e, &path))?;
                self.blob_syncs
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(1)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(named(e, &path)),
        }
    }

    /// What changed since the last sync, if inotify says so completely; `None`: list.
    #[cfg(target_os = "linux")]
    fn changes(&self) -> Option<Changes> {
        let mut watch = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        match watch.as_mut()?.changes() {
            Ok(Some(changes)) => Some(changes),
            // Events were lost: list this time, keep watching.
            Ok(None) => {
                tracing::debug!(dir = %self.dir.display(), "inotify missed events; listing the directories");
                None
            }
            Err(error) => {
                tracing::warn!(dir = %self.dir.display(), %error, "cannot read inotify events; every sync lists the directories from now on");
                *watch = None;
                None
            }
        }
    }

    /// Without inotify, every sync lists the directories.
    #[cfg(not(target_os = "linux"))]
    fn changes(&self) -> Option<Changes> {
        None
    }

    /// Names the blob files the syncs so far covered in [`SYNCED_BLOBS`] (through a file renamed
    /// over it). Not synced itself: a list that does not reach the disk names fewer files.
    fn record_synced(&self) -> io::Result<()> {
        let known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        let mut text = String::new();
        for name in &known.1 {
            if let Some(name) = name.to_str() {
                text.push_str(name);
                text.push('\n');
            }
        }
        let partial = self.dir.join(format!("{SYNCED_BLOBS}.partial"));
        std::fs::write(&partial, text)?;
        std::fs::rename(&partial, self.dir.join(SYNCED_BLOBS))
    }
}

/// The blob files a clean close of the database in `dir` named as synced (none if it did not).
fn synced_before(dir: &Path) -> BTreeSet<std::ffi::OsString> {
    std::fs::read_to_string(dir.join(SYNCED_BLOBS))
        .map(|text| text.lines().map(std::ffi::OsString::from).collect())
        .unwrap_or_default()
}

impl Drop for Stable {
    fn drop(&mut self) {
        let Some(files) = &self.files else { return };
        if self.lock().failed.is_some() {
            // Nothing is known durable: the next open syncs everything.
            let _ = std::fs::remove_file(files.dir.join(SYNCED_BLOBS));
            return;
        }
        if let Err(e) = files.record_synced() {
            tracing::debug!(dir = %files.dir.display(), error = %e, "the synced blob files are not recorded: the next open syncs them all");
        }
    }
}

/// Whether the blob file at `path` is complete. sled writes one as the CRC-32 (little-endian)
/// of what follows, a kind byte, then the data, in three writes, and checks that CRC when it
/// reads the file back (`pagecache/blob_io.rs`); a file it is still writing is short, so its
/// CRC does not match. One sled has collected since it was listed counts as complete: there is
/// nothing of it to keep, and [`Files::sync_blob`] passes over it.
fn blob_complete(path: &Path) -> io::Result<bool> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(named(e, path)),
    };
    Ok(match bytes.split_first_chunk::<4>() {
        Some((crc, rest)) if !rest.is_empty() => u32::from_le_bytes(*crc) == crc32fast::hash(rest),
        _ => false,
    })
}

/// The watch on the database in `dir`, or `None` (syncs list the directories) if inotify
/// cannot be had.
#[cfg(target_os = "linux")]
fn watch(dir: &Path) -> Option<watch::Watch> {
    match watch::Watch::new(dir, &dir.join("blobs")) {
        Ok(watch) => Some(watch),
        Err(error) => {
            tracing::debug!(dir = %dir.display(), %error, "no inotify watch; every sync lists the directories");
            None
        }
    }
}

fn names(dir: &Path) -> io::Result<BTreeSet<std::ffi::OsString>> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|entry| entry.map(|e| e.file_name()))
            .collect::<io::Result<_>>()
            .map_err(|e| named(e, dir)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(BTreeSet::new()),
        Err(e) => Err(named(e, dir)),
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    match File::open(dir) {
        Ok(handle) => handle.sync_all().map_err(|e| named(e, dir)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(named(e, dir)),
    }
}

fn named(error: io::Error, path: &Path) -> io::Error {
    io::Error::new(
        error.kind(),
        format!("syncing {} to stable storage: {error}", path.display()),
    )
}

fn poisoned(first: &str) -> io::Error {
    io::Error::other(format!(
        "an earlier sync failed ({first}); what it covered may not be on disk, so nothing is \
         reported durable until the process reopens the database"
    ))
}

#[cfg(test)]
mod tests;
