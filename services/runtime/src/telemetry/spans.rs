//! The spans of messaging, after the OpenTelemetry messaging semantic conventions (RabbitMQ
//! flavour): a producer span `publish <exchange>` for each message sent — by the relay (lasting
//! until the broker confirms it) and by every client ([`crate::Runtime::send_with`], the CLI) —
//! whose context travels in the message's `traceparent`; a consumer span `process <type>` for
//! each message a service handles, child of that `traceparent`. Both carry `messaging.system`
//! (`rabbitmq` or `arcade.embedded`; absent where the sender does not know the transport),
//! `messaging.destination.name` (the exchange as on the wire: `arcade.events` for events,
//! `arcade.commands` for commands, whose routing key is the target queue),
//! `messaging.rabbitmq.destination.routing_key`, `messaging.operation.type` and `.name`,
//! `messaging.message.id`, `messaging.message.conversation_id` (the correlation id) and
//! `arcade.service`; the consumer span also `messaging.consumer.group.name` (the queue).
//! No payload, token or secret is recorded.
//!
//! Attributes are only computed when a subscriber records the span.

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::Span;
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// What every messaging span records of a message, published or handled.
#[derive(Debug, Clone, Copy)]
pub struct Message<'a> {
    /// `rabbitmq` or `arcade.embedded`; empty when the sender does not know (not recorded).
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
    if !message.system.is_empty() {
        span.record("messaging.system", message.system);
    }
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

/// `value` when it is a valid W3C `traceparent` (what a client's request header may carry;
/// anything else is dropped, never forwarded).
pub fn valid_traceparent(value: &str) -> Option<String> {
    use opentelemetry::trace::TraceContextExt as _;
    let mut carrier = HashMap::with_capacity(1);
    carrier.insert("traceparent".to_string(), value.trim().to_string());
    let context = TraceContextPropagator::new().extract(&carrier);
    context
        .span()
        .span_context()
        .is_valid()
        .then(|| value.trim().to_string())
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

#[cfg(test)]
mod tests {
    use super::valid_traceparent;

    #[test]
    fn only_a_valid_traceparent_is_kept() {
        let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        assert_eq!(valid_traceparent(good).as_deref(), Some(good));
        for bad in [
            "",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "not a traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
        ] {
            assert_eq!(valid_traceparent(bad), None, "{bad:?}");
        }
    }
}
