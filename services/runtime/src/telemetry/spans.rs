//! The spans of messaging, after the OpenTelemetry messaging semantic conventions (RabbitMQ
//! flavour): a producer span `publish <exchange>` for each message the relay publishes, lasting
//! until the broker confirms it, whose context travels in the message's `traceparent`; a
//! consumer span `process <type>` for each message a service handles, child of that
//! `traceparent`. Both carry `messaging.system` (`rabbitmq` or `arcade.embedded`),
//! `messaging.destination.name` (the exchange; `amq.default` for a message sent to a queue),
//! `messaging.rabbitmq.destination.routing_key`, `messaging.operation.type` and `.name`,
//! `messaging.message.id`, `messaging.message.conversation_id` (the correlation id) and
//! `arcade.service`; the consumer span also `messaging.consumer.group.name` (the queue).
//!
//! Attributes are only computed when a subscriber records the span.

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::Span;
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The exchange name semantic conventions give RabbitMQ's default exchange (a message sent
/// straight to a queue).
pub const DEFAULT_EXCHANGE: &str = "amq.default";

/// What every messaging span records of a message, published or handled.
#[derive(Debug, Clone, Copy)]
pub struct Message<'a> {
    /// `rabbitmq` or `arcade.embedded`.
    pub system: &'a str,
    /// The exchange it was (or is) published to.
    pub destination: &'a str,
    /// Its routing key.
    pub routing_key: &'a str,
    /// Its id.
    pub message_id: &'a str,
    /// Its correlation id.
    pub correlation_id: &'a str,
    /// The service publishing or handling it.
    pub service: &'a str,
    /// The W3C trace context the span continues: the one a handled message came with, or
    /// that of the handling that produced a published one.
    pub parent: Option<&'a str>,
}

/// A message a service handles.
#[derive(Debug, Clone, Copy)]
pub struct Consumed<'a> {
    /// The message.
    pub message: Message<'a>,
    /// The queue it was consumed from.
    pub queue: &'a str,
    /// Its type.
    pub message_type: &'a str,
}

/// A messaging span `$name` (also its `messaging.operation.name`) of kind `$kind`, with the
/// attributes every messaging span has, then the `$extra` ones, all empty until recorded.
macro_rules! messaging_span {
    ($name:literal, $kind:literal, $operation:literal $(, $extra:tt)*) => {
        tracing::info_span!(
            $name,
            "otel.name" = Empty,
            "otel.kind" = $kind,
            "messaging.system" = Empty,
            "messaging.destination.name" = Empty,
            "messaging.rabbitmq.destination.routing_key" = Empty,
            "messaging.operation.type" = $operation,
            "messaging.operation.name" = $name,
            "messaging.message.id" = Empty,
            "messaging.message.conversation_id" = Empty,
            $($extra = Empty,)*
            "arcade.service" = Empty,
        )
    };
}

/// Records on `span` the attributes every messaging span has.
fn record_message(span: &Span, message: &Message<'_>) {
    set_parent(span, message.parent);
    span.record("messaging.system", message.system);
    span.record("messaging.destination.name", message.destination);
    span.record(
        "messaging.rabbitmq.destination.routing_key",
        message.routing_key,
    );
    span.record("messaging.message.id", message.message_id);
    span.record("messaging.message.conversation_id", message.correlation_id);
    span.record("arcade.service", message.service);
}

/// The consumer span of one handled message.
pub fn process_span(message: &Consumed<'_>) -> Span {
    let span = messaging_span!(
        "process",
        "consumer",
        "process",
        "messaging.consumer.group.name"
    );
    if span.is_disabled() {
        return span;
    }
    span.record("otel.name", format!("process {}", message.message_type));
    record_message(&span, &message.message);
    span.record("messaging.consumer.group.name", message.queue);
    span
}

/// The producer span of one published message, and the `traceparent` the message carries
/// (`None` when nothing records spans: the message keeps the one it had).
pub fn publish_span(message: &Message<'_>) -> (Span, Option<String>) {
    let span = messaging_span!("publish", "producer", "send");
    if span.is_disabled() {
        return (span, None);
    }
    span.record("otel.name", format!("publish {}", message.destination));
    record_message(&span, message);
    let traceparent = traceparent_of(&span);
    (span, traceparent)
}

fn set_parent(span: &Span, traceparent: Option<&str>) {
    if let Some(parent) = traceparent {
        let mut carrier = HashMap::with_capacity(1);
        carrier.insert("traceparent".to_string(), parent.to_string());
        let context = TraceContextPropagator::new().extract(&carrier);
        let _ = span.set_parent(context);
    }
}

/// The W3C `traceparent` of `span`, if it is being traced.
pub fn traceparent_of(span: &Span) -> Option<String> {
    let context = span.context();
    let mut carrier: HashMap<String, String> = HashMap::with_capacity(1);
    TraceContextPropagator::new().inject_context(&context, &mut carrier);
    carrier.remove("traceparent")
}

/// The W3C `traceparent` of the current span, if it is being traced.
pub fn current_traceparent() -> Option<String> {
    traceparent_of(&Span::current())
}

/// The `messaging.system` of a transport ([`crate::Bus::name`]).
pub fn messaging_system(bus: &str) -> &'static str {
    match bus {
        "rabbitmq" => "rabbitmq",
        _ => "arcade.embedded",
    }
}
