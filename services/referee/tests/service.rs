//! The referee as a running service on a `Runtime` over the embedded bus: commands in, the
//! `table.*` events out, the ball locks set after the log holds their decision, restart from
//! the same data dir, duplicates, dead letters, the game clock under paused time, and a whole
//! game refereed while the broker is away; the edge binary's table-only catalog.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arcade_contracts::{Catalog, Envelope};
use arcade_referee::service::{self, Input, RefereeService};
use arcade_referee::settings::parse_balls;
use arcade_referee::table::{SharedTable, SimulatedTable};
use arcade_referee::{IbrLock, Side};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::bus::{Consumer, SubscriptionSpec};
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::wire::HEADER_DEAD_REASON;
use arcade_runtime::{
    Bus, BusError, Clock, Destination, HostHandle, Publication, Published, Runtime, WireMessage,
};
use async_trait::async_trait;
use serde_json::{Value, json};

const TABLE: &str = "t1";
const QUEUE: &str = "referee.t1";
const POLL: Duration = Duration::from_millis(5);
const PATIENCE: Duration = Duration::from_secs(60);
/// 2026-11-29T12:00:00Z: the clock the tests run on.
const T0: u64 = 1_795_953_600_000;

type Table = SharedTable<SimulatedTable>;

fn bar_rules() -> Value {
    serde_json::from_str(include_str!("../examples/bar.rules.json")).unwrap()
}

fn runtime(bus: Arc<dyn Bus>, dir: &std::path::Path) -> Runtime {
    arcade_runtime::testkit::runtime(bus, dir).with_clock(Clock::starting_at(T0))
}

fn open_bus(dir: &std::path::Path) -> Arc<EmbeddedBus> {
    Arc::new(EmbeddedBus::open(&dir.join("bus")).unwrap())
}

fn start_referee(runtime: &Runtime, table: &Table) -> HostHandle<RefereeService<Table>> {
    service::start(
        runtime,
        TABLE,
        table.clone(),
        table.clone(),
        POLL,
        arcade_referee::display::DisplayPlan::none(),
    )
    .unwrap()
}

fn scripted(script: &str) -> Table {
    SharedTable::new(SimulatedTable::scripted(parse_balls(script).unwrap()))
}

/// A temporary subscription to every `table.*` event.
struct Tap(Box<dyn Consumer>);

impl Tap {
    async fn open(bus: &dyn Bus) -> Tap {
        Tap(bus
            .subscribe(&SubscriptionSpec::temporary(
                format!("tap.{}", uuid()),
                vec!["table.#".into()],
            ))
            .await
            .unwrap())
    }

    async fn next(&mut self) -> Envelope {
        let delivery = tokio::time::timeout(PATIENCE, self.0.next())
            .await
            .expect("an event within the patience")
            .unwrap();
        let envelope = lossy_envelope(&delivery.message);
        delivery.ack().await.unwrap();
        envelope
    }

    /// The next message, with no timer (for tests on paused time).
    async fn next_untimed(&mut self) -> Envelope {
        let delivery = self.0.next().await.unwrap();
        let envelope = lossy_envelope(&delivery.message);
        delivery.ack().await.unwrap();
        envelope
    }

    /// Events until (and including) the first of `message_type`.
    async fn until(&mut self, message_type: &str) -> Vec<Envelope> {
        let mut seen = Vec::new();
        loop {
            let envelope = self.next().await;
            let done = envelope.message_type == message_type;
            seen.push(envelope);
            if done {
                return seen;
            }
        }
    }
}

fn uuid() -> String {
    format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

fn types(events: &[Envelope]) -> Vec<&str> {
    events.iter().map(|e| e.message_type.as_str()).collect()
}

fn of_type<'e>(events: &'e [Envelope], message_type: &str) -> Vec<&'e Value> {
    events
        .iter()
        .filter(|e| e.message_type == message_type)
        .map(|e| &e.payload)
        .collect()
}

fn locks(events: &[Envelope]) -> Vec<(String, String)> {
    of_type(events, "table.ibr.changed.v1")
        .into_iter()
        .map(|p| {
            (
                p["hinge"].as_str().unwrap().to_string(),
                p["lock"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn start_command(game: &str, rules: Value) -> Value {
    json!({"tableId": TABLE, "gameId": game, "rules": rules,
           "players": {"hinge": ["alice"], "lock": ["bob"]}})
}

fn report(game: &str, side: &str) -> Value {
    json!({"tableId": TABLE, "gameId": game, "side": side, "kind": "goal"})
}

fn wire(message_type: &str, id: &str, body: &[u8]) -> Publication {
    Publication {
        destination: Destination::Queue(QUEUE.into()),
        message: WireMessage {
            message_type: Some(message_type.into()),
            message_id: Some(id.into()),
            body: body.to_vec(),
            ..Default::default()
        },
    }
}

/// The source's worked example on the bar rules: 4–3 (hinge locked, lock released), 4–4, a
/// hinge goal at 4–4 opens the tie-break at 5–4, and 6–4 wins it.
const BAR_GAME: &str = "hinge,lock,hinge,lock,hinge,lock,hinge,lock:inout,hinge,hinge";

#[tokio::test]
async fn a_game_on_a_simulated_table_is_refereed_and_its_locks_follow_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let bus = open_bus(dir.path());
    let runtime = runtime(bus.clone(), dir.path());
    let table = scripted(BAR_GAME);
    let referee = start_referee(&runtime, &table);
    let mut tap = Tap::open(bus.as_ref()).await;
    // Balls before a game are not read: the script waits for the game to start.
    tokio::time::sleep(POLL * 10).await;
    runtime
        .send(
            "table.game.start.v1",
            start_command("g1", bar_rules()),
            "test",
        )
        .await
        .unwrap();
    let events = tap.until("table.game.finished.v1").await;

    let started = &events[0];
    assert_eq!(started.message_type, "table.game.started.v1");
    assert_eq!(started.producer, QUEUE);
    assert_eq!(started.payload["score"], json!({"hinge": 0, "lock": 0}));
    assert_eq!(started.payload["players"]["hinge"], json!(["alice"]));
    let goals = of_type(&events, "table.goal.scored.v1");
    assert_eq!(goals.len(), 10, "every scripted ball: {:?}", types(&events));
    let scores: Vec<(u64, u64)> = goals
        .iter()
        .map(|g| {
            (
                g["score"]["hinge"].as_u64().unwrap(),
                g["score"]["lock"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        scores,
        vec![
            (1, 0),
            (1, 1),
            (2, 1),
            (2, 2),
            (3, 2),
            (3, 3),
            (4, 3),
            (4, 4),
            (5, 4),
            (6, 4)
        ]
    );
    assert_eq!(goals[7]["kind"], "inout");
    assert_eq!(goals[8]["phase"], "default", "the ball that opened it");
    assert_eq!(goals[9]["phase"], "tie_break");
    let phases = of_type(&events, "table.phase.changed.v1");
    assert_eq!(phases.len(), 1);
    assert_eq!(phases[0]["from"], "default");
    assert_eq!(phases[0]["to"], "tie_break");
    assert_eq!(phases[0]["score"], json!({"hinge": 5, "lock": 4}));

    // Published only when they change: released at the start, hinge locked at 4–3 (its next
    // goal wins), released at 4–4, hinge locked at 5–4 in the tie-break, both locked at the end.
    let decided = locks(&events);
    let pair = |h: &str, l: &str| (h.to_string(), l.to_string());
    assert_eq!(
        decided,
        vec![
            pair("released", "released"),
            pair("locked", "released"),
            pair("released", "released"),
            pair("locked", "released"),
            pair("locked", "locked"),
        ]
    );
    let position = |ty: &str, n: usize| {
        events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.message_type == ty)
            .nth(n)
            .map(|(i, _)| i)
            .unwrap()
    };
    assert!(position("table.ibr.changed.v1", 1) > position("table.goal.scored.v1", 6));
    assert!(position("table.ibr.changed.v1", 1) < position("table.goal.scored.v1", 7));

    let finished = &events.last().unwrap().payload;
    assert_eq!(finished["winner"], "hinge");
    assert_eq!(finished["score"], json!({"hinge": 6, "lock": 4}));
    assert_eq!(finished["phase"], "tie_break");
    assert_eq!(finished["reason"], "win");
    // One flow: every event carries the start command's correlation id.
    assert!(
        events
            .iter()
            .all(|e| e.correlation_id == started.correlation_id)
    );

    // The table's locks received every decision, in order, hinge first.
    referee.wait_for_events(events.len() as u64).await;
    let host = referee.stop(Duration::from_secs(5)).await.unwrap();
    let written: Vec<(Side, IbrLock)> = table.lock().writes().to_vec();
    let expected: Vec<(Side, IbrLock)> = decided
        .iter()
        .flat_map(|(h, l)| [(Side::Hinge, lock_of(h)), (Side::Lock, lock_of(l))])
        .collect();
    assert_eq!(written, expected);
    assert_eq!(table.lock().lock(Side::Hinge), Some(IbrLock::Locked));
    assert!(!host.state().game().unwrap().in_progress());
}

/// The edge binary (`arcade-referee`) runs on a catalog of the table's types only: that is
/// enough for a whole game, and another domain's message is refused at the boundary as unknown.
#[tokio::test]
async fn the_tables_own_message_types_are_enough_to_referee_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let bus = open_bus(dir.path());
    let catalog = Catalog::from_types(arcade_contracts::table::types());
    let runtime = Runtime::new_with_catalog(bus.clone(), catalog)
        .with_data_dir(dir.path())
        .with_clock(Clock::starting_at(T0));
    let table = scripted(BAR_GAME);
    let referee = start_referee(&runtime, &table);
    let mut tap = Tap::open(bus.as_ref()).await;
    runtime
        .send(
            "table.game.start.v1",
            start_command("g1", bar_rules()),
            "test",
        )
        .await
        .unwrap();
    let events = tap.until("table.game.finished.v1").await;
    assert_eq!(of_type(&events, "table.goal.scored.v1").len(), 10);
    let finished = &events.last().unwrap().payload;
    assert_eq!(finished["winner"], "hinge");
    assert_eq!(finished["score"], json!({"hinge": 6, "lock": 4}));

    let refused = runtime
        .send("game.session.completed.v1", json!({}), "test")
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("unknown message type"),
        "{refused}"
    );
    bus.publish(&[wire("game.session.completed.v1", "other-1", b"{}")])
        .await
        .unwrap();
    tokio::time::timeout(PATIENCE, async {
        while bus.dead_letters().is_empty() {
            tokio::time::sleep(POLL).await;
        }
    })
    .await
    .expect("a dead letter");
    let reason = bus.dead_letters()[0]
        .headers
        .get(HEADER_DEAD_REASON)
        .cloned()
        .unwrap_or_default();
    assert!(
        reason.contains("unknown message type \"game.session.completed.v1\""),
        "{reason:?}"
    );
    referee.stop(Duration::from_secs(5)).await.unwrap();
}

fn lock_of(name: &str) -> IbrLock {
    match name {
        "locked" => IbrLock::Locked,
        _ => IbrLock::Released,
    }
}

#[tokio::test]
async fn a_restart_keeps_the_game_and_sets_the_locks_again() {
    let dir = tempfile::tempdir().unwrap();
    let bus = open_bus(dir.path());
    let mut tap = Tap::open(bus.as_ref()).await;
    {
        let runtime = runtime(bus.clone(), dir.path());
        let table = scripted("");
        let referee = start_referee(&runtime, &table);
        runtime
            .send(
                "table.game.start.v1",
                start_command("g1", bar_rules()),
                "test",
            )
            .await
            .unwrap();
        tap.until("table.game.started.v1").await;
        for side in ["hinge", "lock", "hinge", "lock", "hinge", "lock", "hinge"] {
            runtime
                .send("table.goal.report.v1", report("g1", side), "test")
                .await
                .unwrap();
        }
        // 4–3: the hinge side's next goal wins.
        let events = tap.until("table.ibr.changed.v1").await;
        let events = [events, tap.until("table.ibr.changed.v1").await].concat();
        assert_eq!(
            locks(&events).last().unwrap(),
            &("locked".to_string(), "released".to_string())
        );
        let logged = referee.store().end() - 1;
        referee.wait_for_events(logged).await;
        referee.stop(Duration::from_secs(5)).await.unwrap();
    }

    // A new process on the same data dir, with a table whose locks were never written.
    let runtime = runtime(bus.clone(), dir.path());
    let table = scripted("");
    let referee = start_referee(&runtime, &table);
    tokio::time::timeout(PATIENCE, async {
        while table.lock().writes().len() < 2 {
            tokio::time::sleep(POLL).await;
        }
    })
    .await
    .expect("the locks are set again at start");
    assert_eq!(
        table.lock().writes(),
        &[
            (Side::Hinge, IbrLock::Locked),
            (Side::Lock, IbrLock::Released)
        ]
    );
    // The score went on from 4–3.
    runtime
        .send("table.goal.report.v1", report("g1", "hinge"), "test")
        .await
        .unwrap();
    let events = tap.until("table.game.finished.v1").await;
    let goal = of_type(&events, "table.goal.scored.v1")[0];
    assert_eq!(goal["score"], json!({"hinge": 5, "lock": 3}));
    assert_eq!(goal["ball"], 8);
    let finished = &events.last().unwrap().payload;
    assert_eq!(finished["winner"], "hinge");
    assert_eq!(finished["reason"], "win");
    referee.stop(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test]
async fn a_duplicate_delivery_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bus = open_bus(dir.path());
    let runtime = runtime(bus.clone(), dir.path());
    let table = scripted("");
    let referee = start_referee(&runtime, &table);
    let mut tap = Tap::open(bus.as_ref()).await;
    let start = serde_json::to_vec(&start_command("g1", bar_rules())).unwrap();
    let goal = serde_json::to_vec(&report("g1", "lock")).unwrap();
    bus.publish(&[
        wire("table.game.start.v1", "start-1", &start),
        wire("table.game.start.v1", "start-1", &start),
        wire("table.goal.report.v1", "goal-1", &goal),
        wire("table.goal.report.v1", "goal-1", &goal),
    ])
    .await
    .unwrap();
    bus.publish(&[wire("table.goal.report.v1", "goal-1", &goal)])
        .await
        .unwrap();
    bus.publish(&[wire(
        "table.goal.report.v1",
        "goal-2",
        &serde_json::to_vec(&report("g1", "hinge")).unwrap(),
    )])
    .await
    .unwrap();
    let mut events = tap.until("table.goal.scored.v1").await;
    events.extend(tap.until("table.goal.scored.v1").await);
    assert_eq!(
        types(&events),
        vec![
            "table.game.started.v1",
            "table.ibr.changed.v1",
            "table.goal.scored.v1",
            "table.goal.scored.v1"
        ],
        "one game, no refusal of the repeated start, two goals"
    );
    let goals = of_type(&events, "table.goal.scored.v1");
    assert_eq!(goals[0]["score"], json!({"hinge": 0, "lock": 1}));
    assert_eq!(goals[1]["score"], json!({"hinge": 1, "lock": 1}));
    referee.wait_for_events(4).await;
    let host = referee.stop(Duration::from_secs(5)).await.unwrap();
    assert_eq!(host.store().end() - 1, 4, "nothing else was logged");
    assert_eq!(runtime.metrics().snapshot()[QUEUE].deduplicated, 3);
}

#[tokio::test]
async fn bad_rules_are_rejected_with_their_path_and_start_no_game() {
    let dir = tempfile::tempdir().unwrap();
    let bus = open_bus(dir.path());
    let runtime = runtime(bus.clone(), dir.path());
    let table = scripted("hinge,hinge");
    let referee = start_referee(&runtime, &table);
    let mut tap = Tap::open(bus.as_ref()).await;
    let mut rules = bar_rules();
    rules["conditions"]["tie_break"]["win_rule"]["$or"][1]["$and"][0] =
        json!({"$gte": ["$score", "$other_score"]});
    runtime
        .send("table.game.start.v1", start_command("g1", rules), "test")
        .await
        .unwrap();
    let rejected = tap.next().await;
    assert_eq!(rejected.message_type, "table.game.rejected.v1");
    assert_eq!(rejected.payload["gameId"], "g1");
    assert_eq!(rejected.payload["tableId"], TABLE);
    assert_eq!(
        rejected.payload["error"],
        "invalid rules: conditions.tie_break.win_rule.$or[1].$and[0]: unknown operator \"$gte\""
    );
    // No game: a reported goal is refused, the sensors are not read.
    runtime
        .send("table.goal.report.v1", report("g1", "hinge"), "test")
        .await
        .unwrap();
    let refused = tap.next().await;
    assert_eq!(refused.message_type, "table.goal.rejected.v1");
    assert_eq!(
        refused.payload["error"],
        "no game has been started on this table"
    );
    assert_eq!(
        refused.correlation_id,
        refused.causation_id.clone().unwrap()
    );
    let host = referee.stop(Duration::from_secs(5)).await.unwrap();
    assert!(host.state().game().is_none());
    assert!(table.lock().writes().is_empty(), "no lock was touched");
    assert_eq!(runtime.metrics().snapshot()[QUEUE].rejected, 2);
}

#[tokio::test]
async fn messages_that_fail_their_schema_or_are_not_for_a_referee_are_dead_lettered() {
    let dir = tempfile::tempdir().unwrap();
    let bus = open_bus(dir.path());
    let runtime = runtime(bus.clone(), dir.path());
    let table = scripted("");
    let referee = start_referee(&runtime, &table);
    let no_game_id = json!({"tableId": TABLE, "rules": bar_rules()});
    let bad_side = json!({"tableId": TABLE, "gameId": "g1", "side": "left", "kind": "goal"});
    let scored = json!({"tableId": TABLE, "gameId": "g1", "side": "hinge", "kind": "goal",
        "counted": true, "score": {"hinge": 1, "lock": 0}, "phase": "default", "ball": 1,
        "clockMs": 10});
    bus.publish(&[
        wire("table.game.start.v1", "bad-1", b"{\"tableId\": \"t1\","),
        wire(
            "table.game.start.v1",
            "bad-2",
            &serde_json::to_vec(&no_game_id).unwrap(),
        ),
        wire(
            "table.goal.report.v1",
            "bad-3",
            &serde_json::to_vec(&bad_side).unwrap(),
        ),
        wire(
            "table.goal.scored.v1",
            "bad-4",
            &serde_json::to_vec(&scored).unwrap(),
        ),
    ])
    .await
    .unwrap();
    tokio::time::timeout(PATIENCE, async {
        while bus.dead_letters().len() < 4 {
            tokio::time::sleep(POLL).await;
        }
    })
    .await
    .expect("four dead letters");
    let reasons: Vec<String> = bus
        .dead_letters()
        .iter()
        .map(|m| {
            m.headers
                .get(HEADER_DEAD_REASON)
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let expect = [
        "body is not JSON",
        "gameId",
        "/side",
        "takes table.game.start.v1, table.goal.report.v1, table.game.abort.v1 and table.goal.cancel.v1, not table.goal.scored.v1",
    ];
    for (reason, expected) in reasons.iter().zip(expect) {
        assert!(
            reason.contains(expected),
            "{reason:?} should say {expected:?}"
        );
    }
    let host = referee.stop(Duration::from_secs(5)).await.unwrap();
    assert_eq!(host.store().end(), 1, "nothing logged");
    assert_eq!(runtime.metrics().snapshot()[QUEUE].dead_lettered, 4);
}

#[tokio::test]
async fn the_game_clock_is_the_runtimes_and_times_out_on_paused_time() {
    let dir = tempfile::tempdir().unwrap();
    let bus = open_bus(dir.path());
    let runtime = runtime(bus.clone(), dir.path());
    // No sensors poller: on paused time its timer would move the clock.
    let referee = runtime
        .start(RefereeService::new(TABLE, scripted("")))
        .unwrap();
    let mut tap = Tap::open(bus.as_ref()).await;
    let mut rules = bar_rules();
    rules["timeout_s"] = json!(60);
    runtime
        .send("table.game.start.v1", start_command("g1", rules), "test")
        .await
        .unwrap();
    let started = tap.until("table.game.started.v1").await.pop().unwrap();
    let started_at = started.payload["startedAtMs"].as_u64().unwrap();
    assert!((T0..T0 + 60_000).contains(&started_at));
    runtime
        .send("table.goal.report.v1", report("g1", "hinge"), "test")
        .await
        .unwrap();
    tap.until("table.goal.scored.v1").await;
    referee.wait_for_events(3).await;

    // Stop time just short of the timeout, then step over it.
    tokio::time::pause();
    let deadline = started_at + 60_000;
    let short = deadline - runtime.clock().now_ms() - 1;
    tokio::time::advance(Duration::from_millis(short)).await;
    tokio::task::yield_now().await;
    assert_eq!(referee.store().end() - 1, 3, "not yet");
    tokio::time::advance(Duration::from_millis(1)).await;
    // The timeout phase, the winner under its rule (1–0: `$score >= $other_score`), both
    // locks, the end.
    referee.wait_for_events(6).await;
    let phase = tap.next_untimed().await;
    assert_eq!(phase.message_type, "table.phase.changed.v1");
    assert_eq!(phase.payload["to"], "timeout");
    // The clock reads whole milliseconds and tokio's timers fire on millisecond ticks: the
    // timeout is seen at 60 s, at most 1 ms late.
    let at = phase.payload["clockMs"].as_u64().unwrap();
    assert!((60_000..=60_001).contains(&at), "timed out at {at} ms");
    let ibr = tap.next_untimed().await;
    assert_eq!(ibr.message_type, "table.ibr.changed.v1");
    assert_eq!(
        (&ibr.payload["hinge"], &ibr.payload["lock"]),
        (&json!("locked"), &json!("locked"))
    );
    let next = tap.next_untimed().await;
    assert_eq!(next.message_type, "table.game.finished.v1");
    assert_eq!(next.payload["winner"], "hinge");
    assert_eq!(next.payload["reason"], "timeout");
    assert_eq!(next.payload["phase"], "timeout");
    assert_eq!(next.payload["durationMs"], at);
    assert_eq!(next.payload["score"], json!({"hinge": 1, "lock": 0}));
    tokio::time::resume();
    referee.stop(Duration::from_secs(5)).await.unwrap();
}

/// A bus that refuses every publication while the broker is "away".
struct Flaky {
    inner: Arc<EmbeddedBus>,
    up: AtomicBool,
}

#[async_trait]
impl Bus for Flaky {
    async fn publish(&self, messages: &[Publication]) -> Result<Published, BusError> {
        if self.up.load(Ordering::SeqCst) {
            self.inner.publish(messages).await
        } else {
            Err(BusError::Unavailable("the test cut the link".into()))
        }
    }

    async fn subscribe(&self, spec: &SubscriptionSpec) -> Result<Box<dyn Consumer>, BusError> {
        self.inner.subscribe(spec).await
    }

    fn declare_now(&self, spec: &SubscriptionSpec) -> Result<bool, BusError> {
        self.inner.declare_now(spec)
    }

    fn name(&self) -> &'static str {
        "flaky"
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_refereed_with_the_broker_away_goes_out_in_order_once_it_is_back() {
    let dir = tempfile::tempdir().unwrap();
    let inner = open_bus(dir.path());
    let flaky = Arc::new(Flaky {
        inner: inner.clone(),
        up: AtomicBool::new(false),
    });
    let runtime = runtime(flaky.clone(), dir.path());
    let table = scripted(BAR_GAME);
    let referee = start_referee(&runtime, &table);
    let mut tap = Tap::open(inner.as_ref()).await;
    // The server, elsewhere, still reaches the table's queue.
    Runtime::new(inner.clone())
        .send(
            "table.game.start.v1",
            start_command("g1", bar_rules()),
            "server",
        )
        .await
        .unwrap();
    // started, 5 lock changes, 10 goals, 1 phase change, finished.
    let total = 18;
    tokio::time::timeout(PATIENCE, referee.wait_for_events(total))
        .await
        .expect("the whole game refereed offline");
    assert!(
        tap.0.try_next().is_none(),
        "nothing went out while the broker was away"
    );
    // Locks are written just after their event is durable: give the last one a moment.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while table.lock().lock(Side::Lock) != Some(IbrLock::Locked)
        && tokio::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        table.lock().lock(Side::Lock),
        Some(IbrLock::Locked),
        "the locks follow the game offline"
    );
    assert_eq!(runtime.metrics().snapshot()[QUEUE].published, 0);

    flaky.up.store(true, Ordering::SeqCst);
    let mut out = Vec::new();
    for _ in 0..total {
        out.push(tap.next().await);
    }
    let logged: Vec<String> = referee
        .store()
        .read_from(1, total as usize)
        .unwrap()
        .into_iter()
        .map(|(_, r)| r.envelope.message_id)
        .collect();
    let published: Vec<String> = out.iter().map(|e| e.message_id.clone()).collect();
    assert_eq!(published, logged, "every event, in log order");
    assert_eq!(out[0].message_type, "table.game.started.v1");
    assert_eq!(
        out[total as usize - 1].message_type,
        "table.game.finished.v1"
    );
    referee.stop(Duration::from_secs(5)).await.unwrap();
    assert_eq!(runtime.metrics().snapshot()[QUEUE].published, total);
}

#[tokio::test]
async fn a_ball_from_the_sensors_when_no_game_is_played_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bus = open_bus(dir.path());
    let runtime = runtime(bus.clone(), dir.path());
    let referee = runtime
        .start(RefereeService::new(TABLE, scripted("")))
        .unwrap();
    let local = referee.local();
    for ball in parse_balls("hinge,lock:inout").unwrap() {
        local.send(Input::from(ball)).await.unwrap();
    }
    drop(local);
    tokio::time::sleep(POLL * 10).await;
    let host = referee.stop(Duration::from_secs(5)).await.unwrap();
    assert_eq!(host.store().end(), 1);
    assert!(host.state().game().is_none());
}
