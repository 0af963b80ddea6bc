//! How sled is opened and sized on disk and in memory.

use super::inspect;

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
    pub(super) fn tail_records(self) -> usize {
        match self {
            Storage::Server => 4096,
            Storage::Compact => 64,
        }
    }

    /// How much memory those records may take ([`Tail`](super::tail::Tail)'s estimate).
    pub(super) fn tail_bytes(self) -> usize {
        match self {
            Storage::Server => 16 << 20,
            Storage::Compact => 256 << 10,
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
