//! `puzzle.*`: the puzzle telemetry service's facts (flagged sessions, statistics).

use crate::MessageType;

/// The message types of this module.
pub fn types() -> Vec<MessageType> {
    Vec::new()
}
