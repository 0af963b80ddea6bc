//! The table hardware, behind two small traits: goal sensors report balls, ball locks (IBR)
//! apply the referee's decision. Backends: [`SimulatedTable`] (tests, demo),
//! [`I2cBallLocks`] (the BeagleBone's ball returns over I2C), and the goal sensors read by the
//! referee itself: [`GpioSensors`] (GPIO lines with the kernel's edge timestamps) and
//! [`Mcp23017Sensors`] (an I/O expander on I2C), both debounced ([`Debounce`]). The score display
//! is a third: [`ScoreDisplay`], with [`Ht16k33Display`] (LED matrices on I2C),
//! [`TerminalDisplay`] and [`NoDisplay`].
//!
//! The source documents only the ball-lock bytes (`0x51, 0x00` lock, `0x51, 0x01` release); a
//! table without sensors here uses [`NoSensors`] and gets its goals from `table.goal.report.v1`
//! (which every table takes beside its sensors).

mod debounce;
mod display;
mod gpio;
mod ht16k33;
mod i2c;
mod mcp23017;
mod sensors;
mod simulated;

pub use debounce::{DEFAULT_DEBOUNCE, Debounce};
pub use display::{NoDisplay, ScoreDisplay, TerminalDisplay};
#[cfg(feature = "gpio")]
pub use gpio::CdevLines;
pub use gpio::{GpioSensors, LineEdge, LineSource};
pub use ht16k33::{
    DIMMING, DISPLAY_ON, DisplayError, Ht16k33Display, MODULE_COLUMNS, OSCILLATOR_ON, RAM_START,
    check_addresses, module_ram,
};
pub use i2c::{I2cAddresses, I2cBallLocks, I2cLockError, IBR_COMMAND, IBR_LOCK, IBR_RELEASE};
pub use mcp23017::{
    GPINTENA, GPIOA, GPPUA, INTCAPA, INTCONA, INTFA, IOCON, IOCON_VALUE, IODIRA, Mcp23017Sensors,
};
pub use sensors::{AnySensors, SENSOR_NAMES, SensorError, SensorLevel, any, ball_of, parse_four};
pub use simulated::SimulatedTable;

use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::domain::{BallKind, Ibr, IbrLock, Side};

/// A ball seen by the goal sensors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ball {
    /// The side that scored.
    pub side: Side,
    /// How it went in.
    pub kind: BallKind,
}

/// Goal sensors: polled by the service (the source polled every 100 ms).
pub trait GoalSensors {
    /// Why the sensors could not be read.
    type Error: std::error::Error + Send + Sync + 'static;
    /// The next ball seen since the last call, if any. Never blocks.
    fn poll_ball(&mut self) -> Result<Option<Ball>, Self::Error>;
    /// Whether they are read between games too. Real sensors are: a ball dropped between games
    /// is seen, logged and counted, not scored, and does not wait to count in the next game. A
    /// simulated table's balls wait for a game.
    fn idle_reads(&self) -> bool {
        false
    }
    /// Each sensor's level now, read once (`arcade-referee --check-hardware`); none for
    /// sensors without lines.
    fn levels(&mut self) -> Result<Vec<SensorLevel>, Self::Error> {
        Ok(Vec::new())
    }
}

/// The ball returns (IBR) of both sides.
pub trait BallLocks {
    /// Why a lock could not be set.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Locks or releases one side's ball return.
    fn set_lock(&mut self, side: Side, lock: IbrLock) -> Result<(), Self::Error>;
    /// Applies a whole decision, hinge first.
    fn apply(&mut self, ibr: Ibr) -> Result<(), Self::Error> {
        for side in Side::ALL {
            self.set_lock(side, ibr.of(side))?;
        }
        Ok(())
    }
}

/// Goal sensors of a table without readable sensors: never sees a ball.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSensors;

impl GoalSensors for NoSensors {
    type Error = Infallible;
    fn poll_ball(&mut self) -> Result<Option<Ball>, Infallible> {
        Ok(None)
    }
}

/// One table shared between the service's sensor poller and its ball locks (and a test or demo
/// that watches it): both traits go through one mutex.
#[derive(Debug, Default)]
pub struct SharedTable<T>(Arc<Mutex<T>>);

impl<T> Clone for SharedTable<T> {
    fn clone(&self) -> Self {
        SharedTable(Arc::clone(&self.0))
    }
}

impl<T> SharedTable<T> {
    /// Shares `table`.
    pub fn new(table: T) -> SharedTable<T> {
        SharedTable(Arc::new(Mutex::new(table)))
    }

    /// The table, for a look at it. A panic elsewhere while holding it does not poison it for
    /// good: the table's state is plain data.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<T: GoalSensors> GoalSensors for SharedTable<T> {
    type Error = T::Error;
    fn poll_ball(&mut self) -> Result<Option<Ball>, T::Error> {
        self.lock().poll_ball()
    }
    fn idle_reads(&self) -> bool {
        self.lock().idle_reads()
    }
    fn levels(&mut self) -> Result<Vec<SensorLevel>, T::Error> {
        self.lock().levels()
    }
}

impl<T: BallLocks> BallLocks for SharedTable<T> {
    type Error = T::Error;
    fn set_lock(&mut self, side: Side, lock: IbrLock) -> Result<(), T::Error> {
        self.lock().set_lock(side, lock)
    }
    fn apply(&mut self, ibr: Ibr) -> Result<(), T::Error> {
        self.lock().apply(ibr)
    }
}
