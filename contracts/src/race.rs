//! `race.*`: the race master's commands and facts, and the cars' decisions.

use crate::MessageType;

/// The message types of this module.
pub fn types() -> Vec<MessageType> {
    Vec::new()
}
