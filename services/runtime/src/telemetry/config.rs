//! What telemetry does in a process, as the environment says: the standard `OTEL_*` variables
//! read as the OpenTelemetry SDK environment specification says (an empty value meaning unset),
//! `RUST_LOG`, and `ARCADE_LOG_FORMAT`.
//!
//! - `OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER=none`: nothing is exported, whatever
//!   the endpoint (trace contexts are still made and carried, so a trace passes through).
//!   `OTEL_TRACES_EXPORTER` takes `otlp` (the default) or `none`.
//! - `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or `OTEL_EXPORTER_OTLP_ENDPOINT`
//!   (`/v1/traces` appended for HTTP); no endpoint, no export.
//! - `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf`
//!   (default) or `grpc`.
//! - `OTEL_SERVICE_NAME` (default: the name the process gives, the hosted service's).
//! - `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` are read by the SDK itself
//!   (`always_on`, `always_off`, `traceidratio`, `parentbased_*`; default
//!   `parentbased_always_on`); `OTEL_BSP_*` too.
//! - `ARCADE_LOG_FORMAT`: `text` (default) or `json` (one JSON object a line).

use super::TelemetryError;

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

/// How log lines are written to stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines (coloured on a terminal).
    #[default]
    Text,
    /// One JSON object a line, for log shippers (feature `log-json`).
    Json,
}

impl std::str::FromStr for LogFormat {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        match value.trim() {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!(
                "{other:?} is not a log format; use \"text\" or \"json\""
            )),
        }
    }
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
    /// How log lines are written.
    pub log_format: LogFormat,
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
        let disabled = match var("OTEL_SDK_DISABLED") {
            Some(value) => parse_bool("OTEL_SDK_DISABLED", &value)?,
            None => false,
        };
        let exporting = match var("OTEL_TRACES_EXPORTER") {
            Some(value) => parse_exporters(&value)?,
            None => true,
        };
        let endpoint = match var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            Some(url) => Some(url),
            None => var("OTEL_EXPORTER_OTLP_ENDPOINT").map(|base| match protocol {
                Protocol::HttpProtobuf => format!("{}/v1/traces", base.trim_end_matches('/')),
                Protocol::Grpc => base,
            }),
        };
        let log_format = match var("ARCADE_LOG_FORMAT") {
            Some(value) => value.parse().map_err(|reason| TelemetryError::Setting {
                name: "ARCADE_LOG_FORMAT",
                reason,
            })?,
            None => LogFormat::Text,
        };
        Ok(TelemetryConfig {
            service_name: var("OTEL_SERVICE_NAME").unwrap_or_else(|| service.to_string()),
            export: endpoint
                .filter(|_| exporting && !disabled)
                .map(|endpoint| Export { endpoint, protocol }),
            log_filter: var("RUST_LOG"),
            default_logs: "info",
            log_format,
        })
    }

    /// Logs off unless `RUST_LOG` asks for them (tools that print to stdout).
    pub fn quiet(mut self) -> Self {
        self.default_logs = "off";
        self
    }

    /// Logs written as `format` (a `--log-format` flag over `ARCADE_LOG_FORMAT`).
    pub fn with_log_format(mut self, format: LogFormat) -> Self {
        self.log_format = format;
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

/// A boolean as the specification reads one: `true` in any case; `false` otherwise.
fn parse_bool(name: &'static str, value: &str) -> Result<bool, TelemetryError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(TelemetryError::Setting {
            name,
            reason: format!("{other:?} is not a boolean; use \"true\" or \"false\""),
        }),
    }
}

/// Whether `OTEL_TRACES_EXPORTER` (a comma-separated list) asks for OTLP.
fn parse_exporters(value: &str) -> Result<bool, TelemetryError> {
    let mut otlp = false;
    for exporter in value.split(',').map(str::trim) {
        match exporter {
            "otlp" => otlp = true,
            "none" | "" => {}
            other => {
                return Err(TelemetryError::Setting {
                    name: "OTEL_TRACES_EXPORTER",
                    reason: format!(
                        "{other:?} is not supported; use \"otlp\" (the default) or \"none\""
                    ),
                });
            }
        }
    }
    Ok(otlp)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("OTEL_SDK_DISABLED", ""),
            ("OTEL_TRACES_EXPORTER", ""),
            ("ARCADE_LOG_FORMAT", ""),
            ("RUST_LOG", ""),
        ])
        .unwrap();
        assert_eq!(c.export, None);
        assert_eq!(c.service_name, "bingo");
        assert_eq!(c.log_filter, None);
        assert_eq!(c.log_format, LogFormat::Text);
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
    fn a_disabled_sdk_or_no_exporter_exports_nothing() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318");
        for off in [
            ("OTEL_SDK_DISABLED", "true"),
            ("OTEL_SDK_DISABLED", "TRUE"),
            ("OTEL_TRACES_EXPORTER", "none"),
        ] {
            assert_eq!(config(&[endpoint, off]).unwrap().export, None, "{off:?}");
        }
        for on in [
            ("OTEL_SDK_DISABLED", "false"),
            ("OTEL_TRACES_EXPORTER", "otlp"),
        ] {
            assert!(config(&[endpoint, on]).unwrap().export.is_some(), "{on:?}");
        }
        let error = config(&[endpoint, ("OTEL_TRACES_EXPORTER", "zipkin")])
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("OTEL_TRACES_EXPORTER:") && error.contains("zipkin"),
            "{error}"
        );
        let error = config(&[("OTEL_SDK_DISABLED", "yes")])
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("OTEL_SDK_DISABLED:"), "{error}");
    }

    #[test]
    fn the_log_format() {
        let c = config(&[("ARCADE_LOG_FORMAT", "json")]).unwrap();
        assert_eq!(c.log_format, LogFormat::Json);
        assert_eq!(
            c.with_log_format(LogFormat::Text).log_format,
            LogFormat::Text
        );
        let error = config(&[("ARCADE_LOG_FORMAT", "yaml")])
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("ARCADE_LOG_FORMAT:") && error.contains("yaml"),
            "{error}"
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
