//! Log lines on stderr, as text or as one JSON object a line (feature `log-json`), each with the
//! `trace_id` and `span_id` of the span current when it was written, if that span is traced:
//! a line written while a message is handled names that message's trace.

use std::fmt;

use opentelemetry::trace::TraceContextExt as _;
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::fmt::{FmtContext, MakeWriter};
use tracing_subscriber::registry::LookupSpan;

use super::{LogFormat, TelemetryError};

/// The trace and span ids of the current OpenTelemetry context, in hex, when it is valid. The
/// OpenTelemetry layer makes a span's context current while the span is entered.
pub fn current_ids() -> Option<(String, String)> {
    let context = opentelemetry::Context::current();
    let span = context.span();
    let ids = span.span_context();
    ids.is_valid()
        .then(|| (ids.trace_id().to_string(), ids.span_id().to_string()))
}

/// An event format that adds the current trace and span ids to `inner`'s line: as
/// `trace_id=… span_id=…` at the end of a text line, as the first two members of a JSON object.
#[derive(Debug)]
pub struct Traced<F> {
    inner: F,
    json: bool,
}

impl<F> Traced<F> {
    /// `inner`'s lines, which are JSON objects when `json`.
    pub fn new(inner: F, json: bool) -> Self {
        Traced { inner, json }
    }
}

impl<S, N, F> FormatEvent<S, N> for Traced<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let Some((trace_id, span_id)) = current_ids() else {
            return self.inner.format_event(ctx, writer, event);
        };
        let mut line = String::with_capacity(256);
        self.inner
            .format_event(ctx, Writer::new(&mut line), event)?;
        writer.write_str(&with_ids(&line, self.json, &trace_id, &span_id))
    }
}

/// `line` (one formatted event, ending with a newline) with the ids added.
fn with_ids(line: &str, json: bool, trace_id: &str, span_id: &str) -> String {
    let body = line.strip_suffix('\n').unwrap_or(line);
    match body.strip_prefix('{').filter(|_| json) {
        Some(rest) => {
            let comma = if rest.trim_start().starts_with('}') {
                ""
            } else {
                ","
            };
            format!("{{\"trace_id\":\"{trace_id}\",\"span_id\":\"{span_id}\"{comma}{rest}\n")
        }
        None => format!("{body} trace_id={trace_id} span_id={span_id}\n"),
    }
}

/// The layer writing log lines to `writer` in `format` (coloured when `ansi`, text only).
pub fn layer<S, W>(
    format: LogFormat,
    writer: W,
    ansi: bool,
) -> Result<Box<dyn Layer<S> + Send + Sync>, TelemetryError>
where
    S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let fmt = tracing_subscriber::fmt::layer().with_writer(writer);
    match format {
        LogFormat::Text => Ok(fmt
            .with_ansi(ansi)
            .event_format(Traced::new(
                tracing_subscriber::fmt::format().with_ansi(ansi),
                false,
            ))
            .boxed()),
        #[cfg(feature = "log-json")]
        LogFormat::Json => Ok(fmt
            .with_ansi(false)
            .fmt_fields(tracing_subscriber::fmt::format::JsonFields::new())
            .event_format(Traced::new(
                tracing_subscriber::fmt::format()
                    .json()
                    .flatten_event(true)
                    .with_current_span(true)
                    .with_span_list(false),
                true,
            ))
            .boxed()),
        #[cfg(not(feature = "log-json"))]
        LogFormat::Json => Err(TelemetryError::Setting {
            name: "ARCADE_LOG_FORMAT",
            reason: "\"json\" is not built into this binary (the edge referee logs text; build \
                     with the log-json feature for JSON lines)"
                .to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::with_ids;

    const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
    const SPAN: &str = "b7ad6b7169203331";

    #[test]
    fn ids_end_a_text_line() {
        assert_eq!(
            with_ids(
                "2026-12-07T05:00:00Z  INFO arcade: started\n",
                false,
                TRACE,
                SPAN
            ),
            format!("2026-12-07T05:00:00Z  INFO arcade: started trace_id={TRACE} span_id={SPAN}\n")
        );
    }

    #[test]
    fn ids_open_a_json_object() {
        let line = with_ids(r#"{"level":"INFO","message":"started"}"#, true, TRACE, SPAN);
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["trace_id"], TRACE);
        assert_eq!(value["span_id"], SPAN);
        assert_eq!(value["message"], "started");
        assert!(line.ends_with("}\n"));
        let empty: serde_json::Value =
            serde_json::from_str(&with_ids("{}\n", true, TRACE, SPAN)).unwrap();
        assert_eq!(empty["trace_id"], TRACE);
    }
}
