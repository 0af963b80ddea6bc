//! The referee as a decider, given/when/then: given past events, when an input, then these
//! events or this refusal. Also: evolve rebuilds state from events alone.

mod common;

use std::sync::Arc;

use arcade_referee::domain::referee::{
    BallSeen, FinishReason, GoalReport, ReportRefusal, StartGame, StartRefusal,
};
use arcade_referee::{BallKind, Event, Ibr, IbrLock, Input, Phase, Rejection, Rules, Score, Side};
use arcade_runtime::testkit::Scenario;
use common::{TableRules, bar_document, ibr_changed, phase_changed, scored, won};
use serde_json::{Value, json};

use BallKind::{Goal, Inout};
use Side::{Hinge, Lock};

const T0: u64 = 1_717_243_200_000;
const HINGE_ONLY: Ibr = Ibr {
    hinge: IbrLock::Locked,
    lock: IbrLock::Released,
};

/// Table t1, given these past events.
fn given(events: &[Event]) -> Scenario<TableRules> {
    common::table(events.to_vec())
}

fn start_with(game_id: &str, rules: Value, at_ms: u64) -> Input {
    Input::Start(StartGame {
        table_id: "t1".into(),
        game_id: game_id.into(),
        rules,
        players: None,
        at_ms,
    })
}

fn ball(side: Side, kind: BallKind, at_ms: u64) -> Input {
    Input::Ball(BallSeen { side, kind, at_ms })
}

/// Every event of these inputs, each accepted in turn.
fn history(inputs: &[Input]) -> Vec<Event> {
    let mut table = given(&[]);
    for input in inputs {
        table.run(input.clone());
    }
    table.into_history()
}

/// Goals alternating hinge, lock, hinge… until each side has its count.
fn alternating(hinge: usize, lock: usize) -> Vec<Side> {
    let mut sides = Vec::new();
    for i in 0..hinge.max(lock) {
        if i < hinge {
            sides.push(Hinge);
        }
        if i < lock {
            sides.push(Lock);
        }
    }
    sides
}

/// A bar game started at T0 and played to the given score by alternating goals, one a second.
fn bar_game_at(hinge: usize, lock: usize) -> Vec<Event> {
    let mut inputs = vec![start_with("g1", bar_document(), T0)];
    for (i, side) in alternating(hinge, lock).into_iter().enumerate() {
        inputs.push(ball(side, Goal, T0 + 1_000 * (i as u64 + 1)));
    }
    history(&inputs)
}

fn ibr(ibr: Ibr) -> Event {
    ibr_changed("g1", ibr)
}

#[test]
fn a_start_starts_the_game_and_sets_the_locks() {
    let events = given(&[])
        .when(start_with("g1", bar_document(), T0))
        .events();
    let rules = Arc::new(Rules::parse(&bar_document()).unwrap());
    assert_eq!(
        events,
        vec![
            Event::GameStarted {
                table_id: "t1".into(),
                game_id: "g1".into(),
                rules,
                players: None,
                started_at_ms: T0,
                score: Score::new(0, 0)
            },
            ibr(Ibr::RELEASED),
        ]
    );
    assert_eq!(given(&events).next_deadline(), Some(T0 + 900_000));
}

#[test]
fn invalid_rules_are_refused_with_the_path() {
    let mut rules = bar_document();
    rules["conditions"]["tie_break"]["win_rule"]["$or"][1]["$and"][0] =
        json!({"$gte": ["$score", 1]});
    let refusal = given(&[]).when(start_with("g1", rules, T0)).rejection();
    assert!(matches!(
        &refusal,
        Rejection::Start {
            reason: StartRefusal::InvalidRules(_),
            ..
        }
    ));
    assert_eq!(
        refusal.to_string(),
        r#"invalid rules: conditions.tie_break.win_rule.$or[1].$and[0]: unknown operator "$gte""#
    );
}

#[test]
fn a_start_for_another_table_is_refused() {
    let input = Input::Start(StartGame {
        table_id: "t2".into(),
        game_id: "g1".into(),
        rules: bar_document(),
        players: None,
        at_ms: T0,
    });
    assert_eq!(
        given(&[]).when(input).rejection().to_string(),
        r#"this referee is table "t1", not "t2""#
    );
}

#[test]
fn a_start_during_a_game_is_refused_and_a_played_game_id_too() {
    let playing = bar_game_at(1, 0);
    assert_eq!(
        given(&playing)
            .when(start_with("g2", bar_document(), T0))
            .rejection()
            .to_string(),
        r#"game "g1" is still being played on this table"#
    );
    let finished = bar_game_at(5, 0);
    assert_eq!(
        given(&finished)
            .when(start_with("g1", bar_document(), T0))
            .rejection()
            .to_string(),
        r#"game "g1" was already played on this table"#
    );
}

#[test]
fn the_next_game_releases_the_locks_of_the_finished_one() {
    let finished = bar_game_at(5, 0);
    assert_eq!(given(&finished).state().ibr(), Some(Ibr::LOCKED));
    let events = given(&finished)
        .when(start_with("g2", bar_document(), T0 + 600_000))
        .events();
    assert_eq!(events[1], ibr_changed("g2", Ibr::RELEASED));
}

#[test]
fn a_ball_without_a_game_changes_nothing() {
    assert_eq!(given(&[]).when(ball(Hinge, Goal, T0)).events(), vec![]);
}

#[test]
fn a_ball_that_changes_no_lock_only_scores() {
    let events = given(&bar_game_at(0, 0))
        .when(ball(Hinge, Goal, T0 + 5_000))
        .events();
    assert_eq!(
        events,
        vec![scored(Hinge, Goal, true, (1, 0), Phase::Default, 1, 5_000)]
    );
}

#[test]
fn four_three_locks_the_hinge_ball_return() {
    let game = bar_game_at(3, 3);
    assert_eq!(given(&game).state().ibr(), Some(Ibr::RELEASED));
    let events = given(&game).when(ball(Hinge, Goal, T0 + 200_000)).events();
    assert_eq!(
        events,
        vec![
            scored(Hinge, Goal, true, (4, 3), Phase::Default, 7, 200_000),
            ibr(HINGE_ONLY)
        ]
    );
}

#[test]
fn four_four_then_a_hinge_goal_changes_phase() {
    let game = bar_game_at(4, 4);
    assert_eq!(given(&game).state().ibr(), Some(Ibr::RELEASED));
    let events = given(&game).when(ball(Hinge, Goal, T0 + 300_000)).events();
    assert_eq!(
        events,
        vec![
            scored(Hinge, Goal, true, (5, 4), Phase::Default, 9, 300_000),
            phase_changed(Phase::Default, Phase::TieBreak, (5, 4), 300_000),
            ibr(HINGE_ONLY),
        ]
    );
}

#[test]
fn a_winning_ball_locks_both_and_finishes_the_game() {
    let game = bar_game_at(4, 2);
    let events = given(&game).when(ball(Hinge, Inout, T0 + 250_000)).events();
    assert_eq!(
        events,
        vec![
            scored(Hinge, Inout, true, (5, 2), Phase::Default, 7, 250_000),
            ibr(Ibr::LOCKED),
            won(Hinge, (5, 2), Phase::Default, 250_000, FinishReason::Win),
        ]
    );
    let mut after = game.clone();
    after.extend(events);
    assert_eq!(
        given(&after).when(ball(Lock, Goal, T0 + 260_000)).events(),
        vec![]
    );
    assert_eq!(
        given(&after)
            .when(Input::Tick {
                now_ms: T0 + 2_000_000
            })
            .events(),
        vec![]
    );
    assert_eq!(given(&after).next_deadline(), None);
}

#[test]
fn rehearsal_balls_are_published_as_not_counted() {
    let mut rules = bar_document();
    rules["rehearsal_balls"] = json!(1);
    let game = history(&[start_with("g1", rules, T0)]);
    let events = given(&game).when(ball(Lock, Goal, T0 + 1_000)).events();
    assert_eq!(
        events,
        vec![scored(Lock, Goal, false, (0, 0), Phase::Default, 1, 1_000)]
    );
}

#[test]
fn the_timeout_tick_changes_phase_and_the_leader_wins() {
    let game = bar_game_at(3, 2);
    assert_eq!(
        given(&game)
            .when(Input::Tick {
                now_ms: T0 + 899_999
            })
            .events(),
        vec![]
    );
    let events = given(&game)
        .when(Input::Tick {
            now_ms: T0 + 900_000,
        })
        .events();
    assert_eq!(
        events,
        vec![
            phase_changed(Phase::Default, Phase::Timeout, (3, 2), 900_000),
            ibr(Ibr::LOCKED),
            won(
                Hinge,
                (3, 2),
                Phase::Timeout,
                900_000,
                FinishReason::Timeout
            ),
        ]
    );
}

#[test]
fn a_ball_after_the_deadline_times_out_first_then_counts() {
    let game = bar_game_at(2, 2);
    let events = given(&game).when(ball(Lock, Goal, T0 + 901_000)).events();
    assert_eq!(
        events,
        vec![
            phase_changed(Phase::Default, Phase::Timeout, (2, 2), 901_000),
            scored(Lock, Goal, true, (2, 3), Phase::Timeout, 5, 901_000),
            ibr(Ibr::LOCKED),
            won(Lock, (2, 3), Phase::Timeout, 901_000, FinishReason::Timeout),
        ]
    );
}

#[test]
fn a_tie_at_the_timeout_locks_both_and_waits() {
    let game = bar_game_at(2, 2);
    let mut after = game.clone();
    after.extend(
        given(&game)
            .when(Input::Tick {
                now_ms: T0 + 900_000,
            })
            .events(),
    );
    let table = given(&after);
    assert_eq!(table.state().game().unwrap().play().phase, Phase::Timeout);
    assert_eq!(table.state().ibr(), Some(Ibr::LOCKED));
    assert_eq!(table.next_deadline(), None);
}

fn report(game_id: &str) -> Input {
    Input::Report(GoalReport {
        table_id: "t1".into(),
        game_id: Some(game_id.into()),
        side: Lock,
        kind: Goal,
        player: None,
        at_ms: T0 + 1,
    })
}

#[test]
fn a_reported_goal_counts_like_a_sensor_ball() {
    let game = bar_game_at(0, 0);
    assert_eq!(
        given(&game).when(report("g1")).events(),
        vec![scored(Lock, Goal, true, (0, 1), Phase::Default, 1, 1)]
    );
}

#[test]
fn a_reported_goal_that_fits_no_game_is_refused() {
    let reason = |events: &[Event], game_id| match given(events).when(report(game_id)).outcome() {
        Err(Rejection::Report { reason, .. }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(reason(&[], "g1"), ReportRefusal::NoGame);
    assert_eq!(
        reason(&bar_game_at(1, 0), "g0"),
        ReportRefusal::OtherGame {
            current: "g1".into()
        }
    );
    assert_eq!(
        reason(&bar_game_at(5, 0), "g1"),
        ReportRefusal::Finished("g1".into())
    );
}

#[test]
fn evolve_rebuilds_the_play_of_the_pure_game() {
    let game = bar_game_at(4, 4);
    let table = given(&game);
    let state = table.state();
    let rules = Rules::parse(&bar_document()).unwrap();
    let expected = alternating(4, 4)
        .into_iter()
        .fold(arcade_referee::Play::start(&rules), |p, side| {
            p.after_ball(&rules, side, Goal)
        });
    assert_eq!(*state.game().unwrap().play(), expected);
    assert_eq!(state.game().unwrap().started_at_ms(), T0);
}
