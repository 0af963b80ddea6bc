//! Arcade's wire contract: the envelope every message travels in, and one Rust type per
//! versioned message type (`<domain>.<entity>.<verb>.v<N>`).
//!
//! Layout:
//! - [`envelope`]: the envelope (identities, producer, time) around a JSON payload.
//! - [`bounds`]: the schema generator, which bounds every integer by its Rust type.
//! - [`compat`]: every change between two versions of a schema, classed compatible or breaking.
//! - [`upcast`]: how one consumer reads several versions of a message in one shape.
//! - [`catalog`]: the list of every known message type with its JSON Schema, its example and
//!   its route (published on the topic exchange, or sent to one service's queue).
//! - one module per domain: [`game`], [`table`], [`bingo`], [`activity`], [`race`], [`puzzle`].
//!
//! Only these types go on the wire. Services convert their domain types to and from them. A
//! breaking change makes a new `.vN+1` type; an existing type keeps its meaning forever, and
//! gains fields only as optional (`#[serde(default)]`) with a doc line saying when they came.

/// Makes contract types [`Message`]s and lists them: one line per type,
/// `Kind Type: "type.name.vN" [to |m| route] => example;`, gives each its `impl Message` (its
/// kind, versioned name, example payload and, for a request, where it goes: `route` from the
/// message `m`; a fact goes on the topic), and `pub fn types()`, the module's
/// [`MessageType`]s in the order listed.
macro_rules! messages {
    ($($kind:ident $type:ident: $name:literal $(to |$m:pat_param| $route:expr)? => $example:expr;)*) => {
        $(
            impl $crate::Message for $type {
                const TYPE: &'static str = $name;
                const KIND: $crate::MessageKind = $crate::MessageKind::$kind;
                fn example() -> Self {
                    $example
                }
                $(
                    fn route(&self) -> $crate::Route {
                        let $m = self;
                        $route
                    }
                )?
            }
        )*

        /// The message types of this module, in the order they are listed.
        pub fn types() -> Vec<$crate::MessageType> {
            vec![$($crate::MessageType::of::<$type>()),*]
        }
    };
}

pub mod activity;
pub mod asyncapi;
pub mod bingo;
pub mod bounds;
pub mod catalog;
pub mod compat;
pub mod envelope;
pub mod game;
pub mod principal;
pub mod puzzle;
pub mod race;
pub mod table;
pub mod upcast;

pub use catalog::{Catalog, MessageKind, MessageType, Route, ValidationError};
pub use envelope::Envelope;

/// A message type of the contract: a payload that knows its versioned name.
pub trait Message:
    serde::Serialize + serde::de::DeserializeOwned + schemars::JsonSchema + Send + Sync + 'static
{
    /// The versioned name, e.g. `game.session.completed.v1`; also the AMQP routing key.
    const TYPE: &'static str;
    /// Whether it is a fact (event) anyone may subscribe to, or a request to one service.
    const KIND: MessageKind;
    /// A realistic payload, committed next to the schema and checked against it.
    fn example() -> Self;
    /// Where a message of this type is delivered. Events go to the topic exchange; commands
    /// override this to name the queue of the instance they are addressed to.
    fn route(&self) -> Route {
        Route::Topic
    }
}
