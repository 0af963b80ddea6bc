//! `arcade-referee --check-hardware`'s display part: every pixel of the HT16K33 chain lit once
//! then darkened, with the exact I2C transactions (against a mock bus); the terminal display
//! draws the lit frame; the whole check passes on a simulated table with a terminal display.

use arcade_referee::check::{check_hardware, light_every_pixel};
use arcade_referee::settings::TableSettings;
use arcade_referee::table::Ht16k33Display;
use clap::Parser;
use embedded_hal_mock::eh1::i2c::{Mock, Transaction};

fn set_up(address: u8, brightness: u8) -> Vec<Transaction> {
    vec![
        Transaction::write(address, vec![0x21]),
        Transaction::write(address, vec![0x81]),
        Transaction::write(address, vec![0xE0 | brightness]),
    ]
}

fn ram_write(address: u8, byte: u8) -> Transaction {
    let mut bytes = vec![0x00];
    bytes.extend_from_slice(&[byte; 16]);
    Transaction::write(address, bytes)
}

#[test]
fn every_pixel_of_the_chain_is_lit_once_then_dark() {
    let mut expected = Vec::new();
    expected.extend(set_up(0x70, 9));
    expected.extend(set_up(0x71, 9));
    expected.push(ram_write(0x70, 0xff));
    expected.push(ram_write(0x71, 0xff));
    expected.push(ram_write(0x70, 0x00));
    expected.push(ram_write(0x71, 0x00));
    let mut bus = Mock::new(&expected);
    let mut display = Ht16k33Display::new(bus.clone(), vec![0x70, 0x71], 9).unwrap();
    let width = display.columns();
    assert_eq!(width, 32);
    light_every_pixel(&mut display, width).unwrap();
    bus.done();
}

#[derive(Debug, Parser)]
struct Settings {
    #[command(flatten)]
    table: TableSettings,
}

#[test]
fn the_check_draws_every_pixel_of_a_terminal_display_and_passes() {
    let settings = Settings::try_parse_from([
        "check",
        "--sensors",
        "none",
        "--display",
        "terminal",
        "--display-addresses",
        "0x70",
    ])
    .unwrap();
    let mut out = Vec::new();
    let failed = check_hardware(&settings.table, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(failed.is_empty(), "{failed:?}\n{text}");
    let lit: Vec<&str> = text
        .lines()
        .filter(|line| !line.is_empty() && line.chars().all(|c| c == '#'))
        .collect();
    assert_eq!(lit, vec!["################"; 8], "{text}");
    assert!(
        text.contains("display (terminal): every pixel lit once"),
        "{text}"
    );
}

#[test]
fn an_ht16k33_display_without_i2c_support_or_addresses_fails_the_check_by_name() {
    let settings =
        Settings::try_parse_from(["check", "--sensors", "none", "--display", "ht16k33"]).unwrap();
    let mut out = Vec::new();
    let failed = check_hardware(&settings.table, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(failed.len(), 1, "{text}");
    assert!(failed[0].starts_with("display: "), "{failed:?}");
    assert!(text.contains("hardware check: 1 part(s) failed"), "{text}");
}
