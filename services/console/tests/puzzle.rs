//! Strata Relay played on the console, through its HTTP routes on a real runtime (embedded
//! bus, sled stores): a new board from a seed and a stage, pulses, the refusals (bad seed or
//! stage, a pulse outside the board, on stone or an anchor, on a finished game, on an unknown
//! game), the session published once as `game.session.completed.v2` with its moves, and only
//! once across a restart; the charts folded from the telemetry's facts.

use std::sync::Arc;
use std::time::Duration;

use arcade_console::games::puzzle::charts::Charts;
use arcade_console::observed::Observed;
use arcade_console::{Gate, LiveLimits, Tokens};
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit;
use arcade_runtime::{Bus, Runtime, SubscriptionSpec};
use arcade_strata_relay::{Puzzle, Stage};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;

struct NoTokens;

impl Tokens for NoTokens {
    fn principal(&self, _token: &str) -> Option<String> {
        None
    }
}

const HOST: &str = "127.0.0.1:7880";

fn router(runtime: &Runtime, started: &arcade_console::Started) -> axum::Router {
    let gate = Gate::new(Arc::new(NoTokens), HOST.parse().unwrap(), &[], "nowhere");
    arcade_console::router(
        runtime,
        started.live.clone(),
        started.desk.clone(),
        Arc::new(gate),
        LiveLimits::default(),
        arcade_console::creations(arcade_console::NEW_GAMES_PER_MINUTE),
    )
}

async fn post(router: &axum::Router, path: &str, body: Value) -> (StatusCode, Value) {
    call(router, path, body, Some(HOST), None).await
}

async fn call(
    router: &axum::Router,
    path: &str,
    body: Value,
    host: Option<&str>,
    origin: Option<&str>,
) -> (StatusCode, Value) {
    let mut request = Request::post(path).header("content-type", "application/json");
    if let Some(host) = host {
        request = request.header("host", host);
    }
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    let response = router
        .clone()
        .oneshot(request.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

async fn get_json(router: &axum::Router, path: &str) -> (StatusCode, Value) {
    let request = Request::get(path)
        .header("accept", "application/json")
        .body(Body::empty())
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

fn error(answer: &Value) -> &str {
    answer["error"].as_str().unwrap_or_default()
}

/// The next session on `spy` within a generous deadline, acked: (message id, payload).
async fn next_session(spy: &mut Box<dyn Consumer>) -> Option<(String, Value)> {
    let delivery = tokio::time::timeout(Duration::from_secs(30), spy.next())
        .await
        .ok()?
        .ok()?;
    let id = delivery.message.message_id.clone().unwrap_or_default();
    let body: Value = serde_json::from_slice(&delivery.message.body).unwrap();
    delivery.ack().await.unwrap();
    Some((id, body))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_is_played_to_a_win_refusals_name_what_is_wrong_and_the_session_goes_out_once() {
    let dir = tempfile::tempdir().unwrap();
    let bus = EmbeddedBus::open(&dir.path().join("bus")).unwrap();
    let runtime = testkit::runtime(Arc::new(bus.clone()), dir.path());
    let mut spy = bus
        .subscribe(&SubscriptionSpec::durable(
            "spy",
            vec!["game.session.completed.v2".into()],
        ))
        .await
        .unwrap();
    let mut others = bus
        .subscribe(&SubscriptionSpec::durable(
            "others",
            vec!["console.#".into()],
        ))
        .await
        .unwrap();
    let started = arcade_console::start(&runtime).unwrap();
    let app = router(&runtime, &started);

    // Bad requests: each names its field.
    let (status, answer) = post(&app, "/puzzle/play", json!({"seed": "abc", "stage": 1})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        error(&answer).contains("/seed") && error(&answer).contains("\"abc\""),
        "{answer}"
    );
    let (status, answer) = post(&app, "/puzzle/play", json!({"seed": 7, "stage": 9})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        error(&answer).contains("/stage: 9 is out of range"),
        "{answer}"
    );
    let (status, answer) = post(&app, "/puzzle/play", json!({"seed": 7})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error(&answer).contains("/stage"), "{answer}");
    let (status, answer) = post(&app, "/puzzle/play", json!({"seed": 1.5, "stage": 1})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        error(&answer).contains("/seed: 1.5 is not an integer"),
        "{answer}"
    );
    // Another site's page may not play here.
    let (status, _) = call(
        &app,
        "/puzzle/play",
        json!({"stage": 1}),
        Some(HOST),
        Some("http://evil.example"),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // A random seed, chosen by the server.
    let (status, random) = post(&app, "/puzzle/play", json!({"seed": "", "stage": "2"})).await;
    assert_eq!(status, StatusCode::CREATED, "{random}");
    assert!(random["seed"].as_i64().unwrap() >= 1);

    // A chosen board, played to a win by its witness.
    let seed = 421_337;
    let puzzle = Puzzle::generate(seed, Stage::new(3).unwrap()).unwrap();
    let (status, game) = post(&app, "/puzzle/play", json!({"seed": seed, "stage": 3})).await;
    assert_eq!(status, StatusCode::CREATED, "{game}");
    let path = game["path"].as_str().unwrap().to_string();
    let game_id = game["gameId"].as_str().unwrap().to_string();
    let pulses = format!("{path}/pulses");

    // Refused pulses change nothing.
    let (status, answer) = post(&app, &pulses, json!({"x": 5, "y": 0})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        error(&answer).contains("[5, 0] is outside the board"),
        "{answer}"
    );
    let source = puzzle.start().source();
    let (status, answer) = post(&app, &pulses, json!({"x": source.x, "y": source.y})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error(&answer).contains("stone or an anchor"), "{answer}");
    let (status, answer) = post(&app, &pulses, json!({"x": 1})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error(&answer).contains("/y"), "{answer}");
    let (status, answer) = post(&app, "/puzzle/play/nope/pulses", json!({"x": 1, "y": 1})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(error(&answer).contains("no game \"nope\""), "{answer}");

    let witness: Vec<_> = puzzle.witness().collect();
    let mut last = Value::Null;
    for (i, cell) in witness.iter().enumerate() {
        let (status, answer) = post(&app, &pulses, json!({"x": cell.x, "y": cell.y})).await;
        assert_eq!(status, StatusCode::OK, "pulse {i}: {answer}");
        let board = &answer["game"];
        assert_eq!(board["moves"].as_array().unwrap().len(), i + 1);
        assert_eq!(
            board["movesLeft"],
            json!(puzzle.move_limit() as usize - i - 1)
        );
        last = board.clone();
    }
    assert_eq!(last["status"], "won");
    let charged = last["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["charged"] == true)
        .count();
    assert_eq!(charged, puzzle.path().len(), "the path is charged: {last}");

    // A pulse on a finished game: 409, saying so.
    let first = witness[0];
    let (status, answer) = post(&app, &pulses, json!({"x": first.x, "y": first.y})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(error(&answer).contains("is over (won)"), "{answer}");

    // The session went out once, with its moves.
    let (id, session) = next_session(&mut spy).await.expect("the session published");
    assert_eq!(session["gameId"], game_id.as_str());
    assert_eq!(session["outcome"], "won");
    assert_eq!(session["seed"], seed);
    assert_eq!(session["stage"], 3);
    let moves: Vec<Value> = witness.iter().map(|c| json!([c.x, c.y])).collect();
    assert_eq!(session["moves"], Value::Array(moves));
    assert_eq!(session["turns"], witness.len());
    // The board page shows it won and sent.
    let (status, frame) = get_json(&app, &path).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(frame["view"]["status"], "won");
    assert_eq!(frame["view"]["published"], true);
    let (status, _) = get_json(&app, "/puzzle/play/unknown-game").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Nothing else of the console's went out.
    assert!(
        tokio::time::timeout(Duration::from_millis(500), others.next())
            .await
            .is_err(),
        "the console's own records stay in its log"
    );

    // A restart republishes nothing: the relay's cursor is past the session.
    started.handle.stop(Duration::from_secs(5)).await.unwrap();
    let again = arcade_console::start(&runtime).unwrap();
    again.live.resumed().await;
    let app = router(&runtime, &again);
    let (_, frame) = get_json(&app, &path).await;
    assert_eq!(
        frame["view"]["status"], "won",
        "the game rebuilt from the log"
    );
    let (status, _) = post(&app, &pulses, json!({"x": first.x, "y": first.y})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    if let Ok(Ok(d)) = tokio::time::timeout(Duration::from_secs(2), spy.next()).await {
        let body = String::from_utf8_lossy(&d.message.body).to_string();
        panic!("published again after the restart: {body} (first: {id})");
    }
    again.handle.stop(Duration::from_secs(5)).await.unwrap();
}

/// A session finished just before the console stops, its relay given no time: it goes out
/// after the restart if it had not, never under a second id, never twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_finished_as_the_console_stops_goes_out_once_across_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let bus = EmbeddedBus::open(&dir.path().join("bus")).unwrap();
    let runtime = testkit::runtime(Arc::new(bus.clone()), dir.path());
    let mut spy = bus
        .subscribe(&SubscriptionSpec::durable(
            "spy",
            vec!["game.session.completed.v2".into()],
        ))
        .await
        .unwrap();
    let mut ids = Vec::new();
    for round in 0..3 {
        let started = arcade_console::start(&runtime).unwrap();
        started.live.resumed().await;
        let app = router(&runtime, &started);
        let seed = 1_000 + round;
        let puzzle = Puzzle::generate(seed, Stage::new(1).unwrap()).unwrap();
        let (status, game) = post(&app, "/puzzle/play", json!({"seed": seed, "stage": 1})).await;
        assert_eq!(status, StatusCode::CREATED, "{game}");
        let pulses = format!("{}/pulses", game["path"].as_str().unwrap());
        for cell in puzzle.witness() {
            let (status, answer) = post(&app, &pulses, json!({"x": cell.x, "y": cell.y})).await;
            assert_eq!(status, StatusCode::OK, "{answer}");
        }
        ids.push(game["gameId"].as_str().unwrap().to_string());
        // Stopped at once: the relay gets no time to publish.
        started.handle.stop(Duration::ZERO).await.unwrap();
    }
    // The last start publishes whatever the earlier ones left.
    let last = arcade_console::start(&runtime).unwrap();
    // Every delivery until the bus is quiet: a session the relay had handed to the bus but
    // whose confirm it had not recorded goes out again, under the same message id (consumers
    // deduplicate by it); never under another.
    let mut seen: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    let mut deliveries = 0;
    while seen.len() < ids.len() {
        let (id, body) = next_session(&mut spy)
            .await
            .unwrap_or_else(|| panic!("only {seen:?} of {ids:?} published"));
        deliveries += 1;
        seen.entry(body["gameId"].as_str().unwrap().to_string())
            .or_default()
            .insert(id);
    }
    while let Ok(Ok(d)) = tokio::time::timeout(Duration::from_secs(2), spy.next()).await {
        let body: Value = serde_json::from_slice(&d.message.body).unwrap();
        deliveries += 1;
        seen.entry(body["gameId"].as_str().unwrap().to_string())
            .or_default()
            .insert(d.message.message_id.clone().unwrap_or_default());
        d.ack().await.unwrap();
    }
    let mut expected = ids.clone();
    expected.sort();
    assert_eq!(
        seen.keys().cloned().collect::<Vec<_>>(),
        expected,
        "every session went out"
    );
    for (game, ids) in &seen {
        assert_eq!(
            ids.len(),
            1,
            "{game} went out under one message id: {ids:?}"
        );
    }
    assert!(deliveries <= 2 * expected.len(), "{deliveries} deliveries");
    last.handle.stop(Duration::from_secs(5)).await.unwrap();
}

fn observed(message_type: &str, payload: Value) -> Observed {
    Observed {
        message_id: uuid::Uuid::now_v7().to_string(),
        message_type: message_type.into(),
        producer: "puzzle-telemetry".into(),
        occurred_at: String::new(),
        seen_at_ms: 0,
        payload,
    }
}

fn recorded(game: &str, stage: u8, won: bool, at_ms: u64) -> Observed {
    observed(
        "puzzle.session.recorded.v1",
        json!({"gameId": game, "seed": 1, "stage": stage, "outcome": if won {"won"} else {"failed"},
               "turns": 2, "moveLimit": stage * 2, "durationMs": 1000, "recordedAtMs": at_ms,
               "verified": true, "sourceVersion": 2}),
    )
}

#[test]
fn the_trends_count_sessions_and_wins_per_stage_per_hour_and_per_day_within_their_windows() {
    let hour = 3_600_000u64;
    let day = 24 * hour;
    let t0 = 100 * day + 5 * hour + 10;
    let mut charts = Charts::default();
    assert!(charts.apply(&recorded("a", 1, true, t0)));
    assert!(charts.apply(&recorded("b", 1, false, t0 + 60_000)));
    assert!(charts.apply(&recorded("c", 3, true, t0 + hour)));
    assert!(charts.apply(&observed(
        "puzzle.session.flagged.v1",
        json!({"gameId": "d", "reason": "turnsAboveLimit", "detail": "14 turns", "seed": 1,
               "stage": 1, "outcome": "failed", "turns": 14, "durationMs": 1, "flaggedAtMs": t0}),
    )));
    assert!(!charts.apply(&observed("puzzle.session.recorded.v1", json!({"bad": 1}))));
    let view = charts.view();
    let hours = view["hours"].as_array().unwrap();
    assert_eq!(hours.len(), 2);
    assert_eq!(hours[0]["startMs"], t0 - 10);
    assert_eq!(hours[0]["stages"][0], json!([2, 1, 1]));
    assert_eq!(hours[1]["stages"][2], json!([1, 1, 0]));
    let days = view["days"].as_array().unwrap();
    assert_eq!(days.len(), 1);
    assert_eq!(days[0]["startMs"], 100 * day);
    assert_eq!(days[0]["stages"][0], json!([2, 1, 1]));
    assert_eq!(
        view["recent"][0]["gameId"], "d",
        "newest first, as they came"
    );
    assert_eq!(view["recent"][0]["flagged"], "turnsAboveLimit");

    // Three days later: the hours of the first day fall out of the 48 h kept; the days stay.
    assert!(charts.apply(&recorded("e", 2, true, t0 + 3 * day)));
    let view = charts.view();
    assert_eq!(view["hours"].as_array().unwrap().len(), 1);
    assert_eq!(view["days"].as_array().unwrap().len(), 2);
    // A session older than the hours kept counts in its day only.
    assert!(charts.apply(&recorded("f", 2, false, t0)));
    let view = charts.view();
    assert_eq!(view["hours"].as_array().unwrap().len(), 1);
    assert_eq!(view["days"][0]["stages"][1], json!([1, 0, 0]));
}
