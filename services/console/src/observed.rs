//! What the console's log holds: one [`Observed`] per event it saw on the bus, under the
//! console's own message type [`OBSERVED_TYPE`]. The log is the console's input history, kept
//! whole (every event of the games' topics, whether a projection reads it yet or not), so a
//! projection added later is folded from everything the console ever saw.
//!
//! These records never go on the bus (the console's spec publishes only played sessions): the type is the
//! console's on-disk format, not a contract message, and has no schema in `schemas/`.

use arcade_contracts::Envelope;
use serde_json::{Map, Value, json};

/// The type of the console's log records.
pub const OBSERVED_TYPE: &str = "console.event.observed.v1";

/// An event another service published, as the console saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// Its message id (the console's record names it as its causation too).
    pub message_id: String,
    /// Its versioned type, e.g. `table.goal.scored.v1`.
    pub message_type: String,
    /// The service instance that published it (`referee.t1`, `bingo`…).
    pub producer: String,
    /// When its producer says it happened (RFC 3339, ms).
    pub occurred_at: String,
    /// When the console handled it, in ms since the epoch (the runtime's clock, given to
    /// `decide` as a value).
    pub seen_at_ms: u64,
    /// Its payload.
    pub payload: Value,
}

impl Observed {
    /// The event carried by an incoming envelope, seen at `seen_at_ms`.
    pub fn of(envelope: &Envelope, seen_at_ms: u64) -> Self {
        Observed {
            message_id: envelope.message_id.clone(),
            message_type: envelope.message_type.clone(),
            producer: envelope.producer.clone(),
            occurred_at: envelope.occurred_at.clone(),
            seen_at_ms,
            payload: envelope.payload.clone(),
        }
    }

    /// The payload as a contract type; the error names the type and what is wrong.
    pub fn payload_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, String> {
        T::deserialize(&self.payload).map_err(|e| format!("{}: {e}", self.message_type))
    }

    /// The record's payload in the console's log.
    pub fn to_record(&self) -> Value {
        json!({
            "messageId": self.message_id,
            "type": self.message_type,
            "producer": self.producer,
            "occurredAt": self.occurred_at,
            "seenAtMs": self.seen_at_ms,
            "payload": self.payload,
        })
    }

    /// A record of the console's log back; the error names the missing or wrong field.
    pub fn from_record(record: &Value) -> Result<Self, String> {
        let object = record
            .as_object()
            .ok_or_else(|| format!("{OBSERVED_TYPE}: the record is not an object"))?;
        let text = |field: &str| -> Result<String, String> {
            object
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("{OBSERVED_TYPE}: `{field}` is missing or not a string"))
        };
        Ok(Observed {
            message_id: text("messageId")?,
            message_type: text("type")?,
            producer: text("producer")?,
            occurred_at: text("occurredAt")?,
            seen_at_ms: object
                .get("seenAtMs")
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("{OBSERVED_TYPE}: `seenAtMs` is missing or not a number"))?,
            payload: object
                .get("payload")
                .cloned()
                .unwrap_or(Value::Object(Map::new())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_it_was_written() {
        let observed = Observed {
            message_id: "m-1".into(),
            message_type: "table.goal.scored.v1".into(),
            producer: "referee.t1".into(),
            occurred_at: "2026-12-02T19:30:00.123Z".into(),
            seen_at_ms: 42,
            payload: json!({"tableId": "t1"}),
        };
        assert_eq!(Observed::from_record(&observed.to_record()), Ok(observed));
    }

    #[test]
    fn a_damaged_record_names_the_field() {
        let error = Observed::from_record(&json!({"messageId": "m", "type": "x"})).unwrap_err();
        assert!(error.contains("`producer`"), "{error}");
    }
}
