//! The referee's snapshot format: over random histories (games started with the example rules,
//! balls, reports, aborts, cancels, clock ticks, refused requests), the state restored from a
//! snapshot taken anywhere, with the rest of the log folded on it, equals the state rebuilt
//! from the whole log: the game, its rules, score, phase, balls, winner, the ball locks and
//! every game id ever played. A snapshot of version 2 reads as the state it was taken of.

mod common;

use arcade_contracts::table::TableGoalCancel;
use arcade_referee::domain::referee::{AbortGame, BallSeen, GoalReport, StartGame};
use arcade_referee::service::RefereeService;
use arcade_referee::table::SimulatedTable;
use arcade_referee::{BallKind, Event, IbrLock, Input, Phase, Referee, Side, TableState};
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

/// Version 2's layout, as the referee wrote it before version 3.
#[derive(serde::Serialize)]
struct TableV2 {
    game: Option<GameV2>,
    ibr: Option<(u8, u8)>,
    played: Vec<String>,
}

#[derive(serde::Serialize)]
struct GameV2 {
    id: String,
    rules: String,
    players: Option<(Vec<String>, Vec<String>)>,
    started_at_ms: u64,
    hinge: i64,
    lock: i64,
    phase: u8,
    balls: u64,
    winner: Option<u8>,
    over: bool,
    before_last: Option<(i64, i64, u8, u64)>,
}

#[test]
fn a_version_2_snapshot_is_read_as_the_state_it_was_taken_of() {
    // g1 of the bar rules at 3–1, its last ball (lock's) still cancellable.
    let ops = [
        Op::Start(0, 1),
        Op::Ball(true, true),
        Op::Ball(true, true),
        Op::Ball(true, true),
        Op::Ball(false, true),
    ];
    let state = fold(TableState::default(), &history(&ops));
    let before = *fold(TableState::default(), &history(&ops[..4]))
        .game()
        .unwrap()
        .play();
    let game = state.game().unwrap();
    let play = *game.play();
    assert_eq!((play.score.hinge, play.score.lock, before.balls), (3, 1, 3));
    let phase = |phase: Phase| Phase::ALL.iter().position(|p| *p == phase).unwrap() as u8;
    let lock = |lock: IbrLock| u8::from(lock == IbrLock::Locked);
    let ibr = state.ibr().unwrap();
    let v2 = TableV2 {
        game: Some(GameV2 {
            id: "g1".into(),
            rules: Value::Object(game.rules().source().clone()).to_string(),
            players: None,
            started_at_ms: game.started_at_ms(),
            hinge: 3,
            lock: 1,
            phase: phase(play.phase),
            balls: play.balls,
            winner: None,
            over: false,
            before_last: Some((
                before.score.hinge as i64,
                before.score.lock as i64,
                phase(before.phase),
                before.balls,
            )),
        }),
        ibr: Some((lock(ibr.hinge), lock(ibr.lock))),
        played: vec!["g1".into()],
    };
    let bytes = postcard::to_allocvec(&v2).unwrap();
    assert_eq!(Codec::decode_older(2, &bytes).unwrap().unwrap(), state);
    assert!(Codec::decode_older(1, &bytes).is_none());
    assert!(matches!(
        Codec::decode_older(2, &bytes[..bytes.len() - 1]),
        Some(Err(SnapshotError::Payload(_)))
    ));
}
