//! Wiring of the referee service into the `arcade` binary: one table per process (`--table ID`,
//! `ARCADE_TABLE_ID`), its hardware (a simulated table, or the ball locks over I2C with the
//! `i2c` feature), its sensor polling period.

use arcade_referee::settings::{self, TableSettings};
use arcade_runtime::{Running, Runtime};
use clap::Args;

/// Settings of the referee service.
#[derive(Debug, Clone, Default, Args)]
pub struct RefereeArgs {
    /// The table and its hardware.
    #[command(flatten)]
    pub table: TableSettings,
}

/// Starts the referee of the configured table.
pub fn start(runtime: &Runtime, args: &RefereeArgs) -> anyhow::Result<Vec<Box<dyn Running>>> {
    let running = settings::launch(runtime, &args.table)
        .map_err(|e| anyhow::anyhow!("referee of table {:?}: {e}", args.table.table_id))?;
    Ok(vec![running])
}
