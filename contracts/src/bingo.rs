//! `bingo.*`: the bingo service's commands and facts (games, cards, calls, ticks, claims).

use crate::MessageType;

/// The message types of this module.
pub fn types() -> Vec<MessageType> {
    Vec::new()
}
