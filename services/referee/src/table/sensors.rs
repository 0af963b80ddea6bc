//! What every goal-sensor backend shares: the four sensors in their order
//! (`HINGE_GOAL,HINGE_INOUT,LOCK_GOAL,LOCK_INOUT`, as `--gpio-lines` and `--mcp-pins` list
//! them), why a sensor could not be read, a sensor's level for `--check-hardware`, and the
//! boxed sensors the settings choose at start.

use embedded_hal::i2c::ErrorKind;

use super::{Ball, GoalSensors};
use crate::domain::{BallKind, Side};

/// The sensors' names, in the order of `--gpio-lines` and `--mcp-pins`.
pub const SENSOR_NAMES: [&str; 4] = ["HINGE_GOAL", "HINGE_INOUT", "LOCK_GOAL", "LOCK_INOUT"];

/// The ball the sensor at `index` (in [`SENSOR_NAMES`]' order) sees.
pub fn ball_of(index: usize) -> Ball {
    Ball {
        side: if index < 2 { Side::Hinge } else { Side::Lock },
        kind: if index.is_multiple_of(2) {
            BallKind::Goal
        } else {
            BallKind::Inout
        },
    }
}

/// One sensor read once (`arcade-referee --check-hardware`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SensorLevel {
    /// `HINGE_GOAL`…
    pub sensor: &'static str,
    /// Where it is wired: `line 17`, `pin 8 (GPB0)`.
    pub wired: String,
    /// Whether it is active now (a ball, or a beam cut).
    pub active: bool,
}

/// Why the goal sensors could not be read. The message names the device and what failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SensorError {
    /// The GPIO character device refused a request or a read.
    #[error("GPIO {chip}: {action}: {detail}")]
    Gpio {
        /// The chip's device path.
        chip: String,
        /// What was being done.
        action: &'static str,
        /// The error as the kernel or the crate describes it.
        detail: String,
    },
    /// The MCP23017 did not answer as expected on the I2C bus.
    #[error("MCP23017 at I2C address {address:#04x}: {action}: {kind:?} ({detail})")]
    Mcp {
        /// Its 7-bit address.
        address: u8,
        /// What was being done (`reading INTF (0x0e)`…).
        action: String,
        /// The bus error's kind.
        kind: ErrorKind,
        /// The bus error as the driver describes it.
        detail: String,
    },
    /// The Linux I2C bus of the expander could not be opened.
    #[error("opening I2C bus {path}: {detail}")]
    Open {
        /// The device path.
        path: String,
        /// Why.
        detail: String,
    },
}

impl From<std::convert::Infallible> for SensorError {
    fn from(never: std::convert::Infallible) -> SensorError {
        match never {}
    }
}

/// Goal sensors of any backend, chosen at start (`--sensors`).
pub type AnySensors = Box<dyn GoalSensors<Error = SensorError> + Send>;

/// Boxes `sensors` as [`AnySensors`].
pub fn any<S>(sensors: S) -> AnySensors
where
    S: GoalSensors + Send + 'static,
    S::Error: Into<SensorError>,
{
    Box::new(Erased(sensors))
}

struct Erased<S>(S);

impl<S> GoalSensors for Erased<S>
where
    S: GoalSensors,
    S::Error: Into<SensorError>,
{
    type Error = SensorError;
    fn poll_ball(&mut self) -> Result<Option<Ball>, SensorError> {
        self.0.poll_ball().map_err(Into::into)
    }
    fn idle_reads(&self) -> bool {
        self.0.idle_reads()
    }
    fn levels(&mut self) -> Result<Vec<SensorLevel>, SensorError> {
        self.0.levels().map_err(Into::into)
    }
}

impl<T: GoalSensors + ?Sized> GoalSensors for Box<T> {
    type Error = T::Error;
    fn poll_ball(&mut self) -> Result<Option<Ball>, T::Error> {
        (**self).poll_ball()
    }
    fn idle_reads(&self) -> bool {
        (**self).idle_reads()
    }
    fn levels(&mut self) -> Result<Vec<SensorLevel>, T::Error> {
        (**self).levels()
    }
}

/// Four distinct sensor positions (GPIO line offsets, expander pins) parsed from
/// `A,B,C,D` in [`SENSOR_NAMES`]' order, each at most `max`.
pub fn parse_four(text: &str, what: &str, max: u32) -> Result<[u32; 4], String> {
    let items: Vec<&str> = text.split(',').map(str::trim).collect();
    if items.len() != 4 {
        return Err(format!(
            "{text:?}: expected 4 {what}s, {} (found {})",
            SENSOR_NAMES.join(","),
            items.len()
        ));
    }
    let mut four = [0u32; 4];
    for (i, item) in items.iter().enumerate() {
        let value = item
            .parse::<u32>()
            .ok()
            .filter(|v| *v <= max)
            .ok_or_else(|| format!("{}: {item:?} is not a {what} (0 to {max})", SENSOR_NAMES[i]))?;
        if let Some(j) = four[..i].iter().position(|v| *v == value) {
            return Err(format!(
                "{} and {} are both on {what} {value}",
                SENSOR_NAMES[j], SENSOR_NAMES[i]
            ));
        }
        four[i] = value;
    }
    Ok(four)
}
