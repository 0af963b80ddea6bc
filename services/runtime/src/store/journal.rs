//! The store's journal: how a commit reaches stable storage without a sled flush.
//!
//! Every commit group (and every move of a cursor) is written twice: as a **frame** appended to
//! the journal file, and as the same writes applied to sled in memory. A flush is one
//! `fdatasync` of the journal file: no sled flush, no wait on sled's I/O threads, no listing of
//! its directories. sled writes its own files in the background (every 500 ms and whenever a
//! buffer fills) with no sync; the journal is what a crash or a power loss is recovered from.
//!
//! **Recovery** ([`recover`], when the store opens): sled comes back with a prefix of the writes
//! applied to it (its log is replayed up to the first write that did not reach the disk). Each
//! frame's writes are applied to sled with the frame's number (the **applied mark**), under the
//! journal's lock, so sled and the journal hold the frames in the same order and the mark sled
//! comes back with says which frames it has: the journal's later frames are applied on top, in
//! order. Writes that are not journaled (pruning the inbox, acks, snapshots) are durable with
//! the next checkpoint, and always come after the frames whose keys they touch. The store is then
//! checkpointed and the journal starts empty.
//!
//! **Checkpoint**: once the journal file holds [`Journal::limit`] bytes, the flush that sees it
//! starts a new file (frames written after that go there), syncs the old one, then flushes sled
//! and syncs its files ([`super::Stable::sync`]) and deletes the old journal file: every frame in
//! it is in sled on stable storage. A clean close checkpoints too.
//!
//! **Frames**: `[payload length: u32 LE][frame number: u64 LE][payload][CRC-32 of number and
//! payload: u32 LE]`, numbered consecutively across files. Reading stops at the first frame that
//! is cut short or whose checksum fails: the write a crash interrupted, never reported durable.
//! A payload is a list of writes: `[tree name length: u8][tree name][key length: u16 LE][key]
//! [value length: u32 LE][value]`.
//!
//! Files are `journal.<number>` (16 hex digits) in the store's directory. A new file's name is
//! made durable (`fsync` of the directory) before a frame in it is reported durable; appends grow
//! it, so each `fdatasync` also writes its new size.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::stable::{self, SyncGroup};

/// The prefix of a journal file's name.
const PREFIX: &str = "journal.";

/// Bytes around a payload: length, number, checksum.
const OVERHEAD: usize = 4 + 8 + 4;

/// The largest payload a frame may hold when read: a length above it is damage.
const MAX_PAYLOAD: usize = 1 << 30;

/// The writes of one frame, in order, encoded as they are added.
#[derive(Debug, Default)]
pub(crate) struct Writes {
    bytes: Vec<u8>,
}

impl Writes {
    /// Adds a write of `value` under `key` in the sled tree named `tree`.
    pub fn insert(&mut self, tree: &[u8], key: &[u8], value: &[u8]) {
        let tree_len = u8::try_from(tree.len()).expect("tree names are short");
        let key_len = u16::try_from(key.len()).expect("store keys are a few bytes");
        let value_len = u32::try_from(value.len()).expect("a store value is under 4 GiB");
        self.bytes.reserve(7 + tree.len() + key.len() + value.len());
        self.bytes.push(tree_len);
        self.bytes.extend_from_slice(tree);
        self.bytes.extend_from_slice(&key_len.to_le_bytes());
        self.bytes.extend_from_slice(key);
        self.bytes.extend_from_slice(&value_len.to_le_bytes());
        self.bytes.extend_from_slice(value);
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// The key of the applied mark: the number of the last frame applied to sled (u64 big-endian),
/// in the tree the owner of the journal names (its last write in each frame). In a store's log
/// tree it sorts after every sequence number and apart from the inbox's chunks.
pub(crate) const APPLIED: &[u8] = &[0xff, b'j'];

/// The applied mark in `marks`, if any.
pub(crate) fn applied(marks: &sled::Tree) -> Result<Option<u64>, sled::Error> {
    Ok(marks
        .get(APPLIED)?
        .and_then(|v| <[u8; 8]>::try_from(v.as_ref()).ok())
        .map(u64::from_be_bytes))
}

/// Applies frame `number`'s `payload` to `db`: each tree's writes as one batch, `marks`'s last,
/// with the applied mark in it.
pub(crate) fn apply(
    db: &sled::Db,
    marks: &sled::Tree,
    number: u64,
    payload: &[u8],
) -> Result<(), String> {
    let mut batches: Vec<(&[u8], sled::Batch)> = Vec::new();
    for write in writes(payload)? {
        let at = match batches.iter().position(|(tree, _)| *tree == write.tree) {
            Some(at) => at,
            None => {
                batches.push((write.tree, sled::Batch::default()));
                batches.len() - 1
            }
        };
        batches[at].1.insert(write.key, write.value);
    }
    let mut last = sled::Batch::default();
    for (tree, batch) in batches {
        if tree == marks.name().as_ref() {
            last = batch;
        } else {
            let tree = db.open_tree(tree).map_err(|e| e.to_string())?;
            tree.apply_batch(batch).map_err(|e| e.to_string())?;
        }
    }
    last.insert(APPLIED, &number.to_be_bytes());
    marks.apply_batch(last).map_err(|e| e.to_string())
}

/// One write read back from a frame.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Write<'a> {
    pub tree: &'a [u8],
    pub key: &'a [u8],
    pub value: &'a [u8],
}

/// Reads the writes of a payload.
pub(crate) fn writes(payload: &[u8]) -> Result<Vec<Write<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = payload;
    while !rest.is_empty() {
        let cut = || format!("write {} is cut short", out.len());
        let tree_end = 1 + rest[0] as usize;
        let tree = rest.get(1..tree_end).ok_or_else(cut)?;
        let key_len = u16::from_le_bytes(
            rest.get(tree_end..tree_end + 2)
                .ok_or_else(cut)?
                .try_into()
                .unwrap(),
        );
        let key_start = tree_end + 2;
        let key_end = key_start + key_len as usize;
        let key = rest.get(key_start..key_end).ok_or_else(cut)?;
        let value_len = u32::from_le_bytes(
            rest.get(key_end..key_end + 4)
                .ok_or_else(cut)?
                .try_into()
                .unwrap(),
        );
        let value_end = key_end + 4 + value_len as usize;
        let value = rest.get(key_end + 4..value_end).ok_or_else(cut)?;
        out.push(Write { tree, key, value });
        rest = &rest[value_end..];
    }
    Ok(out)
}

/// The journal of one store.
#[derive(Debug)]
pub(crate) struct Journal {
    /// `None` for a temporary store: nothing is written.
    files: Option<Files>,
    group: SyncGroup,
}

#[derive(Debug)]
struct Files {
    dir: PathBuf,
    active: Mutex<Active>,
    /// Bytes after which a flush checkpoints.
    limit: u64,
}

#[derive(Debug)]
struct Active {
    file: Arc<File>,
    /// Its number (in its name).
    number: u64,
    /// Bytes written to it.
    len: u64,
    /// The number of the next frame.
    next_frame: u64,
    /// The first failed write: nothing later can be trusted to follow it on disk.
    failed: Option<String>,
}

/// A frame appended, the journal locked until its writes are applied to sled.
#[must_use = "apply the frame's writes to sled while it is held"]
pub(crate) struct Appended<'a> {
    _lock: Option<MutexGuard<'a, Active>>,
    /// The frame's number: its applied mark.
    pub number: u64,
}

/// What a sync found to do beyond the `fdatasync`: a file that rotated out, to checkpoint.
pub(crate) struct Rotated {
    path: PathBuf,
}

impl Journal {
    /// A journal in `dir`, starting an empty file numbered `number` whose first frame is
    /// `next_frame`; a flush checkpoints once it holds `limit` bytes.
    pub fn create(dir: &Path, number: u64, next_frame: u64, limit: u64) -> io::Result<Self> {
        let file = create_file(dir, number)?;
        Ok(Journal {
            files: Some(Files {
                dir: dir.to_path_buf(),
                active: Mutex::new(Active {
                    file: Arc::new(file),
                    number,
                    len: 0,
                    next_frame,
                    failed: None,
                }),
                limit,
            }),
            group: SyncGroup::default(),
        })
    }

    /// A temporary store's: commits are applied to sled only.
    pub fn temporary() -> Self {
        Journal {
            files: None,
            group: SyncGroup::default(),
        }
    }

    /// Appends a frame of `writes`; durable with the next [`Journal::sync`]. The caller applies
    /// the writes to sled, with the frame's number as its applied mark, before it lets go of the
    /// returned [`Appended`] (which holds the journal's lock). A failed append fails every later
    /// one.
    pub fn append(&self, writes: &Writes) -> io::Result<Appended<'_>> {
        let Some(files) = &self.files else {
            return Ok(Appended {
                _lock: None,
                number: 0,
            });
        };
        let mut active = files.lock();
        if let Some(first) = &active.failed {
            return Err(poisoned(first));
        }
        let number = active.next_frame;
        let frame = frame(number, &writes.bytes);
        match active.file.write_all_at(&frame, active.len) {
            Ok(()) => {
                active.len += frame.len() as u64;
                active.next_frame += 1;
                Ok(Appended {
                    _lock: Some(active),
                    number,
                })
            }
            Err(e) => {
                let e = named(e, &files.dir.join(file_name(active.number)));
                active.failed = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// Makes every frame appended before the call durable: returns once a sync that started
    /// after the call has completed (its own, or a concurrent caller's). When the file is over
    /// its limit, the sync that sees it starts a new one and `checkpoint` is called with the
    /// sled writes of the old one applied: once it returns (sled flushed and synced), the old
    /// file is deleted.
    pub fn sync(&self, checkpoint: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
        let Some(files) = &self.files else {
            return Ok(());
        };
        self.group.sync(&files.dir, || {
            let rotated = files.sync_active()?;
            if let Some(rotated) = rotated {
                checkpoint()?;
                files.retire(rotated)?;
            }
            Ok(())
        })
    }

    /// Starts a new file, syncs the old one, and returns it, to be deleted once `sled` holds
    /// its writes on stable storage (a clean close).
    pub fn rotate(&self) -> io::Result<Option<Rotated>> {
        let Some(files) = &self.files else {
            return Ok(None);
        };
        let mut rotated = None;
        self.group.sync(&files.dir, || {
            rotated = files.rotate_now()?;
            Ok(())
        })?;
        Ok(rotated)
    }

    /// Deletes a rotated file whose writes are now in sled on stable storage.
    pub fn retire(&self, rotated: Rotated) -> io::Result<()> {
        match &self.files {
            Some(files) => files.retire(rotated),
            None => Ok(()),
        }
    }
}

impl Files {
    fn lock(&self) -> MutexGuard<'_, Active> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Syncs the active file, after switching to a new one if it is over the limit.
    fn sync_active(&self) -> io::Result<Option<Rotated>> {
        let (file, number, over) = {
            let active = self.lock();
            if let Some(first) = &active.failed {
                return Err(poisoned(first));
            }
            (active.file.clone(), active.number, active.len >= self.limit)
        };
        if over {
            return self.rotate_now();
        }
        file.sync_data()
            .map_err(|e| named(e, &self.dir.join(file_name(number))))?;
        Ok(None)
    }

    /// Switches to a new file, then syncs the old one and the directory (which names the new
    /// one).
    fn rotate_now(&self) -> io::Result<Option<Rotated>> {
        let (old, number) = {
            let mut active = self.lock();
            if let Some(first) = &active.failed {
                return Err(poisoned(first));
            }
            let number = active.number;
            let next = create_file(&self.dir, number + 1)?;
            let old = std::mem::replace(&mut active.file, Arc::new(next));
            active.number = number + 1;
            active.len = 0;
            (old, number)
        };
        let path = self.dir.join(file_name(number));
        old.sync_data().map_err(|e| named(e, &path))?;
        stable::sync_dir(&self.dir)?;
        Ok(Some(Rotated { path }))
    }

    fn retire(&self, rotated: Rotated) -> io::Result<()> {
        match std::fs::remove_file(&rotated.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(named(e, &rotated.path)),
        }
    }
}

impl Journal {
    /// A checkpoint at a clean close: a new file, `flush` (sled flushed and synced), the old
    /// file deleted; the next open has nothing to apply again.
    pub fn checkpoint(&self, flush: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
        let rotated = self.rotate()?;
        flush()?;
        match rotated {
            Some(rotated) => self.retire(rotated),
            None => Ok(()),
        }
    }
}

/// Applies the journal in `dir` to `db` (whose applied mark is in `marks`), makes it durable
/// there (sled's flush, then `sync`, which syncs sled's files), and deletes the journal's files.
pub(crate) fn recover_into(
    dir: &Path,
    db: &sled::Db,
    marks: &sled::Tree,
    sync: impl FnOnce() -> io::Result<()>,
) -> io::Result<Found> {
    let applied = applied(marks).map_err(io::Error::other)?;
    let found = recover(dir, applied, |number, payload| {
        apply(db, marks, number, payload)
    })?;
    if found.frames > 0 {
        db.flush().map_err(io::Error::other)?;
        sync()?;
        tracing::info!(dir = %dir.display(), frames = found.frames, "applied the journal a crash left");
    }
    remove(dir, &found.files)?;
    Ok(found)
}

/// What [`recover`] found in a store's directory.
#[derive(Debug)]
pub(crate) struct Found {
    /// The journal files, oldest first: to delete once their frames are applied and checkpointed.
    pub files: Vec<PathBuf>,
    /// The number for the next file.
    pub next_file: u64,
    /// The number for the next frame.
    pub next_frame: u64,
    /// Frames applied.
    pub frames: u64,
}

/// Reads the journal files in `dir`, oldest first, and calls `apply` with the number and payload
/// of every whole frame after `applied` (sled's applied mark, `None` when it has none), in order,
/// up to the first frame a crash cut short. A frame that breaks the numbering, a cut followed by
/// more frames, or a gap between the applied mark and the first frame is damage: an error naming
/// the file and frame.
pub(crate) fn recover(
    dir: &Path,
    applied: Option<u64>,
    mut apply: impl FnMut(u64, &[u8]) -> Result<(), String>,
) -> io::Result<Found> {
    let mut numbered = Vec::new();
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            for entry in entries {
                let name = entry?.file_name();
                let Some(name) = name.to_str() else { continue };
                if let Some(number) = name
                    .strip_prefix(PREFIX)
                    .and_then(|hex| u64::from_str_radix(hex, 16).ok())
                {
                    numbered.push(number);
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    numbered.sort_unstable();
    let mut found = Found {
        files: Vec::new(),
        next_file: numbered.last().map_or(0, |n| n + 1),
        next_frame: 0,
        frames: 0,
    };
    let mut expected: Option<u64> = None;
    let mut cut: Option<String> = None;
    for number in numbered {
        let path = dir.join(file_name(number));
        let bytes = std::fs::read(&path).map_err(|e| named(e, &path))?;
        found.files.push(path.clone());
        let mut at = 0usize;
        while at < bytes.len() {
            let Some((frame_number, payload, len)) = read_frame(&bytes[at..]) else {
                let where_cut = format!("{} at byte {at}", path.display());
                // A crash cuts the last frame of the file; a whole frame after a bad one is
                // damage to a frame that was reported durable.
                if let Some(next) = claimed_len(&bytes[at..])
                    .and_then(|len| bytes.get(at + len..))
                    .and_then(read_frame)
                {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "journal frame {} in {} follows a damaged frame ({where_cut}): \
                             frames between are lost",
                            next.0,
                            path.display()
                        ),
                    ));
                }
                cut.get_or_insert(where_cut);
                break;
            };
            if let Some(where_cut) = &cut {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "journal frame {frame_number} in {} follows a damaged frame ({where_cut}): \
                         frames between are lost",
                        path.display()
                    ),
                ));
            }
            // The first frame read may come before sled's mark, not after the frame following it.
            let wanted = expected.or(applied.map(|a| a + 1).filter(|&next| next < frame_number));
            if let Some(expected) = wanted
                && frame_number != expected
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "journal frame {frame_number} in {} at byte {at}: frame {expected} was \
                         expected",
                        path.display()
                    ),
                ));
            }
            let applied_already = applied.is_some_and(|a| frame_number <= a);
            let done = if applied_already {
                Ok(())
            } else {
                apply(frame_number, payload)
            };
            done.map_err(|reason| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "journal frame {frame_number} in {} at byte {at}: {reason}",
                        path.display()
                    ),
                )
            })?;
            expected = Some(frame_number + 1);
            found.frames += u64::from(!applied_already);
            at += len;
        }
    }
    found.next_frame = expected.unwrap_or(0).max(applied.map_or(0, |a| a + 1));
    Ok(found)
}

/// The length of the frame at the start of `bytes`, as its header says.
fn claimed_len(bytes: &[u8]) -> Option<usize> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    (len <= MAX_PAYLOAD).then_some(OVERHEAD + len)
}

/// A whole frame at the start of `bytes`: its number, payload and length; `None` if it is cut
/// short or its checksum fails.
fn read_frame(bytes: &[u8]) -> Option<(u64, &[u8], usize)> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    if len > MAX_PAYLOAD {
        return None;
    }
    let body = bytes.get(4..12 + len)?;
    let stored = u32::from_le_bytes(bytes.get(12 + len..OVERHEAD + len)?.try_into().ok()?);
    if crc32fast::hash(body) != stored {
        return None;
    }
    let number = u64::from_le_bytes(body[..8].try_into().ok()?);
    Some((number, &body[8..], OVERHEAD + len))
}

fn frame(number: u64, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).expect("a commit group is under 4 GiB");
    let mut frame = Vec::with_capacity(OVERHEAD + payload.len());
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(&number.to_le_bytes());
    frame.extend_from_slice(payload);
    let crc = crc32fast::hash(&frame[4..]);
    frame.extend_from_slice(&crc.to_le_bytes());
    frame
}

fn file_name(number: u64) -> String {
    format!("{PREFIX}{number:016x}")
}

fn create_file(dir: &Path, number: u64) -> io::Result<File> {
    let path = dir.join(file_name(number));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| named(e, &path))
}

/// Deletes journal files whose frames are in sled on stable storage, and syncs the directory.
pub(crate) fn remove(dir: &Path, files: &[PathBuf]) -> io::Result<()> {
    for path in files {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(named(e, path)),
        }
    }
    if !files.is_empty() {
        stable::sync_dir(dir)?;
    }
    Ok(())
}

fn named(error: io::Error, path: &Path) -> io::Error {
    io::Error::new(
        error.kind(),
        format!("the journal {}: {error}", path.display()),
    )
}

fn poisoned(first: &str) -> io::Error {
    io::Error::other(format!(
        "an earlier journal write failed ({first}); nothing is reported durable until the \
         process reopens the store"
    ))
}

#[cfg(test)]
mod tests;
