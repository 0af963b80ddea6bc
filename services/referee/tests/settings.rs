//! The referee's settings: ball scripts, I2C addresses, table ids, the hardware choice.

use arcade_referee::settings::{
    Hardware, Lines, SensorKind, SensorSettings, TableSettings, launch, parse_address, parse_balls,
};
use arcade_referee::table::{Ball, GoalSensors};
use arcade_referee::{BallKind, Side};
use arcade_runtime::Runtime;
use arcade_runtime::bus::embedded::EmbeddedBus;
use clap::Parser;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    table: TableSettings,
}

#[test]
fn a_ball_script_names_side_and_kind_and_defaults_to_goal() {
    assert_eq!(
        parse_balls("hinge:goal, lock:inout,hinge,,").unwrap(),
        vec![
            Ball {
                side: Side::Hinge,
                kind: BallKind::Goal
            },
            Ball {
                side: Side::Lock,
                kind: BallKind::Inout
            },
            Ball {
                side: Side::Hinge,
                kind: BallKind::Goal
            },
        ]
    );
    assert_eq!(
        parse_balls("hinge,left").unwrap_err(),
        "ball 2: unknown side \"left\" (hinge or lock)"
    );
    assert_eq!(
        parse_balls("lock:own").unwrap_err(),
        "ball 1: unknown kind \"own\" (goal or inout)"
    );
}

#[test]
fn an_i2c_address_is_seven_bits_in_hex_or_decimal() {
    assert_eq!(parse_address("0x20"), Ok(0x20));
    assert_eq!(parse_address("33"), Ok(0x21));
    assert_eq!(parse_address("0X7f"), Ok(0x7f));
    assert!(parse_address("0x80").unwrap_err().contains("7-bit"));
    assert!(parse_address("twenty").is_err());
}

#[test]
fn flags_set_the_table_and_the_defaults_match_default() {
    let cli = Cli::try_parse_from(["t"]).unwrap();
    assert_eq!(cli.table, TableSettings::default());
    let cli = Cli::try_parse_from([
        "t",
        "--table",
        "bar-2",
        "--sim-balls",
        "hinge,lock",
        "--sensor-poll-ms",
        "20",
    ])
    .unwrap();
    assert_eq!(cli.table.table_id, "bar-2");
    assert_eq!(cli.table.poll().unwrap().as_millis(), 20);
    let mut table = cli.table.simulated_table().unwrap();
    assert_eq!(
        table.poll_ball().unwrap().map(|b| b.side),
        Some(Side::Hinge)
    );
    assert!(
        Cli::try_parse_from(["t", "--sim-balls", "hinge", "--sim-seed", "3"]).is_err(),
        "a script and a seed conflict"
    );
    let cli = Cli::try_parse_from(["t", "--i2c-hinge-address", "0x99"]);
    assert!(cli.unwrap_err().to_string().contains("7-bit"));
}

#[tokio::test]
async fn bad_settings_are_refused_with_the_setting_named() {
    let runtime = Runtime::new(std::sync::Arc::new(EmbeddedBus::temporary().unwrap()));
    let refused = |settings: TableSettings| match launch(&runtime, &settings) {
        Ok(_) => panic!("{settings:?} started"),
        Err(e) => e.to_string(),
    };
    let bad_id = TableSettings {
        table_id: "table 1".into(),
        ..TableSettings::default()
    };
    assert!(refused(bad_id).starts_with("--table / ARCADE_TABLE_ID \"table 1\""));
    let bad_script = TableSettings {
        sim_balls: Some("hinge,side".into()),
        ..TableSettings::default()
    };
    assert!(refused(bad_script).starts_with("--sim-balls / ARCADE_SIM_BALLS: ball 2"));
    let no_poll = TableSettings {
        poll_ms: 0,
        ..TableSettings::default()
    };
    assert!(refused(no_poll).starts_with("--sensor-poll-ms"));
    let i2c = TableSettings {
        hardware: Hardware::I2c,
        ..TableSettings::default()
    };
    let error = refused(i2c);
    if cfg!(feature = "i2c") {
        assert!(error.contains("--i2c-hinge-address"), "{error}");
    } else {
        assert!(error.contains("build with `--features i2c`"), "{error}");
    }
}

#[test]
fn sensor_flags_choose_the_sensors_and_name_bad_lines_and_pins() {
    let cli = Cli::try_parse_from(["t"]).unwrap();
    assert_eq!(
        cli.table.sensors.kind(cli.table.hardware),
        SensorKind::Simulated
    );
    assert_eq!(cli.table.sensors.debounce().as_millis(), 50);
    let cli = Cli::try_parse_from(["t", "--table-hardware", "i2c"]).unwrap();
    assert_eq!(cli.table.sensors.kind(cli.table.hardware), SensorKind::None);
    let cli = Cli::try_parse_from([
        "t",
        "--sensors",
        "gpio",
        "--gpio-chip",
        "/dev/gpiochip1",
        "--gpio-lines",
        "17, 18,27,22",
        "--sensor-debounce-ms",
        "30",
    ])
    .unwrap();
    let sensors = &cli.table.sensors;
    assert_eq!(sensors.kind(cli.table.hardware), SensorKind::Gpio);
    assert_eq!(sensors.gpio_chip, "/dev/gpiochip1");
    assert_eq!(sensors.gpio_lines, Some(Lines([17, 18, 27, 22])));
    assert_eq!(sensors.debounce().as_millis(), 30);
    let cli = Cli::try_parse_from([
        "t",
        "--sensors",
        "mcp23017",
        "--i2c-sensors-address",
        "0x24",
        "--mcp-pins",
        "8,9,10,11",
    ])
    .unwrap();
    assert_eq!(cli.table.sensors.i2c_sensors_address, Some(0x24));
    assert_eq!(cli.table.sensors.mcp_pins, Lines([8, 9, 10, 11]));
    let error = |args: &[&str]| {
        let mut all = vec!["t"];
        all.extend_from_slice(args);
        Cli::try_parse_from(all).unwrap_err().to_string()
    };
    let e = error(&["--mcp-pins", "0,1,16,3"]);
    assert!(
        e.contains("LOCK_GOAL: \"16\" is not a pin (0 to 15)"),
        "{e}"
    );
    let e = error(&["--gpio-lines", "17,18,17,22"]);
    assert!(
        e.contains("HINGE_GOAL and LOCK_GOAL are both on line offset 17"),
        "{e}"
    );
    let e = error(&["--gpio-lines", "17,18"]);
    assert!(
        e.contains(
            "expected 4 line offsets, HINGE_GOAL,HINGE_INOUT,LOCK_GOAL,LOCK_INOUT (found 2)"
        ),
        "{e}"
    );
    let e = error(&["--sensors", "camera"]);
    assert!(e.contains("gpio, mcp23017, simulated, none"), "{e}");
}

#[tokio::test]
async fn sensors_without_their_settings_are_refused_by_name() {
    let runtime = Runtime::new(std::sync::Arc::new(EmbeddedBus::temporary().unwrap()));
    let refused = |kind: SensorKind| {
        let settings = TableSettings {
            sensors: SensorSettings {
                sensors: Some(kind),
                ..SensorSettings::default()
            },
            ..TableSettings::default()
        };
        match launch(&runtime, &settings) {
            Ok(_) => panic!("{settings:?} started"),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(
        refused(SensorKind::Gpio),
        "--sensors gpio needs --gpio-lines / ARCADE_GPIO_LINES (HINGE_GOAL,HINGE_INOUT,LOCK_GOAL,LOCK_INOUT)"
    );
    assert_eq!(
        refused(SensorKind::Mcp23017),
        "--sensors mcp23017 needs --i2c-sensors-address / ARCADE_I2C_SENSORS_ADDRESS"
    );
}
