//! Between contract messages and a service's domain, declared once per service.
//!
//! A service lists the contract types it consumes, and those it publishes, with [`mapping!`]:
//! one line per message type. The macro generates an enum of those contract messages with
//! their type names ([`TYPES`](#generated-items)), reading (`read`, `decode`), writing
//! (`payload`, `outbound`) and routing (`route`); given a domain type (`for Event`), it also
//! converts every listed message into it through the service's `From`/`TryFrom` impls
//! (`into_domain`, `to_domain`). The encode direction is the service's own match from its
//! domain value to the generated enum (`From<&Event>`, or a function when it needs settings
//! such as a table id).
//!
//! Whatever does not map is a [`MappingError`] naming the message type and what is wrong:
//! a type the service does not take, a payload serde cannot read (with the field's path), a
//! value the domain refuses, a message the service refuses (from that sender, or a fact sent
//! as a command), or a message that cannot be written. Nothing falls back to
//! `null` or an empty body.
//!
//! # Generated items
//!
//! For `mapping! { pub enum Outgoing for Event, of "the bingo service's log" {
//! GameOpened(bingo::GameOpened), … } }`:
//! `enum Outgoing { GameOpened(bingo::GameOpened), … }` (with the caller's attributes),
//! `From<bingo::GameOpened> for Outgoing`, and on `Outgoing`: `TYPES`, `message_type`,
//! `route`, `payload`, `outbound`, `read` (`Ok(None)` for a type it does not list), `decode`
//! (an error for such a type), and with `for Event`: `into_domain` and `to_domain`.

use std::fmt::Display;

pub use arcade_contracts::{Message, Route};
pub use serde_json::Value;

/// Why a message does not map between its contract type and a service's domain. Each variant
/// names the message type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MappingError {
    /// The service does not take (or, from its log, does not know) this message type.
    #[error("{of} takes {takes}, not {message_type}")]
    UnknownType {
        /// The message type.
        message_type: String,
        /// Who refuses it, e.g. `the bingo service`.
        of: String,
        /// The types it takes, e.g. `a, b and c`.
        takes: String,
    },
    /// The payload does not read as the contract type.
    #[error("{message_type} payload cannot be read: {error}{}", at(path))]
    Payload {
        /// The message type.
        message_type: String,
        /// Where in the payload, as serde's path (`grid.size`); empty at the top level.
        path: String,
        /// What serde said.
        error: String,
    },
    /// The payload reads, but the domain refuses its values.
    #[error("{message_type} payload is not valid: {reason}")]
    Invalid {
        /// The message type.
        message_type: String,
        /// Why.
        reason: String,
    },
    /// The payload reads, but the service does not take it from this sender or at all (a
    /// fact sent to it as if it were a command).
    #[error("{message_type} is refused: {reason}")]
    Refused {
        /// The message type.
        message_type: String,
        /// Why.
        reason: String,
    },
    /// A contract message that serde cannot write as JSON.
    #[error("{message_type} cannot be written as JSON: {error}")]
    Unwritable {
        /// The message type.
        message_type: String,
        /// What serde said.
        error: String,
    },
}

fn at(path: &str) -> String {
    if path.is_empty() || path == "." {
        String::new()
    } else {
        format!(" (at {path})")
    }
}

impl MappingError {
    /// A message type that `of` (e.g. `the bingo service`), which takes `takes`, does not.
    pub fn unknown(message_type: &str, of: impl Display, takes: &[&str]) -> MappingError {
        let takes = match takes {
            [] => "nothing".to_string(),
            [one] => (*one).to_string(),
            [first @ .., last] => format!("{} and {last}", first.join(", ")),
        };
        MappingError::UnknownType {
            message_type: message_type.to_string(),
            of: of.to_string(),
            takes,
        }
    }

    /// A message of `message_type` whose values the domain refuses, for `reason`.
    pub fn invalid(message_type: &str, reason: impl Display) -> MappingError {
        MappingError::Invalid {
            message_type: message_type.to_string(),
            reason: reason.to_string(),
        }
    }

    /// A message of `message_type` the service refuses (from its sender, or at all), for
    /// `reason`.
    pub fn refused(message_type: &str, reason: impl Display) -> MappingError {
        MappingError::Refused {
            message_type: message_type.to_string(),
            reason: reason.to_string(),
        }
    }

    /// The message type it is about.
    pub fn message_type(&self) -> &str {
        match self {
            MappingError::UnknownType { message_type, .. }
            | MappingError::Payload { message_type, .. }
            | MappingError::Invalid { message_type, .. }
            | MappingError::Refused { message_type, .. }
            | MappingError::Unwritable { message_type, .. } => message_type,
        }
    }
}

/// Reads a payload as the contract type `M`, in place; the error names the type and the
/// path of the field serde stopped at.
pub fn read<M: Message>(payload: &Value) -> Result<M, MappingError> {
    serde_path_to_error::deserialize(payload).map_err(|e| MappingError::Payload {
        message_type: M::TYPE.to_string(),
        path: e.path().to_string(),
        error: e.into_inner().to_string(),
    })
}

/// Writes a contract message as its JSON payload.
pub fn write<M: Message>(message: &M) -> Result<Value, MappingError> {
    serde_json::to_value(message).map_err(|e| MappingError::Unwritable {
        message_type: M::TYPE.to_string(),
        error: e.to_string(),
    })
}

/// Converts a contract message into the domain value `D` through `D: TryFrom<M>` (a `From`
/// impl counts: its error, `Infallible`, never occurs); a refusal names `M`'s type.
pub fn into_domain<M: Message, D>(message: M) -> Result<D, MappingError>
where
    D: TryFrom<M>,
    <D as TryFrom<M>>::Error: Display,
{
    D::try_from(message).map_err(|e| MappingError::invalid(M::TYPE, e))
}

/// Declares a service's mapping: an enum of the contract messages it lists, one line per
/// message type, and what comes with it (see the [module](crate::mapping) documentation).
/// `of "…"` names, in an unknown type's error, who takes the listed types.
///
/// ```ignore
/// arcade_runtime::mapping! {
///     /// The bingo service's events as contract messages.
///     #[derive(Debug, Clone, PartialEq)]
///     pub enum Outgoing for Event, of "the bingo service's log" {
///         /// `bingo.game.opened.v1`
///         GameOpened(bingo::GameOpened),
///     }
/// }
/// ```
#[macro_export]
macro_rules! mapping {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident for $domain:ty, of $who:literal {
            $($(#[$vmeta:meta])* $variant:ident($contract:ty)),+ $(,)?
        }
    ) => {
        $crate::mapping! {
            $(#[$meta])*
            $vis enum $name, of $who {
                $($(#[$vmeta])* $variant($contract)),+
            }
        }

        impl $name {
            /// The domain value of this message, through its `From`/`TryFrom` impl.
            pub fn into_domain(self) -> ::std::result::Result<$domain, $crate::mapping::MappingError> {
                match self {
                    $($name::$variant(m) => $crate::mapping::into_domain::<$contract, $domain>(m)),+
                }
            }

            /// Reads a payload of one of the listed types as its domain value.
            pub fn to_domain(
                message_type: &str,
                payload: &$crate::mapping::Value,
            ) -> ::std::result::Result<$domain, $crate::mapping::MappingError> {
                Self::decode(message_type, payload)?.into_domain()
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident, of $who:literal {
            $($(#[$vmeta:meta])* $variant:ident($contract:ty)),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$vmeta])* $variant($contract)),+
        }

        impl $name {
            /// Every message type listed, in order.
            pub const TYPES: &'static [&'static str] =
                &[$(<$contract as $crate::mapping::Message>::TYPE),+];

            /// Its versioned message type.
            pub fn message_type(&self) -> &'static str {
                match self {
                    $($name::$variant(_) => <$contract as $crate::mapping::Message>::TYPE),+
                }
            }

            /// Where it is delivered: the topic, or one instance's queue.
            pub fn route(&self) -> $crate::mapping::Route {
                match self {
                    $($name::$variant(m) => $crate::mapping::Message::route(m)),+
                }
            }

            /// Its JSON payload.
            pub fn payload(
                &self,
            ) -> ::std::result::Result<$crate::mapping::Value, $crate::mapping::MappingError> {
                match self {
                    $($name::$variant(m) => $crate::mapping::write(m)),+
                }
            }

            /// What it sends: type, payload and route.
            pub fn outbound(
                &self,
            ) -> ::std::result::Result<$crate::Outbound, $crate::mapping::MappingError> {
                match self {
                    $($name::$variant(m) => $crate::Outbound::of(m)),+
                }
            }

            /// Reads a payload of one of the listed types; `Ok(None)` for any other type.
            pub fn read(
                message_type: &str,
                payload: &$crate::mapping::Value,
            ) -> ::std::result::Result<::std::option::Option<Self>, $crate::mapping::MappingError>
            {
                $(
                    if message_type == <$contract as $crate::mapping::Message>::TYPE {
                        return $crate::mapping::read::<$contract>(payload)
                            .map(|m| ::std::option::Option::Some($name::$variant(m)));
                    }
                )+
                ::std::result::Result::Ok(::std::option::Option::None)
            }

            /// Reads a payload of one of the listed types; any other type is an error.
            pub fn decode(
                message_type: &str,
                payload: &$crate::mapping::Value,
            ) -> ::std::result::Result<Self, $crate::mapping::MappingError> {
                Self::read(message_type, payload)?.ok_or_else(|| {
                    $crate::mapping::MappingError::unknown(message_type, $who, Self::TYPES)
                })
            }
        }

        $(
            impl ::std::convert::From<$contract> for $name {
                fn from(message: $contract) -> Self {
                    $name::$variant(message)
                }
            }
        )+
    };
}

/// A contract message ready to go out (the host makes it a [`crate::WireMessage`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Outbound {
    /// Its versioned type.
    pub message_type: &'static str,
    /// Its payload.
    pub payload: Value,
    /// Topic, or one instance's queue.
    pub route: Route,
}

impl Outbound {
    /// The type, payload and route of a contract message.
    pub fn of<M: Message>(message: &M) -> Result<Self, MappingError> {
        Ok(Outbound {
            message_type: M::TYPE,
            payload: write(message)?,
            route: message.route(),
        })
    }
}

/// Reads an envelope's payload as the contract type `M`; another type is an error.
pub fn payload_of<M: Message>(envelope: &arcade_contracts::Envelope) -> Result<M, MappingError> {
    if envelope.message_type != M::TYPE {
        return Err(MappingError::unknown(
            &envelope.message_type,
            "this reader",
            &[M::TYPE],
        ));
    }
    read(&envelope.payload)
}

#[cfg(test)]
mod tests {
    use arcade_contracts::activity::ActivityUndone;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_missing_field_is_named_with_the_type() {
        let err = read::<ActivityUndone>(&json!({})).unwrap_err();
        assert!(
            matches!(&err, MappingError::Payload { message_type, .. } if message_type == ActivityUndone::TYPE)
        );
        assert!(err.to_string().contains("entryId"), "{err}");
    }

    #[test]
    fn a_wrong_field_type_names_its_path() {
        let err = read::<ActivityUndone>(&json!({"entryId": 7})).unwrap_err();
        let MappingError::Payload { path, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(path, "entryId");
        assert!(err.to_string().contains("(at entryId)"), "{err}");
    }
}
