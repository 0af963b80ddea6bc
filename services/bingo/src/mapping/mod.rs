//! Between the wire and the domain, declared once: the contract messages the bingo service
//! consumes ([`Incoming`], each read as an [`Input`]) and those it publishes ([`Outgoing`],
//! each read back as an [`Event`](crate::Event) on replay).
//!
//! A new message type is one line in [`Incoming`] or [`Outgoing`] and its conversion: a
//! `From`/`TryFrom` from the contract type (`inputs.rs`, `events.rs`) and, for an event, its
//! arm of `From<&Event> for Outgoing`. Only `arcade_contracts` types go on the wire; the
//! domain's types are not serializable.

mod events;
mod inputs;
pub(crate) mod spec;

use serde_json::Value;

use arcade_contracts::activity::{ActivityRecorded, ActivityUndone};
use arcade_contracts::bingo as wire;
use arcade_runtime::MappingError;

use crate::domain::{Event, Input};

pub(crate) use spec::config_out;

arcade_runtime::mapping! {
    /// A message the bingo service always consumes: its commands and `activity.*`. It also
    /// consumes the types its open games map ([`crate::State::mapped_message_types`]), read as
    /// [`Input::Foreign`].
    #[derive(Debug, Clone, PartialEq)]
    pub enum Incoming for Input, of "the bingo service" {
        /// `bingo.game.open.v1`
        OpenGame(wire::OpenGame),
        /// `bingo.card.deal.v1`
        DealCard(wire::DealCard),
        /// `bingo.cards.print.v1`
        PrintCards(wire::PrintCards),
        /// `bingo.square.call.v1`
        CallSquare(wire::CallSquare),
        /// `bingo.card.claim.v1`
        ClaimCard(wire::ClaimCard),
        /// `bingo.card.verify.v1`
        VerifyCard(wire::VerifyCard),
        /// `bingo.game.close.v1`
        CloseGame(wire::CloseGame),
        /// `activity.recorded.v1`
        Recorded(ActivityRecorded),
        /// `activity.undone.v1`
        Undone(ActivityUndone),
    }
}

arcade_runtime::mapping! {
    /// An event as its contract message; each event is exactly one message.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Outgoing for Event, of "the bingo service's log" {
        /// `bingo.game.opened.v1`
        GameOpened(wire::GameOpened),
        /// `bingo.card.dealt.v1`
        CardDealt(wire::CardDealt),
        /// `bingo.cards.printed.v1`
        CardsPrinted(wire::CardsPrinted),
        /// `bingo.square.called.v1`
        SquareCalled(wire::SquareCalled),
        /// `bingo.square.ticked.v1`
        SquareTicked(wire::SquareTicked),
        /// `bingo.gesture.undone.v1`
        GestureUndone(wire::GestureUndone),
        /// `bingo.claim.answered.v1`
        ClaimAnswered(wire::ClaimAnswered),
        /// `bingo.card.won.v1`
        CardWon(wire::CardWon),
        /// `bingo.game.closed.v1`
        GameClosed(wire::GameClosed),
        /// `bingo.request.rejected.v1`
        RequestRejected(wire::RequestRejected),
    }
}

impl Input {
    /// Reads an incoming message: a `bingo.*` command, an `activity.*` event, or any other
    /// message type (handed to the games that map it, as [`Input::Foreign`]).
    pub fn from_message(
        message_type: &str,
        payload: &Value,
        message_id: &str,
    ) -> Result<Input, MappingError> {
        match Incoming::read(message_type, payload)? {
            Some(message) => message.into_domain(),
            None => Ok(Input::Foreign {
                message_type: message_type.to_string(),
                payload: payload.clone(),
                message_id: message_id.to_string(),
            }),
        }
    }
}

impl Event {
    /// The event as its contract message.
    pub fn to_contract(&self) -> Outgoing {
        Outgoing::from(self)
    }

    /// The event's message type and JSON payload.
    pub fn to_message(&self) -> Result<(&'static str, Value), MappingError> {
        let message = self.to_contract();
        Ok((message.message_type(), message.payload()?))
    }

    /// An event back from the service's log (replay). Inverts [`Event::to_message`].
    pub fn from_message(message_type: &str, payload: &Value) -> Result<Event, MappingError> {
        Outgoing::to_domain(message_type, payload)
    }
}

/// The message types the bingo service always consumes: its commands and `activity.*`. It
/// also consumes the types its open games map ([`crate::State::mapped_message_types`]).
pub fn consumed_types() -> Vec<&'static str> {
    Incoming::TYPES.to_vec()
}
