//! The observability routes every Arcade process can serve (feature `http`), read-only, so they
//! may listen where a scraper or an orchestrator reaches them:
//!
//! - `GET /health` → 200 `{"status":"ok","transport":…,"services":[…]}` while the process serves
//! - `GET /ready` → 200 or 503 with [`crate::health::Readiness`] (what fails, by name)
//! - `GET /metrics` → the Prometheus text of [`crate::metrics`]

use std::future::IntoFuture;
use std::net::SocketAddr;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::runtime::Runtime;

/// A listening address from a setting where an empty value means none (`ARCADE_METRICS_ADDR=`
/// in an env file or a compose interpolation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenAddr(pub Option<SocketAddr>);

impl std::str::FromStr for ListenAddr {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        let value = value.trim();
        if value.is_empty() {
            return Ok(ListenAddr(None));
        }
        value
            .parse()
            .map(|addr| ListenAddr(Some(addr)))
            .map_err(|e| format!("{value:?} is not host:port: {e}"))
    }
}

#[derive(Debug, Clone)]
struct Observed {
    runtime: Runtime,
    max_backlog: u64,
}

/// The routes, on `runtime`; a relay backlog of `max_backlog` events or more is not ready.
pub fn router(runtime: Runtime, max_backlog: u64) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/metrics", get(metrics))
        .with_state(Observed {
            runtime,
            max_backlog,
        })
}

/// Serves `router` on `addr` until `shutdown`; returns the bound address once listening. The
/// error names `setting`, the flag or variable that gave the address. Once `shutdown` fires
/// the task ends within [`crate::shutdown::GRACE`], whatever the clients do.
pub async fn serve(
    addr: SocketAddr,
    setting: &str,
    router: Router,
    shutdown: CancellationToken,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("{setting} {addr}: cannot listen: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("{setting} {addr}: {e}"))?;
    let setting_name = setting.to_string();
    let task = tokio::spawn(async move {
        let graceful = axum::serve(listener, router)
            .with_graceful_shutdown(shutdown.clone().cancelled_owned())
            .into_future();
        // Once told to stop, the server gets `GRACE` to finish the requests in hand; then it is
        // dropped with whatever connections remain (a client holding a request half-sent, a
        // stream that does not end), so a process always stops.
        let bounded = async {
            shutdown.cancelled().await;
            tokio::time::sleep(crate::shutdown::GRACE).await;
        };
        tokio::select! {
            served = graceful => if let Err(error) = served {
                tracing::error!(%error, "{setting_name} endpoint stopped");
            },
            () = bounded => tracing::warn!(
                grace = ?crate::shutdown::GRACE,
                "{setting_name}: connections still open after the grace period; closing them"
            ),
        }
    });
    Ok((bound, task))
}

async fn health(State(state): State<Observed>) -> Response {
    let services: Vec<String> = state
        .runtime
        .metrics()
        .services()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    axum::Json(json!({
        "status": "ok",
        "transport": state.runtime.bus().name(),
        "services": services,
    }))
    .into_response()
}

async fn ready(State(state): State<Observed>) -> Response {
    let readiness = crate::health::readiness(&state.runtime, state.max_backlog);
    let status = if readiness.is_ready() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, axum::Json(readiness)).into_response()
}

async fn metrics(State(state): State<Observed>) -> Response {
    match crate::metrics::encode(&state.runtime) {
        Ok(text) => ([(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], text).into_response(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot encode: {e}"),
        )
            .into_response(),
    }
}
