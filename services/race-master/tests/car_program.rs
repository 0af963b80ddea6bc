//! A team's car program and the master over the embedded bus: the team's queue exists from
//! the team's first registration (facts wait there whenever the program subscribes), and a car
//! program restarted in the middle of a race takes its cars' true state from the master and
//! plays on without a refused registration or a penalty.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::race::{
    self as c, CarRegister, CarRegistered, RaceFinished, RaceStart, StandingsUpdated, StateQuery,
    StateReported,
};
use arcade_race_master::bots::{CarBot, Strategy};
use arcade_race_master::car::{CarProgram, run_on_bus, team_subscription};
use arcade_race_master::mapping::RaceMessage;
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Runtime, SubscriptionSpec};

fn runtime(dir: &tempfile::TempDir) -> Runtime {
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    arcade_runtime::testkit::runtime(bus, dir.path()).with_sender("operator")
}

async fn tap(runtime: &Runtime, name: &str) -> Box<dyn Consumer> {
    let spec = SubscriptionSpec::temporary(format!("tap.{name}"), vec!["race.#".into()]);
    runtime.bus().subscribe(&spec).await.unwrap()
}

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// The next message of type `M` on `consumer` matching `pick`.
async fn next_of<M: Message>(consumer: &mut Box<dyn Consumer>, pick: impl Fn(&M) -> bool) -> M {
    loop {
        let delivery = consumer.next().await.unwrap();
        let envelope = lossy_envelope(&delivery.message);
        delivery.ack().await.unwrap();
        if envelope.message_type == M::TYPE {
            let message: M = serde_json::from_value(envelope.payload).unwrap();
            if pick(&message) {
                return message;
            }
        }
    }
}

async fn send<M: Message>(runtime: &Runtime, message: &M) {
    let payload = serde_json::to_value(message).unwrap();
    runtime.send(M::TYPE, payload, "test").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_team_queue_exists_from_the_first_registration_whoever_subscribes_later() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = runtime(&dir);
    let master = runtime.start(RaceService::new(5)).unwrap();
    let mut facts = tap(&runtime, "registrations").await;
    // The car program registers before it subscribes to its team's queue.
    let registration = CarRegister {
        team: "red".into(),
        car: "red-1".into(),
        modules: c::Modules {
            pilots: 1,
            engines: 4,
            weapons: 2,
        },
    };
    send(&runtime, &registration).await;
    send(
        &runtime,
        &StateQuery {
            team: "red".into(),
            race_id: None,
        },
    )
    .await;
    within(
        "the registration",
        next_of(&mut facts, |_: &CarRegistered| true),
    )
    .await;
    // Everything told to the team since its registration waits in its queue, in order: its
    // account after the registration, then the answer to its query.
    let mut team = runtime
        .bus()
        .subscribe(&team_subscription("red"))
        .await
        .unwrap();
    for what in [
        "the account after the registration",
        "the answer to the query",
    ] {
        let report: StateReported = within(what, next_of(&mut team, |_| true)).await;
        assert_eq!(report.cars.len(), 1, "{what}");
        assert_eq!(report.cars[0].car, "red-1");
        assert_eq!(report.budget, 100 - 13);
    }
    drop(team);
    master.stop(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_car_program_plays_on_from_the_masters_state() {
    const SEED: u64 = 77;
    let dir = tempfile::tempdir().unwrap();
    let runtime = runtime(&dir);
    let master = runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&runtime, "race").await;
    let spawn = |team: &'static str, strategy, number| {
        let runtime = runtime.clone();
        tokio::spawn(async move {
            let bot = CarBot::new(team, strategy, SEED, number);
            run_on_bus(&runtime, CarProgram::new(bot), 2, None, |_| {}).await
        })
    };
    let red = spawn("red", Strategy::Cautious, 0);
    let blue = spawn("blue", Strategy::Aggressive, 1);
    for _ in 0..4 {
        within(
            "the registrations",
            next_of(&mut facts, |_: &CarRegistered| true),
        )
        .await;
    }
    let start = RaceStart {
        turns: Some(8),
        duration_ms: None,
        turn_interval_ms: Some(5),
        decision_timeout_ms: Some(60_000),
        distribution: None,
    };
    send(&runtime, &start).await;
    within(
        "turn 3's standings",
        next_of(&mut facts, |s: &StandingsUpdated| s.turn == 3),
    )
    .await;
    // The red program dies in the middle of the race, and a new one takes over.
    red.abort();
    assert!(red.await.unwrap_err().is_cancelled());
    let red = spawn("red", Strategy::Cautious, 0);
    let finished = within("the end of the race", async {
        loop {
            let delivery = facts.next().await.unwrap();
            let envelope = lossy_envelope(&delivery.message);
            delivery.ack().await.unwrap();
            match RaceMessage::read(&envelope.message_type, &envelope.payload).unwrap() {
                Some(RaceMessage::RegistrationRejected(r)) => {
                    panic!("the restarted program registers nothing twice: {r:?}")
                }
                Some(RaceMessage::PenaltyGiven(p)) => {
                    panic!("the restarted program knows its cars' true state: {p:?}")
                }
                Some(RaceMessage::RaceFinished(f)) => break f,
                _ => {}
            }
        }
    })
    .await;
    assert_eq!(finished.turn, 8);
    let seen: RaceFinished = within("the red program", red).await.unwrap().unwrap();
    assert_eq!(seen, finished);
    within("the blue program", blue).await.unwrap().unwrap();
    master.stop(Duration::from_secs(5)).await.unwrap();
}
