//! The telemetry's snapshot format: over random histories (v1 and v2 sessions, honest and
//! tampered, resends, publications), the state restored from a snapshot taken anywhere, with
//! the rest of the log folded on it, equals the state rebuilt from the whole log — statistics,
//! verified and v1/v2 counts, the publication schedule and the window of `gameId`s alike, with
//! windows short enough for ids to be forgotten along the way. And, on a real store, a snapshot
//! of the retired format version 1, or one taken under another window, is skipped by the
//! runtime and the log replayed; one of version 2 (written by the previous main, a checked-in
//! data dir) is restored.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Catalog;
use arcade_contracts::game::SessionCompletion;
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::telemetry::{
    Event, Input, PuzzleTelemetry, SESSION_WINDOW_MS, TelemetryState,
};
use arcade_puzzle_telemetry::service::TelemetryService;
use arcade_runtime::counters::Counters;
use arcade_runtime::store::snapshot;
use arcade_runtime::{Clock, Host, HostConfig, Snapshot, SnapshotError, SnapshotPolicy, Store};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    V1,
    V2,
    /// A v2 whose turns disagree with its moves: flagged.
    Tampered,
    /// An earlier session again (absorbed as a repeat, or a no-op decision).
    Resend(usize),
    /// Time passes, then a tick (may publish).
    Tick(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::V1),
        4 => Just(Op::V2),
        1 => Just(Op::Tampered),
        1 => any::<usize>().prop_map(Op::Resend),
        2 => (0u64..20_000).prop_map(Op::Tick),
    ]
}

fn fold(mut state: TelemetryState, events: &[Event]) -> TelemetryState {
    for event in events {
        PuzzleTelemetry::evolve(&mut state, event);
    }
    state
}

/// The events a history gives, decided one input at a time as the host does, from `fresh`.
fn history(seed: u64, ops: &[Op], fresh: &TelemetryState) -> (Vec<Event>, Vec<String>) {
    let decider = PuzzleTelemetry::publishing_every(5_000);
    let mut simulator = Simulator::new(seed);
    let mut state = fresh.clone();
    let mut sent: Vec<SessionCompletion> = Vec::new();
    let mut events = Vec::new();
    let mut now = 1_000_000u64;
    for op in ops {
        let input = match op {
            Op::V1 => Input::Session(simulator.session(None).into()),
            Op::V2 => Input::Session(simulator.play(None).v2("test 1").into()),
            Op::Tampered => {
                let mut v2 = simulator.play(None).v2("test 1");
                v2.turns += 1;
                Input::Session(v2.into())
            }
            Op::Resend(i) if !sent.is_empty() => Input::Session(sent[i % sent.len()].clone()),
            Op::Resend(_) => continue,
            Op::Tick(ms) => {
                now += ms;
                Input::Tick
            }
        };
        if let Input::Session(s) = &input {
            sent.push(s.clone());
            if PuzzleTelemetry::is_repeat(&state, &input) {
                continue;
            }
        }
        now += 1;
        let Ok(decided) = decider.decide(&state, &input, now);
        state = fold(state, &decided);
        events.extend(decided);
    }
    (events, sent.into_iter().map(|s| s.game_id).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn restored_from_a_snapshot_plus_the_tail_equals_the_full_replay(
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 0..80),
        cut in 0.0f64..=1.0,
        // The default window (nothing forgotten in these histories), or one of seconds that
        // the ticks' time leaves behind.
        window in prop_oneof![Just(SESSION_WINDOW_MS), 1u64..40_000],
    ) {
        let fresh = TelemetryState::with_session_window(window);
        let (events, game_ids) = history(seed, &ops, &fresh);
        let full = fold(fresh.clone(), &events);
        let at = ((events.len() as f64) * cut) as usize;
        let snapshot = TelemetryService::encode(&fold(fresh.clone(), &events[..at]));
        let restored = TelemetryService::decode(&snapshot).unwrap();
        prop_assert_eq!(restored.sessions().window_ms(), window);
        let restored = fold(restored, &events[at..]);
        prop_assert_eq!(&restored, &full);
        // What readers see follows: the published statistics and every session's identity.
        prop_assert_eq!(restored.snapshot(7), full.snapshot(7));
        for id in &game_ids {
            prop_assert_eq!(restored.has_session(id), full.has_session(id), "{}", id);
            if window == SESSION_WINDOW_MS {
                prop_assert!(restored.has_session(id), "{} lost", id);
            }
        }
        // And a snapshot of the end restores the end.
        prop_assert_eq!(&TelemetryService::decode(&TelemetryService::encode(&full)).unwrap(), &full);
    }
}

#[test]
fn a_snapshot_cut_short_or_of_the_wrong_shape_is_refused_not_misread() {
    let ops: Vec<Op> = (0..40)
        .map(|i| match i % 4 {
            0 => Op::V1,
            1 => Op::V2,
            2 => Op::Tick(6_000),
            _ => Op::Tampered,
        })
        .collect();
    let (events, _) = history(7, &ops, &TelemetryState::default());
    let state = fold(TelemetryState::default(), &events);
    assert!(state.stats().sessions() > 0 && state.stats().flagged() > 0);
    let bytes = TelemetryService::encode(&state);
    for len in [0, 1, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(
                TelemetryService::decode(&bytes[..len]),
                Err(SnapshotError::Payload(_))
            ),
            "{len} bytes of {}",
            bytes.len()
        );
    }
}

/// The state a host opened on `store` starts from, and the entry of the snapshot it restored
/// (0: none, the whole log replayed).
fn open_with(
    store: &Arc<Store>,
    snapshots: SnapshotPolicy,
    service: TelemetryService,
) -> (TelemetryState, u64) {
    let counters = Arc::new(Counters::default());
    let host = Host::open(
        Arc::new(service),
        store.clone(),
        Arc::new(Catalog::new()),
        counters.clone(),
        Clock::starting_at(1_800_000_000_000),
        HostConfig {
            snapshots,
            ..HostConfig::default()
        },
    )
    .unwrap();
    let restored_from = counters
        .snapshot_seq
        .load(std::sync::atomic::Ordering::Relaxed);
    (host.state().clone(), restored_from)
}

fn open(store: &Arc<Store>, snapshots: SnapshotPolicy) -> (TelemetryState, u64) {
    open_with(store, snapshots, TelemetryService::new(5_000))
}

#[tokio::test]
async fn a_snapshot_of_the_retired_version_1_or_of_another_window_is_skipped_and_the_log_replayed()
{
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let mut host = Host::open(
        Arc::new(TelemetryService::new(5_000)),
        store.clone(),
        Arc::new(Catalog::new()),
        Arc::new(Counters::default()),
        Clock::starting_at(1_800_000_000_000),
        HostConfig::default(),
    )
    .unwrap();
    let mut simulator = Simulator::new(9);
    for _ in 0..30 {
        host.handle_local(Input::Session(simulator.session(None).into()))
            .unwrap();
    }
    let state = host.state().clone();
    drop(host);
    let seq = store.end() - 1;
    assert!(seq >= 30, "{seq}");
    let (full, from) = open(&store, SnapshotPolicy::OFF);
    assert_eq!((&full, from), (&state, 0));

    // A snapshot of this build's format covering the whole log is used...
    let current = snapshot::encode(
        TelemetryService::VERSION,
        seq,
        1,
        &[],
        &TelemetryService::encode(&state),
    );
    store.write_snapshot(seq, current.clone()).unwrap();
    assert_eq!(open(&store, SnapshotPolicy::DEFAULT), (state.clone(), seq));

    // ...but not by a service started with another window: the log is folded again under it.
    let hourly = || TelemetryService::new(5_000).with_session_window(Duration::from_secs(3_600));
    let (under_an_hour, from) = open_with(&store, SnapshotPolicy::DEFAULT, hourly());
    assert_eq!(from, 0);
    assert_eq!(under_an_hour.sessions().window_ms(), 3_600_000);
    assert_eq!(
        open_with(&store, SnapshotPolicy::OFF, hourly()),
        (under_an_hour, 0)
    );

    // ...one tagged with the retired version 1 (whose payload held every gameId ever seen) is
    // skipped, and the whole log replayed to the same state.
    assert_eq!(TelemetryService::VERSION, 3);
    let frame = snapshot::parse(
        &snapshot::Stored {
            seq,
            bytes: current.into(),
        },
        None,
    )
    .unwrap();
    let retired = snapshot::encode(1, seq, 1, &[], &frame.state);
    store.put_snapshot_bytes(seq, &retired).unwrap();
    assert_eq!(open(&store, SnapshotPolicy::DEFAULT), (state, 0));
}

/// A data dir written by the previous main (4bd1fa0, `tests/fixtures/make-telemetry-4bd1fa0.sh`):
/// its snapshot, of version 2 (the window's `gameId`s as text), is restored, not skipped, and
/// with the log after it folded on it gives the state the whole log gives.
#[tokio::test]
async fn a_version_2_snapshot_of_the_previous_main_is_restored() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/telemetry-4bd1fa0.tar.gz"
    );
    let status = std::process::Command::new("tar")
        .args(["xzf", fixture, "-C"])
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success(), "tar xzf {fixture}");
    let store = Arc::new(Store::open(&dir.path().join("puzzle-telemetry")).unwrap());
    assert_eq!(store.end(), 42, "41 events: 40 sessions and a publication");

    let (restored, from) = open(&store, SnapshotPolicy::DEFAULT);
    assert_eq!(from, 25, "the version 2 snapshot is used");
    let (replayed, from) = open(&store, SnapshotPolicy::OFF);
    assert_eq!(from, 0);
    assert_eq!(restored, replayed);
    assert_eq!(restored.sessions().len(), 40, "every gameId remembered");
    let sessions = restored.stats().sessions() + restored.stats().flagged();
    assert_eq!(sessions, 40);
}
