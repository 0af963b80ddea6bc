//! Tracing and OpenTelemetry: logs to stderr filtered by `RUST_LOG` (coloured on a terminal
//! unless `NO_COLOR` is set); spans after the
//! OpenTelemetry messaging semantic conventions (RabbitMQ flavour, see [`spans`]); export over
//! OTLP (`http/protobuf` or `grpc`) when an endpoint is configured.
//!
//! The standard `OTEL_*` variables are read as the OpenTelemetry SDK environment specification
//! says, an empty value meaning unset: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` appended for HTTP), `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`
//! or `OTEL_EXPORTER_OTLP_PROTOCOL` (default `http/protobuf`), `OTEL_SERVICE_NAME` (default: the
//! name the process gives, the hosted service's). Export does not depend on `RUST_LOG`, which
//! only filters the logs. Without an endpoint, trace ids are still made and propagated.

pub mod spans;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

pub use spans::{Consumed, Message, current_traceparent, process_span, publish_span};

/// The OTLP transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf` (the specification's default).
    HttpProtobuf,
    /// `grpc`.
    Grpc,
}

/// Where spans are exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// The full URL spans are sent to (for HTTP, including `/v1/traces`).
    pub endpoint: String,
    /// How.
    pub protocol: Protocol,
}

/// What telemetry does in a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelemetryConfig {
    /// The resource's `service.name`.
    pub service_name: String,
    /// OTLP export, or none.
    pub export: Option<Export>,
    /// The log filter (`RUST_LOG`), or `None` for the default.
    pub log_filter: Option<String>,
    /// The log filter when `log_filter` is `None`: `info` for services, `off` for tools that
    /// print to stdout.
    pub default_logs: &'static str,
}

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// `RUST_LOG` does not parse.
    #[error("RUST_LOG is invalid: {0}")]
    Filter(String),
    /// An `OTEL_*` setting has a value Arcade cannot use.
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

impl TelemetryConfig {
    /// The configuration the environment gives a process whose own name is `service`.
    pub fn from_env(service: &str) -> Result<Self, TelemetryError> {
        Self::from_vars(service, |name| std::env::var(name).ok())
    }

    /// The configuration `var` gives (an empty value is unset).
    pub fn from_vars(
        service: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, TelemetryError> {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let protocol = match var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") {
            Some(value) => parse_protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", &value)?,
            None => match var("OTEL_EXPORTER_OTLP_PROTOCOL") {
                Some(value) => parse_protocol("OTEL_EXPORTER_OTLP_PROTOCOL", &value)?,
                None => Protocol::HttpProtobuf,
            },
        };
        let endpoint = match var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            Some(url) => Some(url),
            None => var("OTEL_EXPORTER_OTLP_ENDPOINT").map(|base| match protocol {
                Protocol::HttpProtobuf => format!("{}/v1/traces", base.trim_end_matches('/')),
                Protocol::Grpc => base,
            }),
        };
        Ok(TelemetryConfig {
            service_name: var("OTEL_SERVICE_NAME").unwrap_or_else(|| service.to_string()),
            export: endpoint.map(|endpoint| Export { endpoint, protocol }),
            log_filter: var("RUST_LOG"),
            default_logs: "info",
        })
    }

    /// Logs off unless `RUST_LOG` asks for them (tools that print to stdout).
    pub fn quiet(mut self) -> Self {
        self.default_logs = "off";
        self
    }
}

fn parse_protocol(name: &'static str, value: &str) -> Result<Protocol, TelemetryError> {
    match value.trim() {
        "http/protobuf" => Ok(Protocol::HttpProtobuf),
        "grpc" => Ok(Protocol::Grpc),
        other => Err(TelemetryError::Setting {
            name,
            reason: format!("{other:?} is not supported; use \"http/protobuf\" or \"grpc\""),
        }),
    }
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

    fn config(vars: &[(&str, &str)]) -> Result<TelemetryConfig, TelemetryError> {
        TelemetryConfig::from_vars("bingo", |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn empty_values_are_unset() {
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", ""),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", ""),
            ("OTEL_SERVICE_NAME", ""),
            ("RUST_LOG", ""),
        ])
        .unwrap();
        assert_eq!(c.export, None);
        assert_eq!(c.service_name, "bingo");
        assert_eq!(c.log_filter, None);
    }

    #[test]
    fn endpoints_protocols_and_the_service_name() {
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_SERVICE_NAME", "bingo-eu"),
        ])
        .unwrap();
        assert_eq!(c.service_name, "bingo-eu");
        assert_eq!(
            c.export,
            Some(Export {
                endpoint: "http://collector:4318/v1/traces".into(),
                protocol: Protocol::HttpProtobuf
            })
        );
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ])
        .unwrap();
        assert_eq!(c.export.unwrap().endpoint, "http://collector:4317");
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b:9999/traces"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ])
        .unwrap();
        assert_eq!(
            c.export,
            Some(Export {
                endpoint: "http://b:9999/traces".into(),
                protocol: Protocol::HttpProtobuf
            })
        );
    }

    #[test]
    fn an_unsupported_protocol_is_named() {
        let error = config(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")]).unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("OTEL_EXPORTER_OTLP_PROTOCOL:"), "{text}");
        assert!(text.contains("http/json"), "{text}");
    }
}
