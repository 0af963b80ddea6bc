//! `arcade-referee --check-hardware`: every part of the table read or driven once, for the
//! person wiring it. Each goal sensor is read once (its line or pin, active or not); each
//! ball lock is locked then released once; every pixel of the display is lit once. Prints one line per part and returns what failed.

use std::io::Write;

use arcade_scoreboard::Frame;

use crate::settings::{
    DisplayKind, Hardware, LaunchError, SensorKind, TERMINAL_COLUMNS, TableSettings, open_sensors,
};
use crate::table::{GoalSensors, MODULE_COLUMNS, ScoreDisplay};

/// Checks the hardware `settings` describe, writing what it sees to `out`; returns one line
/// per part that failed (empty: everything works).
pub fn check_hardware(
    settings: &TableSettings,
    out: &mut dyn Write,
) -> Result<Vec<String>, LaunchError> {
    let mut failed = Vec::new();
    let mut say = |line: String| {
        // A closed stdout must not hide the exit status.
        let _ = writeln!(out, "{line}");
    };
    check_sensors(settings, &mut say, &mut failed)?;
    check_locks(settings, &mut say, &mut failed);
    check_display(settings, &mut say, &mut failed);
    say(if failed.is_empty() {
        "hardware check: every part answered".to_string()
    } else {
        format!("hardware check: {} part(s) failed", failed.len())
    });
    Ok(failed)
}

fn check_sensors(
    settings: &TableSettings,
    say: &mut dyn FnMut(String),
    failed: &mut Vec<String>,
) -> Result<(), LaunchError> {
    let kind = settings.sensors.kind(settings.hardware);
    match kind {
        SensorKind::None => say("goal sensors: none (goals come as table.goal.report.v1)".into()),
        SensorKind::Simulated => say("goal sensors: simulated (no line to read)".into()),
        SensorKind::Gpio | SensorKind::Mcp23017 => {
            let mut sensors = open_sensors(settings, kind)?;
            match sensors.levels() {
                Ok(levels) => {
                    for level in levels {
                        say(format!(
                            "goal sensor {} ({}): {}",
                            level.sensor,
                            level.wired,
                            if level.active { "active" } else { "inactive" }
                        ));
                    }
                }
                Err(error) => {
                    say(format!("goal sensors: FAILED: {error}"));
                    failed.push(format!("goal sensors: {error}"));
                }
            }
        }
    }
    Ok(())
}

fn check_locks(settings: &TableSettings, say: &mut dyn FnMut(String), failed: &mut Vec<String>) {
    match settings.hardware {
        Hardware::Simulated => say("ball locks: simulated".into()),
        Hardware::I2c => check_i2c_locks(settings, say, failed),
    }
}

#[cfg(feature = "i2c")]
fn check_i2c_locks(
    settings: &TableSettings,
    say: &mut dyn FnMut(String),
    failed: &mut Vec<String>,
) {
    use crate::domain::{IbrLock, Side};
    use crate::table::BallLocks;
    let mut locks = match settings.i2c_locks() {
        Ok(locks) => locks,
        Err(error) => {
            say(format!("ball locks: FAILED: {error}"));
            failed.push(format!("ball locks: {error}"));
            return;
        }
    };
    for side in Side::ALL {
        let written = locks
            .set_lock(side, IbrLock::Locked)
            .and_then(|()| locks.set_lock(side, IbrLock::Released));
        match written {
            Ok(()) => say(format!("{side} ball lock: locked, then released")),
            Err(error) => {
                say(format!("{side} ball lock: FAILED: {error}"));
                failed.push(format!("{side} ball lock: {error}"));
            }
        }
    }
}

#[cfg(not(feature = "i2c"))]
fn check_i2c_locks(
    _settings: &TableSettings,
    say: &mut dyn FnMut(String),
    failed: &mut Vec<String>,
) {
    let reason =
        "--table-hardware i2c: this build has no I2C support (build with `--features i2c`)";
    say(format!("ball locks: FAILED: {reason}"));
    failed.push(format!("ball locks: {reason}"));
}

/// The display's part of the check: lights every pixel of the display once, then darkens it.
pub fn check_display(
    settings: &TableSettings,
    say: &mut dyn FnMut(String),
    failed: &mut Vec<String>,
) {
    let display = &settings.display;
    let columns = match display.addresses() {
        Ok(addresses) => addresses.map(|a| a.len() * MODULE_COLUMNS),
        Err(e) => {
            say(format!("display: FAILED: {e}"));
            failed.push(format!("display: {e}"));
            return;
        }
    };
    match display.kind {
        DisplayKind::None => say("display: none".into()),
        DisplayKind::Terminal => {
            let lit = every_pixel(columns.unwrap_or(TERMINAL_COLUMNS));
            say(format!(
                "display (terminal): every pixel lit once\n{}",
                lit.to_text()
            ));
        }
        DisplayKind::Ht16k33 => match light_ht16k33(settings) {
            Ok(width) => say(format!(
                "display (HT16K33, {width} columns): every pixel lit once, then dark"
            )),
            Err(reason) => {
                say(format!("display: FAILED: {reason}"));
                failed.push(format!("display: {reason}"));
            }
        },
    }
}

/// A frame `width` columns wide with all 8 rows lit.
fn every_pixel(width: usize) -> Frame {
    Frame::from_columns(vec![0xff; width])
}

/// Shows every pixel lit, then a dark frame, on `display` (`width` columns).
pub fn light_every_pixel<D: ScoreDisplay>(display: &mut D, width: usize) -> Result<(), D::Error> {
    display.show("", &every_pixel(width))?;
    display.show("", &Frame::dark(width))
}

/// Opens the HT16K33 modules the settings name and lights every pixel once; their width.
#[cfg(feature = "i2c")]
fn light_ht16k33(settings: &TableSettings) -> Result<usize, String> {
    let addresses = settings
        .display
        .addresses()
        .map_err(|e| e.to_string())?
        .ok_or("--display ht16k33 needs --display-addresses / ARCADE_DISPLAY_ADDRESSES")?;
    let mut modules = crate::table::Ht16k33Display::open(
        &settings.i2c_device,
        addresses,
        settings.display.brightness,
    )
    .map_err(|e| e.to_string())?;
    let width = modules.columns();
    light_every_pixel(&mut modules, width).map_err(|e| e.to_string())?;
    Ok(width)
}

#[cfg(not(feature = "i2c"))]
fn light_ht16k33(_settings: &TableSettings) -> Result<usize, String> {
    Err("--display ht16k33: this build has no I2C support (build with `--features i2c`)".into())
}
