//! The referee reading its own sensors (a mock GPIO line source): a sensed ball is scored like
//! a reported one, beside reported goals; a ball between games is counted, not scored; a
//! sensor that cannot be read makes the process not ready (naming it, with a metric) while the
//! table keeps refereeing, and ready again when it reads.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arcade_contracts::Envelope;
use arcade_referee::service::{self, SENSORS_PART};
use arcade_referee::table::{
    GpioSensors, LineEdge, LineSource, SensorError, SharedTable, SimulatedTable,
};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::bus::{Bus, Consumer, SubscriptionSpec};
use arcade_runtime::health::{DEFAULT_MAX_BACKLOG, readiness};
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Clock, Runtime};
use serde_json::json;

const TABLE: &str = "t1";
const POLL: Duration = Duration::from_millis(5);
const PATIENCE: Duration = Duration::from_secs(60);
const T0: u64 = 1_795_953_600_000;
/// HINGE_GOAL 17, HINGE_INOUT 18, LOCK_GOAL 27, LOCK_INOUT 22.
const LINES: [u32; 4] = [17, 18, 27, 22];

/// A line source the test drives while the referee reads it.
#[derive(Debug, Clone, Default)]
struct Lines(Arc<Mutex<State>>);

#[derive(Debug, Default)]
struct State {
    edges: Vec<LineEdge>,
    unplugged: bool,
    now_ms: u64,
}

impl Lines {
    fn ball(&self, offset: u32) {
        let mut state = self.0.lock().unwrap();
        state.now_ms += 5_000;
        let timestamp_ns = state.now_ms * 1_000_000;
        state.edges.push(LineEdge {
            offset,
            timestamp_ns,
        });
    }
    fn unplug(&self, unplugged: bool) {
        self.0.lock().unwrap().unplugged = unplugged;
    }
}

impl LineSource for Lines {
    fn read_edges(&mut self, edges: &mut Vec<LineEdge>) -> Result<(), SensorError> {
        let mut state = self.0.lock().unwrap();
        if state.unplugged {
            return Err(SensorError::Gpio {
                chip: "/dev/gpiochip7".into(),
                action: "reading edge events",
                detail: "No such device (os error 19)".into(),
            });
        }
        edges.append(&mut state.edges);
        Ok(())
    }
    fn levels(&mut self, _offsets: &[u32; 4]) -> Result<[bool; 4], SensorError> {
        Ok([false; 4])
    }
}

/// Waits (polling: the sensors run on their own timer) until `done` holds.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "waited for {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn part_failing(runtime: &Runtime) -> Option<String> {
    readiness(runtime, DEFAULT_MAX_BACKLOG)
        .failing
        .into_iter()
        .find(|f| f.check == "part" && f.part.as_deref() == Some(SENSORS_PART))
        .map(|f| f.reason)
}

fn metric(runtime: &Runtime, line_start: &str) -> Option<String> {
    let text = arcade_runtime::metrics::encode(runtime).unwrap();
    text.lines()
        .find(|l| l.starts_with(line_start))
        .map(str::to_string)
}

async fn next(consumer: &mut Box<dyn Consumer>) -> Envelope {
    let delivery = tokio::time::timeout(PATIENCE, consumer.next())
        .await
        .expect("an event within the patience")
        .unwrap();
    let envelope = lossy_envelope(&delivery.message);
    delivery.ack().await.unwrap();
    envelope
}

async fn next_goal(consumer: &mut Box<dyn Consumer>) -> Envelope {
    loop {
        let envelope = next(consumer).await;
        if envelope.message_type == "table.goal.scored.v1" {
            return envelope;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sensed_balls_are_scored_beside_reported_goals_and_a_dead_sensor_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus.clone(), dir.path())
        .with_clock(Clock::starting_at(T0));
    let lines = Lines::default();
    let table = SharedTable::new(SimulatedTable::scripted([]));
    let sensors = GpioSensors::new(lines.clone(), LINES, Duration::from_millis(50));
    let referee = service::start(
        &runtime,
        TABLE,
        table.clone(),
        sensors,
        POLL,
        arcade_referee::display::DisplayPlan::none(),
    )
    .unwrap();
    let mut tap = bus
        .subscribe(&SubscriptionSpec::temporary(
            "tap.sensors",
            vec!["table.#".into()],
        ))
        .await
        .unwrap();

    // Unplugged: not ready, naming the sensors and why; a metric says so.
    lines.unplug(true);
    until("the sensors reported failing", || {
        part_failing(&runtime).is_some()
    })
    .await;
    assert_eq!(
        part_failing(&runtime).unwrap(),
        "GPIO /dev/gpiochip7: reading edge events: No such device (os error 19)"
    );
    assert_eq!(
        metric(&runtime, "arcade_part_up{").as_deref(),
        Some("arcade_part_up{part=\"goal_sensors\"} 0")
    );
    // Plugged back: ready again.
    lines.unplug(false);
    until("the sensors working again", || {
        part_failing(&runtime).is_none()
    })
    .await;
    assert_eq!(
        metric(&runtime, "arcade_part_failures_total{").as_deref(),
        Some("arcade_part_failures_total{part=\"goal_sensors\"} 1")
    );

    // A ball between games: counted, logged, not scored (the log holds nothing).
    lines.ball(17);
    until("the idle ball counted", || {
        runtime
            .parts()
            .part(SENSORS_PART)
            .state()
            .events
            .get("ball_while_idle")
            == Some(&1)
    })
    .await;
    assert_eq!(
        referee.store().end(),
        1,
        "nothing logged for a ball between games"
    );

    let sender = Runtime::new(bus.clone());
    sender
        .send(
            "table.game.start.v1",
            json!({"tableId": TABLE, "gameId": "g1",
                   "rules": serde_json::from_str::<serde_json::Value>(
                       include_str!("../examples/bar.rules.json")).unwrap(),
                   "players": {"hinge": ["alice"], "lock": ["bob"]}}),
            "server",
        )
        .await
        .unwrap();
    // Only once the game is durable are balls scored.
    loop {
        if next(&mut tap).await.message_type == "table.game.started.v1" {
            break;
        }
    }
    // Sensed, then reported, then reported while the sensors fail, then sensed again.
    lines.ball(22);
    let sensed = next_goal(&mut tap).await;
    assert_eq!(
        (&sensed.payload["side"], &sensed.payload["kind"]),
        (&json!("lock"), &json!("inout"))
    );
    sender
        .send(
            "table.goal.report.v1",
            json!({"tableId": TABLE, "gameId": "g1", "side": "hinge", "kind": "goal"}),
            "server",
        )
        .await
        .unwrap();
    let reported = next_goal(&mut tap).await;
    assert_eq!(reported.payload["side"], "hinge");
    lines.unplug(true);
    until("the sensors failing", || part_failing(&runtime).is_some()).await;
    sender
        .send(
            "table.goal.report.v1",
            json!({"tableId": TABLE, "gameId": "g1", "side": "lock", "kind": "goal"}),
            "server",
        )
        .await
        .unwrap();
    let while_failing = next_goal(&mut tap).await;
    assert_eq!(
        while_failing.payload["side"], "lock",
        "reported goals count while the sensors fail"
    );
    lines.unplug(false);
    lines.ball(27);
    let after = next_goal(&mut tap).await;
    assert_eq!(
        (&after.payload["side"], &after.payload["kind"]),
        (&json!("lock"), &json!("goal"))
    );
    assert!(part_failing(&runtime).is_none());
    let events = &runtime.parts().part(SENSORS_PART).state().events;
    assert_eq!(events.get("ball"), Some(&2));
    assert_eq!(events.get("ball_while_idle"), Some(&1));
    referee.stop(Duration::from_secs(5)).await.unwrap();
}
