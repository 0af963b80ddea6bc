//! The on-disk format of the referee's state snapshots (`arcade_runtime::Snapshot`).
//!
//! Version 3: the state's serde form ([`TableState`]) as JSON — the current (or last) game
//! with its rules document (checked again on load with [`Rules::reload`]), its play and the
//! play before its last ball, the ball locks last decided, and every game id ever started on
//! the table. A field the state gains is written without an edit here; a snapshot that lacks
//! it, or holds one the state lost the type of, fails to decode and the host folds the log
//! instead.
//!
//! Version 2 (postcard, field by field) is still read: [`v2`] turns it into version 3's form.
//! Version 1 (without the play before the last ball) is skipped and the log replayed.
//!
//! [`Rules::reload`]: crate::domain::Rules::reload

use arcade_runtime::{Snapshot, SnapshotError};

mod v2;

use crate::domain::TableState;
use crate::service::RefereeService;
use crate::table::BallLocks;

impl<L: BallLocks + Send + 'static> Snapshot for RefereeService<L> {
    const VERSION: u32 = 3;

    fn encode(state: &TableState) -> Vec<u8> {
        // Strings, integers, vectors and a JSON document always serialize.
        serde_json::to_vec(state).unwrap_or_default()
    }

    fn decode(bytes: &[u8]) -> Result<TableState, SnapshotError> {
        serde_json::from_slice(bytes).map_err(|e| SnapshotError::Payload(e.to_string()))
    }

    fn decode_older(version: u32, bytes: &[u8]) -> Option<Result<TableState, SnapshotError>> {
        let read = |bytes| {
            serde_json::from_value(v2::read(bytes)?)
                .map_err(|e| SnapshotError::Payload(format!("version 2: {e}")))
        };
        (version == 2).then(|| read(bytes))
    }
}
