//! The AsyncAPI 3.0 description of the whole contract (`schemas/asyncapi.yaml`), generated from
//! the catalog so that a team writing a consumer in another language sees every channel, its
//! AMQP binding and the JSON Schema of its payload in one file.

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
        let _ = writeln!(w, "  {k}:");
        let _ = writeln!(w, "    action: send");
        let _ = writeln!(w, "    channel:");
        let _ = writeln!(w, "      $ref: {}", quoted(&format!("#/channels/{k}")));
    }
    let _ = writeln!(w, "components:");
    let _ = writeln!(w, "  messages:");
    for t in types {
        let k = key(t.name);
        let _ = writeln!(w, "    {k}:");
        let _ = writeln!(w, "      name: {}", quoted(t.name));
        let _ = writeln!(w, "      title: {}", quoted(t.name));
        let _ = writeln!(w, "      contentType: application/json");
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
