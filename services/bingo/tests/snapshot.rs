//! The bingo service's snapshot format: over random histories (an activity game and a called
//! game opened, cards dealt and printed, squares called, gestures recorded and undone, claims,
//! verifications, games closed, refused requests), the state restored from a snapshot taken
//! anywhere, with the rest of the log folded on it, equals the state rebuilt from the whole
//! log: every game, its configuration, cards, ticks, wins, calls and gestures. The server
//! secret is never in a snapshot.

mod common;

use arcade_bingo::domain::{Action, Event, GameSpec, PatternKind, SourceSpec};
use arcade_bingo::{Bingo, BingoService, Input, State};
use arcade_contracts::bingo::UndoneBy;
use arcade_runtime::{Snapshot, SnapshotError};
use common::*;
use proptest::prelude::*;
use serde_json::json;

type Codec = BingoService;

#[derive(Debug, Clone)]
enum Op {
    Open(bool),
    Deal(bool, u8),
    Print(bool, u32),
    Call(u32),
    Claim(u8, u8),
    Verify(bool, u8),
    Gesture(u8, u8, u8),
    Undo(u8),
    Goal(u8, u8),
    Cancel(u8),
    Close(bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => any::<bool>().prop_map(Op::Open),
        3 => (any::<bool>(), 0u8..6).prop_map(|(g, p)| Op::Deal(g, p)),
        1 => (any::<bool>(), 1u32..4).prop_map(|(g, n)| Op::Print(g, n)),
        3 => (1u32..=12).prop_map(Op::Call),
        1 => (0u8..12, 0u8..6).prop_map(|(s, p)| Op::Claim(s, p)),
        1 => (any::<bool>(), 0u8..12).prop_map(|(g, s)| Op::Verify(g, s)),
        6 => (0u8..16, 0u8..6, 1u8..=8).prop_map(|(e, p, v)| Op::Gesture(e, p, v)),
        2 => (0u8..16).prop_map(Op::Undo),
        2 => (0u8..4, 0u8..6).prop_map(|(b, p)| Op::Goal(b, p)),
        1 => (0u8..4).prop_map(Op::Cancel),
        1 => any::<bool>().prop_map(Op::Close),
    ]
}

fn game(activity: bool) -> &'static str {
    if activity { "a" } else { "c" }
}

fn fold(mut state: State, events: &[Event]) -> State {
    for event in events {
        Bingo::evolve(&mut state, event);
    }
    state
}

fn history(ops: &[Op]) -> Vec<Event> {
    let bingo = bingo();
    let mut state = State::default();
    let mut events = Vec::new();
    let mut now = NOW;
    for (n, op) in ops.iter().enumerate() {
        now += 1_000;
        let input = match op {
            Op::Open(true) => cmd("a", Action::Open(goals_spec())),
            Op::Open(false) => cmd(
                "c",
                Action::Open(called_spec(
                    3,
                    12,
                    vec![PatternKind::Row, PatternKind::Line],
                )),
            ),
            Op::Deal(g, p) => cmd(
                game(*g),
                Action::Deal {
                    player: format!("p{p}"),
                },
            ),
            Op::Print(g, count) => cmd(game(*g), Action::Print { count: *count }),
            Op::Call(square) => cmd("c", Action::Call { square: *square }),
            Op::Claim(serial, p) => cmd(
                "c",
                Action::Claim {
                    serial: u32::from(*serial),
                    player: format!("p{p}"),
                },
            ),
            Op::Verify(g, serial) => cmd(
                game(*g),
                Action::Verify {
                    serial: u32::from(*serial),
                    label: None,
                },
            ),
            Op::Gesture(e, p, v) => {
                gesture(&format!("e{e}"), &format!("p{p}"), &format!("v{v}"), None)
            }
            Op::Undo(e) => undo(&format!("e{e}")),
            Op::Goal(ball, p) => {
                foreign("t.goal.v1", json!({"ball": ball, "p": format!("p{p}")}), n)
            }
            Op::Cancel(ball) => foreign("t.cancel.v1", json!({"ball": ball}), n),
            Op::Close(g) => cmd(game(*g), Action::Close),
        };
        if let Ok(decided) = bingo.decide(&state, &input, now) {
            state = fold(state, &decided);
            events.extend(decided);
        }
    }
    events
}

/// The activity game: squares `v1`–`v8`, goals (`t.goal.v1`) counting as `v3` of `/p`, undone
/// by a `t.cancel.v1` of the same `/ball`.
fn goals_spec() -> GameSpec {
    let mut spec = activity_spec(vec![PatternKind::Line]);
    spec.sources = vec![SourceSpec {
        message_type: "t.goal.v1".into(),
        verb: "v3".into(),
        member_field: "/p".into(),
        object_field: None,
        filters: Vec::new(),
        undone_by: Some(UndoneBy {
            message_type: "t.cancel.v1".into(),
            key: vec!["/ball".into()],
        }),
    }];
    spec
}

fn foreign(message_type: &str, payload: serde_json::Value, n: usize) -> Input {
    Input::Foreign {
        message_type: message_type.into(),
        payload,
        message_id: format!("m{n}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn restored_from_a_snapshot_plus_the_tail_equals_the_full_replay(
        ops in prop::collection::vec(op(), 0..160),
        cut in 0.0f64..=1.0,
    ) {
        let events = history(&ops);
        let full = fold(State::default(), &events);
        let at = ((events.len() as f64) * cut) as usize;
        let snapshot = Codec::encode(&fold(State::default(), &events[..at]));
        let restored = fold(Codec::decode(&snapshot).unwrap(), &events[at..]);
        prop_assert_eq!(&restored, &full);
        prop_assert_eq!(&Codec::decode(&Codec::encode(&full)).unwrap(), &full);
    }
}

/// A history where both games have cards, calls, standing and undone gestures (goals among
/// them, one cancelled) and a win.
fn busy_history() -> Vec<Event> {
    let mut ops = vec![Op::Open(true), Op::Open(false)];
    for p in 0..6 {
        ops.push(Op::Deal(true, p));
        ops.push(Op::Deal(false, p));
    }
    ops.push(Op::Print(false, 3));
    ops.extend((1..=12).map(Op::Call));
    ops.extend((1..=8).map(|v| Op::Gesture(v, 0, v)));
    ops.push(Op::Undo(3));
    ops.extend([Op::Goal(1, 1), Op::Goal(2, 2), Op::Cancel(2)]);
    ops.push(Op::Claim(1, 0));
    history(&ops)
}

#[test]
fn the_busy_history_has_what_the_format_must_carry() {
    let events = busy_history();
    let state = fold(State::default(), &events);
    let (a, c) = (state.game("a").unwrap(), state.game("c").unwrap());
    assert_eq!(a.card_count(), 6);
    assert_eq!(c.card_count(), 9);
    assert_eq!(c.called().len(), 12);
    assert!(!a.winners().is_empty(), "the activity game has a winner");
    assert!(!c.winners().is_empty(), "the claim won");
    assert_eq!(Codec::decode(&Codec::encode(&state)).unwrap(), state);
}

#[test]
fn a_snapshot_cut_short_is_refused_not_misread() {
    let state = fold(State::default(), &busy_history());
    let bytes = Codec::encode(&state);
    for len in [0, 1, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(Codec::decode(&bytes[..len]), Err(SnapshotError::Payload(_))),
            "{len} bytes of {}",
            bytes.len()
        );
    }
}

#[test]
fn the_server_secret_is_never_in_a_snapshot() {
    let bytes = Codec::encode(&fold(State::default(), &busy_history()));
    let secret = b"test-secret-of-arcade-bingo";
    assert!(!bytes.windows(secret.len()).any(|w| w == secret));
}
