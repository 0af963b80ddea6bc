//! The ball returns over I2C: one controller per side at its own 7-bit address; `0x51, 0x00`
//! locks, `0x51, 0x01` releases. Generic over `embedded_hal::i2c::I2c` (tested against a mock
//! bus); with the `i2c` feature, [`I2cBallLocks::open`] opens a Linux bus (`/dev/i2c-N`).

use embedded_hal::i2c::{Error as _, ErrorKind, I2c};

use super::BallLocks;
use crate::domain::{IbrLock, Side};

/// Command byte of the ball-return controller.
pub const IBR_COMMAND: u8 = 0x51;
/// Argument: lock the ball return.
pub const IBR_LOCK: u8 = 0x00;
/// Argument: release the ball return.
pub const IBR_RELEASE: u8 = 0x01;

/// The 7-bit I2C address of each side's ball-return controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct I2cAddresses {
    /// The hinge side's controller.
    pub hinge: u8,
    /// The lock side's controller.
    pub lock: u8,
}

impl I2cAddresses {
    fn of(&self, side: Side) -> u8 {
        match side {
            Side::Hinge => self.hinge,
            Side::Lock => self.lock,
        }
    }
}

/// A failed write to a ball-return controller (or a bad address at construction).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum I2cLockError {
    /// The bus refused the write.
    #[error(
        "writing the {side} ball lock at I2C address {address:#04x} failed: {kind:?} ({detail})"
    )]
    Write {
        /// The side.
        side: Side,
        /// Its controller's address.
        address: u8,
        /// The bus error's kind.
        kind: ErrorKind,
        /// The bus error as the driver describes it.
        detail: String,
    },
    /// An address beyond 7 bits.
    #[error("the {side} ball-lock address {address:#04x} is not a 7-bit I2C address (0x00-0x7f)")]
    Address {
        /// The side.
        side: Side,
        /// The configured address.
        address: u8,
    },
    /// The Linux bus could not be opened.
    #[error("opening I2C bus {path}: {detail}")]
    Open {
        /// The device path.
        path: String,
        /// Why.
        detail: String,
    },
}

/// Both ball returns on one I2C bus.
#[derive(Debug)]
pub struct I2cBallLocks<B> {
    bus: B,
    addresses: I2cAddresses,
}

impl<B: I2c> I2cBallLocks<B> {
    /// The ball returns at `addresses` on `bus`.
    pub fn new(bus: B, addresses: I2cAddresses) -> Result<I2cBallLocks<B>, I2cLockError> {
        for side in Side::ALL {
            let address = addresses.of(side);
            if address > 0x7f {
                return Err(I2cLockError::Address { side, address });
            }
        }
        Ok(I2cBallLocks { bus, addresses })
    }

    /// Gives the bus back.
    pub fn release_bus(self) -> B {
        self.bus
    }
}

#[cfg(feature = "i2c")]
impl I2cBallLocks<linux_embedded_hal::I2cdev> {
    /// Opens the Linux I2C bus at `path` (e.g. `/dev/i2c-2` on a BeagleBone).
    pub fn open(
        path: &str,
        addresses: I2cAddresses,
    ) -> Result<I2cBallLocks<linux_embedded_hal::I2cdev>, I2cLockError> {
        let bus = linux_embedded_hal::I2cdev::new(path).map_err(|e| I2cLockError::Open {
            path: path.to_string(),
            detail: e.to_string(),
        })?;
        I2cBallLocks::new(bus, addresses)
    }
}

impl<B: I2c> BallLocks for I2cBallLocks<B> {
    type Error = I2cLockError;
    fn set_lock(&mut self, side: Side, lock: IbrLock) -> Result<(), I2cLockError> {
        let address = self.addresses.of(side);
        let argument = match lock {
            IbrLock::Locked => IBR_LOCK,
            IbrLock::Released => IBR_RELEASE,
        };
        self.bus
            .write(address, &[IBR_COMMAND, argument])
            .map_err(|e| I2cLockError::Write {
                side,
                address,
                kind: e.kind(),
                detail: format!("{e:?}"),
            })
    }
}
