//! Tracing and OpenTelemetry: logs to stderr filtered by `RUST_LOG`, as text (coloured on a
//! terminal unless `NO_COLOR` is set) or JSON lines ([`logs`]), each naming the current trace
//! and span; spans after the OpenTelemetry messaging semantic conventions (RabbitMQ flavour,
//! see [`spans`]); export over OTLP (`http/protobuf` or `grpc`) when an endpoint is configured
//! and the SDK not disabled ([`config`] lists the variables read). Export does not depend on
//! `RUST_LOG`, which only filters the logs. Without export, trace ids are still made and
//! propagated.

pub mod config;
pub mod logs;
pub mod spans;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::filter::{FilterExt as _, LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

pub use config::{Export, LogFormat, Protocol, TelemetryConfig};
pub use spans::{Consumed, Message, current_traceparent, process_span, publish_span};

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// `RUST_LOG` does not parse.
    #[error("RUST_LOG is invalid: {0}")]
    Filter(String),
    /// A setting (`OTEL_*`, `ARCADE_LOG_FORMAT`) has a value Arcade cannot use.
    #[error("{name}: {reason}")]
    Setting {
        /// The variable.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// The OTLP exporter could not be built.
    #[error("cannot build the OTLP exporter for {endpoint}: {reason}")]
    Exporter {
        /// The endpoint.
        endpoint: String,
        /// Why.
        reason: String,
    },
    /// A global subscriber is already installed.
    #[error("telemetry is already initialised: {0}")]
    AlreadySet(String),
}

/// Keeps the tracer provider alive; flushes exported spans when dropped.
#[derive(Debug)]
pub struct Telemetry {
    provider: SdkTracerProvider,
}

impl Telemetry {
    /// Exports every finished span now.
    pub fn flush(&self) {
        let _ = self.provider.force_flush();
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// `RUST_LOG` as given, with sled's own logs kept to warnings unless it names sled. sled logs
/// from its destructors, which crossbeam-epoch may run in an exiting thread's thread-local
/// destructors: at debug or trace level that log reached the formatter's thread-local buffer
/// after its destruction and aborted the process at exit ("thread local panicked on drop",
/// seen at `RUST_LOG=trace` on a busy machine). A callsite the filter disables statically never
/// touches the subscriber.
fn quiet_storage(value: &str) -> String {
    if value.contains("sled") {
        value.to_string()
    } else if value.trim().is_empty() {
        "sled=warn".to_string()
    } else {
        format!("{value},sled=warn")
    }
}

/// The AMQP client's logs capped at DEBUG, whatever `RUST_LOG` asks: at TRACE lapin prints
/// every frame it writes or reads (target `lapin::io_loop`, "will write to buffer": the
/// `Connection.StartOk` with the SASL response, the broker password as a byte array, on every
/// (re)connection; `lapin::channels`, `lapin::frames`: frames and the messages they carry). Its
/// DEBUG and higher say heartbeats, channel and connection states, never a frame's content.
fn amqp_client_log_cap() -> Targets {
    Targets::new()
        .with_default(LevelFilter::TRACE)
        .with_target("lapin", LevelFilter::DEBUG)
        .with_target("amq_protocol", LevelFilter::DEBUG)
        .with_target("amq_protocol_tcp", LevelFilter::DEBUG)
}

/// Installs the global subscriber for a process named `service`, configured by the environment.
pub fn init(service: &str) -> Result<Telemetry, TelemetryError> {
    init_with(TelemetryConfig::from_env(service)?)
}

/// Installs the global subscriber as `config` says.
pub fn init_with(config: TelemetryConfig) -> Result<Telemetry, TelemetryError> {
    let filter = match &config.log_filter {
        Some(value) => EnvFilter::try_new(quiet_storage(value))
            .map_err(|e| TelemetryError::Filter(format!("{value:?}: {e}")))?,
        None => EnvFilter::new(config.default_logs),
    };
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(config.service_name.clone())
        .build();
    let mut builder = SdkTracerProvider::builder().with_resource(resource);
    if let Some(export) = &config.export {
        builder = builder.with_batch_exporter(exporter(export)?);
    }
    let provider = builder.build();
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    opentelemetry::global::set_tracer_provider(provider.clone());
    let tracer = provider.tracer("arcade");
    // Only Arcade's own spans are exported: not the HTTP client's or the exporter's own, which
    // would trace every export.
    let exported = Targets::new().with_target("arcade", LevelFilter::INFO);
    let ansi = colors(
        std::env::var_os("NO_COLOR").as_deref(),
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    tracing_subscriber::registry()
        .with(
            logs::layer(config.log_format, std::io::stderr, ansi)?
                .with_filter(filter.and(amqp_client_log_cap())),
        )
        .with(
            tracing_opentelemetry::layer()
                .with_tracer(tracer)
                .with_filter(exported),
        )
        .try_init()
        .map_err(|e| TelemetryError::AlreadySet(e.to_string()))?;
    Ok(Telemetry { provider })
}

fn exporter(export: &Export) -> Result<opentelemetry_otlp::SpanExporter, TelemetryError> {
    let failed = |e: opentelemetry_otlp::ExporterBuildError| TelemetryError::Exporter {
        endpoint: export.endpoint.clone(),
        reason: e.to_string(),
    };
    let builder = opentelemetry_otlp::SpanExporter::builder();
    match export.protocol {
        Protocol::HttpProtobuf => {
            let http = builder.with_http();
            addressed(http, opentelemetry_otlp::Protocol::HttpBinary, export)
                .build()
                .map_err(failed)
        }
        #[cfg(feature = "otlp-grpc")]
        Protocol::Grpc => {
            let grpc = builder.with_tonic();
            addressed(grpc, opentelemetry_otlp::Protocol::Grpc, export)
                .build()
                .map_err(failed)
        }
        #[cfg(not(feature = "otlp-grpc"))]
        Protocol::Grpc => Err(TelemetryError::Setting {
            name: "OTEL_EXPORTER_OTLP_PROTOCOL",
            reason: "\"grpc\" is not built into this binary (the edge referee exports over \
                     \"http/protobuf\"; build with the otlp-grpc feature for gRPC)"
                .to_string(),
        }),
    }
}

/// A transport's exporter builder, set to send with `protocol` to the endpoint of `export`.
fn addressed<B: WithExportConfig>(
    builder: B,
    protocol: opentelemetry_otlp::Protocol,
    export: &Export,
) -> B {
    builder
        .with_protocol(protocol)
        .with_endpoint(export.endpoint.clone())
}

/// Whether logs are coloured: only on a terminal, and never when `NO_COLOR` is set to anything
/// but the empty string (<https://no-color.org>).
pub fn colors(no_color: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sled_logs_only_warnings_unless_named() {
        assert_eq!(quiet_storage("trace"), "trace,sled=warn");
        assert_eq!(quiet_storage("arcade=debug"), "arcade=debug,sled=warn");
        assert_eq!(quiet_storage("trace,sled=trace"), "trace,sled=trace");
        assert!(EnvFilter::try_new(quiet_storage("trace")).is_ok());
    }

    #[test]
    fn the_amqp_clients_frames_are_never_logged() {
        use tracing::Level;
        let cap = amqp_client_log_cap();
        assert!(!cap.would_enable("lapin::io_loop", &Level::TRACE));
        assert!(!cap.would_enable("lapin", &Level::TRACE));
        assert!(!cap.would_enable("amq_protocol_tcp", &Level::TRACE));
        assert!(cap.would_enable("lapin::channels", &Level::DEBUG));
        assert!(cap.would_enable("arcade_runtime::bus", &Level::TRACE));
    }
}
