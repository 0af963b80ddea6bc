//! The envelope: a payload with its type, its three identities, its producer and its time.
//!
//! On RabbitMQ the body is the payload alone and the rest lives in AMQP properties and headers
//! (see DESIGN.md, Messages); the embedded transport and `arcade tap` carry the same fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A message as Arcade stores it in a log and prints it with `arcade tap`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Envelope {
    /// Identity of this logical message, the same on every redelivery (UUIDv7 when Arcade made
    /// it). Consumers deduplicate on it.
    pub message_id: String,
    /// Versioned message type, e.g. `game.session.completed.v1`.
    #[serde(rename = "type")]
    pub message_type: String,
    /// The flow this message belongs to; a flow's first message uses its own id.
    pub correlation_id: String,
    /// The message whose handling produced this one; absent on a flow's first message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub causation_id: Option<String>,
    /// The service instance that produced it (AMQP `app_id`).
    pub producer: String,
    /// The principal that sent it, as the transport vouches for it: on RabbitMQ the AMQP
    /// `user_id` property (the broker refuses one that is not the connection's user); on the
    /// embedded transport the principal of the admin token the request carried. Absent when
    /// nobody vouches for the sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<String>,
    /// When it happened, RFC 3339 with milliseconds, UTC.
    pub occurred_at: String,
    /// The payload, valid against `schemas/<type>.json`.
    pub payload: Value,
}
