//! The referee's snapshot format: over random histories (games started with the example rules,
//! balls, reports, aborts, cancels, clock ticks, refused requests), the state restored from a snapshot
//! taken anywhere, with the rest of the log folded on it, equals the state rebuilt from the
//! whole log: the game, its rules, score, phase, balls, winner, the ball locks and every game
//! id ever played.

mod common;

use arcade_contracts::table::TableGoalCancel;
use arcade_referee::domain::referee::{AbortGame, BallSeen, GoalReport, StartGame};
use arcade_referee::service::RefereeService;
use arcade_referee::table::SimulatedTable;
use arcade_referee::{BallKind, Event, Input, Referee, Side, TableState};
use arcade_runtime::testkit::Scenario;
use arcade_runtime::{Snapshot, SnapshotError};
use common::TableRules;
use proptest::prelude::*;
use serde_json::Value;

type Codec = RefereeService<SimulatedTable>;

const T0: u64 = 1_717_243_200_000;

fn documents() -> Vec<Value> {
    [
        include_str!("../examples/bar.rules.json"),
        include_str!("../examples/tournament.rules.json"),
        include_str!("../examples/aggressive.rules.json"),
    ]
    .iter()
    .map(|text| serde_json::from_str(text).unwrap())
    .collect()
}

#[derive(Debug, Clone)]
enum Op {
    Start(usize, u8),
    Ball(bool, bool),
    Report(bool, bool),
    Abort(u8),
    Cancel(u8),
    Tick(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (0usize..3, 0u8..6).prop_map(|(d, g)| Op::Start(d, g)),
        8 => (any::<bool>(), any::<bool>()).prop_map(|(s, k)| Op::Ball(s, k)),
        2 => (any::<bool>(), any::<bool>()).prop_map(|(s, k)| Op::Report(s, k)),
        1 => (0u8..6).prop_map(Op::Abort),
        1 => (0u8..6).prop_map(Op::Cancel),
        1 => (0u64..400_000).prop_map(Op::Tick),
    ]
}

fn side(hinge: bool) -> Side {
    if hinge { Side::Hinge } else { Side::Lock }
}

fn kind(goal: bool) -> BallKind {
    if goal {
        BallKind::Goal
    } else {
        BallKind::Inout
    }
}

/// `events` folded on `state`, as the host folds the log's tail on a restored snapshot.
fn fold(mut state: TableState, events: &[Event]) -> TableState {
    for event in events {
        Referee::evolve(&mut state, event);
    }
    state
}

fn history(ops: &[Op]) -> Vec<Event> {
    let documents = documents();
    let mut table = Scenario::new(TableRules(Referee::new("t1")));
    let mut now = T0;
    for op in ops {
        now += 1_000;
        let input = match op {
            Op::Start(d, g) => Input::Start(StartGame {
                table_id: "t1".into(),
                game_id: format!("g{g}"),
                rules: documents[*d].clone(),
                players: None,
                at_ms: now,
            }),
            Op::Ball(s, k) => Input::Ball(BallSeen {
                side: side(*s),
                kind: kind(*k),
                at_ms: now,
            }),
            Op::Report(s, k) => Input::Report(GoalReport {
                table_id: "t1".into(),
                game_id: None,
                side: side(*s),
                kind: kind(*k),
                player: Some("ana".into()),
                at_ms: now,
            }),
            Op::Abort(g) => Input::Abort(AbortGame {
                table_id: "t1".into(),
                game_id: format!("g{g}"),
                reason: None,
                at_ms: now,
            }),
            Op::Cancel(g) => Input::from(TableGoalCancel {
                table_id: "t1".into(),
                game_id: format!("g{g}"),
                ball: None,
                reason: None,
            }),
            Op::Tick(ms) => {
                now += ms;
                Input::Tick { now_ms: now }
            }
        };
        let _refused_or_applied = table.try_run(input);
    }
    table.into_history()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn restored_from_a_snapshot_plus_the_tail_equals_the_full_replay(
        ops in prop::collection::vec(op(), 0..120),
        cut in 0.0f64..=1.0,
    ) {
        let events = history(&ops);
        let full = fold(TableState::default(), &events);
        let at = ((events.len() as f64) * cut) as usize;
        let snapshot = Codec::encode(&fold(TableState::default(), &events[..at]));
        let restored = fold(Codec::decode(&snapshot).unwrap(), &events[at..]);
        prop_assert_eq!(&restored, &full);
        prop_assert_eq!(&Codec::decode(&Codec::encode(&full)).unwrap(), &full);
    }
}

#[test]
fn a_snapshot_cut_short_is_refused_not_misread() {
    let ops = [
        Op::Start(0, 1),
        Op::Ball(true, true),
        Op::Ball(false, false),
    ];
    let state = fold(TableState::default(), &history(&ops));
    assert!(state.game().is_some());
    let bytes = Codec::encode(&state);
    for len in [0, 1, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(Codec::decode(&bytes[..len]), Err(SnapshotError::Payload(_))),
            "{len} bytes of {}",
            bytes.len()
        );
    }
}
