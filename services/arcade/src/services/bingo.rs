//! Wiring of the bingo service into the `arcade` binary: its settings and how it starts.

use arcade_runtime::{Running, Runtime};
use clap::Args;

/// Settings of the bingo service.
#[derive(Debug, Clone, Default, Args)]
pub struct BingoArgs {}

/// Starts the bingo service.
pub fn start(_runtime: &Runtime, _args: &BingoArgs) -> anyhow::Result<Vec<Box<dyn Running>>> {
    anyhow::bail!("the bingo service is not wired into this build yet")
}
