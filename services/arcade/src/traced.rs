//! The producer span of a message a command-line client (`arcade send`, `arcade referee`,
//! `arcade bingo`, `arcade car`) sends through the admin endpoint of `arcade run`: `publish
//! <exchange>` named as the message goes on the wire (`arcade.commands` with the target queue
//! as routing key, or `arcade.events` with the type), a trace's root unless a span is current.
//! Its context goes to the endpoint in the request's `traceparent` header, and the endpoint's
//! own producer span continues it, so the organiser's command and all it causes are one trace.

use std::sync::OnceLock;

use arcade_contracts::{Catalog, Route};
use arcade_runtime::bus::{COMMANDS_EXCHANGE, EVENTS_EXCHANGE};
use arcade_runtime::telemetry;
use serde_json::Value;
use tracing::Span;

/// The contract's catalog, built once per process.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(Catalog::new)
}

/// A message on its way out of a client.
#[derive(Debug)]
pub struct Outgoing {
    /// Its producer span: the request to the endpoint runs in it.
    pub span: Span,
    traceparent: Option<String>,
}

impl Outgoing {
    /// The producer span of `payload` as `message_type`, with id `message_id` (a flow's first
    /// message: its own correlation id), sent by `producer`; `parent` is the trace context it
    /// continues (a message the client answers), if any.
    pub fn new(
        message_type: &str,
        payload: &Value,
        message_id: &str,
        producer: &str,
        parent: Option<&str>,
    ) -> Outgoing {
        let route = catalog()
            .get(message_type)
            .and_then(|entry| entry.route(payload).ok());
        let (exchange, routing_key) = match route {
            Some(Route::Queue(queue)) => (COMMANDS_EXCHANGE, queue),
            _ => (EVENTS_EXCHANGE, message_type.to_string()),
        };
        let parent = parent.and_then(telemetry::spans::valid_traceparent);
        let (span, traceparent) = telemetry::publish_span(&telemetry::Message {
            // The endpoint's transport, which this client does not know, publishes it.
            system: "",
            destination: exchange,
            routing_key: &routing_key,
            message_id,
            correlation_id: message_id,
            service: producer,
            parent: parent.as_deref(),
        });
        Outgoing {
            span,
            traceparent: traceparent.or(parent),
        }
    }

    /// `request` carrying the span's context in a `traceparent` header.
    pub fn carried(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.traceparent {
            Some(traceparent) => request.header("traceparent", traceparent),
            None => request,
        }
    }
}
