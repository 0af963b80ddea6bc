//! Telemetry: each handled message is a span `process <type>`, child of the incoming W3C
//! `traceparent`, and the events its handling produces are published in producer spans, children
//! of it, whose context they carry, so one trace follows a flow across services. A client's send
//! is a producer span too, continuing the context the client gives, if valid.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit::{self, ItemEmitted, ItemTallied, Tally};
use arcade_runtime::{Bus, Destination, Publication, SendOptions, SubscriptionSpec, WireMessage};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tracing_subscriber::layer::SubscriberExt;

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN_ID: &str = "00f067aa0ba902b7";
const CLIENT_TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN_ID: &str = "b7ad6b7169203331";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handled_message_is_a_child_span_and_its_events_carry_the_trace() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    // The hosts run on the runtime's worker threads: the subscriber must be global.
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), dir.path());
    let mut out = bus
        .subscribe(&SubscriptionSpec::temporary(
            "telemetry.tap",
            vec![ItemTallied::TYPE.into()],
        ))
        .await
        .unwrap();
    let tally = runtime
        .start(Tally {
            name: "tally".into(),
        })
        .unwrap();

    let body = serde_json::to_vec(&ItemEmitted {
        producer: "p".into(),
        n: 1,
        note: String::new(),
    })
    .unwrap();
    bus.publish(&[Publication {
        destination: Destination::Queue("tally".into()),
        message: WireMessage {
            message_type: Some(ItemEmitted::TYPE.into()),
            message_id: Some("traced-1".into()),
            traceparent: Some(format!("00-{TRACE_ID}-{PARENT_SPAN_ID}-01")),
            body,
            ..Default::default()
        },
    }])
    .await
    .unwrap();

    let delivery = tokio::time::timeout(Duration::from_secs(30), out.next())
        .await
        .expect("the tally's event within 30 s")
        .unwrap();
    let outgoing = delivery
        .message
        .traceparent
        .clone()
        .expect("the outgoing event carries a traceparent");
    delivery.ack().await.unwrap();

    // A client's send: its producer span continues the context the client gave (a request's
    // `traceparent` header), and the message carries the span's; an invalid one is dropped.
    let client_parent = format!("00-{CLIENT_TRACE_ID}-{CLIENT_SPAN_ID}-01");
    let sent = runtime
        .send_with(
            ItemEmitted::TYPE,
            serde_json::json!({"producer": "p", "n": 2, "note": ""}),
            "a-client",
            SendOptions {
                traceparent: Some(client_parent),
                ..SendOptions::default()
            },
        )
        .await
        .unwrap();
    let tallied = tokio::time::timeout(Duration::from_secs(30), out.next())
        .await
        .expect("the tally's second event within 30 s")
        .unwrap();
    let second = tallied.message.traceparent.clone().unwrap();
    tallied.ack().await.unwrap();
    assert_eq!(second.split('-').nth(1), Some(CLIENT_TRACE_ID), "{second}");
    runtime
        .send_with(
            ItemEmitted::TYPE,
            serde_json::json!({"producer": "p", "n": 3, "note": ""}),
            "a-client",
            SendOptions {
                traceparent: Some("00-garbage".into()),
                ..SendOptions::default()
            },
        )
        .await
        .unwrap();
    tally.stop(Duration::from_secs(5)).await.unwrap();
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let name = format!("process {}", ItemEmitted::TYPE);
    let span = spans.iter().find(|s| s.name == name).unwrap_or_else(|| {
        panic!(
            "no span named {name:?} among {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        )
    });
    assert_eq!(
        span.span_context.trace_id().to_string(),
        TRACE_ID,
        "the span continues the incoming trace"
    );
    assert_eq!(
        span.parent_span_id.to_string(),
        PARENT_SPAN_ID,
        "the span's parent is the incoming span"
    );

    let parts: Vec<&str> = outgoing.split('-').collect();
    assert_eq!(parts.len(), 4, "a W3C traceparent: {outgoing}");
    assert_eq!(parts[1], TRACE_ID, "the outgoing event stays in the trace");
    let producer = spans
        .iter()
        .find(|s| s.span_context.span_id().to_string() == parts[2])
        .expect("the outgoing event's parent is a span of this process");
    assert_eq!(producer.name, "publish arcade.events");
    assert_eq!(producer.span_kind, opentelemetry::trace::SpanKind::Producer);
    assert_eq!(
        producer.parent_span_id,
        span.span_context.span_id(),
        "the producer span is the child of the process span"
    );

    let client: Vec<_> = spans
        .iter()
        .filter(|s| {
            s.name == "publish arcade.events"
                && s.attributes.iter().any(|kv| {
                    kv.key.as_str() == "arcade.service" && kv.value.as_str() == "a-client"
                })
        })
        .collect();
    assert_eq!(client.len(), 2, "one producer span per client send");
    let continued = client
        .iter()
        .find(|s| s.span_context.trace_id().to_string() == CLIENT_TRACE_ID)
        .expect("the client's span continues the context it was given");
    assert_eq!(continued.parent_span_id.to_string(), CLIENT_SPAN_ID);
    assert_eq!(
        continued.span_kind,
        opentelemetry::trace::SpanKind::Producer
    );
    assert!(
        continued
            .attributes
            .iter()
            .any(|kv| kv.key.as_str() == "messaging.message.id"
                && kv.value.as_str() == sent.message_id.as_str())
    );
    assert!(
        spans
            .iter()
            .any(|s| s.name == name && s.parent_span_id == continued.span_context.span_id()),
        "the tally handled the client's message in a child of the client's producer span"
    );
    let fresh = client
        .iter()
        .find(|s| s.span_context.trace_id().to_string() != CLIENT_TRACE_ID)
        .unwrap();
    assert_eq!(
        fresh.parent_span_id,
        opentelemetry::trace::SpanId::INVALID,
        "an invalid traceparent is dropped: the send is a trace's root"
    );
}
