//! The AsyncAPI 3.0 description of the whole contract (`schemas/asyncapi.yaml`), generated from
//! the catalog so that a team writing a consumer in another language sees every channel, its
//! AMQP binding and the JSON Schema of its payload in one file.
//!
//! It says what the envelope is (a message trait: the AMQP headers and properties, the
//! `correlationId`), and which side Arcade is on: events its services publish are `send`;
//! commands and the events its services consume from other producers ([`RECEIVED_EVENTS`])
//! are `receive`.

use std::fmt::Write as _;

use crate::catalog::{MessageKind, MessageType, Route};

/// A YAML double-quoted scalar (JSON string syntax is valid YAML).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string is JSON")
}

/// The channel key of a message type: its name with dots as underscores.
fn key(name: &str) -> String {
    name.replace('.', "_")
}

/// Events that Arcade's services consume from producers outside Arcade (the puzzle sessions of
/// any client; the activity feed that ticks bingo squares): `receive` operations. Every other
/// event is Arcade's own (`send`); every command is received.
pub const RECEIVED_EVENTS: &[&str] = &[
    "game.session.completed.v1",
    "game.session.completed.v2",
    "activity.recorded.v1",
    "activity.undone.v1",
];

/// Whether Arcade receives messages of this type (else it sends them).
pub fn is_received(t: &MessageType) -> bool {
    t.kind == MessageKind::Command || RECEIVED_EVENTS.contains(&t.name)
}

const ENVELOPE: &str = r##"  messageTraits:
    envelope:
      summary: "The envelope every Arcade message travels in."
      description: "The body is the JSON payload only. The envelope is in AMQP 0-9-1 basic properties: message_id (UUIDv7 from Arcade; consumers deduplicate on it, or on the type and body when a producer sends none), correlation_id (the flow, e.g. one game session; a flow's first message uses its own id), type (the message type; also the `type` header), app_id (the producer), timestamp (seconds), content_type application/json, delivery_mode 2 (persistent); and in the headers below. A producer outside Arcade may send only the `type` header and the body (Symfony Messenger's AMQP transport with the interop serializer does); the routing key must equal the type."
      headers:
        type: object
        required:
          - type
        properties:
          type:
            type: string
            description: "The message type, e.g. game.session.completed.v2; the routing key too."
          causation_id:
            type: string
            description: "The message_id of the message whose handling produced this one; absent on a flow's first message."
          occurred_at:
            type: string
            format: date-time
            description: "When the fact happened (RFC 3339, milliseconds)."
          traceparent:
            type: string
            pattern: "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$"
            description: "W3C trace context of the span that published it."
      correlationId:
        $ref: "#/components/correlationIds/flow"
      contentType: application/json
  correlationIds:
    flow:
      description: "The flow a message belongs to (a game session, a race): the AMQP correlation_id property, a field of the content header frame, inherited from the cause."
      location: "$message.header#/correlation_id"
"##;

/// The document's description: the transport, for a team writing a consumer.
const DESCRIPTION: &str = "Versioned JSON messages between Arcade's services. On RabbitMQ the body is the JSON \
     payload and the envelope lives in AMQP properties: message_id, correlation_id, type \
     (also as the `type` header), app_id (producer), timestamp; headers causation_id, \
     occurred_at (RFC 3339), traceparent (W3C). Events go to the topic exchange \
     arcade.events with the message type as routing key; commands go to the topic \
     exchange arcade.commands with the addressed instance's queue as routing key (each \
     service queue is bound there under its own name), published mandatory: a command \
     whose queue does not exist is dead-lettered to arcade.dead with reason unroutable. \
     Integers carry the minimum and maximum of their format (uint32, int64...).";

/// The AsyncAPI document describing `types`, as YAML.
pub fn document(types: &[MessageType]) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = write!(
        w,
        r#"# Generated from `contracts` by its schemas test; do not edit.
# Refresh: ARCADE_UPDATE_SCHEMAS=1 cargo test -p arcade-contracts --test schemas
asyncapi: 3.0.0
info:
  title: Arcade
  version: "1"
  description: {description}
defaultContentType: application/json
servers:
  rabbitmq:
    host: "localhost:5672"
    protocol: amqp
    protocolVersion: 0.9.1
channels:
"#,
        description = quoted(DESCRIPTION)
    );
    for t in types {
        let k = key(t.name);
        let _ = writeln!(w, "  {k}:");
        let kind_name = |kind| match kind {
            MessageKind::Event => "Event",
            MessageKind::Command => "Command",
        };
        // The AMQP binding: a message addressed to a queue (a command, or a fact told to one
        // team) goes to the commands exchange under that queue's name, any other message to the
        // events exchange under its type.
        let (address, description, is, binding) = match (t.kind, t.route(&t.example())) {
            (kind, Ok(Route::Queue(queue))) => (
                quoted(&queue),
                format!(
                    "{} {} on arcade.commands, routing key = the addressed instance's \
                     queue (here the example's), bound there under its own name.",
                    kind_name(kind),
                    t.name
                ),
                "routingKey",
                r#"        exchange:
          name: arcade.commands
          type: topic
          durable: true
"#
                .to_string(),
            ),
            (kind, _) => (
                quoted(t.name),
                format!(
                    "{} {} on arcade.events, routing key = its type.",
                    kind_name(kind),
                    t.name
                ),
                "routingKey",
                r#"        exchange:
          name: arcade.events
          type: topic
          durable: true
"#
                .to_string(),
            ),
        };
        let _ = write!(
            w,
            r#"    address: {address}
    description: {description}
    bindings:
      amqp:
        is: {is}
{binding}          autoDelete: false
"#,
            description = quoted(&description),
        );
        let _ = write!(
            w,
            r#"    messages:
      {k}:
        $ref: {message}
"#,
            message = quoted(&format!("#/components/messages/{k}"))
        );
    }
    let _ = writeln!(w, "operations:");
    for t in types {
        let k = key(t.name);
        let received = is_received(t);
        let summary = if t.kind == MessageKind::Command {
            format!("An Arcade service receives the command {}.", t.name)
        } else if received {
            format!("Arcade consumes {} from any producer.", t.name)
        } else {
            format!("Arcade publishes {}.", t.name)
        };
        let _ = write!(
            w,
            r#"  {k}:
    action: {action}
    summary: {summary}
    channel:
      $ref: {channel}
    messages:
      - $ref: {message}
    bindings:
      amqp:
        deliveryMode: 2
        timestamp: true
"#,
            action = if received { "receive" } else { "send" },
            summary = quoted(&summary),
            channel = quoted(&format!("#/channels/{k}")),
            message = quoted(&format!("#/channels/{k}/messages/{k}")),
        );
        if received {
            let _ = writeln!(w, "        ack: true");
        }
    }
    let _ = writeln!(w, "components:");
    out.push_str(ENVELOPE);
    let w = &mut out;
    let _ = writeln!(w, "  messages:");
    for t in types {
        let _ = write!(
            w,
            r##"    {k}:
      name: {name}
      title: {name}
      contentType: application/json
      traits:
        - $ref: "#/components/messageTraits/envelope"
      payload:
        schemaFormat: application/schema+json;version=draft-2020-12
        schema:
          $ref: {schema}
      bindings:
        amqp:
          contentEncoding: utf-8
          messageType: {name}
      examples:
        - payload: {example}
"##,
            k = key(t.name),
            name = quoted(t.name),
            schema = quoted(&format!("./{}.json", t.name)),
            example = serde_json::to_string(&t.example()).expect("an example is JSON"),
        );
    }
    out
}
