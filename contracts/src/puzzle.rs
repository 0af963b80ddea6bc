//! `puzzle.*`: the puzzle telemetry service's facts — each `game.session.completed.v1` it
//! consumes becomes either `puzzle.session.recorded.v1` (counted in the statistics) or
//! `puzzle.session.flagged.v1` (impossible under Strata Relay's rules, kept out), and the
//! per-stage statistics are published periodically as `puzzle.stats.updated.v1`. A partitioned
//! instance (one of N, each counting a share of the games) also publishes its raw, mergeable
//! counters as `puzzle.partition.updated.v1`, from which the statistics of all partitions are
//! rebuilt exactly.
//!
//! Layout: [`sessions`] (a session recorded or flagged) and [`stats`] (the statistics and a
//! partition's counters), each type there next to its catalog entry and example.

use crate::MessageType;

pub mod sessions;
pub mod stats;

pub use sessions::*;
pub use stats::*;

/// The message types of this module: the sessions, then the statistics.
pub fn types() -> Vec<MessageType> {
    let mut all = sessions::types();
    all.extend(stats::types());
    all
}
