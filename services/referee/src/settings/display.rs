//! The score display's settings (flags with `ARCADE_…` environment fallbacks), flattened into
//! the referee's [`TableSettings`](crate::settings::TableSettings), and the display they open.

use std::time::Duration;

use super::{LaunchError, parse_address};
use crate::display::{DisplayOptions, DisplayPlan, DisplayStats, RESULT_HOLD};
use crate::table::{MODULE_COLUMNS, TerminalDisplay, check_addresses};

/// Which display shows the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DisplayKind {
    /// No display.
    #[default]
    None,
    /// The frame drawn as text on standard output, each new text once (a simulated table, the
    /// docs); 16 columns per `--display-addresses` entry, 32 without.
    Terminal,
    /// HT16K33 LED matrices (8 × 16 each) at `--display-addresses`, chained left to right, on
    /// the I2C bus of `--i2c-device` (which the ball locks may share). Needs the `i2c` feature.
    Ht16k33,
}

/// Columns of the terminal display when `--display-addresses` does not say (two modules).
pub const TERMINAL_COLUMNS: usize = 2 * MODULE_COLUMNS;

/// The score display's settings.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct DisplaySettings {
    /// The score display.
    #[arg(
        long = "display",
        env = "ARCADE_DISPLAY",
        value_enum,
        default_value = "none",
        value_name = "KIND"
    )]
    pub kind: DisplayKind,
    /// The HT16K33 modules' 7-bit I2C addresses, left to right (`0x70,0x71`; 0x70-0x77).
    #[arg(
        long = "display-addresses",
        env = "ARCADE_DISPLAY_ADDRESSES",
        value_name = "ADDR,…"
    )]
    pub addresses: Option<String>,
    /// A text wider than the display scrolls one column this often.
    #[arg(
        long = "display-scroll-ms",
        env = "ARCADE_DISPLAY_SCROLL_MS",
        default_value = "70",
        value_name = "MS"
    )]
    pub scroll_ms: u64,
    /// The text shown between games (a game's result stays 30 s first); without it the last
    /// result stays until the next game.
    #[arg(
        long = "display-idle",
        env = "ARCADE_DISPLAY_IDLE",
        value_name = "TEXT"
    )]
    pub idle: Option<String>,
    /// HT16K33 brightness, 0 (dimmest) to 15.
    #[arg(
        long = "display-brightness",
        env = "ARCADE_DISPLAY_BRIGHTNESS",
        default_value = "15",
        value_name = "LEVEL"
    )]
    pub brightness: u8,
}

impl Default for DisplaySettings {
    fn default() -> Self {
        DisplaySettings {
            kind: DisplayKind::None,
            addresses: None,
            scroll_ms: 70,
            idle: None,
            brightness: 15,
        }
    }
}

impl DisplaySettings {
    /// The module addresses, checked; `None` when not given.
    pub fn addresses(&self) -> Result<Option<Vec<u8>>, LaunchError> {
        let Some(list) = &self.addresses else {
            return Ok(None);
        };
        let bad = |why: String| {
            LaunchError::Setting(format!(
                "--display-addresses / ARCADE_DISPLAY_ADDRESSES {list:?}: {why}"
            ))
        };
        let addresses = list
            .split(',')
            .map(str::trim)
            .enumerate()
            .map(|(i, item)| {
                parse_address(item).map_err(|e| bad(format!("address {}: {e}", i + 1)))
            })
            .collect::<Result<Vec<u8>, _>>()?;
        check_addresses(&addresses).map_err(|e| bad(e.to_string()))?;
        Ok(Some(addresses))
    }

    /// How the display task runs.
    pub fn options(&self) -> Result<DisplayOptions, LaunchError> {
        if self.scroll_ms == 0 {
            return Err(LaunchError::Setting(
                "--display-scroll-ms / ARCADE_DISPLAY_SCROLL_MS: must be at least 1".into(),
            ));
        }
        Ok(DisplayOptions {
            scroll: Duration::from_millis(self.scroll_ms),
            idle: self.idle.clone().filter(|t| !t.is_empty()),
            hold: RESULT_HOLD,
        })
    }

    /// The display these settings describe, ready to start beside the referee, counting in
    /// `stats`; `i2c_device` is the bus of the HT16K33 modules.
    pub fn plan(&self, i2c_device: &str, stats: DisplayStats) -> Result<DisplayPlan, LaunchError> {
        let options = self.options()?;
        let addresses = self.addresses()?;
        if self.brightness > 15 {
            return Err(LaunchError::Setting(format!(
                "--display-brightness / ARCADE_DISPLAY_BRIGHTNESS {}: a level is 0 to 15",
                self.brightness
            )));
        }
        Ok(match self.kind {
            DisplayKind::None => DisplayPlan::none(),
            DisplayKind::Terminal => {
                let columns = addresses.map_or(TERMINAL_COLUMNS, |a| a.len() * MODULE_COLUMNS);
                DisplayPlan::new(
                    TerminalDisplay::new(std::io::stdout(), columns),
                    options,
                    stats,
                )
            }
            DisplayKind::Ht16k33 => {
                let addresses = addresses.ok_or_else(|| {
                    LaunchError::Setting(
                        "--display ht16k33 needs --display-addresses / ARCADE_DISPLAY_ADDRESSES"
                            .into(),
                    )
                })?;
                ht16k33(i2c_device, addresses, self.brightness, options, stats)?
            }
        })
    }
}

#[cfg(feature = "i2c")]
fn ht16k33(
    device: &str,
    addresses: Vec<u8>,
    brightness: u8,
    options: DisplayOptions,
    stats: DisplayStats,
) -> Result<DisplayPlan, LaunchError> {
    let display = crate::table::Ht16k33Display::open(device, addresses, brightness)
        .map_err(|e| LaunchError::Setting(format!("--display ht16k33: {e}")))?;
    Ok(DisplayPlan::new(display, options, stats))
}

#[cfg(not(feature = "i2c"))]
fn ht16k33(
    _device: &str,
    _addresses: Vec<u8>,
    _brightness: u8,
    _options: DisplayOptions,
    _stats: DisplayStats,
) -> Result<DisplayPlan, LaunchError> {
    Err(LaunchError::Setting(
        "--display ht16k33: this build has no I2C support (build with `--features i2c`)".into(),
    ))
}
