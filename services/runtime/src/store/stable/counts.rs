//! How many syncs of each database reached stable storage or failed since the process
//! started, and failures and delays injected on purpose: what the tests read to know that every
//! commit path syncs, how they make a sync fail as a failing disk would, and how a benchmark
//! makes every sync as slow as an SD card's.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Per database directory: syncs completed and failed, and injected failures (tests); delays
/// added to the syncs of databases under a directory (benchmarks).
#[derive(Debug, Default)]
pub(super) struct Counters {
    by_dir: Mutex<HashMap<PathBuf, SyncCount>>,
    delays: Mutex<Vec<(PathBuf, Duration)>>,
}

/// How many syncs of one database reached stable storage, and how many failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncCount {
    /// Syncs that completed: everything flushed before each reached stable storage.
    pub completed: u64,
    /// Syncs that failed.
    pub failed: u64,
    /// Syncs still to fail on purpose (set by [`fail_syncs`]).
    injected: u64,
}

pub(super) fn counters() -> &'static Counters {
    static COUNTERS: OnceLock<Counters> = OnceLock::new();
    COUNTERS.get_or_init(Counters::default)
}

impl Counters {
    fn map(&self) -> MutexGuard<'_, HashMap<PathBuf, SyncCount>> {
        self.by_dir.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn record(&self, dir: &Path, ok: bool) {
        let mut map = self.map();
        let count = map.entry(dir.to_path_buf()).or_default();
        if ok {
            count.completed += 1;
        } else {
            count.failed += 1;
        }
    }

    /// The delay injected into each sync of the database in `dir`, if any.
    pub(super) fn delay(&self, dir: &Path) -> Option<Duration> {
        let delays = self.delays.lock().unwrap_or_else(|p| p.into_inner());
        delays
            .iter()
            .filter(|(under, _)| dir.starts_with(under))
            .map(|(_, delay)| *delay)
            .max()
    }

    pub(super) fn injected(&self, dir: &Path) -> Option<io::Error> {
        let mut map = self.map();
        let count = map.get_mut(dir).filter(|c| c.injected > 0)?;
        count.injected -= 1;
        Some(io::Error::other(format!(
            "injected failure syncing {}",
            dir.display()
        )))
    }
}

/// The syncs of the database in `dir` (a store's or an embedded bus's directory, as opened)
/// since the process started. Every commit reported durable was covered by one of them.
pub fn syncs(dir: &Path) -> SyncCount {
    counters().map().get(dir).copied().unwrap_or_default()
}

/// Makes the next `count` syncs of the database in `dir` fail, as a failing disk would (tests).
pub fn fail_syncs(dir: &Path, count: u64) {
    counters()
        .map()
        .entry(dir.to_path_buf())
        .or_default()
        .injected += count;
}

/// Makes every sync of each database under `dir` (a data directory: every store and the
/// embedded bus in it) take `delay` longer, as a slow SD card's would (the lock-timing
/// benchmark). A zero delay removes it.
pub fn delay_syncs(dir: &Path, delay: Duration) {
    let mut delays = counters().delays.lock().unwrap_or_else(|p| p.into_inner());
    delays.retain(|(under, _)| under != dir);
    if !delay.is_zero() {
        delays.push((dir.to_path_buf(), delay));
    }
}
