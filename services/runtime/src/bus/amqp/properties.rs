//! The envelope on AMQP 0-9-1, as DESIGN.md (Messages) lays it out: the body is the JSON
//! payload only; `message_id`, `correlation_id`, `type`, `app_id`, `timestamp`,
//! `content_type: application/json` and `delivery_mode: 2` are standard properties; `type`
//! (again, for Symfony Messenger), `causation_id`, `occurred_at` and `traceparent` are headers.
//! Reading is lenient: a plain client may send only a `type` header and a body.

use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};

use crate::wire::WireMessage;

/// The `content_type` of every message Arcade publishes.
pub const CONTENT_TYPE: &str = "application/json";
/// `delivery_mode` of a persistent message.
pub const PERSISTENT: u8 = 2;
/// Header repeating the message type (Symfony Messenger reads this one).
pub const HEADER_TYPE: &str = "type";
/// Header naming the message whose handling produced this one.
pub const HEADER_CAUSATION_ID: &str = "causation_id";
/// Header with the time of the fact, RFC 3339 with milliseconds.
pub const HEADER_OCCURRED_AT: &str = "occurred_at";
/// Header with the W3C trace context.
pub const HEADER_TRACEPARENT: &str = "traceparent";

fn long(value: &str) -> AMQPValue {
    AMQPValue::LongString(LongString::from(value.to_string()))
}

fn short(value: &str) -> ShortString {
    ShortString::from(value.to_string())
}

/// The properties and headers a message is published with.
pub fn to_properties(message: &WireMessage) -> BasicProperties {
    let mut headers = FieldTable::default();
    for (key, value) in &message.headers {
        headers.insert(short(key), long(value));
    }
    let named = [
        (HEADER_TYPE, &message.message_type),
        (HEADER_CAUSATION_ID, &message.causation_id),
        (HEADER_OCCURRED_AT, &message.occurred_at),
        (HEADER_TRACEPARENT, &message.traceparent),
    ];
    for (key, value) in named {
        if let Some(value) = value {
            headers.insert(short(key), long(value));
        }
    }
    let mut properties = BasicProperties::default()
        .with_content_type(short(CONTENT_TYPE))
        .with_delivery_mode(PERSISTENT)
        .with_headers(headers);
    if let Some(id) = &message.message_id {
        properties = properties.with_message_id(short(id));
    }
    if let Some(id) = &message.correlation_id {
        properties = properties.with_correlation_id(short(id));
    }
    if let Some(kind) = &message.message_type {
        properties = properties.with_type(short(kind));
    }
    if let Some(app) = &message.app_id {
        properties = properties.with_app_id(short(app));
    }
    if let Some(seconds) = message.timestamp {
        properties = properties.with_timestamp(seconds);
    }
    properties
}

/// A header's value as text, when it is text (or a number, or UTF-8 bytes).
fn text(value: &AMQPValue) -> Option<String> {
    match value {
        AMQPValue::LongString(s) => Some(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        AMQPValue::ShortString(s) => Some(s.as_str().to_string()),
        AMQPValue::ByteArray(b) => String::from_utf8(b.as_slice().to_vec()).ok(),
        AMQPValue::Boolean(b) => Some(b.to_string()),
        AMQPValue::ShortShortInt(n) => Some(n.to_string()),
        AMQPValue::ShortShortUInt(n) => Some(n.to_string()),
        AMQPValue::ShortInt(n) => Some(n.to_string()),
        AMQPValue::ShortUInt(n) => Some(n.to_string()),
        AMQPValue::LongInt(n) => Some(n.to_string()),
        AMQPValue::LongUInt(n) => Some(n.to_string()),
        AMQPValue::LongLongInt(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The message a delivery carries. The `type` property wins over the `type` header; headers
/// that are not text (RabbitMQ's own `x-death` table) are left out.
pub fn from_properties(properties: &BasicProperties, body: Vec<u8>) -> WireMessage {
    let mut message = WireMessage {
        message_id: properties.message_id().as_ref().map(|s| s.to_string()),
        correlation_id: properties.correlation_id().as_ref().map(|s| s.to_string()),
        message_type: properties.kind().as_ref().map(|s| s.to_string()),
        app_id: properties.app_id().as_ref().map(|s| s.to_string()),
        user_id: properties.user_id().as_ref().map(|s| s.to_string()),
        timestamp: *properties.timestamp(),
        body,
        ..WireMessage::default()
    };
    if let Some(headers) = properties.headers() {
        for (key, value) in headers.inner() {
            let Some(value) = text(value) else { continue };
            match key.as_str() {
                HEADER_TYPE => {
                    if message.message_type.as_deref().is_none_or(str::is_empty) {
                        message.message_type = Some(value);
                    }
                }
                HEADER_CAUSATION_ID => message.causation_id = Some(value),
                HEADER_OCCURRED_AT => message.occurred_at = Some(value),
                HEADER_TRACEPARENT => message.traceparent = Some(value),
                other => {
                    message.headers.insert(other.to_string(), value);
                }
            }
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> WireMessage {
        let mut message = WireMessage {
            message_type: Some("bingo.card.won.v1".into()),
            message_id: Some("0190a0a0-0000-7000-8000-000000000001".into()),
            correlation_id: Some("0190a0a0-0000-7000-8000-000000000000".into()),
            causation_id: Some("0190a0a0-0000-7000-8000-00000000000f".into()),
            app_id: Some("bingo".into()),
            timestamp: Some(1_764_400_000),
            occurred_at: Some("2025-11-29T07:06:40.123Z".into()),
            traceparent: Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into()),
            body: br#"{"cardId":"c"}"#.to_vec(),
            ..WireMessage::default()
        };
        message
            .headers
            .insert("x-arcade-dead-reason".into(), "bad".into());
        message
    }

    #[test]
    fn every_field_survives_the_trip_and_lands_where_design_says() {
        let message = full();
        let properties = to_properties(&message);
        assert_eq!(
            properties.content_type().as_ref().map(|s| s.as_str()),
            Some("application/json")
        );
        assert_eq!(*properties.delivery_mode(), Some(2));
        assert_eq!(
            properties.kind().as_ref().map(|s| s.as_str()),
            Some("bingo.card.won.v1")
        );
        let headers = properties.headers().as_ref().unwrap().inner();
        for key in ["type", "causation_id", "occurred_at", "traceparent"] {
            assert!(headers.contains_key(key), "header {key}");
        }
        let back = from_properties(&properties, message.body.clone());
        assert_eq!(back, message);
    }

    #[test]
    fn a_bare_type_header_is_the_type() {
        let mut headers = FieldTable::default();
        headers.insert(short("type"), long("game.session.completed.v1"));
        headers.insert(short("x-death"), AMQPValue::FieldArray(Default::default()));
        let properties = BasicProperties::default().with_headers(headers);
        let message = from_properties(&properties, b"{}".to_vec());
        assert_eq!(
            message.message_type.as_deref(),
            Some("game.session.completed.v1")
        );
        assert_eq!(message.message_id, None);
        assert!(message.headers.is_empty(), "{:?}", message.headers);
    }
}
