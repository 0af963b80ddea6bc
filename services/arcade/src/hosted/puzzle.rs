//! Wiring of the puzzle telemetry service into the `arcade` binary: its settings, how it starts,
//! and the admin routes that serve its statistics.
//!
//! - `GET /puzzle/stats` → the live statistics as JSON (a `puzzle.stats.updated.v1` payload, as
//!   of now, over every durable session).
//! - `GET /puzzle` → a page with charts (win rate per stage, turns against the move limit,
//!   duration distribution), drawn in the browser from the same JSON and refreshed every 5 s;
//!   plain HTML, inline SVG and script, nothing fetched from elsewhere.

use std::time::Duration;

use arcade_puzzle_telemetry::service::{LiveStats, TelemetryService};
use arcade_runtime::duration::{DurationSyntax, UP_TO_HOURS};
use arcade_runtime::{Running, Runtime};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use clap::Args;

/// The page; `__STATS_JSON__` is replaced by the statistics when served.
const PAGE: &str = include_str!("puzzle_page.html");

/// Settings of the puzzle telemetry service.
#[derive(Debug, Clone, Args)]
pub struct PuzzleArgs {
    /// Shortest time between two `puzzle.stats.updated.v1` publications (published only when
    /// sessions arrived since the last one), e.g. `5s`, `500ms`, `1m`.
    #[arg(
        long = "puzzle-stats-every",
        env = "ARCADE_PUZZLE_STATS_EVERY",
        default_value = "5s",
        value_parser = parse_period,
        value_name = "DURATION"
    )]
    pub stats_every: Duration,
    /// How long a session's `gameId` is remembered, so that a session resent (under another
    /// message id, or in another version) counts once, e.g. `7d`, `30d`, `12h` (units ms, s, m,
    /// h, d), on the times the sessions were recorded. A session resent later than this, once
    /// newer sessions have come, counts again.
    #[arg(
        long = "puzzle-session-window",
        env = "ARCADE_PUZZLE_SESSION_WINDOW",
        default_value = "7d",
        value_parser = arcade_runtime::store::parse_dedupe_window,
        value_name = "DURATION"
    )]
    pub session_window: Duration,
}

impl Default for PuzzleArgs {
    fn default() -> Self {
        PuzzleArgs {
            stats_every: Duration::from_secs(5),
            session_window: Duration::from_millis(
                arcade_puzzle_telemetry::domain::telemetry::SESSION_WINDOW_MS,
            ),
        }
    }
}

/// How `--puzzle-stats-every` and the stats timeout write a duration.
const PERIOD: DurationSyntax = DurationSyntax {
    units: UP_TO_HOURS,
    examples: "5s or 500ms",
    off: false,
};

/// Reads `500ms`, `5s`, `2m` or `1h`.
pub fn parse_period(text: &str) -> Result<Duration, String> {
    PERIOD.parse(text)
}

/// Starts the puzzle telemetry service; its statistics go to `hosted`, for the routes.
pub fn start(
    runtime: &Runtime,
    args: &PuzzleArgs,
    hosted: &mut super::Hosted,
) -> anyhow::Result<Vec<Box<dyn Running>>> {
    let every_ms = u64::try_from(args.stats_every.as_millis()).unwrap_or(u64::MAX);
    let mut service = TelemetryService::new(every_ms).with_session_window(args.session_window);
    // A partition instance (`--partition K/N`) also publishes its mergeable statistics
    // (`puzzle.partition.updated.v1`), which `arcade puzzle stats --partitions N` merges.
    if let Some(partition) = runtime.partition() {
        service = service.with_partition(partition.index(), partition.count());
    }
    let live = service.live();
    let handle = runtime.start(service)?;
    hosted.puzzle = Some(live);
    Ok(vec![Box::new(handle)])
}

/// What the puzzle routes read: the clock, and the statistics when this process hosts the
/// service.
#[derive(Clone)]
struct Stats {
    runtime: Runtime,
    live: Option<LiveStats>,
}

/// Admin routes of the puzzle telemetry service, reading `live` (`None`: not hosted here, 503).
pub fn routes(runtime: &Runtime, live: Option<LiveStats>) -> axum::Router {
    axum::Router::new()
        .route("/puzzle", get(page))
        .route("/puzzle/stats", get(stats))
        .with_state(Stats {
            runtime: runtime.clone(),
            live,
        })
}

fn not_hosted() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(serde_json::json!({
            "error": "this `arcade run` does not host puzzle-telemetry; run `arcade run puzzle-telemetry`"
        })),
    )
        .into_response()
}

async fn stats(State(Stats { runtime, live }): State<Stats>) -> Response {
    match live {
        Some(live) => axum::Json(live.snapshot(runtime.clock().now_ms())).into_response(),
        None => not_hosted(),
    }
}

/// The page with the statistics embedded, so the charts draw without another request.
pub fn render_page(stats: &arcade_contracts::puzzle::StatsUpdated) -> String {
    // Inside a <script> element only `</` can end it early; JSON allows `<\/` for `</`.
    let json = serde_json::to_string(stats)
        .unwrap_or_else(|_| "null".into())
        .replace("</", "<\\/");
    PAGE.replace("__STATS_JSON__", &json)
}

/// The page's policy: its one inline script by hash, its inline style.
fn page_csp() -> String {
    let script = PAGE
        .split("<script>")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .unwrap_or("");
    arcade_runtime::guard::page_csp(&[script], true)
}

async fn page(State(Stats { runtime, live }): State<Stats>) -> Response {
    match live {
        Some(live) => (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8".to_string()),
                (header::CONTENT_SECURITY_POLICY, page_csp()),
            ],
            render_page(&live.snapshot(runtime.clock().now_ms())),
        )
            .into_response(),
        None => not_hosted(),
    }
}

#[cfg(test)]
mod tests;
