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

/// The AsyncAPI document describing `types`, as YAML.
pub fn document(types: &[MessageType]) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "# Generated from `contracts` by its schemas test; do not edit."
    );
    let _ = writeln!(
        w,
        "# Refresh: ARCADE_UPDATE_SCHEMAS=1 cargo test -p arcade-contracts --test schemas"
    );
    let _ = writeln!(w, "asyncapi: 3.0.0");
    let _ = writeln!(w, "info:");
    let _ = writeln!(w, "  title: Arcade");
    let _ = writeln!(w, "  version: \"1\"");
    let _ = writeln!(
        w,
        "  description: {}",
        quoted(
            "Versioned JSON messages between Arcade's services. On RabbitMQ the body is the JSON \
             payload and the envelope lives in AMQP properties: message_id, correlation_id, type \
             (also as the `type` header), app_id (producer), timestamp; headers causation_id, \
             occurred_at (RFC 3339), traceparent (W3C). Events go to the topic exchange \
             arcade.events with the message type as routing key; commands go to the addressed \
             instance's queue through the default exchange, published mandatory: a command \
             whose queue does not exist is dead-lettered to arcade.dead with reason unroutable. \
             Integers carry the minimum and maximum of their format (uint32, int64...)."
        )
    );
    let _ = writeln!(w, "defaultContentType: application/json");
    let _ = writeln!(w, "servers:");
    let _ = writeln!(w, "  rabbitmq:");
    let _ = writeln!(w, "    host: \"localhost:5672\"");
    let _ = writeln!(w, "    protocol: amqp");
    let _ = writeln!(w, "    protocolVersion: 0.9.1");
    let _ = writeln!(w, "channels:");
    for t in types {
        let k = key(t.name);
        let _ = writeln!(w, "  {k}:");
        match (t.kind, t.route(&t.example())) {
            (MessageKind::Command, Ok(Route::Queue(queue))) => {
                let _ = writeln!(w, "    address: {}", quoted(&queue));
                let _ = writeln!(
                    w,
                    "    description: {}",
                    quoted(&format!(
                        "Command {} to the addressed instance's queue (here the example's).",
                        t.name
                    ))
                );
                let _ = writeln!(w, "    bindings:");
                let _ = writeln!(w, "      amqp:");
                let _ = writeln!(w, "        is: queue");
                let _ = writeln!(w, "        queue:");
                let _ = writeln!(w, "          name: {}", quoted(&queue));
                let _ = writeln!(w, "          durable: true");
                let _ = writeln!(w, "          exclusive: false");
                let _ = writeln!(w, "          autoDelete: false");
            }
            _ => {
                let _ = writeln!(w, "    address: {}", quoted(t.name));
                let _ = writeln!(
                    w,
                    "    description: {}",
                    quoted(&format!(
                        "{} {} on arcade.events, routing key = its type.",
                        if t.kind == MessageKind::Event {
                            "Event"
                        } else {
                            "Command"
                        },
                        t.name
                    ))
                );
                let _ = writeln!(w, "    bindings:");
                let _ = writeln!(w, "      amqp:");
                let _ = writeln!(w, "        is: routingKey");
                let _ = writeln!(w, "        exchange:");
                let _ = writeln!(w, "          name: arcade.events");
                let _ = writeln!(w, "          type: topic");
                let _ = writeln!(w, "          durable: true");
                let _ = writeln!(w, "          autoDelete: false");
            }
        }
        let _ = writeln!(w, "    messages:");
        let _ = writeln!(w, "      {k}:");
        let _ = writeln!(
            w,
            "        $ref: {}",
            quoted(&format!("#/components/messages/{k}"))
        );
    }
    let _ = writeln!(w, "operations:");
    for t in types {
        let k = key(t.name);
        let received = is_received(t);
        let _ = writeln!(w, "  {k}:");
        let _ = writeln!(
            w,
            "    action: {}",
            if received { "receive" } else { "send" }
        );
        let _ = writeln!(
            w,
            "    summary: {}",
            quoted(&if t.kind == MessageKind::Command {
                format!("An Arcade service receives the command {}.", t.name)
            } else if received {
                format!("Arcade consumes {} from any producer.", t.name)
            } else {
                format!("Arcade publishes {}.", t.name)
            })
        );
        let _ = writeln!(w, "    channel:");
        let _ = writeln!(w, "      $ref: {}", quoted(&format!("#/channels/{k}")));
        let _ = writeln!(w, "    messages:");
        let _ = writeln!(
            w,
            "      - $ref: {}",
            quoted(&format!("#/channels/{k}/messages/{k}"))
        );
        let _ = writeln!(w, "    bindings:");
        let _ = writeln!(w, "      amqp:");
        let _ = writeln!(w, "        deliveryMode: 2");
        let _ = writeln!(w, "        timestamp: true");
        if received {
            let _ = writeln!(w, "        ack: true");
        }
    }
    let _ = writeln!(w, "components:");
    out.push_str(ENVELOPE);
    let w = &mut out;
    let _ = writeln!(w, "  messages:");
    for t in types {
        let k = key(t.name);
        let _ = writeln!(w, "    {k}:");
        let _ = writeln!(w, "      name: {}", quoted(t.name));
        let _ = writeln!(w, "      title: {}", quoted(t.name));
        let _ = writeln!(w, "      contentType: application/json");
        let _ = writeln!(w, "      traits:");
        let _ = writeln!(w, "        - $ref: \"#/components/messageTraits/envelope\"");
        let _ = writeln!(w, "      payload:");
        let _ = writeln!(
            w,
            "        schemaFormat: application/schema+json;version=draft-2020-12"
        );
        let _ = writeln!(w, "        schema:");
        let _ = writeln!(
            w,
            "          $ref: {}",
            quoted(&format!("./{}.json", t.name))
        );
        let _ = writeln!(w, "      bindings:");
        let _ = writeln!(w, "        amqp:");
        let _ = writeln!(w, "          contentEncoding: utf-8");
        let _ = writeln!(w, "          messageType: {}", quoted(t.name));
        let _ = writeln!(
            w,
            "      examples:\n        - payload: {}",
            serde_json::to_string(&t.example()).expect("an example is JSON")
        );
    }
    out
}
