//! The telemetry service on a real runtime over the embedded bus, in a temporary data dir:
//! sessions in → recorded / flagged / statistics out, a restart keeps the statistics, a
//! duplicate delivery changes nothing, a session resent under another id (or as v2) is counted
//! once and as a duplicate, bad payloads end in the dead letters with their reason.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::game::{GameSessionCompleted, GameSessionCompletedV2, Outcome};
use arcade_contracts::puzzle::{FlagReason, SessionFlagged, SessionRecorded, StatsUpdated};
use arcade_contracts::{Envelope, Message};
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::strata::{Puzzle, Stage};
use arcade_puzzle_telemetry::service::{LiveStats, SERVICE_NAME, TelemetryService};
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::testkit;
use arcade_runtime::{
    Bus, Destination, HostHandle, Publication, Runtime, Service, SubscriptionSpec, WireMessage,
};

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// Waits until the live view counts `n` sessions (recorded or flagged, durable).
async fn counted(live: &LiveStats, n: u64) {
    within(&format!("{n} sessions counted"), async {
        while live.counted() < n {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
}

struct Setup {
    _dir: tempfile::TempDir,
    bus: Arc<EmbeddedBus>,
    runtime: Runtime,
}

/// A bus with the service's queue already declared and bound, as the broker's definitions
/// would have it: the service subscribes in the background once started, and a topic message
/// published before its binding exists would be routed nowhere.
async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let spec = TelemetryService::new(0).spec();
    drop(
        bus.subscribe(&SubscriptionSpec::durable(spec.queue, spec.bindings))
            .await
            .unwrap(),
    );
    let runtime = testkit::runtime(bus.clone(), dir.path());
    Setup {
        _dir: dir,
        bus,
        runtime,
    }
}

fn start(runtime: &Runtime, every_ms: u64) -> (HostHandle<TelemetryService>, LiveStats) {
    let service = TelemetryService::new(every_ms);
    let live = service.live();
    (runtime.start(service).unwrap(), live)
}

/// Starts the service again on the same data dir: sled releases the directory's lock when its
/// background flusher has finished, shortly after the previous instance is dropped.
async fn restart(runtime: &Runtime, every_ms: u64) -> (HostHandle<TelemetryService>, LiveStats) {
    for _ in 0..200 {
        let service = TelemetryService::new(every_ms);
        let live = service.live();
        match runtime.start(service) {
            Ok(host) => return (host, live),
            Err(e) if e.to_string().contains("in use by a running process") => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("the store stayed locked for 10 s after the service stopped")
}

/// A temporary subscription, as `arcade tap` makes.
async fn tap(bus: &EmbeddedBus, pattern: &str) -> Box<dyn Consumer> {
    let queue = format!("test.tap.{}", uuid_like(pattern));
    bus.subscribe(&SubscriptionSpec::temporary(queue, vec![pattern.into()]))
        .await
        .unwrap()
}

fn uuid_like(seed: &str) -> String {
    format!(
        "{}-{}",
        seed.replace(['.', '#', '*'], "_"),
        std::process::id()
    )
}

async fn next(consumer: &mut Box<dyn Consumer>) -> Envelope {
    let delivery = within("a message", consumer.next()).await.unwrap();
    let envelope = lossy_envelope(&delivery.message);
    delivery.ack().await.unwrap();
    envelope
}

/// Messages until one of `message_type` satisfying `matches`.
async fn until(
    consumer: &mut Box<dyn Consumer>,
    message_type: &str,
    matches: impl Fn(&Envelope) -> bool,
) -> Envelope {
    loop {
        let envelope = next(consumer).await;
        if envelope.message_type == message_type && matches(&envelope) {
            return envelope;
        }
    }
}

fn wire(body: Vec<u8>, id: Option<&str>) -> Publication {
    Publication {
        destination: Destination::Topic,
        message: WireMessage {
            message_type: Some(GameSessionCompleted::TYPE.into()),
            message_id: id.map(Into::into),
            app_id: id.map(|_| "test-producer".into()),
            body,
            ..Default::default()
        },
    }
}

fn session_message(session: &GameSessionCompleted, id: Option<&str>) -> Publication {
    wire(serde_json::to_vec(session).unwrap(), id)
}

/// A session impossible under the rules: more turns than its puzzle's move limit.
fn forged(game_id: &str) -> GameSessionCompleted {
    GameSessionCompleted {
        game_id: game_id.into(),
        seed: 77,
        stage: 2,
        outcome: Outcome::Failed,
        turns: 9,
        duration_ms: 12_000,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_in_become_recorded_and_flagged_sessions_and_statistics_out() {
    let s = setup().await;
    let mut puzzle = tap(&s.bus, "puzzle.#").await;
    let (host, live) = start(&s.runtime, 0);
    let limit = Puzzle::generate(42, Stage::new(3).unwrap())
        .unwrap()
        .move_limit();
    let good = GameSessionCompleted {
        game_id: "good-1".into(),
        seed: 42,
        stage: 3,
        outcome: Outcome::Failed,
        turns: limit.into(),
        duration_ms: 61_000,
    };
    s.bus
        .publish(&[
            session_message(&good, Some("m-good")),
            session_message(&forged("bad-1"), Some("m-bad")),
        ])
        .await
        .unwrap();

    let recorded = until(&mut puzzle, SessionRecorded::TYPE, |_| true).await;
    let recorded_payload: SessionRecorded = serde_json::from_value(recorded.payload).unwrap();
    assert_eq!(recorded_payload.game_id, "good-1");
    assert_eq!(recorded_payload.move_limit, limit);
    assert_eq!(recorded_payload.outcome, Outcome::Failed);
    assert_eq!(recorded.causation_id.as_deref(), Some("m-good"));
    assert_eq!(recorded.producer, SERVICE_NAME);

    let flagged = until(&mut puzzle, SessionFlagged::TYPE, |_| true).await;
    assert_eq!(flagged.causation_id.as_deref(), Some("m-bad"));
    let flagged: SessionFlagged = serde_json::from_value(flagged.payload).unwrap();
    assert_eq!(flagged.game_id, "bad-1");
    assert_eq!(flagged.reason, FlagReason::TurnsAboveLimit);
    assert_eq!(flagged.move_limit, Some(4));
    assert_eq!(
        flagged.detail,
        "9 turns, above the move limit of 4 for seed 77 at stage 2"
    );

    let stats = until(&mut puzzle, StatsUpdated::TYPE, |e| {
        e.payload["sessions"] == 1 && e.payload["flagged"] == 1
    })
    .await;
    let stats: StatsUpdated = serde_json::from_value(stats.payload).unwrap();
    let three = &stats.stages[2];
    assert_eq!((three.sessions, three.failed, three.won), (1, 1, 0));
    assert_eq!(three.win_rate, Some(0.0));
    assert_eq!(three.exhausted_budget, 1);
    assert_eq!(stats.stages[1].flagged, 1);
    let served = live.snapshot(stats.published_at_ms);
    assert_eq!(served, stats, "the live view is the published statistics");
    host.stop(Duration::from_secs(5)).await.unwrap();
    assert!(s.bus.dead_letters().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_are_published_at_most_once_per_configured_interval() {
    let s = setup().await;
    let mut stats = tap(&s.bus, StatsUpdated::TYPE).await;
    let (host, _live) = start(&s.runtime, 400);
    let mut simulator = Simulator::new(5);
    s.bus
        .publish(&[session_message(&simulator.session(None), Some("a"))])
        .await
        .unwrap();
    let first: StatsUpdated = serde_json::from_value(next(&mut stats).await.payload).unwrap();
    assert_eq!(
        first.sessions + first.flagged,
        1,
        "the first session right away"
    );
    let burst: Vec<Publication> = (0..20)
        .map(|k| session_message(&simulator.session(None), Some(&format!("b{k}"))))
        .collect();
    s.bus.publish(&burst).await.unwrap();
    let second: StatsUpdated = serde_json::from_value(next(&mut stats).await.payload).unwrap();
    assert!(
        second.published_at_ms >= first.published_at_ms + 400,
        "{} then {}",
        first.published_at_ms,
        second.published_at_ms
    );
    let host = host.stop(Duration::from_secs(5)).await.unwrap();
    let total = host.state().stats().sessions() + host.state().stats().flagged();
    assert_eq!(total, 21);
    assert!(second.sessions + second.flagged <= total);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_from_the_same_data_dir_keeps_the_statistics() {
    let s = setup().await;
    let (host, live) = start(&s.runtime, 60_000);
    let mut simulator = Simulator::new(11);
    let sessions: Vec<Publication> = (0..60)
        .map(|k| session_message(&simulator.session(None), Some(&format!("s{k}"))))
        .collect();
    s.bus.publish(&sessions).await.unwrap();
    counted(&live, 60).await;
    // Chained so the stopped host (and its store) is dropped before the store opens again.
    let before = host
        .stop(Duration::from_secs(5))
        .await
        .unwrap()
        .state()
        .clone();
    assert_eq!(before.stats().sessions() + before.stats().flagged(), 60);

    let (again, live_again) = restart(&s.runtime, 60_000).await;
    // The view is set from the replayed log before any input.
    counted(&live_again, 60).await;
    assert_eq!(live_again.snapshot(1), before.snapshot(1));
    // The same sessions again (a producer republishing): absorbed.
    s.bus.publish(&sessions[..10]).await.unwrap();
    s.bus
        .publish(&[session_message(&simulator.session(None), Some("s60"))])
        .await
        .unwrap();
    counted(&live_again, 61).await;
    let after = again.stop(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        after.state().stats().sessions() + after.state().stats().flagged(),
        61
    );
    assert_eq!(
        s.runtime.metrics().snapshot()[SERVICE_NAME].deduplicated,
        10
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_delivery_changes_nothing_even_without_a_message_id() {
    let s = setup().await;
    let (host, live) = start(&s.runtime, 60_000);
    let one = GameSessionCompleted {
        game_id: "php-1".into(),
        seed: 9,
        stage: 1,
        outcome: Outcome::Abandoned,
        turns: 0,
        duration_ms: 3_000,
    };
    let two = GameSessionCompleted {
        game_id: "php-2".into(),
        ..one.clone()
    };
    // A PHP producer (Symfony Messenger, interop serializer) sends only a `type` header.
    s.bus
        .publish(&[
            session_message(&one, None),
            session_message(&one, None),
            session_message(&two, Some("with-id")),
            session_message(&two, Some("with-id")),
        ])
        .await
        .unwrap();
    s.bus.publish(&[session_message(&one, None)]).await.unwrap();
    within("the duplicates to be absorbed", async {
        while s.runtime.metrics().snapshot()[SERVICE_NAME].consumed < 5
            || s.bus.depth(SERVICE_NAME) > 0
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    let host = host.stop(Duration::from_secs(5)).await.unwrap();
    let stage_one = host.state().stats().stage(Stage::new(1).unwrap()).clone();
    assert_eq!((stage_one.sessions, stage_one.abandoned), (2, 2));
    assert_eq!(live.counted(), 2);
    assert_eq!(s.runtime.metrics().snapshot()[SERVICE_NAME].deduplicated, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_payloads_end_in_the_dead_letters_with_their_reason() {
    let s = setup().await;
    let (host, live) = start(&s.runtime, 60_000);
    let valid = serde_json::to_value(GameSessionCompleted::example()).unwrap();
    let mut stage_nine = valid.clone();
    stage_nine["stage"] = 9.into();
    let mut no_outcome = valid.clone();
    no_outcome.as_object_mut().unwrap().remove("outcome");
    let mut huge_turns = valid.clone();
    huge_turns["turns"] = serde_json::json!(1_u64 << 40);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (br#"{"gameId":"#.to_vec(), "body is not JSON"),
        (serde_json::to_vec(&stage_nine).unwrap(), "/stage"),
        (serde_json::to_vec(&no_outcome).unwrap(), "outcome"),
        // Beyond u32: the schema carries the type's maximum and names the field.
        (serde_json::to_vec(&huge_turns).unwrap(), "/turns"),
    ];
    let publications: Vec<Publication> = cases
        .iter()
        .enumerate()
        .map(|(k, (body, _))| wire(body.clone(), Some(&format!("bad-{k}"))))
        .chain([wire(serde_json::to_vec(&valid).unwrap(), Some("good"))])
        .collect();
    s.bus.publish(&publications).await.unwrap();
    counted(&live, 1).await;
    host.stop(Duration::from_secs(5)).await.unwrap();
    let dead = s.bus.dead_letters();
    assert_eq!(dead.len(), cases.len(), "{dead:?}");
    for (letter, (_, expected)) in dead.iter().zip(&cases) {
        let reason = letter.dead_reason().expect("a reason");
        assert!(
            reason.contains(GameSessionCompleted::TYPE) && reason.contains(expected),
            "{reason:?} should name the type and say {expected:?}"
        );
    }
    assert_eq!(
        s.runtime.metrics().snapshot()[SERVICE_NAME].dead_lettered,
        cases.len() as u64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_resent_under_another_id_or_as_v2_is_counted_once_and_as_a_duplicate() {
    let s = setup().await;
    let (host, live) = start(&s.runtime, 60_000);
    let played = Simulator::new(31).play(Some(Stage::new(2).unwrap()));
    let v2 = Publication {
        destination: Destination::Topic,
        message: WireMessage {
            message_type: Some(GameSessionCompletedV2::TYPE.into()),
            message_id: Some("third".into()),
            body: serde_json::to_vec(&played.v2("test 1")).unwrap(),
            ..Default::default()
        },
    };
    s.bus
        .publish(&[
            session_message(&played.v1, Some("first")),
            session_message(&played.v1, Some("second")),
            v2,
        ])
        .await
        .unwrap();
    within("the repeats to be absorbed", async {
        while s.runtime.metrics().snapshot()[SERVICE_NAME].consumed < 3
            || s.bus.depth(SERVICE_NAME) > 0
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    let host = host.stop(Duration::from_secs(5)).await.unwrap();
    let stage = host.state().stats().stage(Stage::new(2).unwrap()).clone();
    assert_eq!(stage.sessions + stage.flagged, 1, "one session: {stage:?}");
    assert_eq!(
        (stage.v1, stage.v2),
        (1, 0),
        "the first arrival (v1) counts"
    );
    assert_eq!(live.counted(), 1);
    let counters = s.runtime.metrics().snapshot()[SERVICE_NAME];
    assert_eq!((counters.deduplicated, counters.dead_lettered), (2, 0));
}
