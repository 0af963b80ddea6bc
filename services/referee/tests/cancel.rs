//! `table.goal.cancel.v1`: the organiser takes back the last ball of a game in progress; the
//! score, phase and ball locks are as they were before it, and the next ball takes its number.

mod common;

use arcade_contracts::table::{TableGoalCancel, TableGoalCancelled};
use arcade_contracts::{Catalog, Message};
use arcade_referee::domain::referee::{BallSeen, GameRefusal, StartGame};
use arcade_referee::mapping::TableEvent;
use arcade_referee::{BallKind, Event, Ibr, IbrLock, Input, Phase, Rejection, Score, Side};
use arcade_runtime::testkit::Scenario;
use common::{TableRules, bar_document, ibr_changed};

const T0: u64 = 1_717_243_200_000;

/// Game g1 of the bar rules on table t1, with `goals` hinge goals, one a second.
fn hinge_goals(goals: u64) -> Scenario<TableRules> {
    let mut table = common::table([]);
    table.run(Input::Start(StartGame {
        table_id: "t1".into(),
        game_id: "g1".into(),
        rules: bar_document(),
        players: None,
        at_ms: T0,
    }));
    for n in 1..=goals {
        table.run(goal(Side::Hinge, T0 + 1_000 * n));
    }
    table
}

fn goal(side: Side, at_ms: u64) -> Input {
    Input::Ball(BallSeen {
        side,
        kind: BallKind::Goal,
        at_ms,
    })
}

fn cancel(ball: Option<u64>) -> Input {
    Input::from(TableGoalCancel {
        table_id: "t1".into(),
        game_id: "g1".into(),
        ball,
        reason: Some("the sensor fired twice".into()),
    })
}

fn refusal(reason: GameRefusal) -> Rejection {
    Rejection::Cancel {
        game_id: "g1".into(),
        reason,
    }
}

#[test]
fn cancelling_the_last_goal_restores_the_score_and_the_locks_before_it() {
    let before = hinge_goals(3);
    let released = before.state().ibr().unwrap();
    assert_eq!(released, Ibr::RELEASED);
    let mut table = hinge_goals(4);
    // 4-0: the hinge side's next goal wins, its ball is kept.
    assert_eq!(table.state().ibr().unwrap().hinge, IbrLock::Locked);

    let events = table.when(cancel(Some(4))).then_expect([
        Event::GoalCancelled(TableGoalCancelled {
            table_id: "t1".into(),
            game_id: "g1".into(),
            ball: 4,
            score: Score::new(3, 0),
            phase: Phase::Default,
            hinge: IbrLock::Released,
            lock: IbrLock::Released,
            reason: Some("the sensor fired twice".into()),
        }),
        ibr_changed("g1", Ibr::RELEASED),
    ]);
    table.apply(events);
    let play = |t: &Scenario<TableRules>| *t.state().game().unwrap().play();
    assert_eq!(play(&table), play(&before));
    assert_eq!(table.state().ibr(), before.state().ibr());

    // The next ball takes the cancelled ball's number.
    let next = table.run(goal(Side::Lock, T0 + 10_000));
    assert!(
        matches!(&next[0], Event::GoalScored(m) if m.ball == 4 && m.score == Score::new(3, 1)),
        "{next:?}"
    );
}

#[test]
fn a_cancel_without_a_ball_number_takes_back_the_last_ball() {
    let table = hinge_goals(2);
    let events = table.when(cancel(None)).events();
    assert!(
        matches!(&events[..], [Event::GoalCancelled(m)] if m.ball == 2 && m.score == Score::new(1, 0)),
        "{events:?}"
    );
}

#[test]
fn only_the_last_ball_can_be_cancelled_and_only_once() {
    hinge_goals(3)
        .when(cancel(Some(2)))
        .then_reject(refusal(GameRefusal::NotTheLastBall { named: 2, last: 3 }));

    let mut table = hinge_goals(3);
    table.run(cancel(Some(3)));
    table
        .when(cancel(None))
        .then_reject(refusal(GameRefusal::NoBall("g1".into())));
}

#[test]
fn a_cancel_is_refused_before_the_first_ball() {
    hinge_goals(0)
        .when(cancel(None))
        .then_reject(refusal(GameRefusal::NoBall("g1".into())));
}

#[test]
fn a_cancel_is_refused_once_the_game_is_finished() {
    let table = hinge_goals(5);
    assert!(!table.state().game().unwrap().in_progress());
    let refused = table.when(cancel(Some(5))).rejection();
    assert_eq!(refused, refusal(GameRefusal::Finished("g1".into())));
    assert_eq!(
        refused.to_string(),
        "cannot cancel: game \"g1\" is finished"
    );
}

#[test]
fn the_cancelled_event_is_its_contract_message_and_comes_back_from_the_log() {
    let catalog = Catalog::new();
    let mut table = hinge_goals(4);
    let events = table.run(cancel(Some(4)));
    let message = TableEvent::from(&events[0]);
    let payload = message.payload().unwrap();
    assert_eq!(message.message_type(), "table.goal.cancelled.v1");
    catalog.validate(message.message_type(), &payload).unwrap();
    assert_eq!(payload["score"]["hinge"], 3);
    assert_eq!(payload["hinge"], "released");
    let back = TableEvent::decode(message.message_type(), &payload).unwrap();
    assert_eq!(Event::try_from(back).unwrap(), events[0]);

    let refused = table.when(cancel(None)).rejection().to_message("t1");
    assert_eq!(refused.message_type(), "table.game.rejected.v1");
    assert_eq!(TableGoalCancel::TYPE, "table.goal.cancel.v1");
}
