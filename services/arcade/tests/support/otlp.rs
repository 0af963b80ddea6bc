//! A real OTLP receiver for the trace tests: `POST /v1/traces` (OTLP/HTTP, protobuf) or the
//! gRPC `TraceService`, decoding `ExportTraceServiceRequest` with the `opentelemetry-proto`
//! types and keeping every span with its resource's `service.name`.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;

/// A span as received.
#[derive(Debug, Clone)]
pub struct Received {
    /// Its resource's `service.name`.
    pub service_name: String,
    /// The span.
    pub span: Span,
}

impl Received {
    /// The span's name.
    pub fn name(&self) -> &str {
        &self.span.name
    }

    /// A string attribute of the span.
    pub fn attribute(&self, key: &str) -> Option<String> {
        self.span
            .attributes
            .iter()
            .find(|kv| kv.key == key)
            .and_then(|kv| kv.value.as_ref()?.value.as_ref())
            .map(|value| match value {
                Value::StringValue(s) => s.clone(),
                other => format!("{other:?}"),
            })
    }

    /// Its trace id, in hex.
    pub fn trace_id(&self) -> String {
        hex(&self.span.trace_id)
    }

    /// Its span id, in hex.
    pub fn span_id(&self) -> String {
        hex(&self.span.span_id)
    }

    /// Its parent's span id, in hex (empty for a root).
    pub fn parent_id(&self) -> String {
        hex(&self.span.parent_span_id)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the receiver got, shared with its server.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    spans: Arc<Mutex<Vec<Received>>>,
    changed: Arc<tokio::sync::Notify>,
    requests: Arc<std::sync::atomic::AtomicU64>,
}

impl Spans {
    fn add(&self, request: ExportTraceServiceRequest) {
        let mut spans = self.spans.lock().unwrap();
        for resource_spans in request.resource_spans {
            let service_name = resource_spans
                .resource
                .as_ref()
                .and_then(|r| r.attributes.iter().find(|kv| kv.key == "service.name"))
                .and_then(|kv| kv.value.as_ref()?.value.as_ref())
                .map(|v| match v {
                    Value::StringValue(s) => s.clone(),
                    other => format!("{other:?}"),
                })
                .unwrap_or_default();
            for scope in resource_spans.scope_spans {
                for span in scope.spans {
                    spans.push(Received {
                        service_name: service_name.clone(),
                        span,
                    });
                }
            }
        }
        self.requests
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.changed.notify_waiters();
    }

    /// Every span so far.
    pub fn all(&self) -> Vec<Received> {
        self.spans.lock().unwrap().clone()
    }

    /// Export requests received so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Waits (at most `patience`) until `done` holds of the spans received; returns them.
    pub async fn wait_until(
        &self,
        patience: Duration,
        done: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            let changed = self.changed.notified();
            let spans = self.all();
            if done(&spans) {
                return spans;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return self.all();
            }
        }
    }
}

/// A receiver listening on a port of its own.
#[derive(Debug)]
pub struct Receiver {
    /// Where it listens.
    pub addr: SocketAddr,
    /// What it got.
    pub spans: Spans,
}

impl Receiver {
    /// The `OTEL_EXPORTER_OTLP_ENDPOINT` of the receiver (a base URL).
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// An OTLP/HTTP receiver (protobuf), served on the current tokio runtime.
pub async fn http() -> Receiver {
    let spans = Spans::default();
    let state = spans.clone();
    let router = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: axum::body::Bytes| {
            let state = state.clone();
            async move {
                match ExportTraceServiceRequest::decode(body.as_ref()) {
                    Ok(request) => {
                        state.add(request);
                        let response = ExportTraceServiceResponse::default().encode_to_vec();
                        (
                            axum::http::StatusCode::OK,
                            [("content-type", "application/x-protobuf")],
                            response,
                        )
                    }
                    Err(e) => (
                        axum::http::StatusCode::BAD_REQUEST,
                        [("content-type", "text/plain")],
                        e.to_string().into_bytes(),
                    ),
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    Receiver { addr, spans }
}

#[derive(Debug, Clone)]
struct Grpc(Spans);

#[tonic::async_trait]
impl TraceService for Grpc {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        self.0.add(request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

/// An OTLP/gRPC receiver, served on the current tokio runtime.
pub async fn grpc() -> Receiver {
    let spans = Spans::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = TraceServiceServer::new(Grpc(spans.clone()));
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
            .await
            .unwrap();
    });
    Receiver { addr, spans }
}
