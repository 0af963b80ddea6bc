//! The console through the `arcade` binary: clicked through in a real headless Chromium
//! (start a table game from the page, report a goal, see it on the scoreboard live), rebuilt
//! from its log after a restart and after a SIGKILL (same tables), and, on RabbitMQ, killed
//! while the referee plays on, then catching up.
//!
//! `cargo test -p arcade --test console -- --ignored screenshots` writes the pages'
//! screenshots (390 and 1920 px wide) to `docs/screenshots/` (`ARCADE_SCREENSHOTS=DIR`
//! elsewhere).

#[path = "support/webdriver.rs"]
mod webdriver;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webdriver::Browser;

const TOKEN: &str = "console-test-operator-token";
const PATIENCE: Duration = Duration::from_secs(60);

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

/// A child killed (SIGKILL) when the test ends, however it ends.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An `arcade run` of the test's own.
struct Run {
    child: Guard,
    console: String,
    admin: String,
}

/// `arcade run SERVICES` on `data` (with `extra` arguments), once it logs that it is ready.
fn run(data: &Path, services: &[&str], extra: &[&str]) -> Run {
    let console = free_addr();
    let admin = free_addr();
    let mut child = arcade()
        .arg("run")
        .args(services)
        .arg("--data")
        .arg(data)
        .args(["--admin", &admin, "--console", &console])
        .args(extra)
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
    rx.recv_timeout(PATIENCE)
        .expect("arcade run logs that it is ready");
    Run {
        child: Guard(child),
        console,
        admin,
    }
}

fn signal(run: &Run, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &run.child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits for the process to exit, at most `within`.
fn exited(run: &mut Run, within: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = run.child.0.try_wait().unwrap() {
            return status;
        }
        assert!(
            start.elapsed() < within,
            "still running {within:?} after the signal"
        );
        std::thread::sleep(Duration::from_millis(10));
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

/// Polls the view of `path` until `done` holds (a deadline as a safety net).
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
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An organiser action on the console; returns the status and the answer.
fn act(console: &str, path: &str, body: Value) -> (u16, Value) {
    let response = http()
        .post(format!("http://{console}{path}"))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().unwrap_or(Value::Null))
}

fn bar_rules() -> Value {
    serde_json::from_str(include_str!("../../referee/examples/bar.rules.json")).unwrap()
}

fn balls(view: &Value) -> u64 {
    view["table"]["game"]["balls"].as_u64().unwrap_or(0)
}

#[test]
fn a_game_started_from_the_page_shows_its_goal_live_on_the_scoreboard() {
    let data = tempfile::tempdir().unwrap();
    let mut run = run(data.path(), &["referee", "console"], &[]);
    let Some(browser) = Browser::start(1280, 900) else {
        return;
    };
    let console = run.console.clone();

    browser.open(&format!("http://{console}/tables/t1"));
    browser.wait_for(
        "document.body.dataset.live === 'open'",
        "the live stream open",
    );
    // Actions are the operator's: hidden until the token is given.
    assert_eq!(
        browser.eval(
            "return getComputedStyle(document.getElementById('start')).display",
            json!([])
        ),
        "none"
    );
    browser.type_into("#login-token", TOKEN);
    browser.click("#login-submit");
    browser.wait_for(
        "document.body.classList.contains('operator')",
        "logged in as the operator",
    );
    browser.select("#example", "bar");
    browser.wait_for(
        "document.getElementById('rules').value.includes('win_rule')",
        "the example rules loaded",
    );
    browser.click("#start-button");
    browser.wait_for(
        "document.getElementById('start-message').textContent.includes('started')",
        "the referee's started game on the page",
    );
    let started = view(&console, "/tables/t1");
    let game_id = started["table"]["game"]["gameId"]
        .as_str()
        .unwrap()
        .to_string();

    // The scoreboard in another tab, following live.
    let table_tab = browser.new_tab();
    browser.open(&format!("http://{console}/tables/t1/scoreboard"));
    browser.wait_for(
        "document.body.dataset.live === 'open'",
        "the scoreboard's live stream",
    );
    assert_eq!(browser.text("#score-hinge"), "0");
    let scoreboard_tab = browser.current();
    browser.switch_to(&table_tab);
    browser.type_into("#goal-player", "Zoé");
    browser.click("#goal-hinge");
    browser.wait_for(
        "document.getElementById('goal-message').textContent.includes('sent')",
        "the goal report sent",
    );
    // Back on the scoreboard, never reloaded: the goal comes by its live stream.
    browser.switch_to(&scoreboard_tab);
    browser.wait_for(
        "document.getElementById('score-hinge').textContent === '1'",
        "the goal on the scoreboard",
    );
    assert_eq!(browser.text("#score-lock"), "0");
    assert!(
        browser
            .eval(
                "return Number(document.body.dataset.updates || 0)",
                json!([])
            )
            .as_u64()
            .unwrap()
            >= 1,
        "the score came as a live update"
    );
    let after = view(&console, "/tables/t1");
    assert_eq!(after["table"]["game"]["gameId"], game_id.as_str());
    assert_eq!(after["table"]["game"]["goals"][0]["player"], "Zoé");

    // The sensor fired twice: the organiser cancels the last goal from the table's page.
    browser.switch_to(&table_tab);
    browser.wait_for(
        "!document.getElementById('cancel-goal').disabled",
        "the cancel button enabled",
    );
    browser.click("#cancel-goal");
    browser.switch_to(&scoreboard_tab);
    browser.wait_for(
        "document.getElementById('score-hinge').textContent === '0'",
        "the cancelled goal off the scoreboard",
    );

    // SIGTERM with two live pages open: `arcade run` still stops within 2 s, exit 0.
    signal(&run, "TERM");
    let status = exited(&mut run, Duration::from_secs(2));
    assert!(status.success(), "{status}");
}

/// Starts a game on t1 through the console, scores `goals` goals (alternating sides) and gets
/// one start refused; returns the console's `/tables` view once it shows all of it.
fn play(console: &str, goals: u64) -> Value {
    let (status, answer) = act(console, "/tables/t1/games", json!({ "rules": bar_rules() }));
    assert_eq!(status, 202, "{answer}");
    let game_id = answer["gameId"].as_str().unwrap().to_string();
    view_when(console, "/tables/t1", "the game started", |v| {
        v["table"]["game"]["gameId"] == game_id.as_str()
    });
    for n in 0..goals {
        let side = if n % 2 == 0 { "hinge" } else { "lock" };
        let (status, answer) = act(console, "/tables/t1/goals", json!({ "side": side }));
        assert_eq!(status, 202, "{answer}");
        view_when(console, "/tables/t1", "the goal counted", |v| balls(v) > n);
    }
    let (status, _) = act(console, "/tables/t1/games", json!({ "rules": bar_rules() }));
    assert_eq!(status, 202);
    view_when(console, "/tables/t1", "the second start refused", |v| {
        v["table"]["lastRejection"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("still being played"))
    });
    view(console, "/tables")
}

#[test]
fn a_goal_cancelled_from_the_console_leaves_the_score_as_before_it() {
    let data = tempfile::tempdir().unwrap();
    let run = run(data.path(), &["referee", "console"], &[]);
    let before = play(&run.console, 3);
    assert_eq!(before["tables"][0]["game"]["balls"], 3, "{before}");
    let game_id = before["tables"][0]["game"]["gameId"].clone();
    let cancel = json!({ "gameId": game_id, "ball": 3, "reason": "" });
    let (status, answer) = act(&run.console, "/tables/t1/cancel", cancel);
    assert_eq!(status, 202, "{answer}");
    let after = view_when(&run.console, "/tables/t1", "the goal cancelled", |v| {
        balls(v) == 2
    });
    assert_eq!(
        after["table"]["game"]["score"],
        json!({"hinge": 1, "lock": 1})
    );
    assert_eq!(after["table"]["game"]["goals"][0]["ball"], 2);
    // Once: the referee refuses a second cancel, and the page says why.
    let (status, _) = act(
        &run.console,
        "/tables/t1/cancel",
        json!({ "gameId": game_id }),
    );
    assert_eq!(status, 202);
    view_when(
        &run.console,
        "/tables/t1",
        "the second cancel refused",
        |v| {
            v["table"]["lastRejection"]["error"]
                .as_str()
                .is_some_and(|e| e.contains("no ball to cancel"))
        },
    );
}

#[test]
fn the_console_rebuilt_from_its_log_shows_the_same_tables_after_a_restart_and_a_kill() {
    let data = tempfile::tempdir().unwrap();
    let services = ["referee", "console"];
    // Snapshots every 3 entries: a restart loads one and replays the log after it.
    let extra = ["--snapshot-every", "3"];
    let mut first = run(data.path(), &services, &extra);
    let before = play(&first.console, 5);
    assert_eq!(
        before["tables"][0]["game"]["score"],
        json!({"hinge": 3, "lock": 2})
    );
    signal(&first, "TERM");
    assert!(exited(&mut first, PATIENCE).success());

    let second = run(data.path(), &services, &extra);
    assert_eq!(view(&second.console, "/tables"), before, "after a restart");
    let home = view(&second.console, "/");
    assert_eq!(home["services"][0]["producer"], "referee.t1");

    // More play, then SIGKILL: what the console showed was durable, so it shows it again.
    let (status, _) = act(
        &second.console,
        "/tables/t1/goals",
        json!({ "side": "lock" }),
    );
    assert_eq!(status, 202);
    let shown = view_when(&second.console, "/tables", "the sixth goal", |v| {
        v["tables"][0]["game"]["balls"] == 6
    });
    signal(&second, "KILL");
    drop(second);
    let third = run(data.path(), &services, &extra);
    assert_eq!(view(&third.console, "/tables"), shown, "after a SIGKILL");
}

fn broker_url() -> Option<String> {
    match std::env::var("ARCADE_AMQP_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
                "ARCADE_REQUIRE_BROKER=1 but ARCADE_AMQP_URL is unset: broker tests must run"
            );
            eprintln!("skipped: ARCADE_AMQP_URL unset");
            None
        }
    }
}

fn rabbitmqctl(args: &[&str]) -> Output {
    let program = std::env::var("RABBITMQCTL").unwrap_or_else(|_| "rabbitmqctl".into());
    Command::new(&program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} {args:?}: {e} (set RABBITMQCTL)"))
}

/// A vhost of the test's own, deleted when the test ends.
struct Vhost {
    name: String,
    url: String,
}

impl Vhost {
    fn new(url: &str) -> Vhost {
        let name = format!("arcade-console-{}", uuid::Uuid::new_v4().simple());
        let (authority, _) = url
            .rsplit_once('/')
            .filter(|(a, _)| a.contains('@'))
            .expect("ARCADE_AMQP_URL is amqp://user:pass@host:port/vhost");
        let user = authority
            .split_once("://")
            .and_then(|(_, rest)| rest.split_once([':', '@']))
            .map(|(user, _)| user)
            .expect("ARCADE_AMQP_URL names its user");
        let made = rabbitmqctl(&["add_vhost", &name]);
        assert!(made.status.success(), "add_vhost {name}: {made:?}");
        let vhost = Vhost {
            url: format!("{authority}/{name}"),
            name,
        };
        let allowed = rabbitmqctl(&["set_permissions", "-p", &vhost.name, user, ".*", ".*", ".*"]);
        assert!(allowed.status.success(), "set_permissions: {allowed:?}");
        vhost
    }
}

impl Drop for Vhost {
    fn drop(&mut self) {
        let _ = rabbitmqctl(&["delete_vhost", &self.name]);
    }
}

#[test]
fn a_killed_console_catches_up_on_what_the_referee_did_meanwhile() {
    let Some(url) = broker_url() else { return };
    let vhost = Vhost::new(&url);
    let amqp = ["--amqp", vhost.url.as_str()];
    let referee_data = tempfile::tempdir().unwrap();
    let console_data = tempfile::tempdir().unwrap();
    let referee = run(referee_data.path(), &["referee"], &amqp);
    let console = run(console_data.path(), &["console"], &amqp);
    let (status, answer) = act(
        &console.console,
        "/tables/t1/games",
        json!({ "rules": bar_rules() }),
    );
    assert_eq!(status, 202, "{answer}");
    view_when(
        &console.console,
        "/tables/t1",
        "the game on the console",
        |v| v["table"]["game"].is_object(),
    );

    signal(&console, "KILL");
    drop(console);
    // The referee plays on: three goals reported through its own process.
    for _ in 0..3 {
        let response = http()
            .post(format!(
                "http://{}/messages/table.goal.report.v1",
                referee.admin
            ))
            .bearer_auth(TOKEN)
            .json(&json!({ "tableId": "t1", "side": "hinge", "kind": "goal" }))
            .send()
            .unwrap();
        assert_eq!(response.status().as_u16(), 202);
    }
    let console = run(console_data.path(), &["console"], &amqp);
    let caught_up = view_when(&console.console, "/tables/t1", "the three goals", |v| {
        balls(v) == 3
    });
    assert_eq!(
        caught_up["table"]["game"]["score"],
        json!({"hinge": 3, "lock": 0})
    );
    assert_eq!(
        caught_up["table"]["game"]["goals"].as_array().map(Vec::len),
        Some(3)
    );
}

/// Writes the console's pages at 390 and 1920 px wide into `docs/screenshots/` (or
/// `ARCADE_SCREENSHOTS`): `cargo test -p arcade --test console -- --ignored screenshots`.
#[test]
#[ignore = "writes docs/screenshots/: run it by hand after changing a page"]
fn screenshots() {
    let out = std::env::var_os("ARCADE_SCREENSHOTS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots"),
        std::path::PathBuf::from,
    );
    std::fs::create_dir_all(&out).unwrap();
    let data = tempfile::tempdir().unwrap();
    let run = run(data.path(), &["referee", "console"], &[]);
    let console = run.console.clone();
    play(&console, 6);
    let pages = [
        ("home", "/"),
        ("tables", "/tables"),
        ("table", "/tables/t1"),
        ("scoreboard", "/tables/t1/scoreboard"),
    ];
    for (width, height) in [(390, 844), (1920, 1080)] {
        let browser = Browser::start(width, height).expect("a browser for the screenshots");
        for (name, path) in pages {
            browser.open(&format!("http://{console}{path}"));
            browser.wait_for("document.body.dataset.live === 'open'", "the page live");
            if name == "table" {
                browser.type_into("#login-token", TOKEN);
                browser.click("#login-submit");
                browser.wait_for("document.body.classList.contains('operator')", "logged in");
            }
            let file = out.join(format!("{name}-{width}.png"));
            std::fs::write(&file, browser.screenshot()).unwrap();
            eprintln!("wrote {}", file.display());
        }
    }
}
