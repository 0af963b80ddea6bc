//! The console's race pages through the `arcade` binary, clicked through in a real headless
//! Chromium: `arcade run race-master console`, two teams added with `arcade race team add`,
//! each played by its own `arcade car` program; the operator starts the race from `/race`,
//! changes the odds and publishes a hint while it runs, follows it live to its standings (and
//! its seed, shown only then), opens a duel and steps through it; a team opens its own log
//! with its token, which another team's token does not open.
//!
//! `cargo test -p arcade --test console_race -- --ignored race_screenshots` writes the race
//! pages' screenshots (390 and 1920 px wide) to `docs/screenshots/`.

#[path = "support/webdriver.rs"]
mod webdriver;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webdriver::Browser;

const TOKEN: &str = "console-race-test-operator-token";
const SEED: &str = "8123456789012345677";
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

/// `arcade run race-master console` of the test's own, with two teams and their car programs.
struct Race {
    _run: Guard,
    _cars: Vec<Guard>,
    console: String,
    tokens: Vec<(String, String)>,
}

fn start_race(data: &Path) -> Race {
    let console = free_addr();
    let admin = free_addr();
    let mut child = arcade()
        .args(["run", "race-master", "console", "--data"])
        .arg(data)
        .args([
            "--admin",
            &admin,
            "--console",
            &console,
            "--race-seed",
            SEED,
        ])
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
    let mut tokens = Vec::new();
    let mut cars = Vec::new();
    for (team, strategy, seed) in [("red", "aggressive", "1"), ("blue", "random", "2")] {
        let added = arcade()
            .args(["race", "team", "add", team, "--admin", &admin])
            .env("ARCADE_ADMIN_TOKEN", TOKEN)
            .output()
            .unwrap();
        assert!(added.status.success(), "{added:?}");
        let token = String::from_utf8(added.stdout).unwrap().trim().to_string();
        assert!(!token.is_empty());
        cars.push(Guard(
            arcade()
                .args(["car", "--team", team, "--strategy", strategy, "--cars", "2"])
                .args(["--seed", seed, "--admin", &admin, "--token", &token])
                .env_remove("ARCADE_ADMIN_TOKEN")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        ));
        tokens.push((team.to_string(), token));
    }
    Race {
        _run: run,
        _cars: cars,
        console,
        tokens,
    }
}

fn http() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// The view of a console page, as JSON.
fn view(console: &str, path: &str) -> Value {
    let frame: Value = http()
        .get(format!("http://{console}{path}"))
        .header("Accept", "application/json")
        .send()
        .unwrap()
        .json()
        .unwrap();
    frame["view"].clone()
}

fn view_when(console: &str, path: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let view = view(console, path);
        if done(&view) {
            return view;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not seen within {PATIENCE:?}; the view is {view}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn cars_registered(console: &str, n: usize) {
    view_when(console, "/race", "the cars registered", |v| {
        v["cars"].as_array().is_some_and(|c| c.len() == n)
    });
}

fn set_number(browser: &Browser, css: &str, value: &str) {
    browser.clear(css);
    browser.type_into(css, value);
}

fn log_in(browser: &Browser) {
    browser.type_into("#login-token", TOKEN);
    browser.click("#login-submit");
    browser.wait_for(
        "document.body.classList.contains('operator')",
        "logged in as the operator",
    );
}

/// Starts the race from the page: `turns` turns `interval` ms apart, pirates often (duels).
fn start_from_the_page(browser: &Browser, turns: &str, interval: &str) {
    set_number(browser, "#start-turns", turns);
    set_number(browser, "#start-interval", interval);
    for (field, value) in [
        ("nothing", "30"),
        ("pirates", "40"),
        ("garage", "10"),
        ("wreck", "10"),
        ("mineField", "10"),
    ] {
        set_number(browser, &format!("#start-{field}"), value);
    }
    browser.click("#start-button");
    browser.wait_for(
        "document.getElementById('start-message').textContent.includes('Sent')",
        "the start sent",
    );
}

#[test]
fn a_race_followed_from_the_console_to_its_standings_and_a_duel_stepped_through() {
    let data = tempfile::tempdir().unwrap();
    let race = start_race(data.path());
    let Some(browser) = Browser::start(1280, 900) else {
        return;
    };
    let console = race.console.clone();
    cars_registered(&console, 4);

    browser.open(&format!("http://{console}/race"));
    browser.wait_for(
        "document.body.dataset.live === 'open'",
        "the live stream open",
    );
    assert_eq!(browser.text("#race-status"), "registration");
    assert_eq!(
        browser.eval(
            "return document.querySelectorAll('#ring circle.car').length",
            json!([])
        ),
        4,
        "every registered car on the ring"
    );
    let html = http()
        .get(format!("http://{console}/race"))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(!html.contains(SEED), "no seed before the end");
    // The organiser's forms are the operator's: hidden until the token is given.
    assert_eq!(
        browser.eval(
            "return getComputedStyle(document.getElementById('start')).display",
            json!([])
        ),
        "none"
    );
    log_in(&browser);
    // Odds that do not add up are refused at the console, naming the field.
    set_number(&browser, "#start-turns", "8");
    set_number(&browser, "#start-pirates", "55");
    browser.click("#start-button");
    browser.wait_for(
        "document.getElementById('start-message').textContent.includes('/distribution: the odds add up to 145, not 100')",
        "the refusal of odds over 100",
    );
    set_number(&browser, "#start-pirates", "10");
    start_from_the_page(&browser, "8", "1500");
    browser.wait_for(
        "document.getElementById('race-status').dataset.status === 'running'",
        "the race running, live",
    );

    // While it runs: new odds and a hint.
    for (field, value) in [
        ("nothing", "20"),
        ("pirates", "50"),
        ("garage", "10"),
        ("wreck", "10"),
        ("mineField", "10"),
    ] {
        set_number(&browser, &format!("#odds-{field}"), value);
    }
    browser.click("#odds-button");
    browser.wait_for(
        "document.getElementById('odds').textContent === 'odds 20/50/10/10/10'",
        "the new odds, as the master published them",
    );
    browser.select("#hint-achievement", "stratege");
    browser.click("#hint-button");
    browser.wait_for(
        "(document.getElementById('hints') || {textContent: ''}).textContent.includes('Stratège')",
        "the hint published",
    );

    // To its end, live: the standings, the bonuses, the seed.
    browser.wait_for(
        "document.getElementById('race-status').dataset.status === 'finished'",
        "the race over",
    );
    assert_eq!(browser.text("#seed"), SEED, "the seed, revealed at the end");
    let teams: Vec<String> = browser
        .eval(
            "return [...document.querySelectorAll('#standings tbody tr')].map(r => r.dataset.team)",
            json!([]),
        )
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    let mut sorted = teams.clone();
    sorted.sort();
    assert_eq!(sorted, ["blue", "red"], "both teams in the standings");
    let final_view = view(&console, "/race");
    assert_eq!(final_view["standings"][0]["team"], teams[0].as_str());
    assert_eq!(browser.text("#race-turn"), "8");
    assert!(
        browser
            .eval(
                "return Number(document.body.dataset.updates || 0)",
                json!([])
            )
            .as_u64()
            .unwrap()
            >= 8,
        "the race came by the live stream"
    );

    // A duel, stepped through by clicking.
    let duels = final_view["duels"].as_array().unwrap();
    assert!(!duels.is_empty(), "pirates at 40-50 %: duels were fought");
    let duel = duels
        .iter()
        .find(|d| d["steps"].as_u64().unwrap_or(0) >= 2)
        .unwrap_or(&duels[0]);
    let id = duel["duelId"].as_u64().unwrap();
    let transcript = view(&console, &format!("/race/duels/{id}"));
    let frames = transcript["frames"].as_array().unwrap();
    browser.click(&format!("#duels a[data-duel=\"{id}\"]"));
    browser.wait_for(
        "document.getElementById('step-label') && document.getElementById('step-label').textContent === 'the deal'",
        "the duel's page on its deal",
    );
    let dealt = |i: usize| -> String {
        frames[0]["hands"][i]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    assert_eq!(browser.text("#hand-0"), dealt(0), "fighter 0's hand dealt");
    assert_eq!(browser.text("#hand-1"), dealt(1), "fighter 1's hand dealt");
    assert_eq!(
        browser.eval(
            "return document.querySelector('#piste .f0').dataset.square",
            json!([])
        ),
        "1"
    );
    for step in 1..frames.len() {
        browser.click("#next");
        browser.wait_for(
            &format!(
                "document.getElementById('step-label').textContent === 'step {step} of {}'",
                frames.len() - 1
            ),
            "the next step",
        );
        assert_eq!(
            browser.text("#step-text"),
            frames[step]["text"].as_str().unwrap()
        );
        assert_eq!(
            browser.text("#square-0"),
            frames[step]["squares"][0].to_string()
        );
        assert_eq!(
            browser.text("#square-1"),
            frames[step]["squares"][1].to_string()
        );
    }
    browser.wait_for(
        "document.getElementById('winner') !== null",
        "the end of the duel",
    );
    browser.click("#prev");
    browser.wait_for(
        "document.getElementById('winner') === null",
        "a step back from the end",
    );

    // A team's own log, with its token; another team's token does not open it.
    let (team, token) = &race.tokens[0];
    browser.open(&format!("http://{console}/race/teams/{team}"));
    browser.wait_for(
        "document.getElementById('team-token') !== null",
        "the team page",
    );
    // Logged in as the operator in this tab: the operator's token opens it too; forget it
    // first, to open it with the team's own.
    browser.click("#logout");
    browser.click("#team-forget");
    assert_eq!(
        browser.eval(
            "return document.querySelectorAll('#log li').length",
            json!([])
        ),
        0
    );
    let (_, other) = &race.tokens[1];
    browser.type_into("#team-token", other);
    browser.click("#team-token-submit");
    browser.wait_for(
        "document.getElementById('team-message').textContent.includes('race-team-blue may not act here')",
        "another team's token refused",
    );
    browser.type_into("#team-token", token);
    browser.click("#team-token-submit");
    browser.wait_for(
        "document.querySelectorAll('#log li[data-kind=decision]').length > 0",
        "the team's decisions",
    );
    let questions = browser.eval(
        "return [...document.querySelectorAll('#log li[data-kind=decision] .question')].map(q => q.dataset.kind)",
        json!([]),
    );
    assert!(
        questions
            .as_array()
            .unwrap()
            .iter()
            .all(|k| k.as_str() != Some("unknown")),
        "every question told from the public facts: {questions}"
    );
    assert!(
        browser
            .text("#log")
            .contains(&format!("{team}-1 registered")),
        "its registrations"
    );
    assert!(!browser.text("#log").contains("blue-1 registered"));
    // Without a token, neither the JSON nor the stream answers.
    let refused = http()
        .get(format!("http://{console}/race/teams/{team}"))
        .header("Accept", "application/json")
        .send()
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401);
}

/// Writes the race pages at 390 and 1920 px wide into `docs/screenshots/` (or
/// `ARCADE_SCREENSHOTS`): `cargo test -p arcade --test console_race -- --ignored race_screenshots`.
#[test]
#[ignore = "writes docs/screenshots/: run it by hand after changing a page"]
fn race_screenshots() {
    let out = std::env::var_os("ARCADE_SCREENSHOTS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots"),
        std::path::PathBuf::from,
    );
    std::fs::create_dir_all(&out).unwrap();
    let data = tempfile::tempdir().unwrap();
    let race = start_race(data.path());
    let console = race.console.clone();
    cars_registered(&console, 4);
    let response = http()
        .post(format!("http://{console}/race/start"))
        .bearer_auth(TOKEN)
        .json(&json!({"turns": 8, "turnIntervalMs": 100,
            "distribution": {"nothing": 30, "pirates": 40, "garage": 10, "wreck": 10, "mineField": 10}}))
        .send()
        .unwrap();
    assert_eq!(response.status().as_u16(), 202);
    let done = view_when(&console, "/race", "the race over", |v| {
        v["status"] == "finished"
    });
    let duel = done["duels"]
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|d| d["steps"].as_u64().unwrap_or(0))
        .expect("a duel")["duelId"]
        .clone();
    let (team, token) = race.tokens[0].clone();
    let pages = [
        ("race", "/race".to_string()),
        ("race-duel", format!("/race/duels/{duel}")),
        ("race-team", format!("/race/teams/{team}")),
    ];
    for (width, height) in [(390, 844), (1920, 1080)] {
        let browser = Browser::start(width, height).expect("a browser for the screenshots");
        for (name, path) in &pages {
            browser.open(&format!("http://{console}{path}"));
            browser.wait_for(
                "document.getElementById('race-css').sheet !== null",
                "the race style",
            );
            match *name {
                "race" => log_in(&browser),
                "race-duel" => {
                    browser.click("#next");
                    browser.click("#next");
                }
                _ => {
                    browser.type_into("#team-token", &token);
                    browser.click("#team-token-submit");
                    browser.wait_for(
                        "document.querySelectorAll('#log li').length > 0",
                        "the team's log",
                    );
                }
            }
            let file = out.join(format!("{name}-{width}.png"));
            std::fs::write(&file, browser.screenshot()).unwrap();
            eprintln!("wrote {}", file.display());
        }
    }
}
