//! The race master's snapshot format: over random histories (registrations good and bad, the
//! start, odds, grants, queries, answers by the cars' programs, wrong, foreign and late
//! answers, ticks, whole turns with their random events, combats and duels, the finish), the
//! state restored from a snapshot taken anywhere, with the rest of the log folded on it,
//! equals the state rebuilt from the whole log. A snapshot cut short or naming what is not
//! there is refused (`SnapshotError::Payload`), a damaged frame or one of another version is
//! refused by the runtime with its own typed error, and the host, restarted, restores the
//! newest snapshot it can read and skips the others. The race's seed is never in a snapshot.

#[path = "snapshot/driver.rs"]
mod driver;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::race::{CarRegistered, RaceFinished, RaceStart};
use arcade_race_master::bots::{CarBot, Strategy as Style};
use arcade_race_master::car::{CarProgram, run_on_bus};
use arcade_race_master::domain::RaceState;
use arcade_race_master::domain::state::{About, Status};
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::counters::Counters;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::store::snapshot::{self, Stored};
use arcade_runtime::{
    Clock, Host, HostConfig, Snapshot, SnapshotError, SnapshotPolicy, Store, SubscriptionSpec,
};
use driver::{Driver, fold, history, op};
use proptest::prelude::*;

type Codec = RaceService;

/// The seed of the races below whose snapshots are searched for it.
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn restored_from_a_snapshot_plus_the_tail_equals_the_full_replay(
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 0..200),
        cut in 0.0f64..=1.0,
    ) {
        let events = history(seed, &ops);
        let full = fold(RaceState::default(), &events);
        let at = ((events.len() as f64) * cut) as usize;
        let snapshot = Codec::encode(&fold(RaceState::default(), &events[..at]));
        let restored = fold(Codec::decode(&snapshot).unwrap(), &events[at..]);
        prop_assert_eq!(&restored, &full);
        prop_assert_eq!(&Codec::decode(&Codec::encode(&full)).unwrap(), &full);
    }
}

#[test]
fn whole_races_go_through_every_part_of_the_format_and_round_trip_at_every_entry() {
    let (mut duels, mut combats, mut events, mut fights, mut duel_turns, mut checks) =
        (0, 0, 0, 0, 0, 0);
    let mut stopped = false;
    // Mixed odds, then pirates only: every random event, combats, duels with cars and pirates.
    for (seed, odds) in [(SEED, 5), (SEED ^ 1, 1)] {
        let race = Driver::whole_race(seed, 15, odds);
        let mut state = RaceState::default();
        for event in &race.log {
            state.evolve(event);
            assert_eq!(Codec::decode(&Codec::encode(&state)).unwrap(), state);
            duels += usize::from(!state.duels.is_empty());
            combats += usize::from(!state.combats.is_empty());
            events += usize::from(!state.open_events.is_empty());
            for pending in state.pending.values() {
                match pending.about {
                    About::Fight { .. } => fights += 1,
                    About::Duel { .. } => duel_turns += 1,
                    About::StateCheck => checks += 1,
                    About::Event => {}
                }
            }
            stopped |= state.cars.iter().any(|car| car.stopped.is_some());
        }
        assert_eq!(state.status, Status::Finished);
    }
    for (what, count) in [
        ("duels in progress", duels),
        ("combats in progress", combats),
        ("random events in progress", events),
        ("fight questions", fights),
        ("duel questions", duel_turns),
        ("state checks", checks),
    ] {
        assert!(count > 0, "no state with {what}");
    }
    assert!(stopped, "no car left the race");
}

#[test]
fn a_snapshot_cut_short_is_refused_not_misread() {
    let race = Driver::whole_race(SEED, 6, 5);
    let bytes = Codec::encode(&race.state);
    for len in [0, 1, bytes.len() / 3, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(Codec::decode(&bytes[..len]), Err(SnapshotError::Payload(_))),
            "{len} bytes of {}",
            bytes.len()
        );
    }
}

#[test]
fn a_snapshot_naming_what_is_not_there_is_refused() {
    use driver::Op;
    let mut race = Driver::new(SEED);
    for op in [
        Op::Register(0, 0, 1, 4, 5),
        Op::Register(0, 1, 1, 4, 5),
        Op::Register(1, 0, 2, 3, 4),
        Op::Start(4, 0, false),
    ] {
        race.run(&op);
    }
    let state = race.state;
    let refused = |bad: RaceState, what: &str| match Codec::decode(&Codec::encode(&bad)) {
        Err(SnapshotError::Payload(reason)) => assert!(reason.contains(what), "{reason}"),
        other => panic!("{what}: {other:?}"),
    };
    let mut bad = state.clone();
    bad.cars[0].team = 7;
    refused(bad, "car red-0's team 7");
    let mut bad = state.clone();
    bad.teams[1].cars.push(99);
    refused(bad, "team blue's car 99");
    let mut bad = state.clone();
    bad.cars.push(state.cars[2].clone());
    refused(bad, "car blue-0 twice");
    let mut bad = state.clone();
    let mut pending = state
        .pending
        .values()
        .next()
        .expect("a car is asked")
        .clone();
    pending.car = 42;
    bad.pending.insert(1_000_000, pending);
    refused(bad, "the car asked 42");
}

#[test]
fn damaged_or_unknown_version_frames_are_refused_with_a_typed_error() {
    let state = Codec::encode(&Driver::whole_race(SEED, 4, 5).state);
    let frame = snapshot::encode(Codec::VERSION, 40, 1, &[], &state);
    let stored = |bytes: Vec<u8>| Stored {
        seq: 40,
        bytes: bytes.into(),
    };
    let read = snapshot::parse(&stored(frame.clone()), Some(Codec::VERSION)).unwrap();
    assert_eq!(
        Codec::decode(&read.state).unwrap(),
        Codec::decode(&state).unwrap()
    );

    let mut damaged = frame;
    let at = damaged.len() / 2;
    damaged[at] ^= 0x10;
    assert!(matches!(
        snapshot::parse(&stored(damaged), Some(Codec::VERSION)),
        Err(SnapshotError::Damaged { seq: 40, .. })
    ));
    let newer = snapshot::encode(Codec::VERSION + 1, 40, 1, &[], &state);
    assert_eq!(
        snapshot::parse(&stored(newer), Some(Codec::VERSION)).unwrap_err(),
        SnapshotError::UnknownVersion {
            seq: 40,
            found: 2,
            expected: 1
        }
    );
}

/// Every way the seed could be written: decimal and hex text, its 8 bytes either way, its
/// postcard varint.
fn seed_forms(seed: u64) -> Vec<Vec<u8>> {
    vec![
        seed.to_string().into_bytes(),
        hex::encode(seed.to_le_bytes()).into_bytes(),
        hex::encode(seed.to_be_bytes()).into_bytes(),
        seed.to_le_bytes().to_vec(),
        seed.to_be_bytes().to_vec(),
        postcard::to_allocvec(&seed).unwrap(),
    ]
}

#[test]
fn the_race_seed_is_never_in_a_snapshot() {
    let forms = seed_forms(SEED);
    assert_eq!(forms[5].len(), 10, "a varint of all 64 bits");
    let race = Driver::whole_race(SEED, 8, 5);
    let mut state = RaceState::default();
    for event in &race.log {
        state.evolve(event);
        let bytes = Codec::encode(&state);
        for form in &forms {
            assert!(
                !bytes.windows(form.len()).any(|w| w == form.as_slice()),
                "the seed in a snapshot after {event:?}"
            );
        }
    }
    assert_eq!(state.status, Status::Finished, "even after the finish");
}

// ---- The host: snapshots written as a race runs over the bus, restored, skipped ----

fn config(snapshots: SnapshotPolicy) -> HostConfig {
    HostConfig {
        batch: 16,
        prefetch: 64,
        relay_batch: 16,
        snapshots,
        ..HostConfig::default()
    }
}

const EVERY_8: SnapshotPolicy = SnapshotPolicy {
    every: 8,
    interval: None,
};

/// The race master's host opened on `store`: its state and which snapshot it used.
fn reopen(store: &Arc<Store>, snapshots: SnapshotPolicy) -> (RaceState, u64) {
    let counters = Arc::new(Counters::default());
    let host = Host::open(
        Arc::new(RaceService::new(7)),
        store.clone(),
        Arc::new(arcade_contracts::Catalog::new()),
        counters.clone(),
        Clock::system(),
        config(snapshots),
    )
    .unwrap();
    let used = counters.snapshot_seq.load(Ordering::Relaxed);
    (host.state().clone(), used)
}

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(120), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// The next `M` on `consumer` for which `pick` holds.
async fn next_of<M: Message + serde::de::DeserializeOwned>(
    consumer: &mut Box<dyn Consumer>,
    pick: impl Fn(&M) -> bool,
) -> M {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_restores_a_race_from_its_newest_readable_snapshot() {
    const CARS: usize = 2;
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus, dir.path())
        .with_sender("operator")
        .with_config(config(EVERY_8));
    let service = runtime.start(RaceService::new(7)).unwrap();
    let tap = SubscriptionSpec::temporary("tap.snapshots", vec!["race.#".into()]);
    let mut facts = runtime.bus().subscribe(&tap).await.unwrap();
    let mut programs = Vec::new();
    for (number, style) in [Style::Cautious, Style::Aggressive].into_iter().enumerate() {
        let team = format!("team-{}", number + 1);
        let program = CarProgram::new(CarBot::new(&team, style, 7, number as u32));
        let runtime = runtime.clone();
        programs.push(tokio::spawn(async move {
            run_on_bus(&runtime, program, CARS, None, |_| {}).await
        }));
        let last = format!("{team}-{CARS}");
        within("the registrations", async {
            next_of(&mut facts, |r: &CarRegistered| r.car == last).await
        })
        .await;
    }
    let start = RaceStart {
        turns: Some(8),
        duration_ms: None,
        turn_interval_ms: Some(20),
        decision_timeout_ms: Some(60_000),
        distribution: None,
    };
    runtime
        .send(
            RaceStart::TYPE,
            serde_json::to_value(&start).unwrap(),
            "test",
        )
        .await
        .unwrap();
    within("the finish", next_of(&mut facts, |_: &RaceFinished| true)).await;
    for program in programs {
        within("the car program", program).await.unwrap().unwrap();
    }
    let store = service.store().clone();
    let live = service.stop(Duration::from_secs(5)).await.unwrap();
    let live = live.state().clone();
    assert_eq!(live.status, Status::Finished);

    let stored = store.snapshots().unwrap();
    let [newest, older] = stored.as_slice() else {
        panic!("two snapshots kept, got {}", stored.len())
    };
    assert!(
        newest.seq > older.seq && older.seq > 8,
        "{} {}",
        newest.seq,
        older.seq
    );
    assert_eq!(reopen(&store, SnapshotPolicy::OFF), (live.clone(), 0));
    assert_eq!(reopen(&store, EVERY_8), (live.clone(), newest.seq));

    // The newest damaged: the older one is used; the older one of a format version this build
    // does not read: the whole log. Never a wrong state.
    let mut damaged = newest.bytes.to_vec();
    let at = damaged.len() - 5;
    damaged[at] ^= 0x01;
    store.put_snapshot_bytes(newest.seq, &damaged).unwrap();
    assert_eq!(reopen(&store, EVERY_8), (live.clone(), older.seq));
    let frame = snapshot::parse(older, None).unwrap();
    let newer = snapshot::encode(
        frame.version + 1,
        frame.seq,
        frame.taken_ms,
        &frame.flows,
        &frame.state,
    );
    store.put_snapshot_bytes(older.seq, &newer).unwrap();
    assert_eq!(reopen(&store, EVERY_8), (live, 0));
}
