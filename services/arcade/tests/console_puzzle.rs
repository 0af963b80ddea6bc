//! The console's puzzle pages through the `arcade` binary, clicked through in a real headless
//! Chromium: `arcade run puzzle-telemetry console`; `/puzzle` open in one tab (never
//! reloaded), a Strata Relay board started from `/puzzle/play`'s form in another and played to a
//! win by clicking its witness (computed here with the shared rules crate), one click at a
//! time; the session then shows in the statistics on the first tab, live, recorded by the
//! telemetry as verified.
//!
//! `cargo test -p arcade --test console_puzzle -- --ignored puzzle_screenshots` writes the
//! puzzle pages' screenshots (390 and 1920 px wide) to `docs/screenshots/`.

#[path = "support/webdriver.rs"]
mod webdriver;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use arcade_strata_relay::{Puzzle, Stage};
use serde_json::json;
use webdriver::Browser;

const TOKEN: &str = "console-puzzle-test-operator-token";
const PATIENCE: Duration = Duration::from_secs(90);

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command.env_remove("ARCADE_AMQP_URL").env_remove("RUST_LOG");
    command
}

fn free_addr() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}")
}

/// A child killed when the test ends, however it ends.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `arcade run puzzle-telemetry console` of the test's own: (the process, console, admin).
fn start(data: &Path) -> (Guard, String, String) {
    let console = free_addr();
    let admin = free_addr();
    let mut child = arcade()
        .args(["run", "puzzle-telemetry", "console", "--data"])
        .arg(data)
        .args(["--admin", &admin, "--console", &console])
        .args(["--puzzle-stats-every", "200ms"])
        .env("ARCADE_ADMIN_TOKEN", TOKEN)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("arcade ready") {
                let _ = tx.send(());
            }
        }
    });
    let run = Guard(child);
    rx.recv_timeout(PATIENCE)
        .expect("arcade run logs that it is ready");
    (run, console, admin)
}

/// Starts a board from `/puzzle/play`'s form and plays `puzzle`'s witness by clicking each
/// cell, waiting for the server's answer to each before the next; returns the game's id.
fn play_witness(browser: &Browser, console: &str, puzzle: &Puzzle) -> String {
    browser.open(&format!("http://{console}/puzzle/play"));
    browser.type_into("#seed", &puzzle.seed().to_string());
    browser.select("#stage", &puzzle.stage().number().to_string());
    browser.click("#start");
    browser.wait_for("document.getElementById('board') !== null", "the new board");
    let path = browser.eval("return location.pathname", json!([]));
    let game_id = path
        .as_str()
        .and_then(|p| p.strip_prefix("/puzzle/play/"))
        .expect("the board's own path")
        .to_string();
    assert_eq!(browser.text("#seed"), puzzle.seed().to_string());
    assert_eq!(browser.text("#moves-left"), puzzle.move_limit().to_string());
    assert_eq!(browser.text("#status"), "Playing");
    for (i, cell) in puzzle.witness().enumerate() {
        browser.click(&format!("#cell-{}-{}", cell.x, cell.y));
        browser.wait_for(
            &format!(
                "document.getElementById('turns').textContent === '{}'",
                i + 1
            ),
            "the pulse answered",
        );
    }
    browser.wait_for(
        "document.getElementById('status').dataset.status === 'won'",
        "the game won",
    );
    assert_eq!(browser.text("#moves-left"), "0");
    // The charged path reaches the target.
    assert_eq!(
        browser.eval(
            "return document.querySelectorAll('.strata-cell.charged').length",
            json!([])
        ),
        json!(puzzle.path().len())
    );
    game_id
}

#[test]
fn a_strata_relay_board_played_to_a_win_by_clicking_shows_in_the_statistics() {
    let data = tempfile::tempdir().unwrap();
    let (_run, console, _admin) = start(data.path());
    let Some(browser) = Browser::start(1280, 900) else {
        return;
    };
    // The statistics, open before the game and never reloaded.
    browser.open(&format!("http://{console}/puzzle"));
    browser.wait_for(
        "document.body.dataset.live === 'open'",
        "the live stream open",
    );
    assert!(
        browser
            .text("#page")
            .contains("No statistics from the telemetry yet")
    );
    let charts = browser.current();

    browser.new_tab();
    let puzzle = Puzzle::generate(20_261_203, Stage::new(2).unwrap()).unwrap();
    let game_id = play_witness(&browser, &console, &puzzle);
    browser.wait_for(
        "document.getElementById('published').dataset.published === '1'",
        "the session sent",
    );
    // A pulse on the finished board: every cell is disabled (aria-disabled), and the server says why.
    assert_eq!(
        browser.eval(
            "return document.querySelectorAll('.strata-cell:not([aria-disabled=true])').length",
            json!([])
        ),
        json!(0)
    );
    let answer = browser.eval(
        "return fetch(location.pathname + '/pulses', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{\"x\":1,\"y\":1}'})
           .then(r => r.json().then(j => [r.status, j.error]))",
        json!([]),
    );
    assert_eq!(answer[0], 409, "{answer}");
    assert!(
        answer[1].as_str().unwrap_or("").contains("is over (won)"),
        "{answer}"
    );

    // The statistics tab: the session recorded by the telemetry, verified, live.
    browser.switch_to(&charts);
    browser.wait_for(
        &format!("document.querySelector('#recent tr[data-game=\"{game_id}\"]') !== null"),
        "the session among the newest, live",
    );
    let row = browser.text(&format!("#recent tr[data-game=\"{game_id}\"]"));
    assert!(
        row.contains("won") && row.contains("moves replayed"),
        "{row}"
    );
    browser.wait_for(
        "document.querySelector('#stages tr[data-stage=\"2\"] .won') !== null && document.querySelector('#stages tr[data-stage=\"2\"] .won').textContent === '1'",
        "the win counted in stage 2's statistics",
    );
    assert_eq!(browser.text("#today tr[data-stage=\"2\"] .sessions"), "1");
    assert_eq!(browser.text("#sessions-total"), "1");
    assert!(
        browser
            .eval(
                "return document.querySelectorAll('#trend-hours circle').length",
                json!([])
            )
            .as_u64()
            .unwrap_or(0)
            >= 1,
        "a point on the hourly trend"
    );

    // A bad stage through the form's endpoint: a clear error.
    let answer = browser.eval(
        "return fetch('/puzzle/play', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{\"seed\":\"x1\",\"stage\":2}'})
           .then(r => r.json().then(j => [r.status, j.error]))",
        json!([]),
    );
    assert_eq!(answer[0], 400, "{answer}");
    assert!(
        answer[1].as_str().unwrap_or("").contains("/seed"),
        "{answer}"
    );
}

#[test]
#[ignore = "writes docs/screenshots; run with --ignored puzzle_screenshots"]
fn puzzle_screenshots() {
    let out = std::env::var_os("ARCADE_SCREENSHOTS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots"),
        std::path::PathBuf::from,
    );
    std::fs::create_dir_all(&out).unwrap();
    let data = tempfile::tempdir().unwrap();
    let (_run, console, admin) = start(data.path());
    let simulated = arcade()
        .args(["puzzle", "simulate", "--admin", &admin, "--contract", "v2"])
        .args(["--sessions", "300", "--seed", "7"])
        .env("ARCADE_ADMIN_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert!(simulated.status.success(), "{simulated:?}");
    let browser = Browser::start(1280, 900).expect("a browser for the screenshots");
    let won = Puzzle::generate(77, Stage::new(3).unwrap()).unwrap();
    play_witness(&browser, &console, &won);
    // Every session in the statistics (recorded or flagged), as the console shows them.
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let frame: serde_json::Value = reqwest::blocking::Client::new()
            .get(format!("http://{console}/puzzle"))
            .header("Accept", "application/json")
            .send()
            .unwrap()
            .json()
            .unwrap();
        let stats = &frame["view"]["stats"];
        let counted =
            stats["sessions"].as_u64().unwrap_or(0) + stats["flagged"].as_u64().unwrap_or(0);
        if counted == 301 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{counted} of 301 sessions counted"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // A board in progress, two pulses in.
    let board = Puzzle::generate(4_242, Stage::new(4).unwrap()).unwrap();
    let response = reqwest::blocking::Client::new()
        .post(format!("http://{console}/puzzle/play"))
        .json(&json!({"seed": board.seed(), "stage": 4}))
        .send()
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let game: serde_json::Value = response.json().unwrap();
    let path = game["path"].as_str().unwrap().to_string();
    for cell in board.witness().take(2) {
        let response = reqwest::blocking::Client::new()
            .post(format!("http://{console}{path}/pulses"))
            .json(&json!({"x": cell.x, "y": cell.y}))
            .send()
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
    }
    drop(browser);
    let pages = [
        ("puzzle", "/puzzle".to_string()),
        ("puzzle-play", "/puzzle/play".to_string()),
        ("puzzle-board", path),
    ];
    for (width, height) in [(390, 844), (1920, 1080)] {
        let browser = Browser::start(width, height).expect("a browser for the screenshots");
        for (name, path) in &pages {
            browser.open(&format!("http://{console}{path}"));
            browser.wait_for(
                "document.getElementById('page').childElementCount > 0",
                "the page drawn",
            );
            let file = out.join(format!("{name}-{width}.png"));
            std::fs::write(&file, browser.screenshot()).unwrap();
            eprintln!("wrote {}", file.display());
        }
    }
}
