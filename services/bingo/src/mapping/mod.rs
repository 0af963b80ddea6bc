//! Between the wire and the domain, declared once: the contract messages the bingo service
//! consumes ([`Incoming`], each read as an [`Input`]) and those it publishes ([`Outgoing`],
//! each read back as an [`Event`](crate::Event) on replay).
//!
//! A new message type is one line in [`Incoming`] (`inputs.rs`) or [`Outgoing`] (`events.rs`)
//! and, in the same file, its arm of `From<Incoming> for Input`, or of `From<&Event> for
//! Outgoing` and `TryFrom<Outgoing> for Event` (one line each: an event holds its message).
//! The message types always consumed are [`Incoming::TYPES`]. Only `arcade_contracts` types
//! go on the wire; the domain's own types are not serializable.

mod events;
mod inputs;
pub(crate) mod spec;

pub use events::Outgoing;
pub use inputs::Incoming;

use serde_json::Value;

use arcade_runtime::MappingError;

use crate::domain::{Event, Input};

pub(crate) use spec::config_out;

impl Input {
    /// Reads an incoming message: a `bingo.*` command, an `activity.*` event, or any other
    /// message type (handed to the games that map it, as [`Input::Foreign`]).
    pub fn from_message(
        message_type: &str,
        payload: &Value,
        message_id: &str,
    ) -> Result<Input, MappingError> {
        match Incoming::read(message_type, payload)? {
            Some(message) => Ok(message.into()),
            None => Ok(Input::Foreign {
                message_type: message_type.to_string(),
                payload: payload.clone(),
                message_id: message_id.to_string(),
            }),
        }
    }
}

impl Event {
    /// An event back from the service's log (replay): `Outgoing::from(&event)` inverted.
    pub fn from_message(message_type: &str, payload: &Value) -> Result<Event, MappingError> {
        Outgoing::decode(message_type, payload)?.try_into()
    }
}
