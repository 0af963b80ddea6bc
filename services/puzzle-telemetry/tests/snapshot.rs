//! The telemetry's snapshot format: over random histories (v1 and v2 sessions, honest and
//! tampered, resends, publications), the state restored from a snapshot taken anywhere, with
//! the rest of the log folded on it, equals the state rebuilt from the whole log — statistics,
//! verified and v1/v2 counts, the publication schedule and the set of `gameId`s alike.

use arcade_contracts::game::SessionCompletion;
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::telemetry::{Event, Input, PuzzleTelemetry, TelemetryState};
use arcade_puzzle_telemetry::service::TelemetryService;
use arcade_runtime::{Snapshot, SnapshotError};
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

/// The events a history gives, decided one input at a time as the host does.
fn history(seed: u64, ops: &[Op]) -> (Vec<Event>, Vec<String>) {
    let decider = PuzzleTelemetry::publishing_every(5_000);
    let mut simulator = Simulator::new(seed);
    let mut state = TelemetryState::default();
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
    ) {
        let (events, game_ids) = history(seed, &ops);
        let full = fold(TelemetryState::default(), &events);
        let at = ((events.len() as f64) * cut) as usize;
        let snapshot = TelemetryService::encode(&fold(TelemetryState::default(), &events[..at]));
        let restored = TelemetryService::decode(&snapshot).unwrap();
        let restored = fold(restored, &events[at..]);
        prop_assert_eq!(&restored, &full);
        // What readers see follows: the published statistics and every session's identity.
        prop_assert_eq!(restored.snapshot(7), full.snapshot(7));
        for id in &game_ids {
            prop_assert!(restored.has_session(id), "{} lost", id);
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
    let (events, _) = history(7, &ops);
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
