//! The score display's LED matrices: HT16K33 drivers on I2C, each an 8 × 16 matrix, chained
//! left to right. Generic over `embedded_hal::i2c::I2c` (tested against a mock bus with the
//! exact bytes). The `ht16k33` crate speaks embedded-hal 0.2 only, so the four commands the
//! display needs are written here, from the Holtek datasheet:
//!
//! | command | byte |
//! |---|---|
//! | system setup: oscillator on | `0x21` |
//! | display setup: display on, no blink | `0x81` |
//! | dimming: duty `level + 1`/16 | `0xE0 \| level` (0–15) |
//! | display RAM write | `0x00` (the address pointer), then the 16 bytes of RAM |
//!
//! # RAM layout
//!
//! The display RAM holds 16 bytes, a pair per common line: address `2n` is COMn's ROW0–ROW7
//! (bit `k` = ROWk), address `2n + 1` its ROW8–ROW15 (bit `k` = ROW(8 + k)). The matrix is
//! wired with its 8 rows on COM0–COM7 (top to bottom) and its 16 columns on ROW0–ROW15 (left to
//! right), so the pixel at row `r`, column `c` of one module is bit `c % 8` of RAM address
//! `2r + c / 8`. Module `m` (its address the `m`-th of the chain) shows columns `16m` to
//! `16m + 15` of the frame.

use arcade_scoreboard::{Frame, ROWS};
use embedded_hal::i2c::{Error as _, ErrorKind, I2c};

/// System setup with the oscillator on.
pub const OSCILLATOR_ON: u8 = 0x21;
/// Display setup: display on, blinking off.
pub const DISPLAY_ON: u8 = 0x81;
/// Dimming set; the low nibble is the level (0–15).
pub const DIMMING: u8 = 0xE0;
/// The display RAM's first address (the pointer a RAM write starts at).
pub const RAM_START: u8 = 0x00;
/// Columns of one module.
pub const MODULE_COLUMNS: usize = 16;
/// The highest dimming level.
pub const MAX_BRIGHTNESS: u8 = 15;

/// Why the display could not be set up or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DisplayError {
    /// The bus refused a write.
    #[error("writing the display module at I2C address {address:#04x} failed: {kind:?} ({detail})")]
    Write {
        /// The module's address.
        address: u8,
        /// The bus error's kind.
        kind: ErrorKind,
        /// The bus error as the driver describes it.
        detail: String,
    },
    /// No module, an address outside the HT16K33's (0x70–0x77), or an address given twice.
    #[error("{0}")]
    Addresses(String),
    /// A dimming level above 15.
    #[error("brightness {0} is not a dimming level of the HT16K33 (0-15)")]
    Brightness(u8),
    /// The Linux bus could not be opened.
    #[error("opening I2C bus {path}: {detail}")]
    Open {
        /// The device path.
        path: String,
        /// Why.
        detail: String,
    },
}

/// Checks a chain of HT16K33 addresses: at least one, each 0x70–0x77 (A0–A2 strapped), none
/// twice.
pub fn check_addresses(addresses: &[u8]) -> Result<(), DisplayError> {
    if addresses.is_empty() {
        return Err(DisplayError::Addresses("no display module address".into()));
    }
    for (i, address) in addresses.iter().enumerate() {
        if !(0x70..=0x77).contains(address) {
            return Err(DisplayError::Addresses(format!(
                "{address:#04x} is not an HT16K33 address (0x70-0x77)"
            )));
        }
        if addresses[..i].contains(address) {
            return Err(DisplayError::Addresses(format!(
                "{address:#04x} is given twice"
            )));
        }
    }
    Ok(())
}

/// The display RAM of module `module` showing `frame` (columns past the frame are dark).
pub fn module_ram(frame: &Frame, module: usize) -> [u8; 16] {
    let mut ram = [0u8; 16];
    for c in 0..MODULE_COLUMNS {
        let column = frame
            .columns()
            .get(module * MODULE_COLUMNS + c)
            .copied()
            .unwrap_or(0);
        for (r, pair) in ram.chunks_exact_mut(2).enumerate().take(ROWS) {
            if column & (1 << r) != 0 {
                pair[c / 8] |= 1 << (c % 8);
            }
        }
    }
    ram
}

/// HT16K33 modules chained left to right on one I2C bus.
#[derive(Debug)]
pub struct Ht16k33Display<B> {
    bus: B,
    addresses: Vec<u8>,
    brightness: u8,
    /// Set up since the last failure.
    ready: bool,
    /// What each module's RAM holds, as last written; `None`: unknown.
    written: Vec<Option<[u8; 16]>>,
}

impl<B: I2c> Ht16k33Display<B> {
    /// The modules at `addresses` (left to right) on `bus`, lit at `brightness` (0–15). Nothing
    /// is written before the first frame.
    pub fn new(bus: B, addresses: Vec<u8>, brightness: u8) -> Result<Self, DisplayError> {
        check_addresses(&addresses)?;
        if brightness > MAX_BRIGHTNESS {
            return Err(DisplayError::Brightness(brightness));
        }
        let written = vec![None; addresses.len()];
        Ok(Ht16k33Display {
            bus,
            addresses,
            brightness,
            ready: false,
            written,
        })
    }

    /// Columns of the whole chain.
    pub fn columns(&self) -> usize {
        self.addresses.len() * MODULE_COLUMNS
    }

    /// Gives the bus back.
    pub fn release_bus(self) -> B {
        self.bus
    }

    /// Starts every module: oscillator on, display on (no blink), dimming.
    pub fn set_up(&mut self) -> Result<(), DisplayError> {
        for i in 0..self.addresses.len() {
            let address = self.addresses[i];
            for command in [OSCILLATOR_ON, DISPLAY_ON, DIMMING | self.brightness] {
                self.write(address, &[command])?;
            }
        }
        self.ready = true;
        Ok(())
    }

    /// Shows `frame`: sets the modules up first if they are not (at the first frame, after a
    /// failure), then writes the RAM of each module whose pixels changed. After a failure the
    /// next frame sets every module up and writes it again (it may have lost power).
    pub fn show(&mut self, frame: &Frame) -> Result<(), DisplayError> {
        let shown = self.try_show(frame);
        if shown.is_err() {
            self.ready = false;
            self.written.iter_mut().for_each(|w| *w = None);
        }
        shown
    }

    fn try_show(&mut self, frame: &Frame) -> Result<(), DisplayError> {
        if !self.ready {
            self.set_up()?;
        }
        for module in 0..self.addresses.len() {
            let ram = module_ram(frame, module);
            if self.written[module] == Some(ram) {
                continue;
            }
            let mut bytes = [0u8; 17];
            bytes[0] = RAM_START;
            bytes[1..].copy_from_slice(&ram);
            self.write(self.addresses[module], &bytes)?;
            self.written[module] = Some(ram);
        }
        Ok(())
    }

    fn write(&mut self, address: u8, bytes: &[u8]) -> Result<(), DisplayError> {
        self.bus
            .write(address, bytes)
            .map_err(|e| DisplayError::Write {
                address,
                kind: e.kind(),
                detail: format!("{e:?}"),
            })
    }
}

#[cfg(feature = "i2c")]
impl Ht16k33Display<linux_embedded_hal::I2cdev> {
    /// The modules at `addresses` on the Linux I2C bus at `path` (the ball locks may use the
    /// same bus: the kernel runs each write whole).
    pub fn open(path: &str, addresses: Vec<u8>, brightness: u8) -> Result<Self, DisplayError> {
        let bus = linux_embedded_hal::I2cdev::new(path).map_err(|e| DisplayError::Open {
            path: path.to_string(),
            detail: e.to_string(),
        })?;
        Ht16k33Display::new(bus, addresses, brightness)
    }
}
