//! The settings of a running referee (flags with `ARCADE_…` environment fallbacks, shared by
//! `arcade run referee` and the edge binary `arcade-referee`) and how they pick the table's
//! hardware: a simulated table (scripted or random balls) or the ball locks on a Linux I2C bus
//! (`i2c` feature), and the goal sensors (`sensors`: `--sensors gpio|mcp23017|simulated|none`).

use std::path::Path;
use std::time::Duration;

use arcade_runtime::{HostError, Running, Runtime};

use crate::display::{DisplayPlan, DisplayStats};
use crate::domain::{BallKind, Side};
use crate::service::{self, DEFAULT_POLL};
use crate::table::{Ball, SharedTable, SimulatedTable};

mod display;
mod sensors;

pub use display::{DisplayKind, DisplaySettings, TERMINAL_COLUMNS};
pub(crate) use sensors::open as open_sensors;
pub use sensors::{Lines, SensorKind, SensorSettings};

/// Which hardware the referee acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Hardware {
    /// A table in memory: balls from `--sim-balls` or `--sim-seed` (none without either; goals
    /// then come as `table.goal.report.v1`), locks recorded and logged.
    Simulated,
    /// The ball locks on a Linux I2C bus (`--i2c-device`, `--i2c-hinge-address`,
    /// `--i2c-lock-address`); goals come as `table.goal.report.v1`. Needs the `i2c` feature.
    I2c,
}

/// Settings of one table's referee.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct TableSettings {
    /// The table this process referees; its queue is `referee.<ID>`.
    #[arg(
        long = "table",
        env = "ARCADE_TABLE_ID",
        default_value = "t1",
        value_name = "ID"
    )]
    pub table_id: String,
    /// The table's hardware.
    #[arg(
        long = "table-hardware",
        env = "ARCADE_TABLE_HARDWARE",
        value_enum,
        default_value = "simulated",
        value_name = "KIND"
    )]
    pub hardware: Hardware,
    /// Simulated table: the balls its sensors see, in order, e.g.
    /// `hinge:goal,lock:inout,hinge` (the kind defaults to goal).
    #[arg(
        long = "sim-balls",
        env = "ARCADE_SIM_BALLS",
        value_name = "SCRIPT",
        conflicts_with = "sim_seed"
    )]
    pub sim_balls: Option<String>,
    /// Simulated table: endless random balls drawn from this seed.
    #[arg(long = "sim-seed", env = "ARCADE_SIM_SEED", value_name = "SEED")]
    pub sim_seed: Option<u64>,
    /// How often the goal sensors are read while a game is in progress (a simulated table sees
    /// at most one ball per reading).
    #[arg(
        long = "sensor-poll-ms",
        env = "ARCADE_SENSOR_POLL_MS",
        default_value = "100",
        value_name = "MS"
    )]
    pub poll_ms: u64,
    /// I2C: the bus device of the ball-return controllers.
    #[arg(
        long = "i2c-device",
        env = "ARCADE_I2C_DEVICE",
        default_value = "/dev/i2c-2",
        value_name = "PATH"
    )]
    pub i2c_device: String,
    /// I2C: the 7-bit address of the hinge side's ball-return controller (`0x20` or `32`).
    #[arg(long = "i2c-hinge-address", env = "ARCADE_I2C_HINGE_ADDRESS", value_name = "ADDR", value_parser = parse_address)]
    pub i2c_hinge_address: Option<u8>,
    /// I2C: the 7-bit address of the lock side's ball-return controller.
    #[arg(long = "i2c-lock-address", env = "ARCADE_I2C_LOCK_ADDRESS", value_name = "ADDR", value_parser = parse_address)]
    pub i2c_lock_address: Option<u8>,
    /// The goal sensors.
    #[command(flatten)]
    pub sensors: SensorSettings,
    /// The score display.
    #[command(flatten)]
    pub display: DisplaySettings,
}

impl Default for TableSettings {
    fn default() -> Self {
        TableSettings {
            table_id: "t1".into(),
            hardware: Hardware::Simulated,
            sim_balls: None,
            sim_seed: None,
            poll_ms: u64::try_from(DEFAULT_POLL.as_millis()).unwrap_or(100),
            i2c_device: "/dev/i2c-2".into(),
            i2c_hinge_address: None,
            i2c_lock_address: None,
            sensors: SensorSettings::default(),
            display: DisplaySettings::default(),
        }
    }
}

/// Why a referee could not start.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A setting is wrong; the message names it.
    #[error("{0}")]
    Setting(String),
    /// The ball locks could not be opened.
    #[error("--table-hardware i2c: {0}")]
    I2c(#[from] crate::table::I2cLockError),
    /// The host could not start (its store).
    #[error(transparent)]
    Host(#[from] HostError),
}

impl TableSettings {
    /// Checks the table id as the contract does (`^[A-Za-z0-9][A-Za-z0-9._-]*$`, 1–64 chars).
    pub fn checked_table_id(&self) -> Result<&str, LaunchError> {
        let id = self.table_id.as_str();
        let mut chars = id.chars();
        let valid = id.len() <= 64
            && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if valid {
            Ok(id)
        } else {
            Err(LaunchError::Setting(format!(
                "--table / ARCADE_TABLE_ID {id:?}: a table id is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
            )))
        }
    }

    /// The sensor polling period.
    pub fn poll(&self) -> Result<Duration, LaunchError> {
        if self.poll_ms == 0 {
            return Err(LaunchError::Setting(
                "--sensor-poll-ms / ARCADE_SENSOR_POLL_MS: must be at least 1".into(),
            ));
        }
        Ok(Duration::from_millis(self.poll_ms))
    }

    /// The simulated table these settings describe.
    pub fn simulated_table(&self) -> Result<SimulatedTable, LaunchError> {
        Ok(match (&self.sim_balls, self.sim_seed) {
            (Some(script), _) => SimulatedTable::scripted(parse_balls(script).map_err(|e| {
                LaunchError::Setting(format!("--sim-balls / ARCADE_SIM_BALLS: {e}"))
            })?),
            (None, Some(seed)) => SimulatedTable::random(seed),
            (None, None) => SimulatedTable::scripted([]),
        })
    }
}

/// Starts the referee these settings describe on `runtime`.
pub fn launch(
    runtime: &Runtime,
    settings: &TableSettings,
) -> Result<Box<dyn Running>, LaunchError> {
    let table_id = settings.checked_table_id()?;
    let poll = settings.poll()?;
    let queue = arcade_contracts::table::referee_queue(table_id);
    let stats = DisplayStats::counted_in(&runtime.metrics().service(&queue).extra);
    let display = settings.display.plan(&settings.i2c_device, stats)?;
    let kind = settings.sensors.kind(settings.hardware);
    match settings.hardware {
        Hardware::Simulated => {
            let table = SharedTable::new(settings.simulated_table()?);
            let sensors = match kind {
                SensorKind::Simulated => crate::table::any(table.clone()),
                kind => sensors::open(settings, kind)?,
            };
            let handle = service::start(runtime, table_id, table, sensors, poll, display)?;
            Ok(Box::new(handle))
        }
        Hardware::I2c => launch_i2c(runtime, table_id, settings, poll, kind, display),
    }
}

#[cfg(feature = "i2c")]
fn launch_i2c(
    runtime: &Runtime,
    table_id: &str,
    settings: &TableSettings,
    poll: Duration,
    kind: SensorKind,
    display: DisplayPlan,
) -> Result<Box<dyn Running>, LaunchError> {
    let locks = settings.i2c_locks()?;
    let sensors = sensors::open(settings, kind)?;
    let handle = service::start(runtime, table_id, locks, sensors, poll, display)?;
    Ok(Box::new(handle))
}

#[cfg(feature = "i2c")]
impl TableSettings {
    /// The ball locks on the Linux I2C bus these settings name.
    pub fn i2c_locks(
        &self,
    ) -> Result<crate::table::I2cBallLocks<linux_embedded_hal::I2cdev>, LaunchError> {
        use crate::table::{I2cAddresses, I2cBallLocks};
        let missing = |flag: &str, env: &str| {
            LaunchError::Setting(format!("--table-hardware i2c needs {flag} / {env}"))
        };
        let addresses = I2cAddresses {
            hinge: self
                .i2c_hinge_address
                .ok_or_else(|| missing("--i2c-hinge-address", "ARCADE_I2C_HINGE_ADDRESS"))?,
            lock: self
                .i2c_lock_address
                .ok_or_else(|| missing("--i2c-lock-address", "ARCADE_I2C_LOCK_ADDRESS"))?,
        };
        Ok(I2cBallLocks::open(&self.i2c_device, addresses)?)
    }
}

#[cfg(not(feature = "i2c"))]
fn launch_i2c(
    _runtime: &Runtime,
    _table_id: &str,
    _settings: &TableSettings,
    _poll: Duration,
    _kind: SensorKind,
    _display: DisplayPlan,
) -> Result<Box<dyn Running>, LaunchError> {
    Err(LaunchError::Setting(
        "--table-hardware i2c: this build has no I2C support (build with `--features i2c`)".into(),
    ))
}

/// The rules document in the file `path` that the flag `flag` (`--play`, `--rules`) names,
/// refused here (naming the flag, the file and the JSON path) when the referee would refuse it.
pub fn read_rules(flag: &str, path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{flag} {}: cannot read it: {e}", path.display()))?;
    let rules: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{flag} {}: not JSON: {e}", path.display()))?;
    crate::Rules::parse(&rules)
        .map_err(|e| format!("{flag} {}: invalid rules: {e}", path.display()))?;
    Ok(rules)
}

/// A 7-bit I2C address, in hex (`0x20`) or decimal (`32`).
pub fn parse_address(text: &str) -> Result<u8, String> {
    let text = text.trim();
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16),
        None => text.parse::<u8>(),
    };
    match parsed {
        Ok(address) if address <= 0x7f => Ok(address),
        _ => Err(format!(
            "{text:?} is not a 7-bit I2C address (0x00-0x7f, in hex with 0x or decimal)"
        )),
    }
}

/// A ball script: `side[:kind]` items separated by commas (`hinge:goal,lock:inout,hinge`).
pub fn parse_balls(script: &str) -> Result<Vec<Ball>, String> {
    script
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .enumerate()
        .map(|(i, item)| {
            let (side, kind) = item.split_once(':').unwrap_or((item, "goal"));
            let side = match side.trim() {
                "hinge" => Side::Hinge,
                "lock" => Side::Lock,
                other => {
                    return Err(format!(
                        "ball {}: unknown side {other:?} (hinge or lock)",
                        i + 1
                    ));
                }
            };
            let kind = match kind.trim() {
                "goal" => BallKind::Goal,
                "inout" => BallKind::Inout,
                other => {
                    return Err(format!(
                        "ball {}: unknown kind {other:?} (goal or inout)",
                        i + 1
                    ));
                }
            };
            Ok(Ball { side, kind })
        })
        .collect()
}
