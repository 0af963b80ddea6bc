//! A table over many games, given/when/then: a game id is used once per table, ever; a game
//! that cannot end is aborted; a reported goal names who scored.

mod common;

use arcade_referee::domain::referee::{
    AbortGame, AbortRefusal, GoalReport, StartGame, StartRefusal,
};
use arcade_referee::{
    BallKind, Event, Ibr, IbrLock, Input, Phase, Referee, Rejection, Score, Side, TableState,
};
use common::bar_document;
use serde_json::{Value, json};

const T0: u64 = 1_717_243_200_000;

fn referee() -> Referee {
    Referee::new("t1")
}

fn start(game_id: &str, rules: Value, at_ms: u64) -> Input {
    Input::Start(StartGame {
        table_id: "t1".into(),
        game_id: game_id.into(),
        rules,
        players: None,
        at_ms,
    })
}

fn report(game_id: &str, side: Side, player: Option<&str>, at_ms: u64) -> Input {
    Input::Report(GoalReport {
        table_id: "t1".into(),
        game_id: Some(game_id.into()),
        side,
        kind: BallKind::Goal,
        player: player.map(str::to_string),
        at_ms,
    })
}

fn abort(game_id: &str, at_ms: u64) -> Input {
    Input::Abort(AbortGame {
        table_id: "t1".into(),
        game_id: game_id.into(),
        reason: Some("the bar closes".into()),
        at_ms,
    })
}

/// Runs inputs through decide and evolve (refusals change nothing); returns the state and
/// every event.
fn play(inputs: &[Input]) -> (TableState, Vec<Event>) {
    let mut state = TableState::default();
    let mut all = Vec::new();
    for input in inputs {
        if let Ok(events) = referee().decide(&state, input) {
            for event in events {
                Referee::evolve(&mut state, &event);
                all.push(event);
            }
        }
    }
    (state, all)
}

/// A bar game `game_id` won 5–0 by hinge.
fn won(game_id: &str, at_ms: u64) -> Vec<Input> {
    let mut inputs = vec![start(game_id, bar_document(), at_ms)];
    for i in 1..=5 {
        inputs.push(report(game_id, Side::Hinge, None, at_ms + i * 1_000));
    }
    inputs
}

/// Rules no ball can ever win, and no timeout.
fn unwinnable() -> Value {
    json!({"conditions": {"default": {"win_rule": false}}})
}

#[test]
fn a_game_id_is_used_once_per_table_even_after_other_games() {
    let mut inputs = won("g1", T0);
    inputs.extend(won("g3", T0 + 60_000));
    let (state, _) = play(&inputs);
    assert_eq!(state.game().unwrap().id(), "g3");
    let refused = referee()
        .decide(&state, &start("g1", bar_document(), T0 + 120_000))
        .unwrap_err();
    assert_eq!(
        refused,
        Rejection::Start {
            game_id: "g1".into(),
            reason: StartRefusal::AlreadyPlayed("g1".into()),
        }
    );
    assert_eq!(
        refused.to_string(),
        r#"game "g1" was already played on this table"#
    );
    assert!(
        referee()
            .decide(&state, &start("g4", bar_document(), T0 + 120_000))
            .is_ok()
    );
}

#[test]
fn an_abort_ends_the_game_without_a_winner_and_releases_both_locks() {
    // Locks as a won game leaves them, then a game that nobody can win.
    let mut inputs = won("g1", T0);
    inputs.push(start("g2", unwinnable(), T0 + 60_000));
    let (state, _) = play(&inputs);
    assert!(state.game().unwrap().in_progress());
    assert_eq!(Referee::next_deadline(&state), None, "no timeout either");
    let with_locks = {
        let mut state = state.clone();
        Referee::evolve(
            &mut state,
            &Event::IbrChanged {
                game_id: "g2".into(),
                ibr: Ibr::LOCKED,
            },
        );
        state
    };
    let events = referee()
        .decide(&with_locks, &abort("g2", T0 + 90_000))
        .unwrap();
    assert_eq!(
        events,
        vec![
            Event::IbrChanged {
                game_id: "g2".into(),
                ibr: Ibr::RELEASED,
            },
            Event::GameAborted {
                game_id: "g2".into(),
                score: Score::new(0, 0),
                phase: Phase::Default,
                duration_ms: 30_000,
                reason: Some("the bar closes".into()),
            },
        ]
    );
    let mut after = with_locks;
    for event in &events {
        Referee::evolve(&mut after, event);
    }
    assert!(!after.game().unwrap().in_progress());
    assert_eq!(after.game().unwrap().play().winner, None);
    assert_eq!(
        after.ibr(),
        Some(Ibr {
            hinge: IbrLock::Released,
            lock: IbrLock::Released
        })
    );
    // The table is free again: a new game starts; the aborted id stays used.
    assert!(
        referee()
            .decide(&after, &start("g3", bar_document(), T0 + 95_000))
            .is_ok()
    );
    assert!(
        referee()
            .decide(&after, &start("g2", bar_document(), T0 + 95_000))
            .is_err()
    );
    // Balls after the abort change nothing; reports are refused.
    assert_eq!(
        referee()
            .decide(&after, &report("g2", Side::Lock, None, T0 + 96_000))
            .unwrap_err()
            .to_string(),
        r#"game "g2" is finished"#
    );
}

#[test]
fn an_abort_that_fits_no_game_is_refused() {
    let reason = |inputs: &[Input], input: Input| match referee().decide(&play(inputs).0, &input) {
        Err(Rejection::Abort { reason, .. }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(reason(&[], abort("g1", T0)), AbortRefusal::NoGame);
    assert_eq!(
        reason(&won("g1", T0), abort("g1", T0 + 10_000)),
        AbortRefusal::Finished("g1".into())
    );
    assert_eq!(
        reason(&[start("g1", unwinnable(), T0)], abort("g0", T0 + 1)),
        AbortRefusal::OtherGame {
            current: "g1".into()
        }
    );
    let elsewhere = Input::Abort(AbortGame {
        table_id: "t2".into(),
        game_id: "g1".into(),
        reason: None,
        at_ms: T0,
    });
    let refused = referee()
        .decide(&play(&[start("g1", unwinnable(), T0)]).0, &elsewhere)
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        r#"cannot abort: this referee is table "t1", not "t2""#
    );
}

#[test]
fn a_reported_goal_names_who_scored() {
    let (state, _) = play(&[start("g1", bar_document(), T0)]);
    let events = referee()
        .decide(&state, &report("g1", Side::Lock, Some("bob"), T0 + 1_000))
        .unwrap();
    match &events[0] {
        Event::GoalScored { player, side, .. } => {
            assert_eq!((player.as_deref(), *side), (Some("bob"), Side::Lock));
        }
        other => panic!("expected a goal, got {other:?}"),
    }
}

#[test]
fn a_report_without_a_game_id_counts_in_the_game_in_progress() {
    let anonymous = |at_ms| {
        Input::Report(GoalReport {
            table_id: "t1".into(),
            game_id: None,
            side: Side::Hinge,
            kind: BallKind::Goal,
            player: None,
            at_ms,
        })
    };
    let (state, _) = play(&[start("g1", bar_document(), T0)]);
    let events = referee().decide(&state, &anonymous(T0 + 1_000)).unwrap();
    assert!(
        matches!(&events[0], Event::GoalScored { game_id, .. } if game_id == "g1"),
        "{events:?}"
    );
    match referee().decide(&TableState::default(), &anonymous(T0)) {
        Err(Rejection::Report { game_id, .. }) => assert_eq!(game_id, ""),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let (over, _) = play(&won("g1", T0));
    match referee().decide(&over, &anonymous(T0 + 60_000)) {
        Err(Rejection::Report {
            game_id, reason, ..
        }) => {
            assert_eq!(game_id, "g1");
            assert_eq!(reason.to_string(), r#"game "g1" is finished"#);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}
