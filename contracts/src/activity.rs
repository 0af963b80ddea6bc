//! `activity.*`: members' gestures that tick activity bingo cards.

use crate::MessageType;

/// The message types of this module.
pub fn types() -> Vec<MessageType> {
    Vec::new()
}
