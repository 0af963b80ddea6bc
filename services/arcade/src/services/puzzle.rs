//! Wiring of the puzzle service into the `arcade` binary: its settings and how it starts.

use arcade_runtime::{Running, Runtime};
use clap::Args;

/// Settings of the puzzle service.
#[derive(Debug, Clone, Default, Args)]
pub struct PuzzleArgs {}

/// Starts the puzzle service.
pub fn start(_runtime: &Runtime, _args: &PuzzleArgs) -> anyhow::Result<Vec<Box<dyn Running>>> {
    anyhow::bail!("the puzzle service is not wired into this build yet")
}

/// Admin routes of the puzzle telemetry service.
pub fn routes(_runtime: &Runtime) -> axum::Router {
    axum::Router::new()
}
