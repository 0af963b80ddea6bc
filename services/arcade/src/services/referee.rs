//! Wiring of the referee service into the `arcade` binary: its settings and how it starts.

use arcade_runtime::{Running, Runtime};
use clap::Args;

/// Settings of the referee service.
#[derive(Debug, Clone, Default, Args)]
pub struct RefereeArgs {}

/// Starts the referee service.
pub fn start(_runtime: &Runtime, _args: &RefereeArgs) -> anyhow::Result<Vec<Box<dyn Running>>> {
    anyhow::bail!("the referee service is not wired into this build yet")
}
