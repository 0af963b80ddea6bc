//! Wiring of the race service into the `arcade` binary: its settings and how it starts.

use arcade_runtime::{Running, Runtime};
use clap::Args;

/// Settings of the race service.
#[derive(Debug, Clone, Default, Args)]
pub struct RaceArgs {}

/// Starts the race service.
pub fn start(_runtime: &Runtime, _args: &RaceArgs) -> anyhow::Result<Vec<Box<dyn Running>>> {
    anyhow::bail!("the race service is not wired into this build yet")
}
