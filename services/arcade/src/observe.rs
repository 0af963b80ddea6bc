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
    /// for a Prometheus scraper. Absent or empty: they are served on the admin endpoint only.
    #[arg(
        long = "metrics-addr",
        env = "ARCADE_METRICS_ADDR",
        value_name = "ADDR"
    )]
    pub metrics_addr: Option<arcade_runtime::http::ListenAddr>,
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
    let Some(addr) = args.metrics_addr.and_then(|a| a.0) else {
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Run {
        #[command(flatten)]
        observe: ObserveArgs,
    }

    #[test]
    fn an_empty_metrics_address_is_none_and_a_bad_one_is_named() {
        let run = Run::try_parse_from(["run", "--metrics-addr", ""]).unwrap();
        assert_eq!(run.observe.metrics_addr.and_then(|a| a.0), None);
        let run = Run::try_parse_from(["run", "--metrics-addr", "0.0.0.0:9464"]).unwrap();
        assert_eq!(
            run.observe.metrics_addr.and_then(|a| a.0),
            Some("0.0.0.0:9464".parse().unwrap())
        );
        let error = Run::try_parse_from(["run", "--metrics-addr", "nowhere"]).unwrap_err();
        assert!(error.to_string().contains("--metrics-addr"), "{error}");
        let run = Run::try_parse_from(["run"]).unwrap();
        assert_eq!(run.observe.ready_max_backlog, 10_000);
    }
}
