//! What `arcade run` tells operators: `/health` (it serves), `/ready` (503 naming what fails)
//! and `/metrics` (Prometheus text), on the admin endpoint and, with `--metrics-addr`, on a
//! listener of their own that serves nothing else — read-only, so it may listen where a
//! scraper or an orchestrator reaches it (a container's `0.0.0.0`) while the admin endpoint,
//! which accepts messages, stays on loopback.

use std::net::SocketAddr;

use arcade_runtime::Runtime;
use clap::Args;
use tokio_util::sync::CancellationToken;

/// Settings of the observability endpoint.
#[derive(Debug, Clone, Args)]
pub struct ObserveArgs {
    /// Also serve /health, /ready and /metrics (only those) on this address, e.g. 0.0.0.0:9464
    /// for a Prometheus scraper. Absent: they are served on the admin endpoint only.
    #[arg(
        long = "metrics-addr",
        env = "ARCADE_METRICS_ADDR",
        value_name = "ADDR"
    )]
    pub metrics_addr: Option<SocketAddr>,
    /// /ready answers 503 while a service's relay has this many events or more waiting to be
    /// published.
    #[arg(
        long = "ready-max-backlog",
        env = "ARCADE_READY_MAX_BACKLOG",
        default_value_t = arcade_runtime::health::DEFAULT_MAX_BACKLOG,
        value_name = "EVENTS"
    )]
    pub ready_max_backlog: u64,
}

/// The routes, for the admin endpoint.
pub fn routes(runtime: &Runtime, args: &ObserveArgs) -> axum::Router {
    arcade_runtime::http::router(runtime.clone(), args.ready_max_backlog)
}

/// Serves the routes on `--metrics-addr` if it is set; returns the bound address.
pub async fn serve(
    runtime: &Runtime,
    args: &ObserveArgs,
    shutdown: CancellationToken,
) -> anyhow::Result<Option<(SocketAddr, tokio::task::JoinHandle<()>)>> {
    let Some(addr) = args.metrics_addr else {
        return Ok(None);
    };
    let served = arcade_runtime::http::serve(
        addr,
        "--metrics-addr / ARCADE_METRICS_ADDR",
        routes(runtime, args),
        shutdown,
    )
    .await
    .map_err(anyhow::Error::msg)?;
    Ok(Some(served))
}
