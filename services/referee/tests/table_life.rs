//! A table over many games, given/when/then: a game id is used once per table, ever; a game
//! that cannot end is aborted; a reported goal names who scored.

mod common;

use arcade_contracts::table::{FinishReason, TableGameFinished};
use arcade_referee::domain::referee::{
    AbortGame, AbortRefusal, GoalReport, StartGame, StartRefusal,
};
use arcade_referee::{BallKind, Event, Ibr, IbrLock, Input, Phase, Rejection, Score, Side};
use arcade_runtime::testkit::Scenario;
use common::{TableRules, bar_document, ibr_changed};
use serde_json::{Value, json};

const T0: u64 = 1_717_243_200_000;

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

/// Table t1 after these inputs, each decided and applied in turn (refusals change nothing).
fn play(inputs: &[Input]) -> Scenario<TableRules> {
    let mut table = common::table([]);
    for input in inputs {
        let _refused_or_applied = table.try_run(input.clone());
    }
    table
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
    let table = play(&inputs);
    assert_eq!(table.state().game().unwrap().id(), "g3");
    let refused = Rejection::Start {
        game_id: "g1".into(),
        reason: StartRefusal::AlreadyPlayed("g1".into()),
    };
    assert_eq!(
        refused.to_string(),
        r#"game "g1" was already played on this table"#
    );
    table
        .when(start("g1", bar_document(), T0 + 120_000))
        .then_reject(refused);
    assert!(
        table
            .when(start("g4", bar_document(), T0 + 120_000))
            .outcome()
            .is_ok()
    );
}

#[test]
fn an_abort_ends_the_game_without_a_winner_and_releases_both_locks() {
    // Locks as a won game leaves them, then a game that nobody can win.
    let mut inputs = won("g1", T0);
    inputs.push(start("g2", unwinnable(), T0 + 60_000));
    let mut table = play(&inputs);
    assert!(table.state().game().unwrap().in_progress());
    assert_eq!(table.next_deadline(), None, "no timeout either");
    table.apply([ibr_changed("g2", Ibr::LOCKED)]);
    let events = table.when(abort("g2", T0 + 90_000)).then_expect([
        ibr_changed("g2", Ibr::RELEASED),
        Event::GameFinished(TableGameFinished {
            table_id: "t1".into(),
            game_id: "g2".into(),
            winner: None,
            score: Score::new(0, 0),
            phase: Phase::Default,
            duration_ms: 30_000,
            reason: FinishReason::Aborted,
            abort_reason: Some("the bar closes".into()),
        }),
    ]);
    table.apply(events);
    let after = table.state();
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
        table
            .when(start("g3", bar_document(), T0 + 95_000))
            .outcome()
            .is_ok()
    );
    assert!(
        table
            .when(start("g2", bar_document(), T0 + 95_000))
            .outcome()
            .is_err()
    );
    // Balls after the abort change nothing; reports are refused.
    assert_eq!(
        table
            .when(report("g2", Side::Lock, None, T0 + 96_000))
            .rejection()
            .to_string(),
        r#"game "g2" is finished"#
    );
}

#[test]
fn an_abort_that_fits_no_game_is_refused() {
    let reason = |inputs: &[Input], input: Input| match play(inputs).when(input).outcome() {
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
    let refused = play(&[start("g1", unwinnable(), T0)])
        .when(elsewhere)
        .rejection();
    assert_eq!(
        refused.to_string(),
        r#"cannot abort: this referee is table "t1", not "t2""#
    );
}

#[test]
fn a_reported_goal_names_who_scored() {
    let table = play(&[start("g1", bar_document(), T0)]);
    let events = table
        .when(report("g1", Side::Lock, Some("bob"), T0 + 1_000))
        .events();
    match &events[0] {
        Event::GoalScored(m) => {
            assert_eq!((m.player.as_deref(), m.side), (Some("bob"), Side::Lock));
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
    let events = play(&[start("g1", bar_document(), T0)])
        .when(anonymous(T0 + 1_000))
        .events();
    assert!(
        matches!(&events[0], Event::GoalScored(m) if m.game_id == "g1"),
        "{events:?}"
    );
    match play(&[]).when(anonymous(T0)).outcome() {
        Err(Rejection::Report { game_id, .. }) => assert_eq!(game_id, ""),
        other => panic!("expected a refusal, got {other:?}"),
    }
    match play(&won("g1", T0)).when(anonymous(T0 + 60_000)).outcome() {
        Err(Rejection::Report {
            game_id, reason, ..
        }) => {
            assert_eq!(game_id, "g1");
            assert_eq!(reason.to_string(), r#"game "g1" is finished"#);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}
