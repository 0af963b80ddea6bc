//! What `arcade run` tells operators: `/health` (it serves), `/ready` (503 naming what fails)
//! and `/metrics` (Prometheus text), on the admin endpoint and, with `--metrics-addr`, on a
//! listener of their own that serves nothing else — read-only, so it may listen where a
//! scraper or an orchestrator reaches it (a container's `0.0.0.0`) while the admin endpoint,
//! which accepts messages, stays on loopback.

use arcade_runtime::Runtime;
use arcade_runtime::app::args::ObserveArgs;

/// The routes, for the admin endpoint.
pub fn routes(runtime: &Runtime, args: &ObserveArgs) -> axum::Router {
    arcade_runtime::http::router(runtime.clone(), args.ready_max_backlog)
}
