//! The admin endpoint `arcade run` serves on loopback: health, counters, sending a message, and
//! a stream of messages (what `arcade tap` and `arcade send` use with the embedded transport).
//!
//! - `GET /health`, `GET /ready`, `GET /metrics`: [`crate::observe`] (merged by `arcade run`)
//! - `GET /counters` → every service's counters
//! - `POST /messages/{type}` with a JSON payload → 202 and the envelope, 400 and the error
//!   for a payload its schema refuses, 404 for a command no queue takes (nobody consumes it:
//!   it is in the dead letters, reason `unroutable`)
//! - `GET /stream?pattern=game.%23` → one JSON envelope per line, as messages pass

use std::net::SocketAddr;

use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Runtime, SendError, SubscriptionSpec};
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// What the handlers share.
#[derive(Clone, Debug)]
pub struct AdminState {
    /// The process's runtime.
    pub runtime: Runtime,
}

/// The admin routes, to which services may merge their own (the telemetry page).
pub fn router(state: AdminState) -> Router {
    Router::new()
        .route("/counters", get(counters))
        .route("/messages/{message_type}", post(send))
        .route("/stream", get(stream))
        .with_state(state)
}

/// Serves `router` on `addr` until `shutdown` (then within [`arcade_runtime::shutdown::GRACE`],
/// whatever the clients do). Returns the bound address once listening.
pub async fn serve(
    addr: SocketAddr,
    router: Router,
    shutdown: CancellationToken,
) -> anyhow::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    arcade_runtime::http::serve(addr, "--admin", router, shutdown)
        .await
        .map_err(anyhow::Error::msg)
}

async fn counters(State(state): State<AdminState>) -> impl IntoResponse {
    axum::Json(state.runtime.metrics().snapshot())
}

#[derive(Debug, Deserialize)]
struct SendQuery {
    producer: Option<String>,
}

async fn send(
    State(state): State<AdminState>,
    Path(message_type): Path<String>,
    Query(query): Query<SendQuery>,
    body: axum::body::Bytes,
) -> Response {
    let payload: serde_json::Value = match serde_json::from_slice(&body) {
        Ok(payload) => payload,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("the payload is not JSON: {e}"),
            );
        }
    };
    let producer = query.producer.unwrap_or_else(|| "arcade-admin".into());
    match state.runtime.send(&message_type, payload, &producer).await {
        Ok(envelope) => (StatusCode::ACCEPTED, axum::Json(envelope)).into_response(),
        Err(e @ (SendError::Invalid(_) | SendError::Unroutable { .. })) => {
            error(StatusCode::BAD_REQUEST, e.to_string())
        }
        Err(e @ SendError::NotConsumed { .. }) => error(StatusCode::NOT_FOUND, e.to_string()),
        Err(e @ SendError::Bus(_)) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}

/// A JSON error answer: `{"error": message}`.
pub fn error(status: StatusCode, message: String) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

#[derive(Debug, Deserialize)]
struct StreamQuery {
    pattern: Option<String>,
}

async fn stream(State(state): State<AdminState>, Query(query): Query<StreamQuery>) -> Response {
    let pattern = query.pattern.unwrap_or_else(|| "#".into());
    let spec = SubscriptionSpec::temporary(
        format!("tap.{}", uuid::Uuid::new_v4().simple()),
        vec![pattern],
    );
    ndjson_stream(&state.runtime, &spec).await
}

/// Subscribes with `spec` and streams every delivery as one JSON envelope per line, acking each
/// once written. The consumer lives as long as the response; the stream ends when the process
/// stops ([`Runtime::stopping`]), so an open tap never holds a shutdown.
pub async fn ndjson_stream(runtime: &Runtime, spec: &SubscriptionSpec) -> Response {
    let consumer = match runtime.bus().subscribe(spec).await {
        Ok(consumer) => consumer,
        Err(e) => return error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    };
    let lines = futures::stream::unfold(consumer, |mut consumer| async move {
        let delivery = consumer.next().await.ok()?;
        let mut line = serde_json::to_vec(&lossy_envelope(&delivery.message)).unwrap_or_default();
        line.push(b'\n');
        let _ = delivery.ack().await;
        Some((Ok::<_, std::convert::Infallible>(line), consumer))
    })
    .take_until(runtime.stopping().cancelled_owned());
    Response::builder()
        .header(header::CONTENT_TYPE, "application/x-ndjson")
        .body(Body::from_stream(lines))
        .unwrap_or_else(|e| error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}
