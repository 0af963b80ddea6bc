//! The console's bingo pages through the `arcade` binary, clicked through in a real headless
//! Chromium: the organiser opens a game from the form (a refused form first, its JSON path
//! shown), deals a card to a player and calls squares; the player's card page, never
//! reloaded, ticks live; a claim with another player's token is refused, the player's own
//! wins; the winner shows on the organiser's page, and a printed batch on its sheet.
//!
//! Also: who may claim through the console (the card's player or the operator, nobody else),
//! and on RabbitMQ, the console as its own process under its broker user (the definitions'
//! `console` permissions), trusted by bingo as an operator principal.
//!
//! `cargo test -p arcade --test console_bingo -- --ignored screenshots` writes the bingo pages'
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

const TOKEN: &str = "console-bingo-test-operator-token";
const SECRET: &str = "console-bingo-test-secret-of-32-bytes";
const PATIENCE: Duration = Duration::from_secs(60);

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command
        .env_remove("ARCADE_AMQP_URL")
        .env_remove("RUST_LOG")
        .env_remove("ARCADE_OPERATOR_PRINCIPALS")
        .env("ARCADE_BINGO_SECRET", SECRET);
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
    _child: Guard,
    console: String,
    admin: String,
}

/// `arcade run SERVICES` on `data` (with `extra` arguments and `env`), once it is ready.
fn run(data: &Path, services: &[&str], extra: &[&str], env: &[(&str, &str)]) -> Run {
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
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("arcade ready") {
                let _ = tx.send(Ok(()));
            }
            lines.push(line);
        }
        let _ = tx.send(Err(lines.join("\n")));
    });
    match rx.recv_timeout(PATIENCE) {
        Ok(Ok(())) => {}
        Ok(Err(log)) => panic!("arcade run {services:?} exited before it was ready:\n{log}"),
        Err(_) => panic!("arcade run {services:?} not ready within {PATIENCE:?}"),
    }
    Run {
        _child: Guard(child),
        console,
        admin,
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

/// An action on the console with `token`; returns the status and the answer.
fn act(console: &str, path: &str, token: &str, body: Value) -> (u16, Value) {
    let response = http()
        .post(format!("http://{console}{path}"))
        .bearer_auth(token)
        .json(&body)
        .send()
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().unwrap_or(Value::Null))
}

/// A player's token, as `arcade bingo player add` asks the admin endpoint for it.
fn player_token(admin: &str, player: &str) -> String {
    let response = http()
        .post(format!("http://{admin}/bingo/players/{player}"))
        .bearer_auth(TOKEN)
        .send()
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let body: Value = response.json().unwrap();
    body["token"].as_str().unwrap().to_string()
}

/// Eight squares, one with markup that must stay text.
const SQUARES: &str = "First goal\nAn in-out\n<b>not bold</b>\nA tie-break\nA 10-0\nA rehearsal ball\nA lock\nA timeout";

/// Opens `game` (called, 3×3, lines) through the console's action; returns its view.
fn open_game(console: &str, game: &str) -> Value {
    let (status, answer) = act(
        console,
        "/bingo",
        TOKEN,
        json!({"gameId": game, "tickMode": "called", "size": 3, "squares": SQUARES, "patterns": ["line"]}),
    );
    assert_eq!(status, 202, "{answer}");
    view_when(console, &format!("/bingo/{game}"), "the game open", |v| {
        v["game"].is_object()
    })
}

/// Logs the tab in as the operator (once: the token stays in the tab's session storage).
fn logged_in(browser: &Browser) {
    let already = browser.eval(
        "return document.body.classList.contains('operator')",
        json!([]),
    );
    if already == Value::Bool(true) {
        return;
    }
    browser.type_into("#login-token", TOKEN);
    browser.click("#login-submit");
    browser.wait_for(
        "document.body.classList.contains('operator')",
        "logged in as the operator",
    );
}

#[test]
fn a_game_opened_from_the_form_ticks_the_players_card_live_and_her_claim_wins() {
    let data = tempfile::tempdir().unwrap();
    let run = run(data.path(), &["bingo", "console"], &[], &[]);
    let Some(browser) = Browser::start(1280, 900) else {
        return;
    };
    let console = run.console.clone();

    // The organiser opens a game from the form, once logged in.
    browser.open(&format!("http://{console}/bingo"));
    browser.wait_for("document.body.dataset.live === 'open'", "the live stream");
    assert_eq!(
        browser.eval(
            "return getComputedStyle(document.getElementById('open')).display",
            json!([])
        ),
        "none",
        "the form is the operator's"
    );
    logged_in(&browser);
    browser.type_into("#game-id", "friday");
    browser.select("#size", "3");
    // A label longer than a square may hold: refused before anything is sent, by its path.
    browser.type_into("#squares", &"x".repeat(201));
    browser.click("#open-button");
    browser.wait_for(
        "document.getElementById('open-message').textContent.includes('/pool/0/label')",
        "the schema's refusal, by its JSON path",
    );
    let refused = browser.text("#open-message");
    assert!(
        refused.contains("longer than 200"),
        "names the limit: {refused}"
    );
    // Three squares cannot fill a 3×3 card: the bingo service refuses the game.
    browser.eval(
        "document.getElementById('squares').value = arguments[0]",
        json!(["one\ntwo\nthree"]),
    );
    browser.click("#open-button");
    browser.wait_for(
        "document.getElementById('open-message').textContent.includes('Bingo refused the game')",
        "the service's refusal",
    );
    assert!(
        browser.text("#open-message").contains("pool holds only 3"),
        "{}",
        browser.text("#open-message")
    );
    browser.eval(
        "document.getElementById('squares').value = arguments[0]",
        json!([SQUARES]),
    );
    browser.click("#open-button");
    browser.wait_for("document.getElementById('opened-link')", "the game opened");
    browser.click("#opened-link");
    browser.wait_for(
        "document.body.classList.contains('bingo-game') && document.body.dataset.live === 'open'",
        "the game's page",
    );
    assert!(browser.text("#summary").contains("called squares"));
    // Markup in a label is text.
    assert_eq!(
        browser.eval(
            "return document.querySelectorAll('#pool b').length",
            json!([])
        ),
        0
    );
    assert!(browser.text("#pool").contains("<b>not bold</b>"));

    // Deal Alice a card.
    browser.type_into("#deal-player", "alice");
    browser.click("#deal-button");
    browser.wait_for(
        "document.getElementById('dealt-link')",
        "alice's card dealt",
    );
    let game_tab = browser.current();
    let card_path = browser
        .eval(
            "return document.getElementById('dealt-link').getAttribute('href')",
            json!([]),
        )
        .as_str()
        .unwrap()
        .to_string();
    assert!(card_path.starts_with("/bingo/friday/cards/"), "{card_path}");
    let card = view(&console, &card_path);
    let first_row: Vec<u64> = (0..3)
        .map(|cell| card["card"]["cells"][cell]["squareId"].as_u64().unwrap())
        .collect();

    // Alice's card in another tab, following live.
    browser.new_tab();
    browser.open(&format!("http://{console}{card_path}"));
    browser.wait_for("document.body.dataset.live === 'open'", "the card live");
    assert_eq!(
        browser.text("#ticked-count"),
        "1 of 9 ticked",
        "the free centre"
    );
    let card_tab = browser.current();

    // The organiser calls the three squares of her first row, by clicking them.
    browser.switch_to(&game_tab);
    for (n, square) in first_row.iter().enumerate() {
        browser.click(&format!("#pool .square[data-square='{square}']"));
        // The page says the call was answered, and lists it.
        let called = n + 1;
        browser.wait_for(
            &format!(
                "document.getElementById('call-message').textContent.startsWith('Called #{called}') && document.getElementById('called').querySelectorAll('li').length === {called}"
            ),
            "the call answered and in the called list",
        );
    }

    // Her card ticked them live, never reloaded.
    browser.switch_to(&card_tab);
    browser.wait_for(
        "document.getElementById('ticked-count').dataset.ticked === '4'",
        "the first row ticked on her card",
    );
    for cell in 0..3 {
        assert_eq!(
            browser.eval(
                "return document.querySelector(`#grid .cell[data-cell='${arguments[0]}']`).classList.contains('ticked')",
                json!([cell])
            ),
            true
        );
    }
    assert!(
        browser
            .eval(
                "return Number(document.body.dataset.updates || 0)",
                json!([])
            )
            .as_u64()
            .unwrap()
            >= 3,
        "the ticks came as live updates"
    );

    // Mallory's token cannot claim Alice's card; Alice's own claim wins.
    let mallory = player_token(&run.admin, "mallory");
    let alice = player_token(&run.admin, "alice");
    browser.type_into("#claim-token", &mallory);
    browser.click("#claim-button");
    browser.wait_for(
        "document.getElementById('claim-message').textContent.includes('may not claim')",
        "mallory refused",
    );
    assert!(
        browser
            .text("#claim-message")
            .contains("bingo-player-mallory")
    );
    browser.click("#forget-token");
    browser.type_into("#claim-token", &alice);
    browser.click("#claim-button");
    browser.wait_for(
        "document.getElementById('claim-message').textContent.includes('Bingo! Your card wins')",
        "alice's claim answered",
    );
    assert!(browser.text("#claim-message").contains("line, place 1"));
    browser.wait_for("document.getElementById('win')", "the win on her card");
    assert_eq!(
        browser.eval(
            "return document.querySelectorAll('#grid .cell.winning').length",
            json!([])
        ),
        3
    );
    // Her token stays in this tab only, never in the page's address or its markup.
    assert!(
        !browser
            .eval(
                "return location.href + document.documentElement.outerHTML",
                json!([])
            )
            .as_str()
            .unwrap()
            .contains(&alice)
    );

    // The organiser's page lists the winner and the claim, then prints a batch.
    browser.switch_to(&game_tab);
    browser.wait_for(
        "document.querySelectorAll('#winners li').length === 1",
        "the winner on the organiser's page",
    );
    assert!(browser.text("#winners").contains("alice"));
    assert!(browser.text("#claims").contains("wins with line"));
    browser.eval(
        "document.getElementById('print-count').value = '2'",
        json!([]),
    );
    browser.click("#print-button");
    browser.wait_for("document.getElementById('print-link')", "the batch printed");
    browser.click("#print-link");
    browser.wait_for(
        "document.querySelectorAll('#sheet .sheet-card').length === 2",
        "the printable sheet (this tab is the operator's)",
    );
    let label = browser.text("#sheet .sheet-card .print-label");
    assert_eq!(label.len(), 19, "{label}");
    // The label is the operator's: the public page and its frame never carry it.
    let public = http()
        .get(format!("http://{console}/bingo/friday/print"))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(!public.contains(&label));
}

#[test]
fn only_the_cards_player_or_the_operator_claims_it_through_the_console() {
    let data = tempfile::tempdir().unwrap();
    let run = run(data.path(), &["bingo", "console"], &[], &[]);
    let console = run.console.clone();
    open_game(&console, "rules");
    let (status, answer) = act(
        &console,
        "/bingo/rules/cards",
        TOKEN,
        json!({"player": "alice"}),
    );
    assert_eq!(status, 202, "{answer}");
    let game = view_when(&console, "/bingo/rules", "alice's card", |v| {
        v["game"]["players"][0]["serial"].is_u64()
    });
    let serial = game["game"]["players"][0]["serial"].as_u64().unwrap();
    let claim = format!("/bingo/rules/cards/{serial}/claim");

    let alice = player_token(&run.admin, "alice");
    let bob = player_token(&run.admin, "bob");
    // No token, an unknown one, another player's: refused before anything is sent.
    let response = http()
        .post(format!("http://{console}{claim}"))
        .send()
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
    assert_eq!(act(&console, &claim, "not-a-token", json!({})).0, 401);
    let (status, answer) = act(&console, &claim, &bob, json!({}));
    assert_eq!(status, 403, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("alice's"));
    // A player's token does nothing else through the console.
    for (path, body) in [
        ("/bingo/rules/calls", json!({"squareId": 1})),
        ("/bingo/rules/cards", json!({"player": "alice"})),
        ("/bingo/rules/close", json!({})),
    ] {
        let (status, answer) = act(&console, path, &alice, body);
        assert_eq!(status, 403, "{path}: {answer}");
    }
    let sheet = http()
        .get(format!("http://{console}/bingo/rules/sheet"))
        .bearer_auth(&alice)
        .send()
        .unwrap();
    assert_eq!(sheet.status().as_u16(), 403);
    // A page of another site cannot act, even with the token.
    let foreign = http()
        .post(format!("http://{console}{claim}"))
        .bearer_auth(&alice)
        .header("Origin", "http://evil.example")
        .send()
        .unwrap();
    assert_eq!(foreign.status().as_u16(), 403);

    // Alice's own claim and the operator's for her are answered (nothing called: no win).
    for token in [alice.as_str(), TOKEN] {
        let (status, answer) = act(&console, &claim, token, json!({}));
        assert_eq!(status, 202, "{answer}");
        let request = answer["requestId"].as_str().unwrap().to_string();
        let card = view_when(
            &console,
            &format!("/bingo/rules/cards/{serial}"),
            "the answer",
            |v| v["card"]["lastAnswer"]["requestId"] == request.as_str(),
        );
        assert_eq!(card["card"]["lastAnswer"]["pattern"], Value::Null);
        assert_eq!(card["card"]["lastAnswer"]["player"], "alice");
    }
    // Bad input is named.
    let (status, answer) = act(
        &console,
        "/bingo/rules/calls",
        TOKEN,
        json!({"squareId": "one"}),
    );
    assert_eq!(status, 400);
    assert!(
        answer["error"].as_str().unwrap().contains("/squareId"),
        "{answer}"
    );
    let (status, answer) = act(&console, "/bingo/rules/cards/0/claim", TOKEN, json!({}));
    assert_eq!(status, 404, "{answer}");
    let (status, answer) = act(&console, "/bingo/rules/cards/999/claim", TOKEN, json!({}));
    assert_eq!(status, 404);
    assert!(answer["error"].as_str().unwrap().contains("no card 999"));
}

#[test]
fn the_bingo_pages_are_the_same_after_a_kill_and_a_restart() {
    let data = tempfile::tempdir().unwrap();
    // Snapshots every 3 entries: a restart loads one and folds the log after it.
    let extra = ["--snapshot-every", "3"];
    let first = run(data.path(), &["bingo", "console"], &extra, &[]);
    let console = first.console.clone();
    let game = open_game(&console, "again");
    assert_eq!(game["game"]["pool"].as_array().map(Vec::len), Some(8));
    for player in ["alice", "bob"] {
        let (status, _) = act(
            &console,
            "/bingo/again/cards",
            TOKEN,
            json!({"player": player}),
        );
        assert_eq!(status, 202);
    }
    view_when(&console, "/bingo/again", "two cards", |v| {
        v["game"]["players"]
            .as_array()
            .is_some_and(|p| p.len() == 2)
    });
    for square in 1..=8 {
        let (status, _) = act(
            &console,
            "/bingo/again/calls",
            TOKEN,
            json!({"squareId": square}),
        );
        assert_eq!(status, 202);
    }
    let (status, _) = act(&console, "/bingo/again/cards/1/claim", TOKEN, json!({}));
    assert_eq!(status, 202);
    let (status, _) = act(&console, "/bingo/again/prints", TOKEN, json!({"count": 3}));
    assert_eq!(status, 202);
    let shown = view_when(&console, "/bingo/again", "the win and the batch", |v| {
        v["game"]["winners"]
            .as_array()
            .is_some_and(|w| w.len() == 1)
            && v["game"]["batches"]
                .as_array()
                .is_some_and(|b| b.len() == 1)
    });
    let paths = [
        "/bingo",
        "/bingo/again",
        "/bingo/again/cards/1",
        "/bingo/again/cards/2",
    ];
    let before: Vec<Value> = paths.iter().map(|p| view(&console, p)).collect();
    assert_eq!(before[1], shown);
    // SIGKILL: what the pages showed was durable, so they show it again.
    drop(first);
    let second = run(data.path(), &["bingo", "console"], &extra, &[]);
    let after: Vec<Value> = paths.iter().map(|p| view(&second.console, p)).collect();
    for ((path, before), after) in paths.iter().zip(&before).zip(&after) {
        assert_eq!(before, after, "{path} after a kill and a restart");
    }
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

fn ctl(args: &[&str]) {
    let done = rabbitmqctl(args);
    assert!(done.status.success(), "rabbitmqctl {args:?}: {done:?}");
}

/// A vhost of the test's own, and a broker user for the console in it with the permissions
/// `ops/rabbitmq/definitions.json` gives `console`; both deleted when the test ends.
struct Broker {
    vhost: String,
    user: String,
    /// The test broker's own user's URL for this vhost (the bingo service's connection).
    admin_url: String,
    /// The console user's URL.
    console_url: String,
}

impl Broker {
    fn new(url: &str) -> Broker {
        let tag = uuid::Uuid::new_v4().simple().to_string();
        let vhost = format!("arcade-console-bingo-{tag}");
        let user = format!("console-{tag}");
        let (authority, _) = url
            .rsplit_once('/')
            .filter(|(a, _)| a.contains('@'))
            .expect("ARCADE_AMQP_URL is amqp://user:pass@host:port/vhost");
        let (scheme, rest) = authority.split_once("://").unwrap();
        let (admin_user, _) = rest.split_once([':', '@']).unwrap();
        let (_, host) = rest.rsplit_once('@').unwrap();
        ctl(&["add_vhost", &vhost]);
        let password = format!("pw-{tag}");
        let broker = Broker {
            admin_url: format!("{authority}/{vhost}"),
            console_url: format!("{scheme}://{user}:{password}@{host}/{vhost}"),
            vhost,
            user,
        };
        ctl(&[
            "set_permissions",
            "-p",
            &broker.vhost,
            admin_user,
            ".*",
            ".*",
            ".*",
        ]);
        ctl(&["add_user", &broker.user, &password]);
        // The committed policy's permissions of `console`, for this user in this vhost.
        let definitions: Value =
            serde_json::from_str(include_str!("../../../ops/rabbitmq/definitions.json")).unwrap();
        let permissions = definitions["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["user"] == "console")
            .expect("definitions.json gives console permissions");
        let field = |p: &Value, name: &str| p[name].as_str().unwrap().to_string();
        ctl(&[
            "set_permissions",
            "-p",
            &broker.vhost,
            &broker.user,
            &field(permissions, "configure"),
            &field(permissions, "write"),
            &field(permissions, "read"),
        ]);
        for topic in definitions["topic_permissions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["user"] == "console")
        {
            ctl(&[
                "set_topic_permissions",
                "-p",
                &broker.vhost,
                &broker.user,
                &field(topic, "exchange"),
                &field(topic, "write"),
                &field(topic, "read"),
            ]);
        }
        broker
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = rabbitmqctl(&["delete_vhost", &self.vhost]);
        let _ = rabbitmqctl(&["delete_user", &self.user]);
    }
}

#[test]
fn on_rabbitmq_the_console_under_its_own_user_opens_deals_calls_and_claims() {
    let Some(url) = broker_url() else { return };
    let broker = Broker::new(&url);
    // Bingo (its own process) trusts the console's broker user as an operator principal, as
    // the default `operator,arcade-admin,console` does for the user named `console`.
    let operators = format!("operator,arcade-admin,{}", broker.user);
    let bingo_data = tempfile::tempdir().unwrap();
    let _bingo = run(
        bingo_data.path(),
        &["bingo"],
        &["--amqp", &broker.admin_url],
        &[("ARCADE_OPERATOR_PRINCIPALS", &operators)],
    );
    // The console's user may configure its own queue only: the shared exchanges are the
    // test's own user's (bingo's process declared them).
    let console_data = tempfile::tempdir().unwrap();
    let console_run = run(
        console_data.path(),
        &["console"],
        &["--amqp", &broker.console_url],
        &[],
    );
    let console = console_run.console.clone();
    open_game(&console, "rabbit");
    let (status, answer) = act(
        &console,
        "/bingo/rabbit/cards",
        TOKEN,
        json!({"player": "alice"}),
    );
    assert_eq!(status, 202, "{answer}");
    let game = view_when(&console, "/bingo/rabbit", "alice's card", |v| {
        v["game"]["players"][0]["serial"].is_u64()
    });
    let serial = game["game"]["players"][0]["serial"].as_u64().unwrap();
    let card_path = format!("/bingo/rabbit/cards/{serial}");
    let card = view(&console, &card_path);
    for cell in 0..3 {
        let square = card["card"]["cells"][cell]["squareId"].as_u64().unwrap();
        let (status, answer) = act(
            &console,
            "/bingo/rabbit/calls",
            TOKEN,
            json!({"squareId": square}),
        );
        assert_eq!(status, 202, "{answer}");
    }
    view_when(&console, &card_path, "the row ticked", |v| {
        v["card"]["ticked"] == 4
    });
    // The player's token is the console process's own principal (its admin endpoint issued it).
    let alice = player_token(&console_run.admin, "alice");
    let (status, answer) = act(&console, &format!("{card_path}/claim"), &alice, json!({}));
    assert_eq!(status, 202, "{answer}");
    let request = answer["requestId"].as_str().unwrap().to_string();
    let won = view_when(&console, &card_path, "the claim answered", |v| {
        v["card"]["lastAnswer"]["requestId"] == request.as_str()
    });
    assert_eq!(won["card"]["lastAnswer"]["pattern"], "line", "{won}");
    assert_eq!(won["card"]["win"]["place"], 1);
}

/// Writes the bingo pages at 390 and 1920 px wide into `docs/screenshots/` (or
/// `ARCADE_SCREENSHOTS`): `cargo test -p arcade --test console_bingo -- --ignored screenshots`.
#[test]
#[ignore = "writes docs/screenshots/: run it by hand after changing a page"]
fn screenshots() {
    let out = std::env::var_os("ARCADE_SCREENSHOTS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots"),
        std::path::PathBuf::from,
    );
    std::fs::create_dir_all(&out).unwrap();
    let data = tempfile::tempdir().unwrap();
    let run = run(data.path(), &["bingo", "console"], &[], &[]);
    let console = run.console.clone();
    let squares = "First goal of the night\nAn in-out\nA gamelle\nA tie-break\nA 10-0\nA rehearsal ball\nBoth locks shut\nA timeout\nA demi\nA pissette\nA reprise\nA goal from the keeper\nA goal in the last minute\nA goal by the left back\nA comeback from 0-5\nA table shaken\nA ball out of the table\nA 5-5 tie\nA goal by a newcomer\nThe referee's whistle\nA pause\nA side change\nA lucky bounce\nA foul called\nA high five";
    let (status, answer) = act(
        &console,
        "/bingo",
        TOKEN,
        json!({"gameId": "friday", "tickMode": "called", "size": 5, "squares": squares, "patterns": ["line", "fourCorners"]}),
    );
    assert_eq!(status, 202, "{answer}");
    view_when(&console, "/bingo/friday", "the game open", |v| {
        v["game"].is_object()
    });
    for player in ["alice", "bob", "zoé"] {
        let (status, _) = act(
            &console,
            "/bingo/friday/cards",
            TOKEN,
            json!({"player": player}),
        );
        assert_eq!(status, 202);
    }
    let game = view_when(&console, "/bingo/friday", "three cards", |v| {
        v["game"]["players"]
            .as_array()
            .is_some_and(|p| p.len() == 3)
    });
    let alice = game["game"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player"] == "alice")
        .unwrap()["serial"]
        .as_u64()
        .unwrap();
    let card_path = format!("/bingo/friday/cards/{alice}");
    let card = view(&console, &card_path);
    // Her first row, and two more squares.
    let mut calls: Vec<u64> = (0..5)
        .filter_map(|cell| card["card"]["cells"][cell]["squareId"].as_u64())
        .collect();
    for extra in [24, 25] {
        if !calls.contains(&extra) {
            calls.push(extra);
        }
    }
    for square in &calls {
        let (status, _) = act(
            &console,
            "/bingo/friday/calls",
            TOKEN,
            json!({"squareId": square}),
        );
        assert_eq!(status, 202);
    }
    view_when(&console, "/bingo/friday", "the calls", |v| {
        v["game"]["called"]
            .as_array()
            .is_some_and(|c| c.len() == calls.len())
    });
    let (status, _) = act(&console, &format!("{card_path}/claim"), TOKEN, json!({}));
    assert_eq!(status, 202);
    view_when(&console, &card_path, "her win", |v| {
        v["card"]["win"].is_object()
    });
    let (status, _) = act(&console, "/bingo/friday/prints", TOKEN, json!({"count": 4}));
    assert_eq!(status, 202);
    view_when(&console, "/bingo/friday", "the batch", |v| {
        v["game"]["batches"]
            .as_array()
            .is_some_and(|b| !b.is_empty())
    });
    // Bob's card, as he sees it (not won, not logged in: the claim with his token).
    let bob = game["game"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player"] == "bob")
        .unwrap()["serial"]
        .as_u64()
        .unwrap();
    let pages = [
        ("bingo-card", format!("/bingo/friday/cards/{bob}")),
        ("bingo", "/bingo".to_string()),
        ("bingo-game", "/bingo/friday".to_string()),
        ("bingo-print", "/bingo/friday/print".to_string()),
    ];
    for (width, height) in [(390, 844), (1920, 1080)] {
        let browser = Browser::start(width, height).expect("a browser for the screenshots");
        for (name, path) in &pages {
            browser.open(&format!("http://{console}{path}"));
            browser.wait_for("document.body.dataset.live === 'open'", "the page live");
            if *name != "bingo-card" {
                logged_in(&browser);
            }
            if *name == "bingo-print" {
                browser.wait_for(
                    "document.querySelectorAll('#sheet .sheet-card').length === 4",
                    "the sheet",
                );
            }
            let file = out.join(format!("{name}-{width}.png"));
            std::fs::write(&file, browser.screenshot()).unwrap();
            eprintln!("wrote {}", file.display());
        }
    }
}
