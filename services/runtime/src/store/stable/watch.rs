//! What changed in a database's directories since the last sync, as inotify reports it (Linux):
//! the blob files sled finished writing, and whether names came or went in the database's
//! directory or in `blobs/`. A sync then touches only what changed, instead of listing
//! directories that grow with the log, and never takes a blob file sled is still writing for
//! a finished one.
//!
//! sled writes a blob file (`create_new`, three `write_all`, close) while it reserves the log
//! record that points to it, so the file is closed, and its close event queued, before any
//! flush covering that record returns; [`super::Stable::sync`] is called after the flush, so
//! the sync that covers the record reads the event. The kernel queues an event in the system
//! call that causes it.

use std::ffi::OsStr;
use std::io;
use std::path::Path;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use super::Changes;

/// The inotify watches on one database's directory and its `blobs/`.
#[derive(Debug)]
pub(super) struct Watch {
    inotify: Inotify,
    top: WatchDescriptor,
    blobs: WatchDescriptor,
    buffer: Vec<u8>,
}

/// The events that say a name came or went.
fn names() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::ONLYDIR
}

impl Watch {
    /// Watches `dir` and `blobs` (which must exist). Events start from now.
    pub(super) fn new(dir: &Path, blobs: &Path) -> io::Result<Self> {
        let inotify = Inotify::init()?;
        let top = inotify.watches().add(dir, names())?;
        let blobs = inotify
            .watches()
            .add(blobs, names() | WatchMask::CLOSE_WRITE)?;
        Ok(Watch {
            inotify,
            top,
            blobs,
            // Room for hundreds of events a read (each is 16 bytes and its name).
            buffer: vec![0; 16 << 10],
        })
    }

    /// The changes since the last call. `None` when some may have been missed (the kernel's
    /// queue overflowed): the caller lists the directories this time. An error when the watch
    /// cannot serve any more (a directory stopped being watched: removed, its file system
    /// unmounted): the caller lists from then on.
    pub(super) fn changes(&mut self) -> io::Result<Option<Changes>> {
        let mut changes = Changes::default();
        let mut complete = true;
        loop {
            let events = match self.inotify.read_events(&mut self.buffer) {
                Ok(events) => events,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            };
            for event in events {
                if event.mask.contains(EventMask::IGNORED) {
                    return Err(io::Error::other(
                        "a watched directory is no longer watched (removed or unmounted)",
                    ));
                } else if event.mask.contains(EventMask::Q_OVERFLOW) {
                    complete = false;
                } else if event.wd == self.top {
                    changes.top |= event.name.is_some();
                } else if event.wd == self.blobs {
                    note_blob(&mut changes, event.mask, event.name);
                }
            }
        }
        Ok(complete.then_some(changes))
    }
}

/// Records an event on `blobs/`.
fn note_blob(changes: &mut Changes, mask: EventMask, name: Option<&OsStr>) {
    let Some(name) = name else { return };
    if mask.intersects(EventMask::CLOSE_WRITE | EventMask::MOVED_TO) {
        changes.written.insert(name.to_os_string());
    }
    if mask.intersects(EventMask::DELETE | EventMask::MOVED_FROM) {
        changes.removed.insert(name.to_os_string());
    }
    changes.blobs |= mask.intersects(
        EventMask::CREATE | EventMask::DELETE | EventMask::MOVED_FROM | EventMask::MOVED_TO,
    );
}
