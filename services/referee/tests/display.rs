//! The score display: the HT16K33's exact I2C transactions (against a mock bus), the display
//! task (scrolling on its timer, a failing display, the result then the idle text, on paused
//! time), its settings, and a game refereed with the terminal display showing each score and
//! the winner.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arcade_referee::display::{DisplayOptions, DisplayPlan, DisplayStats, spawn_display};
use arcade_referee::service::{self, Input};
use arcade_referee::settings::TableSettings;
use arcade_referee::settings::{DisplayKind, DisplaySettings};
use arcade_referee::table::{
    DisplayError, Ht16k33Display, ScoreDisplay, SharedTable, SimulatedTable, TerminalDisplay,
    module_ram,
};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{Clock, Runtime};
use arcade_scoreboard::{Board, Frame, Marquee, Phase, Score, Side, render};
use clap::Parser;
use embedded_hal::i2c::ErrorKind;
use embedded_hal_mock::eh1::i2c::{Mock, Transaction};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

const PATIENCE: Duration = Duration::from_secs(60);

fn set_up(address: u8, brightness: u8) -> Vec<Transaction> {
    vec![
        Transaction::write(address, vec![0x21]),
        Transaction::write(address, vec![0x81]),
        Transaction::write(address, vec![0xE0 | brightness]),
    ]
}

fn ram_write(address: u8, ram: [u8; 16]) -> Transaction {
    let mut bytes = vec![0x00];
    bytes.extend_from_slice(&ram);
    Transaction::write(address, bytes)
}

/// A frame of 32 columns: row 0 of column 0, row 7 of column 15, row 3 of columns 8 and 16, all
/// of column 31.
fn test_frame() -> Frame {
    let mut frame = Frame::dark(32);
    frame.set(0, 0, true);
    frame.set(15, 7, true);
    frame.set(8, 3, true);
    frame.set(16, 3, true);
    for row in 0..8 {
        frame.set(31, row, true);
    }
    frame
}

#[test]
fn the_ram_pairs_are_the_rows_and_their_bits_the_columns() {
    let frame = test_frame();
    // Module 0: COM0 (row 0) ROW0 (column 0); COM7 ROW15; COM3 ROW8.
    let mut left = [0u8; 16];
    left[0] = 0x01;
    left[2 * 7 + 1] = 0x80;
    left[2 * 3 + 1] = 0x01;
    assert_eq!(module_ram(&frame, 0), left);
    // Module 1: its column 0 is the frame's 16, its column 15 the frame's 31.
    let mut right = [0u8; 16];
    right[2 * 3] = 0x01;
    for row in 0..8 {
        right[2 * row + 1] |= 0x80;
    }
    assert_eq!(module_ram(&frame, 1), right);
    // Past the frame: dark.
    assert_eq!(module_ram(&frame, 2), [0; 16]);
}

#[test]
fn the_modules_are_set_up_then_their_ram_written_left_to_right() {
    let frame = test_frame();
    let mut expected = set_up(0x70, 15);
    expected.extend(set_up(0x71, 15));
    expected.push(ram_write(0x70, module_ram(&frame, 0)));
    expected.push(ram_write(0x71, module_ram(&frame, 1)));
    // The next frame changes the right module only: only its RAM is written.
    let mut next = frame.clone();
    next.set(20, 5, true);
    expected.push(ram_write(0x71, module_ram(&next, 1)));
    let bus = Mock::new(&expected);
    let mut display = Ht16k33Display::new(bus, vec![0x70, 0x71], 15).unwrap();
    assert_eq!(display.columns(), 32);
    display.show(&frame).unwrap();
    display.show(&frame).unwrap();
    display.show(&next).unwrap();
    display.release_bus().done();
}

#[test]
fn the_exact_bytes_of_a_score() {
    // "5-4" centred on one module at brightness 7.
    let frame = Marquee::new("5-4", 16).frame(0);
    let ram = module_ram(&frame, 0);
    // Row 1 (COM1, RAM 2 and 3): the 5's top bar in columns 1–4 (0x1E) and the 4's stem in
    // column 13 (ROW13: bit 5 of RAM 3); row 4 (RAM 8 and 9): the 5 in column 4, the dash in
    // columns 6–9 and the 4's bar in columns 11–14 (0xD0, 0x7B).
    assert_eq!(
        ram,
        [
            0, 0, 0x1E, 0x20, 0x02, 0x30, 0x0E, 0x28, 0xD0, 0x7B, 0x12, 0x20, 0x0C, 0x20, 0, 0
        ]
    );
    let mut expected = set_up(0x72, 7);
    expected.push(ram_write(0x72, ram));
    let bus = Mock::new(&expected);
    let mut display = Ht16k33Display::new(bus, vec![0x72], 7).unwrap();
    display.show(&frame).unwrap();
    display.release_bus().done();
}

#[test]
fn after_a_failed_write_the_next_frame_sets_up_and_writes_every_module_again() {
    let frame = test_frame();
    let mut expected = set_up(0x70, 15);
    expected.extend(set_up(0x71, 15));
    expected.push(ram_write(0x70, module_ram(&frame, 0)));
    expected.push(ram_write(0x71, module_ram(&frame, 1)).with_error(ErrorKind::Other));
    expected.extend(set_up(0x70, 15));
    expected.extend(set_up(0x71, 15));
    expected.push(ram_write(0x70, module_ram(&frame, 0)));
    expected.push(ram_write(0x71, module_ram(&frame, 1)));
    let bus = Mock::new(&expected);
    let mut display = Ht16k33Display::new(bus, vec![0x70, 0x71], 15).unwrap();
    let error = display.show(&frame).unwrap_err();
    assert!(matches!(
        error,
        DisplayError::Write {
            address: 0x71,
            kind: ErrorKind::Other,
            ..
        }
    ));
    assert!(error.to_string().contains("0x71"), "{error}");
    display.show(&frame).unwrap();
    display.release_bus().done();
}

#[test]
fn bad_chains_and_levels_are_refused() {
    let refused = |addresses: Vec<u8>, brightness| {
        let mut bus = Mock::new(&[]);
        let error = Ht16k33Display::new(bus.clone(), addresses, brightness).unwrap_err();
        bus.done();
        error.to_string()
    };
    assert!(refused(vec![], 15).contains("no display module"));
    assert!(refused(vec![0x70, 0x20], 15).contains("0x20 is not an HT16K33 address"));
    assert!(refused(vec![0x70, 0x70], 15).contains("0x70 is given twice"));
    assert!(refused(vec![0x70], 16).contains("brightness 16"));
}

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    table: TableSettings,
}

#[test]
fn the_display_settings_have_flags_and_defaults() {
    let defaults = Cli::try_parse_from(["referee"]).unwrap().table.display;
    assert_eq!(defaults, DisplaySettings::default());
    assert_eq!(defaults.kind, DisplayKind::None);
    assert_eq!(defaults.scroll_ms, 70);
    let cli = Cli::try_parse_from([
        "referee",
        "--display",
        "terminal",
        "--display-addresses",
        "0x70, 0x71,114",
        "--display-scroll-ms",
        "50",
        "--display-idle",
        "BAR 42",
    ])
    .unwrap();
    let display = cli.table.display;
    assert_eq!(display.kind, DisplayKind::Terminal);
    assert_eq!(display.addresses().unwrap(), Some(vec![0x70, 0x71, 0x72]));
    let options = display.options().unwrap();
    assert_eq!(options.scroll, Duration::from_millis(50));
    assert_eq!(options.idle.as_deref(), Some("BAR 42"));
}

#[test]
fn bad_display_settings_name_the_setting() {
    let with = |addresses: &str| DisplaySettings {
        kind: DisplayKind::Terminal,
        addresses: Some(addresses.into()),
        ..DisplaySettings::default()
    };
    let error = with("0x70,0x90").addresses().unwrap_err().to_string();
    assert!(
        error
            .starts_with("--display-addresses / ARCADE_DISPLAY_ADDRESSES \"0x70,0x90\": address 2"),
        "{error}"
    );
    let error = with("0x70,0x20").addresses().unwrap_err().to_string();
    assert!(error.contains("0x20 is not an HT16K33 address"), "{error}");
    let error = with("").addresses().unwrap_err().to_string();
    assert!(error.contains("--display-addresses"), "{error}");
    let zero = DisplaySettings {
        scroll_ms: 0,
        ..DisplaySettings::default()
    };
    assert!(
        zero.options()
            .unwrap_err()
            .to_string()
            .contains("--display-scroll-ms")
    );
    let ht16k33 = DisplaySettings {
        kind: DisplayKind::Ht16k33,
        ..DisplaySettings::default()
    };
    let error = ht16k33
        .plan("/dev/i2c-2", DisplayStats::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("--display"), "{error}");
}

/// A display that records what it shows, and fails while told to.
#[derive(Clone, Default)]
struct Recorder {
    shown: Arc<Mutex<Vec<(String, Frame)>>>,
    failing: Arc<Mutex<u32>>,
    seen: Option<watch::Sender<usize>>,
}

#[derive(Debug, thiserror::Error)]
#[error("the display is unplugged")]
struct Unplugged;

impl ScoreDisplay for Recorder {
    type Error = Unplugged;
    fn columns(&self) -> usize {
        16
    }
    fn show(&mut self, text: &str, frame: &Frame) -> Result<(), Unplugged> {
        let mut failing = self.failing.lock().unwrap();
        if *failing > 0 {
            *failing -= 1;
            return Err(Unplugged);
        }
        let mut shown = self.shown.lock().unwrap();
        shown.push((text.to_string(), frame.clone()));
        if let Some(seen) = &self.seen {
            seen.send_replace(shown.len());
        }
        Ok(())
    }
}

impl Recorder {
    fn new() -> (Recorder, watch::Receiver<usize>) {
        let (tx, rx) = watch::channel(0);
        (
            Recorder {
                seen: Some(tx),
                ..Recorder::default()
            },
            rx,
        )
    }
    fn shown(&self) -> Vec<(String, Frame)> {
        self.shown.lock().unwrap().clone()
    }
}

fn options(idle: Option<&str>) -> DisplayOptions {
    DisplayOptions {
        scroll: Duration::from_millis(70),
        idle: idle.map(str::to_string),
        hold: Duration::from_secs(30),
    }
}

const fn score(hinge: i64, lock: i64) -> Score {
    Score { hinge, lock }
}

async fn wait_shown(seen: &mut watch::Receiver<usize>, count: usize) {
    tokio::time::timeout(PATIENCE, seen.wait_for(|n| *n >= count))
        .await
        .expect("the display shows it")
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_wide_text_scrolls_one_column_per_tick_and_a_new_text_starts_at_its_start() {
    let (display, mut seen) = Recorder::new();
    let tie_break = Board::Playing {
        score: score(5, 5),
        phase: Phase::TieBreak,
    };
    let (board, board_rx) = watch::channel(Some(tie_break.clone()));
    let (stop, _stop_rx) = mpsc::channel::<Input>(1);
    let stats = DisplayStats::default();
    let task = spawn_display(
        display.clone(),
        board_rx,
        stop,
        options(None),
        stats.clone(),
    );
    wait_shown(&mut seen, 1).await;
    let marquee = Marquee::new("TIE-BREAK 5-5", 16);
    assert_eq!(
        display.shown()[0],
        ("TIE-BREAK 5-5".into(), marquee.frame(0))
    );
    // One step is 70 ms: nothing moves before.
    tokio::time::advance(Duration::from_millis(69)).await;
    tokio::task::yield_now().await;
    assert_eq!(display.shown().len(), 1);
    tokio::time::advance(Duration::from_millis(1)).await;
    wait_shown(&mut seen, 2).await;
    assert_eq!(display.shown()[1].1, marquee.frame(1));
    for step in 2..=3 {
        tokio::time::advance(Duration::from_millis(70)).await;
        wait_shown(&mut seen, step + 1).await;
        assert_eq!(display.shown()[step].1, marquee.frame(step as u64));
    }
    // A text that fits is still: one frame, then nothing at the next ticks.
    board.send_replace(Some(Board::Playing {
        score: score(6, 5),
        phase: Phase::Default,
    }));
    wait_shown(&mut seen, 5).await;
    assert_eq!(
        display.shown()[4],
        ("6-5".into(), Marquee::new("6-5", 16).frame(0))
    );
    tokio::time::advance(Duration::from_millis(700)).await;
    tokio::task::yield_now().await;
    assert_eq!(display.shown().len(), 5);
    assert_eq!(stats.frames(), 5);
    drop(board);
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_failing_display_is_counted_and_written_again_once_it_works() {
    let (display, mut seen) = Recorder::new();
    *display.failing.lock().unwrap() = 3;
    let (_board, board_rx) = watch::channel(Some(Board::Playing {
        score: score(2, 1),
        phase: Phase::Default,
    }));
    let (stop, stop_rx) = mpsc::channel::<Input>(1);
    let dir = tempfile::tempdir().unwrap();
    let runtime = Runtime::new(Arc::new(
        EmbeddedBus::open(&dir.path().join("bus")).unwrap(),
    ));
    let stats = DisplayStats::counted_in(&runtime.metrics().service("referee.t1").extra);
    let task = spawn_display(
        display.clone(),
        board_rx,
        stop,
        options(None),
        stats.clone(),
    );
    wait_shown(&mut seen, 1).await;
    assert_eq!(stats.failures(), 3);
    assert_eq!(stats.frames(), 1);
    // Both are metrics of the referee's service.
    let metrics = arcade_runtime::metrics::encode(&runtime).unwrap();
    for line in [
        "arcade_display_write_failures_total{service=\"referee.t1\"} 3",
        "arcade_display_frames_total{service=\"referee.t1\"} 1",
    ] {
        assert!(metrics.contains(line), "{line} in {metrics}");
    }
    assert_eq!(
        display.shown()[0],
        ("2-1".into(), Marquee::new("2-1", 16).frame(0))
    );
    // The host gone, the task ends.
    drop(stop_rx);
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn the_result_stays_then_the_idle_text_until_the_next_game() {
    let (display, mut seen) = Recorder::new();
    let (board, board_rx) = watch::channel(None);
    let (stop, _stop_rx) = mpsc::channel::<Input>(1);
    let stats = DisplayStats::default();
    let task = spawn_display(display.clone(), board_rx, stop, options(Some("BAR")), stats);
    wait_shown(&mut seen, 1).await;
    assert_eq!(display.shown()[0].0, "BAR");
    board.send_replace(Some(Board::Won {
        winner: Side::Lock,
        score: score(3, 5),
    }));
    wait_shown(&mut seen, 2).await;
    assert_eq!(display.shown()[1].0, "LOCK WINS 3-5");
    let shown = display.shown().len();
    tokio::time::advance(Duration::from_secs(29)).await;
    tokio::task::yield_now().await;
    assert!(
        display.shown()[shown..]
            .iter()
            .all(|(t, _)| t == "LOCK WINS 3-5")
    );
    tokio::time::advance(Duration::from_secs(2)).await;
    let idle_at = display.shown().len() + 1;
    wait_shown(&mut seen, idle_at).await;
    assert_eq!(display.shown().last().unwrap().0, "BAR");
    board.send_replace(Some(Board::Playing {
        score: score(0, 0),
        phase: Phase::Default,
    }));
    wait_shown(&mut seen, idle_at + 1).await;
    assert_eq!(display.shown().last().unwrap().0, "0-0");
    drop(board);
    task.await.unwrap();
}

/// A terminal that tells each time it is written.
#[derive(Clone)]
struct Screen {
    text: Arc<Mutex<String>>,
    written: watch::Sender<usize>,
}

impl Write for Screen {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut text = self.text.lock().unwrap();
        text.push_str(&String::from_utf8_lossy(bytes));
        self.written.send_replace(text.len());
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn bar_rules() -> Value {
    serde_json::from_str(include_str!("../examples/bar.rules.json")).unwrap()
}

/// What the terminal display prints for `text` on 32 columns.
fn picture(text: &str) -> String {
    let scrolls = if render(text).width() > 32 {
        " (scrolls)"
    } else {
        ""
    };
    format!(
        "scoreboard: {text:?}{scrolls}\n{}",
        Marquee::new(text, 32).frame(0).to_text()
    )
}

#[tokio::test]
async fn a_refereed_game_shows_each_score_and_the_winner_on_the_terminal_display() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus, dir.path())
        .with_clock(Clock::starting_at(1_795_953_600_000));
    let (written, mut screen_rx) = watch::channel(0);
    let screen = Screen {
        text: Arc::default(),
        written,
    };
    let stats = DisplayStats::default();
    let display = DisplayPlan::new(
        TerminalDisplay::new(screen.clone(), 32),
        options(Some("READY")),
        stats.clone(),
    );
    let table = SharedTable::new(SimulatedTable::scripted([]));
    let referee = service::start(
        &runtime,
        "t1",
        table.clone(),
        table,
        Duration::from_millis(5),
        display,
    )
    .unwrap();
    let shows = |text: &str| screen.text.lock().unwrap().contains(&picture(text));
    let mut wait_for = async |text: &str| {
        tokio::time::timeout(PATIENCE, screen_rx.wait_for(|_| shows(text)))
            .await
            .unwrap_or_else(|_| panic!("the display never showed {text:?}"))
            .unwrap();
    };
    wait_for("READY").await;
    runtime
        .send(
            "table.game.start.v1",
            json!({"tableId": "t1", "gameId": "g1", "rules": bar_rules()}),
            "test",
        )
        .await
        .unwrap();
    wait_for("0-0").await;
    // The source's worked example: 4–4, the tie-break from 5–4, won by hinge at 6–4. Each goal
    // is reported once the display shows the score before it.
    let goals = [
        ("hinge", "1-0"),
        ("lock", "1-1"),
        ("hinge", "2-1"),
        ("lock", "2-2"),
        ("hinge", "3-2"),
        ("lock", "3-3"),
        ("hinge", "4-3"),
        ("lock", "4-4"),
        ("hinge", "TIE-BREAK 5-4"),
        ("hinge", "HINGE WINS 6-4"),
    ];
    for (side, shown) in goals {
        runtime
            .send(
                "table.goal.report.v1",
                json!({"tableId": "t1", "gameId": "g1", "side": side, "kind": "goal"}),
                "test",
            )
            .await
            .unwrap();
        wait_for(shown).await;
    }
    let text = screen.text.lock().unwrap().clone();
    let order: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("scoreboard: "))
        .collect();
    assert_eq!(order.first(), Some(&"\"READY\""));
    assert_eq!(order.last(), Some(&"\"HINGE WINS 6-4\" (scrolls)"));
    assert!(text.contains("\"TIE-BREAK 5-4\" (scrolls)\n"));
    assert_eq!(stats.failures(), 0);
    referee.stop(Duration::from_secs(5)).await.unwrap();
}
