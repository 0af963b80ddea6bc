//! The boundary: a message from the bus becomes an [`Envelope`] only if it has a known type and
//! a JSON payload valid against that type's schema. Anything else is refused with a reason a
//! person can act on, and the host sends it to the dead letters.

use arcade_contracts::{Catalog, Envelope};
use sha2::{Digest, Sha256};

use crate::clock::rfc3339_ms;
use crate::wire::WireMessage;

/// The largest payload accepted, in bytes. Arcade's own messages are a few hundred bytes; a
/// bigger one is a mistake or an attack, and is dead-lettered rather than parsed.
pub const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

pub use crate::dead_letter::{BAD_SIGNATURE, ID_REUSED, NO_PROVEN_SENDER, TYPE_NOT_ROUTING_KEY};

/// Refuses a message published on the topic exchange under a routing key other than its type
/// (`routing_key`: the key of a topic delivery, `None` for one sent to its queue).
pub fn check_routing_key(wire: &WireMessage, routing_key: Option<&str>) -> Result<(), String> {
    match routing_key {
        Some(key) if wire.message_type.as_deref().unwrap_or("") != key => {
            Err(TYPE_NOT_ROUTING_KEY.to_string())
        }
        _ => Ok(()),
    }
}

/// A message accepted at the boundary.
#[derive(Debug, Clone, PartialEq)]
pub struct Inbound {
    /// The envelope, its payload valid against its schema.
    pub envelope: Envelope,
    /// The inbox key ([`dedupe_key`]): the sender and the message id, or for a message
    /// without one (Symfony's interop serializer sends none) an id derived from a hash of its
    /// type and body.
    pub dedupe_key: Vec<u8>,
    /// The digest of `dedupe_key` ([`crate::store::key_digest`]), what the inbox keeps,
    /// computed once.
    pub key_digest: u128,
    /// The digests of the keys the inbox knew it by before: the bare message id, and for a
    /// message with no proven sender, the producer-scoped key.
    pub earlier: crate::store::Earlier,
    /// The digest of its body, to tell a redelivery from another message reusing its id.
    pub body_digest: u64,
    /// Whether the message id was derived rather than sent.
    pub derived_id: bool,
    /// The trace context it came with.
    pub traceparent: Option<String>,
}

/// Decodes and validates a message. `now_ms` stands in for a missing time; `signed_by` is the
/// producer whose keys verified its signature ([`crate::signing::SigningKeys::verify`]), if
/// it is signed.
pub fn decode(
    wire: &WireMessage,
    catalog: &Catalog,
    now_ms: u64,
    signed_by: Option<&str>,
) -> Result<Inbound, String> {
    let message_type = wire
        .message_type
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or("no message type: neither the `type` property nor the `type` header is set")?;
    if wire.body.len() > MAX_PAYLOAD_BYTES {
        return Err(format!(
            "{message_type}: payload of {} bytes exceeds the limit of {MAX_PAYLOAD_BYTES} bytes",
            wire.body.len()
        ));
    }
    if catalog.get(message_type).is_none() {
        return Err(format!("unknown message type \"{message_type}\""));
    }
    let payload: serde_json::Value = serde_json::from_slice(&wire.body)
        .map_err(|e| format!("{message_type}: body is not JSON: {e}"))?;
    catalog
        .validate(message_type, &payload)
        .map_err(|e| e.to_string())?;

    let (message_id, derived_id) = match wire.message_id.as_deref().filter(|id| !id.is_empty()) {
        Some(id) => (id.to_string(), false),
        None => (derived_id(message_type, &wire.body), true),
    };
    let occurred_at = match (&wire.occurred_at, wire.timestamp) {
        (Some(at), _) => at.clone(),
        (None, Some(seconds)) => rfc3339_ms(seconds.saturating_mul(1000)),
        (None, None) => rfc3339_ms(now_ms),
    };
    let envelope = Envelope {
        correlation_id: wire
            .correlation_id
            .clone()
            .unwrap_or_else(|| message_id.clone()),
        causation_id: wire.causation_id.clone(),
        producer: wire.app_id.clone().unwrap_or_else(|| "unknown".into()),
        sender: proven_sender(wire, signed_by)?,
        message_type: message_type.to_string(),
        occurred_at,
        payload,
        message_id,
    };
    let dedupe_key = dedupe_key(&envelope);
    let earlier = crate::store::Earlier {
        unscoped: Some(crate::store::key_digest(envelope.message_id.as_bytes())),
        producer_scoped: envelope
            .sender
            .is_none()
            .then(|| crate::store::key_digest(&scoped(&envelope.producer, &envelope.message_id))),
    };
    Ok(Inbound {
        key_digest: crate::store::key_digest(&dedupe_key),
        earlier,
        dedupe_key,
        body_digest: crate::store::body_digest(&wire.body),
        envelope,
        derived_id,
        traceparent: wire.traceparent.clone(),
    })
}

/// The sender a message proves: for a signed one, `signed:<producer>` (its signature names
/// it, whoever published it); else the transport's `user_id`, the sender it vouches for: none
/// when absent or empty; refused when it holds a NUL byte (which no broker user has), so that
/// no proven sender's inbox key can begin like an anonymous one's, or when it begins with
/// `signed:`, so that no broker user can pass for a signed producer.
fn proven_sender(wire: &WireMessage, signed_by: Option<&str>) -> Result<Option<String>, String> {
    if let Some(producer) = signed_by {
        return Ok(Some(crate::signing::signed_sender(producer)));
    }
    match wire.user_id.as_deref() {
        None | Some("") => Ok(None),
        Some(user) if user.contains('\0') => Err("user_id holds a NUL byte".into()),
        Some(user) if user.starts_with(crate::signing::SIGNED_PREFIX) => Err(format!(
            "user_id begins with \"{}\", which names signature-proven senders only, and the message carries no valid signature",
            crate::signing::SIGNED_PREFIX
        )),
        Some(user) => Ok(Some(user.to_string())),
    }
}

/// The inbox key of a message: who vouches for it and its id, so that one sender cannot take
/// another's ids. A proven sender (the transport's `sender`) scopes its own ids; a message
/// with none is kept in the anonymous scope, under the `producer` it names — a scope no proven
/// sender's key can fall in (those never begin with a NUL byte), so an anonymous message can
/// cost no proven sender's message, whatever `producer` it claims.
pub fn dedupe_key(envelope: &Envelope) -> Vec<u8> {
    match envelope.sender.as_deref() {
        Some(sender) => scoped(sender, &envelope.message_id),
        None => {
            let mut key = ANONYMOUS.to_vec();
            key.extend_from_slice(&scoped(&envelope.producer, &envelope.message_id));
            key
        }
    }
}

/// The prefix of an anonymous message's inbox key.
const ANONYMOUS: &[u8] = b"\0anonymous\0";

fn scoped(scope: &str, message_id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(scope.len() + 1 + message_id.len());
    key.extend_from_slice(scope.as_bytes());
    key.push(0);
    key.extend_from_slice(message_id.as_bytes());
    key
}

/// An envelope for whatever arrived, valid or not, for display (`arcade tap`): the payload is
/// the body as JSON, or as a string when it is not JSON; missing fields are empty. A body over
/// [`MAX_PAYLOAD_BYTES`] (which no consumer accepts) is not copied: the payload says its size.
pub fn lossy_envelope(wire: &WireMessage) -> Envelope {
    let message_type = wire.message_type.clone().unwrap_or_default();
    let payload = if wire.body.len() > MAX_PAYLOAD_BYTES {
        serde_json::Value::String(format!(
            "(a body of {} bytes, over the limit of {MAX_PAYLOAD_BYTES} bytes: not shown)",
            wire.body.len()
        ))
    } else {
        serde_json::from_slice(&wire.body).unwrap_or_else(|_| {
            serde_json::Value::String(String::from_utf8_lossy(&wire.body).into_owned())
        })
    };
    let message_id = wire
        .message_id
        .clone()
        .unwrap_or_else(|| derived_id(&message_type, &wire.body));
    Envelope {
        correlation_id: wire
            .correlation_id
            .clone()
            .unwrap_or_else(|| message_id.clone()),
        causation_id: wire.causation_id.clone(),
        producer: wire.app_id.clone().unwrap_or_default(),
        sender: wire.user_id.clone(),
        occurred_at: wire
            .occurred_at
            .clone()
            .or_else(|| wire.timestamp.map(|s| rfc3339_ms(s.saturating_mul(1000))))
            .unwrap_or_default(),
        message_type,
        message_id,
        payload,
    }
}

/// The id of a message that came without one: a UUID (version 8) from the SHA-256 of its type
/// and body, so the same message sent twice is deduplicated.
pub fn derived_id(message_type: &str, body: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(message_type.as_bytes());
    hasher.update([0u8]);
    hasher.update(body);
    let digest = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Uuid::new_v8(bytes).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(message_type: Option<&str>, body: &[u8]) -> WireMessage {
        WireMessage {
            message_type: message_type.map(Into::into),
            body: body.to_vec(),
            ..Default::default()
        }
    }

    const GOOD: &[u8] =
        br#"{"gameId":"g","seed":1,"stage":2,"outcome":"won","turns":3,"durationMs":10}"#;

    #[test]
    fn accepts_a_bare_message_and_derives_a_stable_id() {
        let catalog = Catalog::new();
        let a = decode(
            &wire(Some("game.session.completed.v1"), GOOD),
            &catalog,
            0,
            None,
        )
        .unwrap();
        let b = decode(
            &wire(Some("game.session.completed.v1"), GOOD),
            &catalog,
            5,
            None,
        )
        .unwrap();
        assert!(a.derived_id);
        assert_eq!(a.dedupe_key, b.dedupe_key);
        assert_eq!(a.envelope.correlation_id, a.envelope.message_id);
        assert_eq!(a.envelope.producer, "unknown");
        let other =
            br#"{"gameId":"h","seed":1,"stage":2,"outcome":"won","turns":3,"durationMs":10}"#;
        let c = decode(
            &wire(Some("game.session.completed.v1"), other),
            &catalog,
            0,
            None,
        )
        .unwrap();
        assert_ne!(a.dedupe_key, c.dedupe_key);
    }

    #[test]
    fn the_inbox_key_is_scoped_by_sender_and_the_body_is_remembered() {
        let catalog = Catalog::new();
        let from = |sender: Option<&str>, producer: &str, body: &[u8]| {
            let mut message = wire(Some("game.session.completed.v1"), body);
            message.message_id = Some("m-1".into());
            message.user_id = sender.map(Into::into);
            message.app_id = Some(producer.into());
            decode(&message, &catalog, 0, None).unwrap()
        };
        let alice = from(Some("alice"), "bingo", GOOD);
        let mallory = from(Some("mallory"), "bingo", GOOD);
        assert_ne!(alice.dedupe_key, mallory.dedupe_key);
        assert_eq!(
            alice.earlier.unscoped,
            Some(crate::store::key_digest(b"m-1"))
        );
        assert_eq!(alice.earlier.producer_scoped, None);
        assert_eq!(
            alice.dedupe_key,
            from(Some("alice"), "other", GOOD).dedupe_key
        );
        assert_ne!(
            from(None, "bingo", GOOD).dedupe_key,
            from(None, "feed", GOOD).dedupe_key,
            "without a sender, the producer scopes it"
        );
        let squatter = from(None, "alice", GOOD);
        assert_ne!(
            squatter.dedupe_key, alice.dedupe_key,
            "an anonymous message claiming a proven sender's name is not in its scope"
        );
        assert_eq!(
            squatter.earlier.producer_scoped,
            Some(crate::store::key_digest(b"alice\0m-1")),
            "the key it had before, looked up for the same body only"
        );
        assert_eq!(
            from(Some(""), "alice", GOOD).dedupe_key,
            squatter.dedupe_key,
            "an empty user_id proves nothing"
        );
        let mut nul = wire(Some("game.session.completed.v1"), GOOD);
        nul.user_id = Some("\0anonymous".into());
        assert!(decode(&nul, &catalog, 0, None).unwrap_err().contains("NUL"));
        // A signed producer's scope is its own: no broker user, anonymous message or other
        // producer falls in it, and no broker user may take its name.
        let signed = |producer: &str, user: Option<&str>| {
            let mut message = wire(Some("game.session.completed.v1"), GOOD);
            message.message_id = Some("m-1".into());
            message.user_id = user.map(Into::into);
            message.app_id = Some(producer.into());
            decode(&message, &catalog, 0, Some(producer)).unwrap()
        };
        let shop = signed("shop", None);
        assert_eq!(shop.envelope.sender.as_deref(), Some("signed:shop"));
        assert_eq!(shop.dedupe_key, b"signed:shop\0m-1");
        assert_eq!(shop.earlier.producer_scoped, None);
        assert_eq!(signed("shop", Some("alice")).dedupe_key, shop.dedupe_key);
        assert_ne!(from(Some("shop"), "shop", GOOD).dedupe_key, shop.dedupe_key);
        assert_ne!(from(None, "shop", GOOD).dedupe_key, shop.dedupe_key);
        let mut impostor = wire(Some("game.session.completed.v1"), GOOD);
        impostor.user_id = Some("signed:shop".into());
        let refused = decode(&impostor, &catalog, 0, None).unwrap_err();
        assert!(refused.contains("signed:"), "{refused}");
        let other =
            br#"{"gameId":"h","seed":1,"stage":2,"outcome":"won","turns":3,"durationMs":10}"#;
        assert_ne!(
            alice.body_digest,
            from(Some("alice"), "bingo", other).body_digest
        );
        assert_eq!(
            alice.body_digest,
            from(Some("alice"), "bingo", GOOD).body_digest
        );
    }

    #[test]
    fn a_type_other_than_its_routing_key_is_refused() {
        let forged = wire(Some("bingo.square.call.v1"), b"{}");
        assert_eq!(
            check_routing_key(&forged, Some("activity.recorded.v1")).unwrap_err(),
            "type does not match routing key"
        );
        assert!(check_routing_key(&forged, Some("bingo.square.call.v1")).is_ok());
        assert!(
            check_routing_key(&forged, None).is_ok(),
            "sent to its queue"
        );
        let untyped = wire(None, b"{}");
        assert!(check_routing_key(&untyped, Some("activity.recorded.v1")).is_err());
    }

    #[test]
    fn an_oversized_body_is_shown_by_its_size_not_copied() {
        let big = vec![b'x'; MAX_PAYLOAD_BYTES + 1];
        let envelope = lossy_envelope(&wire(Some("game.session.completed.v1"), &big));
        assert_eq!(
            envelope.payload,
            serde_json::json!(format!(
                "(a body of {} bytes, over the limit of {MAX_PAYLOAD_BYTES} bytes: not shown)",
                MAX_PAYLOAD_BYTES + 1
            ))
        );
        let small = lossy_envelope(&wire(Some("game.session.completed.v1"), b"xyz"));
        assert_eq!(small.payload, serde_json::json!("xyz"));
    }

    #[test]
    fn refuses_with_reasons() {
        let catalog = Catalog::new();
        let cases: [(Option<&str>, &[u8], &str); 5] = [
            (None, GOOD, "no message type"),
            (
                Some("game.session.exploded.v1"),
                GOOD,
                "unknown message type \"game.session.exploded.v1\"",
            ),
            (
                Some("game.session.completed.v1"),
                b"{\"gameId\":",
                "body is not JSON",
            ),
            (
                Some("game.session.completed.v1"),
                br#"{"gameId":"g","seed":1,"stage":9,"outcome":"won","turns":3,"durationMs":10}"#,
                "/stage",
            ),
            (
                Some("game.session.completed.v1"),
                &[0xff, 0xfe, 0x00],
                "body is not JSON",
            ),
        ];
        for (t, body, expected) in cases {
            let reason = decode(&wire(t, body), &catalog, 0, None).unwrap_err();
            assert!(
                reason.contains(expected),
                "{reason} should contain {expected}"
            );
        }
        let huge = vec![b' '; MAX_PAYLOAD_BYTES + 1];
        let reason = decode(
            &wire(Some("game.session.completed.v1"), &huge),
            &catalog,
            0,
            None,
        )
        .unwrap_err();
        assert!(reason.contains("exceeds the limit"), "{reason}");
    }
}
