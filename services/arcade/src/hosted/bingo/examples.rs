//! The shipped example mapping runs as written: the committed `bingo.game.open.v1` example
//! (`schemas/examples/`, what `arcade types --example` prints and the bingo README sends) is
//! opened on a real bingo service, and fed real events of its source type — the referee's
//! `table.goal.scored.v1` of a game with a rehearsal ball, as a referee service on a simulated
//! table publishes them — plus the committed examples of its source types.

use std::sync::Arc;
use std::time::Duration;

use arcade_bingo::{Binder, BingoService};
use arcade_contracts::bingo::QUEUE;
use arcade_runtime::bus::embedded::EmbeddedBus;
use serde_json::{Value, json};

use crate::demo::{Demo, Tap};
use crate::hosted::{self, ServiceArgs, ServiceName};

fn example(message_type: &str) -> Value {
    let path = format!(
        "{}/../../schemas/examples/{message_type}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// Rules whose first ball is a rehearsal ball (`counted: false`).
fn rules() -> Value {
    let mut rules: Value =
        serde_json::from_str(include_str!("../../../../referee/examples/bar.rules.json")).unwrap();
    rules["rehearsal_balls"] = json!(1);
    rules
}

/// The ticks of `player`'s card until a message of `last` type for which `done` holds:
/// (square, entry id) pairs.
async fn ticks_until(
    tap: &mut Tap,
    player: &str,
    done: impl Fn(&str, &Value) -> bool,
) -> Vec<(u64, String)> {
    let mut ticks = Vec::new();
    loop {
        let envelope = tap.next().await.unwrap();
        let p = &envelope.payload;
        if envelope.message_type == "bingo.square.ticked.v1" && p["player"] == player {
            ticks.push((
                p["squareId"].as_u64().unwrap(),
                p["entryId"].as_str().unwrap().to_string(),
            ));
        }
        if done(&envelope.message_type, p) {
            return ticks;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_mapping_ticks_for_counted_goals_and_not_for_rehearsal_balls() {
    let data = tempfile::tempdir().unwrap();
    let bus = EmbeddedBus::open(&data.path().join("bus")).unwrap();
    let runtime = arcade_runtime::testkit::runtime(Arc::new(bus.clone()), data.path())
        .with_sender("operator");
    let mut settings = ServiceArgs {
        bingo: crate::demo::bingo::settings(),
        ..ServiceArgs::default()
    };
    // The example's square 3 is "Score a goal at table 3": its object is the table's id.
    settings.referee.table.table_id = "table-3".into();
    settings.referee.table.sim_balls = Some("hinge,hinge,lock".into());
    settings.referee.table.poll_ms = 20;
    let mut running = hosted::start(&runtime, &[ServiceName::Referee], &settings)
        .unwrap()
        .running;
    // Bingo as `start` wires it, keeping the binder's signal: a mapped type is bound.
    let (binder, mut bound) = Binder::spawn(runtime.bus().clone(), QUEUE);
    let secret = settings.bingo.secret(None, QUEUE).unwrap();
    let service = BingoService::new(&secret).with_binder(binder);
    running.push(Box::new(runtime.start(service).unwrap()));
    let mut app = arcade_runtime::App::new(runtime.clone(), arcade_runtime::OpenBus::embedded(bus));
    app.host(running);
    assert!(app.subscribed(Duration::from_secs(30)).await);
    let demo = Demo {
        runtime: runtime.clone(),
    };
    let mut bingo = demo.tap("bingo.#").await.unwrap();
    let mut goals = demo.tap("table.goal.scored.v1").await.unwrap();

    let open = example("bingo.game.open.v1");
    let game = open["gameId"].as_str().unwrap().to_string();
    demo.send("bingo.game.open.v1", open).await.unwrap();
    for player in ["hinge", "lock", "alice"] {
        demo.send(
            "bingo.card.deal.v1",
            json!({"gameId": game, "player": player}),
        )
        .await
        .unwrap();
    }
    ticks_until(&mut bingo, "-", |t, p| {
        t == "bingo.card.dealt.v1" && p["player"] == "alice"
    })
    .await;
    tokio::time::timeout(
        Duration::from_secs(30),
        bound.wait_for(|types| types.contains("table.goal.scored.v1")),
    )
    .await
    .expect("the game's mapped type is bound within 30 s")
    .unwrap();

    demo.send(
        "table.game.start.v1",
        json!({"tableId": "table-3", "gameId": "example-goals", "rules": rules()}),
    )
    .await
    .unwrap();
    let mut scored = Vec::new();
    while scored.len() < 3 {
        let goal = goals.next().await.unwrap();
        if goal.payload["gameId"] == "example-goals" {
            scored.push(goal);
        }
    }
    assert_eq!(
        scored[0].payload["counted"], false,
        "the first ball rehearses"
    );
    assert_eq!(scored[1].payload["counted"], true);
    // The lock side's goal comes last: once it ticked, the hinge's goals were all handled.
    let lock_goal = scored[2].message_id.clone();
    let hinge = ticks_until(&mut bingo, "hinge", |t, p| {
        t == "bingo.square.ticked.v1" && p["entryId"] == lock_goal.as_str()
    })
    .await;
    assert!(
        hinge
            .iter()
            .all(|(_, entry)| *entry == scored[1].message_id),
        "only the counted goal ticks the hinge's card: {hinge:?}"
    );
    // A goal at table 3 ticks "Score a goal at table 3", "Score a goal anywhere" and "Do
    // anything at all": the card holds at least two of them (it misses one square of nine).
    let squares: Vec<u64> = hinge.iter().map(|(s, _)| *s).collect();
    assert!(
        squares.len() >= 2 && squares.iter().all(|s| [3, 4, 6].contains(s)),
        "{squares:?}"
    );

    // The committed examples of the source types, as the README sends them.
    let goal = example("table.goal.scored.v1");
    demo.send("table.goal.scored.v1", goal.clone())
        .await
        .unwrap();
    let gesture = example("activity.recorded.v1");
    let entry = gesture["entryId"].as_str().unwrap().to_string();
    demo.send("activity.recorded.v1", gesture).await.unwrap();
    let alice = ticks_until(&mut bingo, "alice", |t, p| {
        t == "bingo.square.ticked.v1" && p["entryId"] == entry.as_str()
    })
    .await;
    let said_hello: Vec<u64> = alice.iter().map(|(s, _)| *s).collect();
    assert!(
        !said_hello.is_empty() && said_hello.iter().all(|s| [1, 2, 6].contains(s)),
        "{said_hello:?}"
    );

    assert!(app.stop().await.unwrap());
}
