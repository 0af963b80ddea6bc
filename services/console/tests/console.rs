//! The console service on a real runtime (embedded bus, sled stores): what it folds and
//! shows, that its log stays its own (nothing published), that a restart from its snapshot and
//! log gives the same read model, and what a live client may cost (the latest view, a slow
//! client dropped, every stream ended at shutdown).

use std::sync::Arc;
use std::time::Duration;

use arcade_console::games::tables::pages::table_view;
use arcade_console::games::tables::projection::{LAST_GOALS, Tables};
use arcade_console::live::{self, LiveLimits};
use arcade_console::observed::Observed;
use arcade_console::projection::Projections;
use arcade_console::{ConsoleService, Live};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit;
use arcade_runtime::{Bus, HostConfig, Runtime, Service, SnapshotPolicy, SubscriptionSpec};
use axum::response::IntoResponse;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn observed(message_type: &str, payload: Value, n: u64) -> Observed {
    Observed {
        message_id: format!("m-{n}"),
        message_type: message_type.into(),
        producer: "referee.t1".into(),
        occurred_at: "2026-12-02T19:30:00.000Z".into(),
        seen_at_ms: 1_000 + n,
        payload,
    }
}

fn started(game: &str) -> (String, Value) {
    (
        "table.game.started.v1".into(),
        json!({"tableId": "t1", "gameId": game, "rules": {"timeout_s": 900}, "startedAtMs": 5_000,
               "score": {"hinge": 0, "lock": 0},
               "rulesText": ["default: wins with 5 or more", "timeout after 900 s: wins with anything"]}),
    )
}

fn goal(game: &str, ball: u64, hinge: u64, lock: u64) -> (String, Value) {
    (
        "table.goal.scored.v1".into(),
        json!({"tableId": "t1", "gameId": game, "side": if ball % 2 == 1 { "hinge" } else { "lock" },
               "kind": "goal", "counted": true, "score": {"hinge": hinge, "lock": lock},
               "phase": "default", "ball": ball, "clockMs": ball * 1_000}),
    )
}

/// A game: started, `goals` goals, a lock change, finished, then a refused start.
fn game_events(goals: u64) -> Vec<(String, Value)> {
    let mut events = vec![started("g-1")];
    let (mut hinge, mut lock) = (0, 0);
    for ball in 1..=goals {
        if ball % 2 == 1 {
            hinge += 1;
        } else {
            lock += 1;
        }
        events.push(goal("g-1", ball, hinge, lock));
    }
    events.push((
        "table.ibr.changed.v1".into(),
        json!({"tableId": "t1", "gameId": "g-1", "hinge": "locked", "lock": "released"}),
    ));
    events.push((
        "table.game.finished.v1".into(),
        json!({"tableId": "t1", "gameId": "g-1", "winner": "hinge",
               "score": {"hinge": hinge, "lock": lock}, "phase": "default",
               "durationMs": 61_000, "reason": "win"}),
    ));
    events.push((
        "table.game.rejected.v1".into(),
        json!({"tableId": "t1", "gameId": "g-2",
               "error": "invalid rules: conditions.default.win_rule.$gte: unknown operator \"$gte\""}),
    ));
    events
}

#[test]
fn the_tables_projection_keeps_score_phase_locks_the_last_goals_and_the_refusal() {
    let mut state = Projections::default();
    for (n, (message_type, payload)) in game_events(13).into_iter().enumerate() {
        state.apply(&observed(&message_type, payload, n as u64));
    }
    let tables = state.get::<Tables>().unwrap();
    let view = table_view(tables, "t1");
    let game = &view["table"]["game"];
    assert_eq!(game["score"], json!({"hinge": 7, "lock": 6}));
    assert_eq!(game["balls"], 13);
    assert_eq!(game["startedAtMs"], 5_000);
    assert_eq!(game["timeoutS"], 900);
    assert_eq!(
        game["rulesText"],
        json!([
            "default: wins with 5 or more",
            "timeout after 900 s: wins with anything"
        ]),
        "the rules in the referee's words, for the table page"
    );
    assert_eq!(game["ibr"], json!({"hinge": "locked", "lock": "released"}));
    assert_eq!(game["finished"]["winner"], "hinge");
    let goals = game["goals"].as_array().unwrap();
    assert_eq!(goals.len(), LAST_GOALS, "only the last goals are kept");
    assert_eq!(goals[0]["ball"], 13, "newest first");
    assert_eq!(view["table"]["gamesFinished"], 1);
    assert!(
        view["table"]["lastRejection"]["error"]
            .as_str()
            .unwrap()
            .contains("conditions.default.win_rule.$gte"),
        "the refusal keeps the rules' JSON path: {view}"
    );
    // A table nobody saw: its view says so, it is not invented.
    assert_eq!(table_view(tables, "t9")["table"], Value::Null);
}

#[test]
fn a_snapshot_gives_back_the_same_projections_and_refuses_what_it_lacks() {
    let mut state = Projections::default();
    for (n, (message_type, payload)) in game_events(4).into_iter().enumerate() {
        state.apply(&observed(&message_type, payload, n as u64));
    }
    let restored = Projections::decode(&state.encode().unwrap()).unwrap();
    let view = |p: &Projections| table_view(p.get::<Tables>().unwrap(), "t1");
    assert_eq!(view(&restored), view(&state));
    assert_eq!(restored.events(), state.events());
    let error = Projections::decode(b"not a frame").unwrap_err();
    assert!(!error.is_empty());
}

async fn open_runtime(dir: &std::path::Path, bus: &str, every: u64) -> (EmbeddedBus, Runtime) {
    let bus = EmbeddedBus::open(&dir.join(bus)).unwrap();
    let runtime = testkit::runtime(Arc::new(bus.clone()), dir).with_config(HostConfig {
        snapshots: SnapshotPolicy {
            every,
            interval: None,
        },
        ..HostConfig::default()
    });
    (bus, runtime)
}

/// Waits until the live read model has folded `events` events (a safety-net deadline).
async fn folded(live: &Live, events: u64) {
    let mut changes = live.changes();
    tokio::time::timeout(Duration::from_secs(60), async {
        while live.read(Projections::events) < events {
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("every event folded within 60 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_publishes_nothing_and_rebuilds_the_same_tables_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let events = game_events(5);
    let view = |live: &Live| live.read(|p| table_view(p.get::<Tables>().unwrap(), "t1"));

    let (bus, runtime) = open_runtime(dir.path(), "bus", 4).await;
    // Everything on the bus, to see that the console's own records never go out.
    let mut everything = bus
        .subscribe(&SubscriptionSpec::durable("spy", vec!["#".into()]))
        .await
        .unwrap();
    let started = arcade_console::start(&runtime).unwrap();
    for (message_type, payload) in &events {
        runtime
            .send(message_type, payload.clone(), "referee.t1")
            .await
            .unwrap();
    }
    folded(&started.live, events.len() as u64).await;
    let before = view(&started.live);
    assert_eq!(
        before["table"]["game"]["score"],
        json!({"hinge": 3, "lock": 2})
    );
    started.handle.stop(Duration::from_secs(5)).await.unwrap();
    let counters = runtime.metrics().service("console");
    assert_eq!(
        counters.relay_backlog(),
        0,
        "no backlog: nothing to publish"
    );
    for _ in 0..events.len() {
        let delivery = tokio::time::timeout(Duration::from_secs(10), everything.next())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(delivery.message.app_id.as_deref(), Some("referee.t1"));
        delivery.ack().await.unwrap();
    }
    assert!(
        tokio::time::timeout(Duration::from_millis(300), everything.next())
            .await
            .is_err(),
        "the console published nothing of its own"
    );
    drop(everything);
    bus.close().await.unwrap();
    drop(runtime);

    // Restarted on the same console store (a bus of its own: the first one's store stays
    // held by this process): a snapshot (every 4 entries) and the log after it.
    let (bus, runtime) = open_runtime(dir.path(), "bus-2", 4).await;
    let again = arcade_console::start(&runtime).unwrap();
    again.live.resumed().await;
    assert_eq!(view(&again.live), before);
    assert_eq!(again.live.read(Projections::events), events.len() as u64);
    again.handle.stop(Duration::from_secs(5)).await.unwrap();
    bus.close().await.unwrap();
    assert_eq!(ConsoleService::default().spec().queue, "console");
}

/// The frames a live response sends, as JSON, until it ends or `limit` frames came.
async fn frames(body: axum::body::Body, limit: usize) -> (Vec<Value>, bool) {
    let mut stream = body.into_data_stream();
    let mut frames = Vec::new();
    let mut text = String::new();
    while frames.len() < limit {
        match stream.next().await {
            Some(Ok(bytes)) => {
                text.push_str(&String::from_utf8_lossy(&bytes));
                while let Some(end) = text.find("\n\n") {
                    let block: String = text.drain(..end + 2).collect();
                    if let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) {
                        frames.push(serde_json::from_str(data).unwrap());
                    }
                }
            }
            Some(Err(e)) => panic!("{e}"),
            None => return (frames, true),
        }
    }
    (frames, false)
}

fn services_seen(p: &Projections) -> Option<Value> {
    Some(json!({ "events": p.events() }))
}

#[tokio::test(start_paused = true)]
async fn a_live_client_that_stops_reading_is_dropped_and_never_costs_more_than_its_buffer() {
    let live = Live::default();
    let limits = LiveLimits {
        buffer: 1,
        stall: Duration::from_secs(1),
        min_interval: Duration::ZERO,
    };
    let response = live::stream(
        live.clone(),
        Arc::new(services_seen),
        || 0,
        limits,
        CancellationToken::new(),
    )
    .into_response();
    // The client reads nothing while 50 events change the view.
    for n in 0..50 {
        live.apply(&observed("table.game.started.v1", started("g").1, n));
        tokio::task::yield_now().await;
    }
    // Past the stall (virtual time: the clock is paused and jumps when everything waits).
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (frames, ended) =
        tokio::time::timeout(Duration::from_secs(60), frames(response.into_body(), 100))
            .await
            .expect("the stalled client was dropped: its stream ended (not still open)");
    assert!(ended, "the stalled client was dropped: its stream ended");
    assert!(
        frames.len() <= limits.buffer + 1,
        "at most its buffer was held for it: {} frames",
        frames.len()
    );
}

#[tokio::test(start_paused = true)]
async fn a_reading_client_gets_the_latest_view_and_every_stream_ends_at_shutdown() {
    let live = Live::default();
    let stop = CancellationToken::new();
    let response = live::stream(
        live.clone(),
        Arc::new(services_seen),
        || 7,
        LiveLimits::default(),
        stop.clone(),
    )
    .into_response();
    let mut body = response.into_body().into_data_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("\"events\":0"));
    for n in 0..20 {
        live.apply(&observed("table.game.started.v1", started("g").1, n));
    }
    // Coalesced: the next frame is the latest view, not the first of 20 stale ones.
    let next = body.next().await.unwrap().unwrap();
    let text = String::from_utf8_lossy(&next);
    assert!(text.contains("\"events\":20"), "{text}");
    assert!(text.contains("\"nowMs\":7"), "{text}");
    stop.cancel();
    let end = tokio::time::timeout(Duration::from_secs(10), body.next())
        .await
        .expect("the stream ends when the process stops");
    assert!(end.is_none());
}
