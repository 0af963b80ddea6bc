//! The puzzle telemetry: validates finished sessions against Strata Relay's rules and keeps
//! per-stage statistics, as a decider the runtime hosts.
//!
//! - input: [`Input::Session`] (a `game.session.completed.v1` or `.v2`, read as one shape, the
//!   contracts' [`SessionCompletion`](arcade_contracts::game::SessionCompletion), by the
//!   service's [`mapping`](crate::mapping)) or
//!   [`Input::Tick`]; a session is identified by its `gameId`, so a resend (any version) is a
//!   repeat ([`PuzzleTelemetry::is_repeat`]) and counted once — within a window of event time
//!   ([`SessionWindow`], [`SESSION_WINDOW_MS`] by default), after which a resend counts again;
//! - events: [`Event::Recorded`] → `puzzle.session.recorded.v1`, [`Event::Flagged`] →
//!   `puzzle.session.flagged.v1`, [`Event::StatsPublished`] → `puzzle.stats.updated.v1`, and
//!   on a partitioned instance (one of N, [`Partition`]) [`Event::PartitionPublished`] →
//!   `puzzle.partition.updated.v1` with it: the raw counters the N partitions' statistics
//!   merge from ([`Stats::merge`], [`Stats::from_partition`]);
//! - state: [`TelemetryState`], a fold of those events only (each recorded session carries
//!   every field the statistics need, including its move limit and arrival time).

mod decider;
mod partition;
mod session;
mod sketch;
mod stats;
mod verify;
mod window;

pub use decider::{Event, Input, PUBLISH_INTERVAL_MS, PuzzleTelemetry, TelemetryState};
pub use partition::{NoSuchPartition, Partition, PartitionError};
pub use session::{
    Accepted, Flag, FlagReason, MoveAt, Outcome, Session, WIN_SEARCH_TURNS, validate,
};
pub(crate) use sketch::BUCKETS as SKETCH_BUCKETS;
pub use sketch::DurationSketch;
pub use stats::{StageStats, Stats};
pub use verify::{check, replay};
pub(crate) use window::IdDigest;
pub use window::{SESSION_WINDOW_MS, SessionWindow};
