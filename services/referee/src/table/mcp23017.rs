//! Goal sensors on an MCP23017 I/O expander over I2C (`--sensors mcp23017`), generic over
//! `embedded_hal::i2c::I2c` so the exact transactions are tested against a mock bus.
//!
//! The registers are read and written here rather than through the `port-expander` crate: its
//! MCP23x17 driver reads and drives pins (GPIO, IODIR) but exposes neither the interrupt flags
//! (INTF) nor the interrupt capture (INTCAP) that catch a ball shorter than the poll period.
//!
//! Addressing is IOCON.BANK = 0 (the power-on value, never changed): port A's register at an
//! even address, port B's right after it, so one transaction reads or writes both ports.
//! Configuration, at the first poll and again after any bus error (a chip that lost power
//! comes back to its power-on state):
//!
//! 1. IOCON (0x0a) = 0x44: MIRROR (INTA and INTB together, should one be wired), ODR (open-drain
//!    interrupt pins), sequential addressing, BANK = 0;
//! 2. IODIRA/B (0x00) = 0xff 0xff: every pin an input;
//! 3. GPPUA/B (0x0c): the 100 kΩ pull-ups on the sensors' pins (a sensor pulls its pin low);
//! 4. INTCONA/B (0x08) = 0x00 0x00: interrupt on change (DEFVAL, unused, is left alone);
//! 5. GPINTENA/B (0x04): interrupt on change for the sensors' pins only;
//! 6. a read of INTCAPA/B (0x10): clears whatever was pending before.
//!
//! Each poll reads INTFA/B (0x0e). A flagged sensor's pin changed since the last poll: INTCAP
//! (0x10), read then, holds the port as it was at that change (reading it also re-arms the
//! interrupt), so a ball that crossed the sensor and left between two polls still shows low
//! there. While a change is pending the chip records no other on that port: the flagged pin is
//! the sensor that fired first. INTCAP is not read when nothing is flagged, so a change that
//! comes between the two reads is never cleared unseen.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use embedded_hal::i2c::{Error as _, I2c};

use super::debounce::Debounce;
use super::sensors::{SENSOR_NAMES, SensorError, SensorLevel, ball_of};
use super::{Ball, GoalSensors};

/// IODIRA: direction of port A (1: input); IODIRB follows.
pub const IODIRA: u8 = 0x00;
/// GPINTENA: interrupt-on-change enable of port A; GPINTENB follows.
pub const GPINTENA: u8 = 0x04;
/// INTCONA: interrupt control of port A (0: compare with the previous value).
pub const INTCONA: u8 = 0x08;
/// IOCON: the configuration register (at 0x0a and 0x0b with BANK = 0).
pub const IOCON: u8 = 0x0a;
/// GPPUA: pull-ups of port A.
pub const GPPUA: u8 = 0x0c;
/// INTFA: interrupt flags of port A.
pub const INTFA: u8 = 0x0e;
/// INTCAPA: port A as captured at its interrupt.
pub const INTCAPA: u8 = 0x10;
/// GPIOA: port A's pins now.
pub const GPIOA: u8 = 0x12;
/// IOCON's value: MIRROR | ODR; BANK = 0, SEQOP = 0 (sequential addressing).
pub const IOCON_VALUE: u8 = 0x44;

/// The goal sensors on four pins (0–15: GPA0–GPA7, GPB0–GPB7) of one MCP23017.
#[derive(Debug)]
pub struct Mcp23017Sensors<B> {
    bus: B,
    address: u8,
    pins: [u8; 4],
    mask: u16,
    configured: bool,
    debounce: Debounce,
    balls: VecDeque<Ball>,
    epoch: Instant,
}

impl<B: I2c> Mcp23017Sensors<B> {
    /// The sensors on `pins` (in `HINGE_GOAL,HINGE_INOUT,LOCK_GOAL,LOCK_INOUT` order) of the
    /// expander at `address` on `bus`, debounced over `window`. Nothing is sent before the
    /// first poll.
    pub fn new(
        bus: B,
        address: u8,
        pins: [u8; 4],
        window: Duration,
    ) -> Result<Mcp23017Sensors<B>, String> {
        if address > 0x7f {
            return Err(format!(
                "{address:#04x} is not a 7-bit I2C address (0x00-0x7f)"
            ));
        }
        let mut mask = 0u16;
        for (i, pin) in pins.iter().enumerate() {
            if *pin > 15 {
                return Err(format!("{}: pin {pin} (0 to 15)", SENSOR_NAMES[i]));
            }
            if mask & (1 << pin) != 0 {
                return Err(format!("two sensors on pin {pin}"));
            }
            mask |= 1 << pin;
        }
        Ok(Mcp23017Sensors {
            bus,
            address,
            pins,
            mask,
            configured: false,
            debounce: Debounce::new(window),
            balls: VecDeque::new(),
            epoch: Instant::now(),
        })
    }

    /// Gives the bus back.
    pub fn release_bus(self) -> B {
        self.bus
    }

    fn failed(&self, action: String, error: &B::Error) -> SensorError {
        SensorError::Mcp {
            address: self.address,
            action,
            kind: error.kind(),
            detail: format!("{error:?}"),
        }
    }

    fn write(&mut self, bytes: &[u8], what: &str) -> Result<(), SensorError> {
        self.bus.write(self.address, bytes).map_err(|e| {
            self.configured = false;
            self.failed(format!("writing {what} ({:#04x})", bytes[0]), &e)
        })
    }

    /// Both ports of the register pair at `register`, port A in the low byte.
    fn read_pair(&mut self, register: u8, what: &str) -> Result<u16, SensorError> {
        let mut pair = [0u8; 2];
        match self.bus.write_read(self.address, &[register], &mut pair) {
            Ok(()) => Ok(u16::from_le_bytes(pair)),
            Err(e) => {
                self.configured = false;
                Err(self.failed(format!("reading {what} ({register:#04x})"), &e))
            }
        }
    }

    fn configure(&mut self) -> Result<(), SensorError> {
        let [low, high] = self.mask.to_le_bytes();
        self.write(&[IOCON, IOCON_VALUE], "IOCON")?;
        self.write(&[IODIRA, 0xff, 0xff], "IODIR")?;
        self.write(&[GPPUA, low, high], "GPPU")?;
        self.write(&[INTCONA, 0x00, 0x00], "INTCON")?;
        self.write(&[GPINTENA, low, high], "GPINTEN")?;
        self.read_pair(INTCAPA, "INTCAP")?;
        self.configured = true;
        Ok(())
    }

    /// Reads the sensors at `now_ns` (any monotonic clock: the debounce compares these).
    pub fn poll_at(&mut self, now_ns: u64) -> Result<Option<Ball>, SensorError> {
        if !self.configured {
            self.configure()?;
        }
        let flagged = self.read_pair(INTFA, "INTF")? & self.mask;
        if flagged != 0 {
            let captured = self.read_pair(INTCAPA, "INTCAP")?;
            // A flagged pin captured low went active (a ball); high, it was released.
            let activated = flagged & !captured;
            let first = self.pins.iter().position(|pin| activated & (1 << pin) != 0);
            if let Some(index) = first
                && self.debounce.accept(now_ns)
            {
                self.balls.push_back(ball_of(index));
            }
        }
        Ok(self.balls.pop_front())
    }
}

/// A pin's name on the chip: `GPA0`…`GPB7`.
fn pin_name(pin: u8) -> String {
    format!("GP{}{}", if pin < 8 { 'A' } else { 'B' }, pin % 8)
}

impl<B: I2c> GoalSensors for Mcp23017Sensors<B> {
    type Error = SensorError;

    fn poll_ball(&mut self) -> Result<Option<Ball>, SensorError> {
        let now_ns = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.poll_at(now_ns)
    }

    fn idle_reads(&self) -> bool {
        true
    }

    /// Reads GPIOA/B (0x12) once. This re-arms the interrupt too: for a check, not between
    /// polls of a game.
    fn levels(&mut self) -> Result<Vec<SensorLevel>, SensorError> {
        if !self.configured {
            self.configure()?;
        }
        let pins = self.read_pair(GPIOA, "GPIO")?;
        Ok(self
            .pins
            .iter()
            .enumerate()
            .map(|(i, pin)| SensorLevel {
                sensor: SENSOR_NAMES[i],
                wired: format!("pin {pin} ({})", pin_name(*pin)),
                active: pins & (1 << pin) == 0,
            })
            .collect())
    }
}
