//! `table.*`: the table referee's commands and facts (foosball games, goals, phases, ball locks).

use crate::MessageType;

/// The message types of this module.
pub fn types() -> Vec<MessageType> {
    Vec::new()
}
