//! The bingo service on a runtime over the embedded bus, in a temporary data dir: requests in,
//! the right events out (seen through a temporary subscription), refusals as
//! `bingo.request.rejected.v1`, state kept across a restart, duplicates absorbed, bad payloads
//! dead-lettered with their reason, mapped message types bound and ticking, and the secret in
//! no message.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arcade_bingo::service::base_bindings;
use arcade_bingo::{Binder, BingoService, Secret};
use arcade_contracts::Envelope;
use arcade_contracts::bingo::QUEUE;
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::wire::HEADER_DEAD_REASON;
use arcade_runtime::{
    Bus, Destination, HostHandle, Publication, Runtime, SubscriptionSpec, WireMessage,
};
use serde_json::{Value, json};
use tokio::sync::watch;

const SECRET: &str = "service-test-secret-7f3c9a";
const PATIENCE: Duration = Duration::from_secs(30);

struct Rig {
    bus: Arc<EmbeddedBus>,
    runtime: Runtime,
    bingo: HostHandle<BingoService>,
    bound: watch::Receiver<BTreeSet<String>>,
}

fn start(dir: &Path) -> Rig {
    start_on(dir, "bus")
}

/// A runtime whose services keep their data in `dir` and whose bus lives in `dir/bus_dir`.
fn start_on(dir: &Path, bus_dir: &str) -> Rig {
    let bus = Arc::new(EmbeddedBus::open(&dir.join(bus_dir)).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus.clone(), dir).with_sender("operator");
    let (binder, bound) = Binder::spawn(bus.clone(), QUEUE);
    let service = BingoService::new(&Secret::new(SECRET).unwrap()).with_binder(binder);
    let bingo = runtime.start(service).unwrap();
    Rig {
        bus,
        runtime,
        bingo,
        bound,
    }
}

impl Rig {
    async fn send(&self, message_type: &str, payload: Value) -> Envelope {
        self.runtime
            .send(message_type, payload, "test")
            .await
            .unwrap_or_else(|e| panic!("{message_type} not sent: {e}"))
    }

    async fn publish(&self, destination: Destination, message: WireMessage) {
        self.bus
            .publish(&[Publication {
                destination,
                message,
            }])
            .await
            .unwrap();
    }

    async fn tap(&self, pattern: &str) -> Tap {
        let queue = format!("test.tap.{}", uuid::Uuid::new_v4().simple());
        let consumer = self
            .bus
            .subscribe(&SubscriptionSpec::temporary(queue, vec![pattern.into()]))
            .await
            .unwrap();
        Tap {
            consumer,
            seen: Vec::new(),
        }
    }

    async fn stop(self) {
        self.bingo.stop(Duration::from_secs(5)).await.unwrap();
        self.bus.close().await.unwrap();
    }
}

/// A temporary subscription that remembers everything it saw.
struct Tap {
    consumer: Box<dyn Consumer>,
    seen: Vec<Envelope>,
}

impl Tap {
    async fn next(&mut self) -> Envelope {
        let delivery = tokio::time::timeout(PATIENCE, self.consumer.next())
            .await
            .expect("no message came in time")
            .unwrap();
        let envelope = lossy_envelope(&delivery.message);
        delivery.ack().await.unwrap();
        self.seen.push(envelope.clone());
        envelope
    }

    /// The messages before the first of `message_type`, and that one.
    async fn until(&mut self, message_type: &str) -> (Vec<Envelope>, Envelope) {
        let mut before = Vec::new();
        loop {
            let envelope = self.next().await;
            if envelope.message_type == message_type {
                return (before, envelope);
            }
            before.push(envelope);
        }
    }

    /// The payload of the next message, which must be of `message_type`.
    async fn expect(&mut self, message_type: &str) -> Value {
        let envelope = self.next().await;
        assert_eq!(
            envelope.message_type, message_type,
            "unexpected {}",
            envelope.payload
        );
        envelope.payload
    }
}

fn called_game(game: &str) -> Value {
    let pool: Vec<Value> = (1..=12)
        .map(|id| json!({"id": id, "label": format!("B{id}")}))
        .collect();
    json!({
        "requestId": "open-1",
        "gameId": game,
        "tickMode": "called",
        "grid": {"size": 3},
        "pool": pool,
        "patterns": [{"kind": "row"}, {"kind": "fullCard"}],
    })
}

fn square(id: u32, label: &str, verb: &str, object: Option<&str>) -> Value {
    let mut trigger = json!({"verb": verb});
    if let Some(object) = object {
        trigger["object"] = json!(object);
    }
    json!({"id": id, "label": label, "trigger": trigger})
}

/// An activity game whose 8 squares all land on every 3×3 card: 1 to 7 ticked by any `talk.*`,
/// 8 by `photo.shared`; won by a full card.
fn activity_game(game: &str) -> Value {
    let mut pool: Vec<Value> = (1..=7)
        .map(|id| square(id, &format!("Talk #{id}"), "talk.*", None))
        .collect();
    pool.push(square(8, "Share a photo", "photo.shared", None));
    json!({
        "gameId": game,
        "grid": {"size": 3},
        "pool": pool,
        "patterns": [{"kind": "fullCard"}],
    })
}

fn deal(game: &str, player: &str) -> Value {
    json!({"gameId": game, "player": player})
}

fn gesture(entry: &str, member: &str, verb: &str) -> Value {
    json!({"entryId": entry, "member": member, "verb": verb})
}

fn squares_of(cells: &Value) -> Vec<Option<u64>> {
    cells
        .as_array()
        .unwrap()
        .iter()
        .map(Value::as_u64)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_called_game_from_open_to_close_with_refusals_and_no_secret_on_the_wire() {
    let dir = tempfile::tempdir().unwrap();
    let rig = start(dir.path());
    let mut all = rig.tap("#").await;
    let mut tap = rig.tap("bingo.#").await;

    rig.send("bingo.game.open.v1", called_game("quiz")).await;
    let opened = tap.expect("bingo.game.opened.v1").await;
    assert_eq!(opened["requestId"], "open-1");
    assert_eq!(opened["grid"]["freeCentre"], true);

    rig.send("bingo.card.deal.v1", deal("quiz", "alice")).await;
    let alice = tap.expect("bingo.card.dealt.v1").await;
    assert_eq!(
        (alice["serial"].as_u64(), alice["firstDeal"].as_bool()),
        (Some(1), Some(true))
    );
    let cells = squares_of(&alice["cells"]);
    assert_eq!(cells.len(), 9);
    assert_eq!(cells[4], None, "the free centre");
    rig.send("bingo.card.deal.v1", deal("quiz", "bob")).await;
    assert_eq!(tap.expect("bingo.card.dealt.v1").await["serial"], 2);

    // Bob claims Alice's card: refused, and told why.
    let claim = json!({"requestId": "c-1", "gameId": "quiz", "serial": 1, "player": "bob"});
    rig.send("bingo.card.claim.v1", claim).await;
    let refused = tap.expect("bingo.request.rejected.v1").await;
    assert_eq!(refused["requestType"], "bingo.card.claim.v1");
    assert_eq!(refused["requestId"], "c-1");
    assert_eq!(refused["code"], "not-your-card");
    assert!(refused["reason"].as_str().unwrap().contains("not yours"));

    // The top row of Alice's card is called; a square called again is refused, not announced.
    for (n, square) in cells[..3].iter().enumerate() {
        let call = json!({"gameId": "quiz", "squareId": square.unwrap()});
        rig.send("bingo.square.call.v1", call.clone()).await;
        let called = tap.expect("bingo.square.called.v1").await;
        assert_eq!(called["squareId"].as_u64(), *square);
        assert_eq!(called["callNumber"], n as u64 + 1);
        assert_eq!(called["label"], format!("B{}", square.unwrap()));
    }
    let again = json!({"requestId": "again", "gameId": "quiz", "squareId": cells[0].unwrap()});
    rig.send("bingo.square.call.v1", again).await;
    let refused = tap.expect("bingo.request.rejected.v1").await;
    assert_eq!(
        (refused["requestId"].as_str(), refused["code"].as_str()),
        (Some("again"), Some("already-called"))
    );
    let outside = json!({"gameId": "quiz", "squareId": 99});
    rig.send("bingo.square.call.v1", outside).await;
    let refused = tap.expect("bingo.request.rejected.v1").await;
    assert_eq!(refused["code"], "unknown-square");

    // Alice claims: the called squares complete her top row.
    let claim = json!({"requestId": "c-2", "gameId": "quiz", "serial": 1, "player": "alice"});
    rig.send("bingo.card.claim.v1", claim).await;
    // The win is announced, then the claim answered.
    let won = tap.expect("bingo.card.won.v1").await;
    assert_eq!(
        (won["serial"].as_u64(), won["player"].as_str()),
        (Some(1), Some("alice"))
    );
    assert_eq!(won["pattern"], "row");
    let answer = tap.expect("bingo.claim.answered.v1").await;
    assert_eq!(answer["requestId"], "c-2");
    assert_eq!(answer["check"], "claim");
    assert_eq!(answer["pattern"], "row");
    assert_eq!(answer["winningCells"], json!([0, 1, 2]));
    assert_eq!(answer["tickedCells"], json!([0, 1, 2, 4]));
    assert_eq!(answer["place"], 1);

    // Printed cards, verified by their label; a wrong label is refused.
    rig.send(
        "bingo.cards.print.v1",
        json!({"gameId": "quiz", "count": 2}),
    )
    .await;
    let printed = tap.expect("bingo.cards.printed.v1").await;
    let cards = printed["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 2);
    assert_eq!(cards[0]["serial"], 3);
    let label = cards[0]["label"].as_str().unwrap().to_string();
    let verify = json!({"gameId": "quiz", "serial": 3, "label": label});
    rig.send("bingo.card.verify.v1", verify).await;
    let answer = tap.expect("bingo.claim.answered.v1").await;
    assert_eq!(answer["check"], "verifyLabel");
    assert_eq!(answer["player"], Value::Null);
    let forged = json!({"gameId": "quiz", "serial": 3, "label": "0000-0000-0000-0000"});
    rig.send("bingo.card.verify.v1", forged).await;
    assert_eq!(
        tap.expect("bingo.request.rejected.v1").await["code"],
        "bad-label"
    );

    rig.send("bingo.game.close.v1", json!({"gameId": "quiz"}))
        .await;
    let closed = tap.expect("bingo.game.closed.v1").await;
    assert_eq!(closed["winners"], json!([1]));
    assert_eq!(closed["cards"], 4);
    rig.send("bingo.card.deal.v1", deal("quiz", "carol")).await;
    let refused = tap.expect("bingo.request.rejected.v1").await;
    assert_eq!(refused["code"], "game-closed");
    assert!(refused["reason"].as_str().unwrap().contains("is closed"));

    // Everything the service published went through the `#` tap too: none carries the secret.
    loop {
        let envelope = all.next().await;
        if envelope.payload["code"] == "game-closed" {
            break;
        }
    }
    let published = &all.seen;
    assert!(published.iter().all(|e| e.producer == "bingo"));
    assert_eq!(published.len(), 16, "every event of the story");
    for envelope in published {
        let text = serde_json::to_string(envelope).unwrap();
        assert!(!text.contains(SECRET), "the secret leaked in {text}");
        assert!(
            !text.contains(&hex_of(SECRET)),
            "the secret leaked in {text}"
        );
    }
    rig.stop().await;
}

fn hex_of(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_from_the_same_data_dir_keeps_the_games_and_cards() {
    let dir = tempfile::tempdir().unwrap();
    let rig = start(dir.path());
    let mut tap = rig.tap("bingo.#").await;
    rig.send("bingo.game.open.v1", called_game("quiz")).await;
    tap.expect("bingo.game.opened.v1").await;
    rig.send("bingo.card.deal.v1", deal("quiz", "alice")).await;
    let first = tap.expect("bingo.card.dealt.v1").await;
    drop(tap);
    rig.stop().await;

    let rig = start(dir.path());
    let mut tap = rig.tap("bingo.#").await;
    rig.send("bingo.game.open.v1", called_game("quiz")).await;
    assert_eq!(
        tap.expect("bingo.request.rejected.v1").await["code"],
        "game-exists"
    );
    rig.send("bingo.card.deal.v1", deal("quiz", "alice")).await;
    let again = tap.expect("bingo.card.dealt.v1").await;
    assert_eq!(again["firstDeal"], false);
    assert_eq!(
        (&again["serial"], &again["cells"]),
        (&first["serial"], &first["cells"])
    );
    rig.send("bingo.card.deal.v1", deal("quiz", "bob")).await;
    assert_eq!(tap.expect("bingo.card.dealt.v1").await["serial"], 2);
    rig.stop().await;
}

fn command(message_type: &str, id: &str, payload: &Value) -> WireMessage {
    WireMessage {
        message_type: Some(message_type.into()),
        message_id: Some(id.into()),
        body: serde_json::to_vec(payload).unwrap(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_delivery_changes_nothing_and_a_gesture_ticks_once() {
    let dir = tempfile::tempdir().unwrap();
    let rig = start(dir.path());
    let mut tap = rig.tap("bingo.#").await;
    rig.send("bingo.game.open.v1", activity_game("meetup"))
        .await;
    tap.expect("bingo.game.opened.v1").await;

    let queue = || Destination::Queue(QUEUE.into());
    let dave = command("bingo.card.deal.v1", "deal-dave", &deal("meetup", "dave"));
    rig.publish(queue(), dave.clone()).await;
    rig.publish(queue(), dave).await;
    let erin = command("bingo.card.deal.v1", "deal-erin", &deal("meetup", "erin"));
    rig.publish(queue(), erin).await;
    let (before, dealt) = tap.until("bingo.card.dealt.v1").await;
    assert!(before.is_empty());
    assert_eq!(
        (&dealt.payload["player"], &dealt.payload["serial"]),
        (&json!("dave"), &json!(1))
    );
    let next = tap.expect("bingo.card.dealt.v1").await;
    assert_eq!(
        (&next["player"], &next["serial"]),
        (&json!("erin"), &json!(2))
    );
    assert_eq!(rig.runtime.metrics().snapshot()["bingo"].deduplicated, 1);

    // The same gesture in two messages (two ids, one entryId) ticks once.
    let hello = gesture("g-1", "dave", "talk.hello");
    rig.send("activity.recorded.v1", hello.clone()).await;
    rig.send("activity.recorded.v1", hello).await;
    rig.send("bingo.card.deal.v1", deal("meetup", "frank"))
        .await;
    let (ticks, _) = tap.until("bingo.card.dealt.v1").await;
    assert_eq!(ticks.len(), 7, "{ticks:?}");
    assert!(
        ticks
            .iter()
            .all(|t| t.message_type == "bingo.square.ticked.v1"
                && t.payload["entryId"] == "g-1"
                && t.payload["serial"] == 1)
    );
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gestures_tick_win_and_undo_on_an_activity_card() {
    let dir = tempfile::tempdir().unwrap();
    let rig = start(dir.path());
    let mut tap = rig.tap("bingo.#").await;
    rig.send("bingo.game.open.v1", activity_game("meetup"))
        .await;
    tap.expect("bingo.game.opened.v1").await;
    rig.send("bingo.card.deal.v1", deal("meetup", "ann")).await;
    tap.expect("bingo.card.dealt.v1").await;

    rig.send("activity.recorded.v1", gesture("g-1", "ann", "talk.hello"))
        .await;
    rig.send("activity.recorded.v1", gesture("g-2", "ann", "talk.bye"))
        .await;
    for entry in ["g-1", "g-2"] {
        for _ in 0..7 {
            let tick = tap.expect("bingo.square.ticked.v1").await;
            assert_eq!(tick["entryId"], entry);
        }
    }
    // g-2 still stands on every cell g-1 ticked: nothing is unticked.
    rig.send("activity.undone.v1", json!({"entryId": "g-1"}))
        .await;
    let undone = tap.expect("bingo.gesture.undone.v1").await;
    assert_eq!(undone["unticked"], json!([]));
    // Undoing g-2 unticks its seven cells.
    rig.send("activity.undone.v1", json!({"entryId": "g-2"}))
        .await;
    let undone = tap.expect("bingo.gesture.undone.v1").await;
    assert_eq!(undone["unticked"].as_array().unwrap().len(), 7);

    rig.send("activity.recorded.v1", gesture("g-3", "ann", "talk.hi"))
        .await;
    rig.send(
        "activity.recorded.v1",
        gesture("g-4", "ann", "photo.shared"),
    )
    .await;
    let (ticks, won) = tap.until("bingo.card.won.v1").await;
    assert_eq!(ticks.len(), 8);
    assert_eq!(won.payload["pattern"], "fullCard");
    assert_eq!(won.payload["player"], "ann");
    // The card won: undoing the winning gesture unticks nothing.
    rig.send("activity.undone.v1", json!({"entryId": "g-4"}))
        .await;
    assert_eq!(
        tap.expect("bingo.gesture.undone.v1").await["unticked"],
        json!([])
    );
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_goal_of_the_referee_ticks_the_square_its_game_maps() {
    let dir = tempfile::tempdir().unwrap();
    let rig = start(dir.path());
    let mut tap = rig.tap("bingo.#").await;
    rig.send("bingo.game.open.v1", bar_game()).await;
    let opened = tap.expect("bingo.game.opened.v1").await;
    assert_eq!(
        opened["activitySources"][0]["messageType"],
        "table.goal.scored.v1"
    );
    // The team on the hinge side plays bingo.
    rig.send("bingo.card.deal.v1", deal("bar", "hinge")).await;
    tap.expect("bingo.card.dealt.v1").await;
    wait_bound(&rig, "table.goal.scored.v1").await;

    let goal = |table: &str, id: &str| {
        let payload = json!({
            "tableId": table, "gameId": "t-game", "side": "hinge", "kind": "goal",
            "counted": true, "score": {"hinge": 1, "lock": 0}, "phase": "default",
            "ball": 1, "clockMs": 1000,
        });
        command("table.goal.scored.v1", id, &payload)
    };
    // A goal at table 4 is no goal at table 3.
    rig.publish(Destination::Topic, goal("table-4", "goal-a"))
        .await;
    rig.publish(Destination::Topic, goal("table-3", "goal-b"))
        .await;
    let tick = tap.expect("bingo.square.ticked.v1").await;
    assert_eq!(tick["squareId"], 8);
    assert_eq!(tick["player"], "hinge");
    assert_eq!(tick["verb"], "table.goal");
    assert_eq!(tick["entryId"], "goal-b");
    // The organiser cancels that ball: what it ticked is unticked.
    wait_bound(&rig, "table.goal.cancelled.v1").await;
    let cancel = json!({
        "tableId": "table-3", "gameId": "t-game", "ball": 1, "score": {"hinge": 0, "lock": 0},
        "phase": "default", "hinge": "released", "lock": "released",
    });
    let cancel = command("table.goal.cancelled.v1", "cancel-b", &cancel);
    rig.publish(Destination::Topic, cancel).await;
    let undone = tap.expect("bingo.gesture.undone.v1").await;
    assert_eq!(undone["entryId"], "goal-b");
    assert_eq!(undone["unticked"][0]["squareId"], 8);
    assert!(rig.bus.dead_letters().is_empty());
    rig.stop().await;
}

fn bar_game() -> Value {
    let mut pool: Vec<Value> = (1..=7)
        .map(|id| square(id, &format!("Talk #{id}"), "talk.*", None))
        .collect();
    pool.push(square(
        8,
        "Score a goal at table 3",
        "table.goal",
        Some("table-3"),
    ));
    json!({
        "gameId": "bar",
        "grid": {"size": 3},
        "pool": pool,
        "patterns": [{"kind": "fullCard"}],
        "activitySources": [{
            "messageType": "table.goal.scored.v1",
            "verb": "table.goal",
            "memberField": "/side",
            "objectField": "/tableId",
            "undoneBy": {
                "messageType": "table.goal.cancelled.v1",
                "key": ["/tableId", "/gameId", "/ball"],
            },
        }],
    })
}

async fn wait_bound(rig: &Rig, message_type: &str) {
    let mut bound = rig.bound.clone();
    tokio::time::timeout(
        PATIENCE,
        bound.wait_for(|types| types.contains(message_type)),
    )
    .await
    .expect("the mapped type was not bound")
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_start_the_types_of_the_games_in_the_log_are_bound_again() {
    let dir = tempfile::tempdir().unwrap();
    let rig = start_on(dir.path(), "first-bus");
    let mut tap = rig.tap("bingo.#").await;
    rig.send("bingo.game.open.v1", bar_game()).await;
    tap.expect("bingo.game.opened.v1").await;
    rig.send("bingo.card.deal.v1", deal("bar", "hinge")).await;
    tap.expect("bingo.card.dealt.v1").await;
    drop(tap);
    rig.stop().await;

    // Same service data, a broker that never heard of the mapping: the replayed game binds it.
    let rig = start_on(dir.path(), "second-bus");
    wait_bound(&rig, "table.goal.scored.v1").await;
    let mut tap = rig.tap("bingo.#").await;
    let payload = json!({
        "tableId": "table-3", "gameId": "t-game", "side": "hinge", "kind": "goal",
        "counted": true, "score": {"hinge": 1, "lock": 0}, "phase": "default",
        "ball": 1, "clockMs": 1000,
    });
    rig.publish(
        Destination::Topic,
        command("table.goal.scored.v1", "goal-1", &payload),
    )
    .await;
    let tick = tap.expect("bingo.square.ticked.v1").await;
    assert_eq!(
        (&tick["player"], &tick["squareId"]),
        (&json!("hinge"), &json!(8))
    );
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payloads_that_fail_the_schema_or_do_not_decode_are_dead_lettered_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let rig = start(dir.path());
    let mut dead = rig
        .bus
        .subscribe(&SubscriptionSpec::durable(
            rig.bus.dead_letter_queue(),
            Vec::new(),
        ))
        .await
        .unwrap();
    let queue = || Destination::Queue(QUEUE.into());
    let no_player = command("bingo.card.deal.v1", "bad-1", &json!({"gameId": "quiz"}));
    rig.publish(queue(), no_player).await;
    let mut not_json = command("bingo.card.claim.v1", "bad-2", &json!({}));
    not_json.body = b"{serial: 1".to_vec();
    rig.publish(queue(), not_json).await;
    let mut reasons = Vec::new();
    for _ in 0..2 {
        let delivery = tokio::time::timeout(PATIENCE, dead.next())
            .await
            .expect("no dead letter came")
            .unwrap();
        let reason = delivery.message.headers[HEADER_DEAD_REASON].clone();
        reasons.push((delivery.message.message_id.clone().unwrap(), reason));
        delivery.ack().await.unwrap();
    }
    reasons.sort();
    assert_eq!(reasons[0].0, "bad-1");
    assert!(
        reasons[0].1.contains("bingo.card.deal.v1"),
        "{}",
        reasons[0].1
    );
    assert!(reasons[0].1.contains("player"), "{}", reasons[0].1);
    assert_eq!(reasons[1].0, "bad-2");
    assert!(reasons[1].1.contains("not JSON"), "{}", reasons[1].1);
    assert_eq!(rig.runtime.metrics().snapshot()["bingo"].dead_lettered, 2);
    drop(dead);
    rig.stop().await;
}

#[test]
fn the_service_consumes_its_queue_and_the_activity_events() {
    let service = BingoService::new(&Secret::new(SECRET).unwrap());
    let spec = arcade_runtime::Service::spec(&service);
    assert_eq!(
        (spec.name.as_str(), spec.queue.as_str()),
        ("bingo", "bingo")
    );
    assert_eq!(spec.bindings, base_bindings());
    assert_eq!(
        spec.bindings,
        vec!["activity.recorded.v1", "activity.undone.v1"]
    );
    assert!(!format!("{service:?}").contains(SECRET));
}
