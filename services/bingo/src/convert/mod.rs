//! Between the wire and the domain: incoming messages as decider [`Input`]s, and the
//! service's [`Event`](crate::Event)s as contract messages and back (replay).
//!
//! Only `arcade_contracts` types go on the wire; the domain's types are not serializable.

mod events;
pub(crate) mod spec;

use serde::de::DeserializeOwned;
use serde_json::Value;

use arcade_contracts::Message;
use arcade_contracts::activity::{ActivityRecorded, ActivityUndone};
use arcade_contracts::bingo as wire;

use crate::domain::{Action, Command, Gesture, Input};

pub use events::Outgoing;
pub(crate) use spec::config_out;

/// Why a message cannot be read: the host dead-letters it with this reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The payload does not decode as its type.
    #[error("{message_type} payload cannot be read: {error}")]
    Payload {
        /// The message type.
        message_type: String,
        /// What serde said.
        error: String,
    },
    /// The message type is not one of the bingo service's events.
    #[error("{0} is not an event of the bingo service")]
    NotABingoEvent(String),
    /// The payload decodes but breaks a rule the service relies on (replaying a log).
    #[error("{message_type} payload is not valid: {reason}")]
    Invalid {
        /// The message type.
        message_type: String,
        /// Why.
        reason: String,
    },
}

pub(crate) fn read<M: Message + DeserializeOwned>(payload: &Value) -> Result<M, DecodeError> {
    M::deserialize(payload).map_err(|e| DecodeError::Payload {
        message_type: M::TYPE.to_string(),
        error: e.to_string(),
    })
}

fn command(request_id: Option<String>, game_id: String, action: Action) -> Input {
    Input::Command(Command {
        request_id,
        game_id,
        action,
    })
}

impl Input {
    /// Reads an incoming message: a `bingo.*` command, an `activity.*` event, or any other
    /// message type (handed to the games that map it, as [`Input::Foreign`]).
    pub fn from_message(
        message_type: &str,
        payload: &Value,
        message_id: &str,
    ) -> Result<Input, DecodeError> {
        Ok(match message_type {
            wire::OpenGame::TYPE => {
                let m: wire::OpenGame = read(payload)?;
                let spec = spec::spec_in(
                    m.tick_mode,
                    &m.grid,
                    &m.pool,
                    &m.patterns,
                    &m.activity_sources,
                );
                command(m.request_id, m.game_id, Action::Open(spec))
            }
            wire::DealCard::TYPE => {
                let m: wire::DealCard = read(payload)?;
                command(m.request_id, m.game_id, Action::Deal { player: m.player })
            }
            wire::PrintCards::TYPE => {
                let m: wire::PrintCards = read(payload)?;
                command(m.request_id, m.game_id, Action::Print { count: m.count })
            }
            wire::CallSquare::TYPE => {
                let m: wire::CallSquare = read(payload)?;
                command(
                    m.request_id,
                    m.game_id,
                    Action::Call {
                        square: m.square_id,
                    },
                )
            }
            wire::ClaimCard::TYPE => {
                let m: wire::ClaimCard = read(payload)?;
                let action = Action::Claim {
                    serial: m.serial,
                    player: m.player,
                };
                command(m.request_id, m.game_id, action)
            }
            wire::VerifyCard::TYPE => {
                let m: wire::VerifyCard = read(payload)?;
                let action = Action::Verify {
                    serial: m.serial,
                    label: m.label,
                };
                command(m.request_id, m.game_id, action)
            }
            wire::CloseGame::TYPE => {
                let m: wire::CloseGame = read(payload)?;
                command(m.request_id, m.game_id, Action::Close)
            }
            ActivityRecorded::TYPE => {
                let m: ActivityRecorded = read(payload)?;
                Input::Recorded(Gesture {
                    entry_id: m.entry_id,
                    member: m.member,
                    verb: m.verb,
                    object: m.object,
                })
            }
            ActivityUndone::TYPE => {
                let m: ActivityUndone = read(payload)?;
                Input::Undone {
                    entry_id: m.entry_id,
                }
            }
            other => Input::Foreign {
                message_type: other.to_string(),
                payload: payload.clone(),
                message_id: message_id.to_string(),
            },
        })
    }
}

/// The message types the bingo service always consumes: its commands and `activity.*`. It
/// also consumes the types its open games map ([`crate::State::mapped_message_types`]).
pub fn consumed_types() -> Vec<&'static str> {
    vec![
        wire::OpenGame::TYPE,
        wire::DealCard::TYPE,
        wire::PrintCards::TYPE,
        wire::CallSquare::TYPE,
        wire::ClaimCard::TYPE,
        wire::VerifyCard::TYPE,
        wire::CloseGame::TYPE,
        ActivityRecorded::TYPE,
        ActivityUndone::TYPE,
    ]
}
