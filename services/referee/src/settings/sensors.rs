//! The goal-sensor settings (`--sensors` and the flags of each backend), flattened into the
//! referee's [`super::TableSettings`], and how they pick the sensors at start.

use std::time::Duration;

use crate::table::{AnySensors, SENSOR_NAMES, parse_four};

use super::{Hardware, LaunchError, TableSettings};

/// Which goal sensors the referee reads itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SensorKind {
    /// GPIO lines of a Linux GPIO chip (`--gpio-chip`, `--gpio-lines`), edge events stamped by
    /// the kernel, debounced (`--sensor-debounce-ms`). Needs the `gpio` feature.
    Gpio,
    /// Pins of an MCP23017 I/O expander on the I2C bus (`--i2c-device`,
    /// `--i2c-sensors-address`, `--mcp-pins`), read every `--sensor-poll-ms`. Needs the `i2c`
    /// feature.
    Mcp23017,
    /// The simulated table's balls (`--sim-balls`, `--sim-seed`).
    Simulated,
    /// None: goals come only as `table.goal.report.v1`.
    None,
}

/// The goal sensors' settings.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct SensorSettings {
    /// The goal sensors [default: simulated with `--table-hardware simulated`, none with `i2c`].
    /// Goals reported over the bus count beside any of them.
    #[arg(
        long = "sensors",
        env = "ARCADE_SENSORS",
        value_enum,
        value_name = "KIND"
    )]
    pub sensors: Option<SensorKind>,
    /// gpio: the GPIO chip of the sensor lines.
    #[arg(
        long = "gpio-chip",
        env = "ARCADE_GPIO_CHIP",
        default_value = "/dev/gpiochip0",
        value_name = "PATH"
    )]
    pub gpio_chip: String,
    /// gpio: the line offsets of HINGE_GOAL,HINGE_INOUT,LOCK_GOAL,LOCK_INOUT on that chip,
    /// e.g. `17,18,27,22`.
    #[arg(long = "gpio-lines", env = "ARCADE_GPIO_LINES", value_name = "LINES", value_parser = parse_lines)]
    pub gpio_lines: Option<Lines>,
    /// One ball that trips two sensors, or a sensor that bounces, within this window counts
    /// once, as the sensor that fired first.
    #[arg(
        long = "sensor-debounce-ms",
        env = "ARCADE_SENSOR_DEBOUNCE_MS",
        default_value = "50",
        value_name = "MS"
    )]
    pub debounce_ms: u64,
    /// mcp23017: the expander's 7-bit I2C address (`0x20`-`0x27`).
    #[arg(long = "i2c-sensors-address", env = "ARCADE_I2C_SENSORS_ADDRESS", value_name = "ADDR", value_parser = super::parse_address)]
    pub i2c_sensors_address: Option<u8>,
    /// mcp23017: the pins (0-7: GPA0-GPA7, 8-15: GPB0-GPB7) of
    /// HINGE_GOAL,HINGE_INOUT,LOCK_GOAL,LOCK_INOUT.
    #[arg(
        long = "mcp-pins",
        env = "ARCADE_MCP_PINS",
        default_value = "0,1,2,3",
        value_name = "PINS",
        value_parser = parse_pins
    )]
    pub mcp_pins: Lines,
}

/// Four sensor positions in `HINGE_GOAL,HINGE_INOUT,LOCK_GOAL,LOCK_INOUT` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lines(pub [u32; 4]);

fn parse_lines(text: &str) -> Result<Lines, String> {
    parse_four(text, "line offset", u32::MAX).map(Lines)
}

fn parse_pins(text: &str) -> Result<Lines, String> {
    parse_four(text, "pin", 15).map(Lines)
}

impl Default for SensorSettings {
    fn default() -> Self {
        SensorSettings {
            sensors: None,
            gpio_chip: "/dev/gpiochip0".into(),
            gpio_lines: None,
            debounce_ms: 50,
            i2c_sensors_address: None,
            mcp_pins: Lines([0, 1, 2, 3]),
        }
    }
}

impl SensorSettings {
    /// The sensors these settings choose, `hardware` deciding without `--sensors`.
    pub fn kind(&self, hardware: Hardware) -> SensorKind {
        self.sensors.unwrap_or(match hardware {
            Hardware::Simulated => SensorKind::Simulated,
            Hardware::I2c => SensorKind::None,
        })
    }

    /// The debounce window.
    pub fn debounce(&self) -> Duration {
        Duration::from_millis(self.debounce_ms)
    }
}

/// The sensors of a table whose balls are not the simulated table's own (`gpio`, `mcp23017`,
/// `none`, or `simulated` beside I2C ball locks).
pub(crate) fn open(table: &TableSettings, kind: SensorKind) -> Result<AnySensors, LaunchError> {
    let sensors = &table.sensors;
    match kind {
        SensorKind::None => Ok(crate::table::any(crate::table::NoSensors)),
        SensorKind::Simulated => Ok(crate::table::any(table.simulated_table()?)),
        SensorKind::Gpio => {
            let lines = sensors.gpio_lines.ok_or_else(|| {
                LaunchError::Setting(format!(
                    "--sensors gpio needs --gpio-lines / ARCADE_GPIO_LINES ({})",
                    SENSOR_NAMES.join(",")
                ))
            })?;
            open_gpio(sensors, lines.0)
        }
        SensorKind::Mcp23017 => {
            let address = sensors.i2c_sensors_address.ok_or_else(|| {
                LaunchError::Setting(
                    "--sensors mcp23017 needs --i2c-sensors-address / ARCADE_I2C_SENSORS_ADDRESS"
                        .into(),
                )
            })?;
            let pins = sensors.mcp_pins.0.map(|p| p as u8);
            open_mcp(&table.i2c_device, address, pins, sensors.debounce())
        }
    }
}

#[cfg(feature = "gpio")]
fn open_gpio(sensors: &SensorSettings, lines: [u32; 4]) -> Result<AnySensors, LaunchError> {
    use crate::table::{CdevLines, GpioSensors};
    // The lines are requested at the first read: a chip that is missing now makes the
    // process not ready (and retried), not a referee that refuses to start.
    let source = CdevLines::new(&sensors.gpio_chip, lines);
    Ok(crate::table::any(GpioSensors::new(
        source,
        lines,
        sensors.debounce(),
    )))
}

#[cfg(not(feature = "gpio"))]
fn open_gpio(_sensors: &SensorSettings, _lines: [u32; 4]) -> Result<AnySensors, LaunchError> {
    Err(LaunchError::Setting(
        "--sensors gpio: this build has no GPIO support (build with `--features gpio`)".into(),
    ))
}

#[cfg(feature = "i2c")]
fn open_mcp(
    device: &str,
    address: u8,
    pins: [u8; 4],
    window: Duration,
) -> Result<AnySensors, LaunchError> {
    use crate::table::Mcp23017Sensors;
    let bus = linux_embedded_hal::I2cdev::new(device).map_err(|e| {
        LaunchError::Setting(format!("--sensors mcp23017: opening I2C bus {device}: {e}"))
    })?;
    let sensors = Mcp23017Sensors::new(bus, address, pins, window)
        .map_err(|e| LaunchError::Setting(format!("--sensors mcp23017: {e}")))?;
    Ok(crate::table::any(sensors))
}

#[cfg(not(feature = "i2c"))]
fn open_mcp(
    _device: &str,
    _address: u8,
    _pins: [u8; 4],
    _window: Duration,
) -> Result<AnySensors, LaunchError> {
    Err(LaunchError::Setting(
        "--sensors mcp23017: this build has no I2C support (build with `--features i2c`)".into(),
    ))
}
