//! The goal sensors read by the referee: the exact I2C transactions of the MCP23017
//! (configuration, interrupt flags and capture, a bus that fails then recovers) against a mock
//! bus, and GPIO edge sequences through the debounce (bounces inside and outside the window,
//! one ball on two sensors).

use std::collections::VecDeque;
use std::time::Duration;

use arcade_referee::table::{
    Ball, GoalSensors, GpioSensors, LineEdge, LineSource, Mcp23017Sensors, SensorError, SensorLevel,
};
use arcade_referee::{BallKind, Side};
use embedded_hal::i2c::ErrorKind;
use embedded_hal_mock::eh1::i2c::{Mock, Transaction};

const ADDRESS: u8 = 0x20;
/// HINGE_GOAL GPA0, HINGE_INOUT GPA1, LOCK_GOAL GPB0, LOCK_INOUT GPB1.
const PINS: [u8; 4] = [0, 1, 8, 9];
const WINDOW: Duration = Duration::from_millis(50);
const MS: u64 = 1_000_000;

fn ball(side: Side, kind: BallKind) -> Option<Ball> {
    Some(Ball { side, kind })
}

/// IOCON, IODIR, GPPU, INTCON, GPINTEN, then INTCAP read to clear what was pending.
fn configuration() -> Vec<Transaction> {
    vec![
        Transaction::write(ADDRESS, vec![0x0a, 0x44]),
        Transaction::write(ADDRESS, vec![0x00, 0xff, 0xff]),
        Transaction::write(ADDRESS, vec![0x0c, 0x03, 0x03]),
        Transaction::write(ADDRESS, vec![0x08, 0x00, 0x00]),
        Transaction::write(ADDRESS, vec![0x04, 0x03, 0x03]),
        Transaction::write_read(ADDRESS, vec![0x10], vec![0xff, 0xff]),
    ]
}

fn flags(a: u8, b: u8) -> Transaction {
    Transaction::write_read(ADDRESS, vec![0x0e], vec![a, b])
}

fn capture(a: u8, b: u8) -> Transaction {
    Transaction::write_read(ADDRESS, vec![0x10], vec![a, b])
}

#[test]
fn the_mcp23017_is_configured_then_polled_through_its_interrupt_flags_and_capture() {
    let mut expected = configuration();
    expected.extend([
        // Nothing flagged: INTCAP is not read (it would clear a change coming right now).
        flags(0x00, 0x00),
        // A short ball on HINGE_GOAL, gone before the poll: flagged, captured low.
        flags(0x01, 0x00),
        capture(0xfe, 0xff),
        // LOCK_INOUT (GPB1).
        flags(0x00, 0x02),
        capture(0xff, 0xfd),
        // LOCK_INOUT flagged again but captured high: its release, not a ball.
        flags(0x00, 0x02),
        capture(0xff, 0xff),
        // One ball on HINGE_GOAL and HINGE_INOUT at once: one ball, the goal.
        flags(0x03, 0x00),
        capture(0xfc, 0xff),
        // HINGE_INOUT 20 ms later: the same ball, inside the debounce window.
        flags(0x02, 0x00),
        capture(0xfd, 0xff),
        // LOCK_GOAL (GPB0) two seconds later.
        flags(0x00, 0x01),
        capture(0xff, 0xfe),
    ]);
    let mut bus = Mock::new(&expected);
    let mut sensors = Mcp23017Sensors::new(bus.clone(), ADDRESS, PINS, WINDOW).unwrap();
    assert_eq!(sensors.poll_at(1000 * MS).unwrap(), None);
    assert_eq!(
        sensors.poll_at(1100 * MS).unwrap(),
        ball(Side::Hinge, BallKind::Goal)
    );
    assert_eq!(
        sensors.poll_at(3000 * MS).unwrap(),
        ball(Side::Lock, BallKind::Inout)
    );
    assert_eq!(sensors.poll_at(3100 * MS).unwrap(), None);
    assert_eq!(
        sensors.poll_at(6000 * MS).unwrap(),
        ball(Side::Hinge, BallKind::Goal)
    );
    assert_eq!(sensors.poll_at(6020 * MS).unwrap(), None);
    assert_eq!(
        sensors.poll_at(8000 * MS).unwrap(),
        ball(Side::Lock, BallKind::Goal)
    );
    bus.done();
}

#[test]
fn an_mcp23017_that_fails_is_reported_then_configured_again_when_it_answers() {
    let mut expected = configuration();
    expected.push(flags(0x00, 0x00).with_error(ErrorKind::Other));
    // The chip may have lost power: configured again before the next read.
    expected.extend(configuration());
    expected.extend([flags(0x01, 0x00), capture(0xfe, 0xff)]);
    let mut bus = Mock::new(&expected);
    let mut sensors = Mcp23017Sensors::new(bus.clone(), ADDRESS, PINS, WINDOW).unwrap();
    let error = sensors.poll_at(0).unwrap_err();
    assert!(
        matches!(
            &error,
            SensorError::Mcp {
                address: ADDRESS,
                kind: ErrorKind::Other,
                action,
                ..
            } if action == "reading INTF (0x0e)"
        ),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("MCP23017 at I2C address 0x20: reading INTF (0x0e): Other"),
        "{error}"
    );
    assert_eq!(
        sensors.poll_at(100 * MS).unwrap(),
        ball(Side::Hinge, BallKind::Goal)
    );
    bus.done();
}

#[test]
fn an_mcp23017_absent_at_start_names_the_register_it_could_not_write() {
    let mut bus = Mock::new(&[Transaction::write(ADDRESS, vec![0x0a, 0x44]).with_error(
        ErrorKind::NoAcknowledge(embedded_hal::i2c::NoAcknowledgeSource::Address),
    )]);
    let mut sensors = Mcp23017Sensors::new(bus.clone(), ADDRESS, PINS, WINDOW).unwrap();
    let error = sensors.poll_ball().unwrap_err().to_string();
    assert!(
        error.starts_with("MCP23017 at I2C address 0x20: writing IOCON (0x0a): NoAcknowledge"),
        "{error}"
    );
    bus.done();
}

#[test]
fn the_hardware_check_reads_the_mcp23017_pins_once() {
    let mut expected = configuration();
    expected.push(Transaction::write_read(
        ADDRESS,
        vec![0x12],
        vec![0xfe, 0xff],
    ));
    let mut bus = Mock::new(&expected);
    let mut sensors = Mcp23017Sensors::new(bus.clone(), ADDRESS, PINS, WINDOW).unwrap();
    let levels = sensors.levels().unwrap();
    let seen: Vec<(&str, &str, bool)> = levels
        .iter()
        .map(|l| (l.sensor, l.wired.as_str(), l.active))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("HINGE_GOAL", "pin 0 (GPA0)", true),
            ("HINGE_INOUT", "pin 1 (GPA1)", false),
            ("LOCK_GOAL", "pin 8 (GPB0)", false),
            ("LOCK_INOUT", "pin 9 (GPB1)", false),
        ]
    );
    bus.done();
}

#[test]
fn bad_mcp23017_settings_are_refused_by_name() {
    let bus = Mock::new(&[]);
    let error = Mcp23017Sensors::new(bus.clone(), ADDRESS, [0, 1, 1, 3], WINDOW).unwrap_err();
    assert_eq!(error, "two sensors on pin 1");
    let error = Mcp23017Sensors::new(bus.clone(), 0x80, PINS, WINDOW).unwrap_err();
    assert_eq!(error, "0x80 is not a 7-bit I2C address (0x00-0x7f)");
    bus.clone().done();
}

/// GPIO edges as a test writes them: one batch per read, or a failure.
#[derive(Debug, Default)]
struct Script {
    reads: VecDeque<Result<Vec<LineEdge>, SensorError>>,
    levels: [bool; 4],
}

impl LineSource for Script {
    fn read_edges(&mut self, edges: &mut Vec<LineEdge>) -> Result<(), SensorError> {
        edges.extend(self.reads.pop_front().unwrap_or(Ok(Vec::new()))?);
        Ok(())
    }
    fn levels(&mut self, _offsets: &[u32; 4]) -> Result<[bool; 4], SensorError> {
        Ok(self.levels)
    }
}

/// HINGE_GOAL 17, HINGE_INOUT 18, LOCK_GOAL 27, LOCK_INOUT 22.
const LINES: [u32; 4] = [17, 18, 27, 22];

fn edge(offset: u32, at_ms: u64) -> LineEdge {
    LineEdge {
        offset,
        timestamp_ns: at_ms * MS,
    }
}

fn gpio(reads: Vec<Result<Vec<LineEdge>, SensorError>>) -> GpioSensors<Script> {
    GpioSensors::new(
        Script {
            reads: reads.into(),
            levels: [false, false, true, false],
        },
        LINES,
        WINDOW,
    )
}

fn unplugged() -> SensorError {
    SensorError::Gpio {
        chip: "/dev/gpiochip0".into(),
        action: "reading edge events",
        detail: "No such device (os error 19)".into(),
    }
}

#[test]
fn gpio_bounces_inside_the_window_count_once_and_outside_it_again() {
    let mut sensors = gpio(vec![
        // A hinge goal bouncing for 10 ms, then crossing the in-out sensor 20 ms in.
        Ok(vec![
            edge(17, 1000),
            edge(17, 1003),
            edge(17, 1010),
            edge(18, 1020),
        ]),
        // The goal sensor again 60 ms after the ball: outside the window, a new ball.
        Ok(vec![edge(17, 1060)]),
        Ok(vec![]),
    ]);
    assert_eq!(
        sensors.poll_ball().unwrap(),
        ball(Side::Hinge, BallKind::Goal)
    );
    assert_eq!(
        sensors.poll_ball().unwrap(),
        ball(Side::Hinge, BallKind::Goal)
    );
    assert_eq!(sensors.poll_ball().unwrap(), None);
}

#[test]
fn one_ball_on_two_sensors_counts_as_the_sensor_that_fired_first() {
    let mut sensors = gpio(vec![
        // In-out first, then the goal sensor 10 ms later: an in-out.
        Ok(vec![edge(22, 5000), edge(27, 5010)]),
        // Across two reads, still inside the window: the same ball.
        Ok(vec![edge(27, 9000)]),
        Ok(vec![edge(22, 9030)]),
    ]);
    assert_eq!(
        sensors.poll_ball().unwrap(),
        ball(Side::Lock, BallKind::Inout)
    );
    assert_eq!(
        sensors.poll_ball().unwrap(),
        ball(Side::Lock, BallKind::Goal)
    );
    assert_eq!(sensors.poll_ball().unwrap(), None);
}

#[test]
fn two_balls_in_one_read_come_one_per_poll_and_a_failed_read_loses_none() {
    let mut sensors = gpio(vec![
        Ok(vec![edge(17, 10_000), edge(27, 12_000)]),
        Err(unplugged()),
        Ok(vec![edge(18, 15_000)]),
    ]);
    assert_eq!(
        sensors.poll_ball().unwrap(),
        ball(Side::Hinge, BallKind::Goal)
    );
    assert_eq!(sensors.poll_ball().unwrap_err(), unplugged());
    assert_eq!(
        sensors.poll_ball().unwrap(),
        ball(Side::Lock, BallKind::Goal)
    );
    assert_eq!(
        sensors.poll_ball().unwrap(),
        ball(Side::Hinge, BallKind::Inout)
    );
    assert_eq!(sensors.poll_ball().unwrap(), None);
    assert!(sensors.idle_reads());
}

#[test]
fn the_hardware_check_reads_each_gpio_line() {
    let mut sensors = gpio(Vec::new());
    assert_eq!(
        sensors.levels().unwrap(),
        vec![
            level("HINGE_GOAL", "line 17", false),
            level("HINGE_INOUT", "line 18", false),
            level("LOCK_GOAL", "line 27", true),
            level("LOCK_INOUT", "line 22", false),
        ]
    );
}

fn level(sensor: &'static str, wired: &str, active: bool) -> SensorLevel {
    SensorLevel {
        sensor,
        wired: wired.into(),
        active,
    }
}

#[cfg(feature = "gpio")]
#[test]
fn a_gpio_chip_that_cannot_be_opened_is_an_error_naming_it_every_poll() {
    use arcade_referee::table::CdevLines;
    let chip = "/dev/gpiochip-absent";
    let mut sensors = GpioSensors::new(CdevLines::new(chip, LINES), LINES, WINDOW);
    for _ in 0..2 {
        let error = sensors.poll_ball().unwrap_err();
        assert!(
            matches!(&error, SensorError::Gpio { chip: c, action: "requesting the sensor lines", .. } if c == chip),
            "{error:?}"
        );
    }
}

#[test]
fn the_hardware_check_of_a_simulated_table_passes_and_a_missing_sensor_fails_by_name() {
    use arcade_referee::check::check_hardware;
    use arcade_referee::settings::{SensorKind, SensorSettings, TableSettings};
    let mut out = Vec::new();
    let failed = check_hardware(&TableSettings::default(), &mut out).unwrap();
    assert!(failed.is_empty(), "{failed:?}");
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("goal sensors: simulated (no line to read)\nball locks: simulated\n"),
        "{text}"
    );
    assert!(
        text.ends_with("hardware check: every part answered\n"),
        "{text}"
    );

    let gpio = TableSettings {
        sensors: SensorSettings {
            sensors: Some(SensorKind::Gpio),
            gpio_chip: "/dev/gpiochip-absent".into(),
            gpio_lines: Some(arcade_referee::settings::Lines(LINES)),
            ..SensorSettings::default()
        },
        ..TableSettings::default()
    };
    let mut out = Vec::new();
    let checked = check_hardware(&gpio, &mut out);
    if cfg!(feature = "gpio") {
        let failed = checked.unwrap();
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert!(
            failed[0].starts_with(
                "goal sensors: GPIO /dev/gpiochip-absent: requesting the sensor lines: "
            ),
            "{failed:?}"
        );
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.ends_with("hardware check: 1 part(s) failed\n"),
            "{text}"
        );
    } else {
        let error = checked.unwrap_err().to_string();
        assert!(error.contains("build with `--features gpio`"), "{error}");
    }
}
