//! The transport-level message: the AMQP 0-9-1 properties and headers Arcade uses around a
//! JSON body, the same on every transport. Decoding it into an [`Envelope`] (and refusing it
//! with a reason) is the host's job, not the bus's.

use std::collections::BTreeMap;

use arcade_contracts::Envelope;
use serde::{Deserialize, Serialize};

/// Header carrying the reason a message was dead-lettered.
pub const HEADER_DEAD_REASON: &str = "x-arcade-dead-reason";
/// Header carrying the queue a dead letter was taken from.
pub const HEADER_DEAD_QUEUE: &str = "x-arcade-dead-queue";
/// Header carrying the routing key a dead letter was first published with.
pub const HEADER_DEAD_ROUTING_KEY: &str = "x-arcade-dead-routing-key";
/// Header carrying the partition key: the payload's top-level `gameId`, which a partitioned
/// service's consistent-hash exchange hashes (see [`crate::bus::partition`]). A message without
/// it hashes as if its key were absent: every such message goes to one and the same partition.
pub const HEADER_PARTITION_KEY: &str = "x-arcade-partition-key";

/// A message as it travels: properties, headers and the body bytes, all optional but the body,
/// because producers outside Arcade (a plain AMQP client, Symfony Messenger) send less.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireMessage {
    /// AMQP `type` property, or the `type` header when the property is absent.
    pub message_type: Option<String>,
    /// AMQP `message_id` property.
    pub message_id: Option<String>,
    /// AMQP `correlation_id` property.
    pub correlation_id: Option<String>,
    /// `causation_id` header.
    pub causation_id: Option<String>,
    /// AMQP `app_id` property: the producing service instance.
    pub app_id: Option<String>,
    /// AMQP `user_id` property: the publishing connection's user, which RabbitMQ validates.
    #[serde(default)]
    pub user_id: Option<String>,
    /// AMQP `timestamp` property, seconds since the epoch.
    pub timestamp: Option<u64>,
    /// `occurred_at` header, RFC 3339 with milliseconds.
    pub occurred_at: Option<String>,
    /// `traceparent` header (W3C trace context).
    pub traceparent: Option<String>,
    /// Other string headers (dead-letter reason and origin).
    pub headers: BTreeMap<String, String>,
    /// The JSON payload, as bytes: it may be anything when it comes from outside.
    pub body: Vec<u8>,
}

impl WireMessage {
    /// The wire form of an envelope produced by Arcade. A payload with a top-level string
    /// `gameId` (the contracts' convention for whatever is about one game) carries it in the
    /// [`HEADER_PARTITION_KEY`] header: one lookup in the parsed payload, no extra parsing.
    pub fn from_envelope(envelope: &Envelope, traceparent: Option<String>) -> Self {
        let timestamp = chrono::DateTime::parse_from_rfc3339(&envelope.occurred_at)
            .ok()
            .and_then(|t| u64::try_from(t.timestamp()).ok());
        WireMessage {
            message_type: Some(envelope.message_type.clone()),
            message_id: Some(envelope.message_id.clone()),
            correlation_id: Some(envelope.correlation_id.clone()),
            causation_id: envelope.causation_id.clone(),
            app_id: Some(envelope.producer.clone()),
            user_id: envelope.sender.clone(),
            timestamp,
            occurred_at: Some(envelope.occurred_at.clone()),
            traceparent,
            headers: partition_key(&envelope.payload)
                .map(|key| BTreeMap::from([(HEADER_PARTITION_KEY.to_string(), key.to_string())]))
                .unwrap_or_default(),
            // A `Value` always serializes: its map keys are strings, its numbers finite, and
            // writing into a `Vec` cannot fail.
            body: serde_json::to_vec(&envelope.payload)
                .expect("a serde_json::Value always serializes into a Vec"),
        }
    }

    /// The partition key it carries, if any.
    pub fn partition_key(&self) -> Option<&str> {
        self.headers.get(HEADER_PARTITION_KEY).map(String::as_str)
    }

    /// The routing key a topic publication of this message uses: its type.
    pub fn routing_key(&self) -> &str {
        self.message_type.as_deref().unwrap_or("")
    }

    /// The reason it was dead-lettered, if it is a dead letter.
    pub fn dead_reason(&self) -> Option<&str> {
        self.headers.get(HEADER_DEAD_REASON).map(String::as_str)
    }
}

/// The partition key of a payload: its top-level `gameId`, when that is a string.
fn partition_key(payload: &serde_json::Value) -> Option<&str> {
    payload.get("gameId").and_then(serde_json::Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn envelope(payload: serde_json::Value) -> Envelope {
        Envelope {
            message_id: "m-1".into(),
            correlation_id: "m-1".into(),
            causation_id: None,
            message_type: "bingo.square.call.v1".into(),
            producer: "test".into(),
            sender: None,
            occurred_at: "2026-12-03T12:00:00.000Z".into(),
            payload,
        }
    }

    #[test]
    fn the_partition_key_header_is_the_payloads_game_id() {
        let message = WireMessage::from_envelope(
            &envelope(json!({"requestId": "r", "gameId": "quiz-7", "squareId": 3})),
            None,
        );
        assert_eq!(message.partition_key(), Some("quiz-7"));
        assert_eq!(
            message
                .headers
                .get(HEADER_PARTITION_KEY)
                .map(String::as_str),
            Some("quiz-7")
        );
    }

    #[test]
    fn no_string_game_id_no_header() {
        for payload in [
            json!({"entryId": "e-1", "member": "ada", "verb": "talk.hello"}),
            json!({"gameId": 7}),
            json!({"game": {"gameId": "nested"}}),
        ] {
            let message = WireMessage::from_envelope(&envelope(payload.clone()), None);
            assert!(message.headers.is_empty(), "{payload}");
            assert_eq!(message.partition_key(), None);
        }
    }
}
