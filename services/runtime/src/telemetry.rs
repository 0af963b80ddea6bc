//! Tracing and OpenTelemetry: logs to stderr filtered by `RUST_LOG` (coloured on a terminal
//! unless `NO_COLOR` is set), one span per handled
//! message named `process <type>` whose parent is the incoming W3C `traceparent`, and the
//! current trace context injected into every event the span produces. Spans are exported over
//! OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; otherwise trace ids are still made and
//! propagated, so a trace can be followed across services in the logs.

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Keeps the tracer provider alive; flushes exported spans when dropped.
#[derive(Debug)]
pub struct Telemetry {
    provider: SdkTracerProvider,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// `RUST_LOG` does not parse.
    #[error("RUST_LOG is invalid: {0}")]
    Filter(String),
    /// The OTLP exporter could not be built from `OTEL_EXPORTER_OTLP_*`.
    #[error("OTEL_EXPORTER_OTLP_ENDPOINT: cannot build the OTLP exporter: {0}")]
    Exporter(String),
    /// A global subscriber is already installed.
    #[error("telemetry is already initialised: {0}")]
    AlreadySet(String),
}

/// Installs the global subscriber for a process named `service`.
pub fn init(service: &str) -> Result<Telemetry, TelemetryError> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(value) if !value.is_empty() => EnvFilter::try_new(&value)
            .map_err(|e| TelemetryError::Filter(format!("{value:?}: {e}")))?,
        _ => EnvFilter::new("info"),
    };
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(service.to_string())
        .build();
    let mut builder = SdkTracerProvider::builder().with_resource(resource);
    if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_some() {
        use opentelemetry_otlp::WithExportConfig as _;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .build()
            .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
        builder = builder.with_batch_exporter(exporter);
    }
    let provider = builder.build();
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    opentelemetry::global::set_tracer_provider(provider.clone());
    let tracer = provider.tracer("arcade");
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(colors(
                    std::env::var_os("NO_COLOR").as_deref(),
                    std::io::IsTerminal::is_terminal(&std::io::stderr()),
                ))
                .with_filter(filter),
        )
        .with(
            tracing_opentelemetry::layer()
                .with_tracer(tracer)
                .with_filter(tracing_subscriber::filter::LevelFilter::INFO),
        )
        .try_init()
        .map_err(|e| TelemetryError::AlreadySet(e.to_string()))?;
    Ok(Telemetry { provider })
}

/// Whether logs are coloured: only on a terminal, and never when `NO_COLOR` is set to anything
/// but the empty string (<https://no-color.org>).
pub fn colors(no_color: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

/// The span of one handled message, child of the trace it came with.
pub fn process_span(
    message_type: &str,
    message_id: &str,
    traceparent: Option<&str>,
) -> tracing::Span {
    let span = tracing::info_span!(
        "process",
        otel.name = %format!("process {message_type}"),
        otel.kind = "consumer",
        messaging.message.id = %message_id,
        messaging.destination.name = %message_type,
    );
    if let Some(parent) = traceparent {
        let mut carrier = HashMap::with_capacity(1);
        carrier.insert("traceparent".to_string(), parent.to_string());
        let context = TraceContextPropagator::new().extract(&carrier);
        let _ = span.set_parent(context);
    }
    span
}

/// The W3C `traceparent` of the current span, if it is being traced.
pub fn current_traceparent() -> Option<String> {
    let context = tracing::Span::current().context();
    let mut carrier: HashMap<String, String> = HashMap::with_capacity(1);
    TraceContextPropagator::new().inject_context(&context, &mut carrier);
    carrier.remove("traceparent")
}
