//! The catalog of every message type Arcade knows: its versioned name, kind, JSON Schema,
//! example payload and route. Validating a payload against its schema happens here, so every
//! boundary (the runtime's inbox, `arcade send`, the admin endpoint) refuses the same things
//! with the same words.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::Message;

/// Whether a message states a fact or asks one service to do something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// A fact, published on the topic exchange `arcade.events` under its type.
    Event,
    /// A request addressed to one service instance's queue.
    Command,
}

/// Where a message is delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Published on the topic exchange with the message type as routing key.
    Topic,
    /// Sent to the named queue of the instance it is addressed to.
    Queue(String),
}

/// One entry of the catalog.
#[derive(Clone)]
pub struct MessageType {
    /// Versioned name, e.g. `game.session.completed.v1`.
    pub name: &'static str,
    /// Event or command.
    pub kind: MessageKind,
    schema: fn() -> Value,
    example: fn() -> Value,
    route: fn(&Value) -> Result<Route, String>,
}

impl fmt::Debug for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageType")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl MessageType {
    /// The catalog entry of a contract type.
    pub fn of<M: Message>() -> Self {
        MessageType {
            name: M::TYPE,
            kind: M::KIND,
            schema: || {
                let schema = crate::bounds::generator().into_root_schema_for::<M>();
                let mut schema = serde_json::to_value(schema).expect("a generated schema is JSON");
                if let Value::Object(map) = &mut schema {
                    map.insert("$id".into(), Value::String(format!("{}.json", M::TYPE)));
                    map.insert("title".into(), Value::String(M::TYPE.into()));
                }
                schema
            },
            example: || serde_json::to_value(M::example()).expect("an example is JSON"),
            route: |payload| {
                serde_json::from_value::<M>(payload.clone())
                    .map(|m| m.route())
                    .map_err(|e| e.to_string())
            },
        }
    }

    /// The JSON Schema of the payload (draft 2020-12), as committed in `schemas/<type>.json`.
    pub fn schema(&self) -> Value {
        (self.schema)()
    }

    /// The example payload, as committed in `schemas/examples/<type>.json`.
    pub fn example(&self) -> Value {
        (self.example)()
    }

    /// Where a (valid) payload of this type is delivered.
    pub fn route(&self, payload: &Value) -> Result<Route, String> {
        (self.route)(payload)
    }
}

/// Every message type of every domain, in a stable order.
pub fn all_types() -> Vec<MessageType> {
    let mut all = Vec::new();
    all.extend(crate::game::types());
    all.extend(crate::table::types());
    all.extend(crate::bingo::types());
    all.extend(crate::activity::types());
    all.extend(crate::race::types());
    all.extend(crate::puzzle::types());
    all
}

/// Why a payload was refused at the boundary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// No message type of that name exists (it may be a typo, or a newer version).
    #[error("unknown message type \"{0}\"")]
    UnknownType(String),
    /// The payload breaks its schema; one line per problem, each naming the field.
    #[error("{message_type} payload does not match its schema: {}", .problems.join("; "))]
    Schema {
        /// The message type whose schema was broken.
        message_type: String,
        /// Each problem as `<json pointer>: <what is wrong>`.
        problems: Vec<String>,
    },
}

struct Entry {
    message_type: MessageType,
    validator: jsonschema::Validator,
}

/// The compiled catalog: looks types up and validates payloads against their schemas.
pub struct Catalog {
    entries: BTreeMap<&'static str, Entry>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.keys()).finish()
    }
}

impl Catalog {
    /// Compiles every schema once. Cheap enough to do at start; share it behind an `Arc`.
    pub fn new() -> Self {
        Self::from_types(all_types())
    }

    /// A catalog of the given types only (tests of the runtime use their own types).
    pub fn from_types(types: Vec<MessageType>) -> Self {
        let entries = types
            .into_iter()
            .map(|message_type| {
                let validator =
                    jsonschema::validator_for(&message_type.schema()).unwrap_or_else(|e| {
                        panic!(
                            "the generated schema of {} compiles: {e}",
                            message_type.name
                        )
                    });
                (
                    message_type.name,
                    Entry {
                        message_type,
                        validator,
                    },
                )
            })
            .collect();
        Catalog { entries }
    }

    /// The entry for a type name.
    pub fn get(&self, name: &str) -> Option<&MessageType> {
        self.entries.get(name).map(|e| &e.message_type)
    }

    /// All entries, by name.
    pub fn types(&self) -> impl Iterator<Item = &MessageType> {
        self.entries.values().map(|e| &e.message_type)
    }

    /// Checks a payload against the schema of its type.
    pub fn validate(&self, name: &str, payload: &Value) -> Result<&MessageType, ValidationError> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| ValidationError::UnknownType(name.to_string()))?;
        let problems: Vec<String> = entry
            .validator
            .iter_errors(payload)
            .map(|error| {
                let path = error.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_string()
                } else {
                    path
                };
                format!("{path}: {error}")
            })
            .collect();
        if problems.is_empty() {
            Ok(&entry.message_type)
        } else {
            Err(ValidationError::Schema {
                message_type: name.to_string(),
                problems,
            })
        }
    }
}

impl Default for Catalog {
    fn default() -> Self {
        Self::new()
    }
}
