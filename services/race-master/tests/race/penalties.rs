//! Penalties: no answer in time, an answer to another question, a wrong state report — each
//! costs the rule book's turns, and a state check's penalty comes with the right state. And
//! answers the master refuses: late, unknown, closed, or from another car.

use arcade_contracts::race as c;
use arcade_race_master::domain::car::CarState;
use arcade_race_master::domain::decision::{Answer, Asked};
use arcade_race_master::domain::event::{
    DecisionClosure as Closure, Event, EventOutcome, MoveReason, PenaltyReason,
};
use arcade_race_master::domain::rules::ModuleCounts as _;
use arcade_race_master::domain::rules::{EventKind, Modules};
use arcade_race_master::domain::{Input, Rejection};
use arcade_race_master::service::RaceService;
use arcade_runtime::testkit::Scenario;

use crate::events::one_car;
use crate::support::having;
use crate::support::{RaceSteps, new_race, only};

#[test]
fn a_wrong_state_report_misses_the_next_move_and_gets_the_right_state() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::Nothing);
    let (decision_id, _) = race.question("red-1");
    let wrong = CarState {
        square: 4,
        modules: Modules::new(1, 3, 1),
    };
    let events = race.answer(
        "red-1",
        Answer::ReportState {
            square: wrong.square,
            modules: wrong.modules,
        },
    );
    assert!(matches!(
        &events[0],
        Event::DecisionClosed(c::DecisionClosed {
            closure: Closure::Answered,
            ..
        })
    ));
    assert_eq!(
        events[1],
        Event::PenaltyGiven(c::PenaltyGiven {
            car: "red-1".into(),
            team: "red".into(),
            decision_id,
            reason: PenaltyReason::WrongState,
            turns_to_miss: 1,
            correction: Some(CarState {
                square: 3,
                modules: Modules::new(1, 3, 1)
            }),
        })
    );
    let events = race.tick();
    assert!(matches!(
        &events[1],
        Event::CarMoved(c::CarMoved {
            from: 3,
            to: 3,
            reason: MoveReason::MissedTurn,
            ..
        })
    ));
}

#[test]
fn a_true_state_report_costs_nothing() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::Nothing);
    let events = race.report_truthfully();
    assert!(having(&events, |e| matches!(e, Event::PenaltyGiven(_))).is_empty());
    let events = race.tick();
    assert!(matches!(
        &events[1],
        Event::CarMoved(c::CarMoved {
            from: 3,
            to: 6,
            reason: MoveReason::OnTrack,
            ..
        })
    ));
}

#[test]
fn no_state_report_in_time_is_penalised_with_the_correction() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::Nothing);
    let deadline = race.next_deadline().unwrap();
    assert_eq!(deadline, race.now_ms() + 5_000, "5 s to answer by default");
    let events = race.tick_at(deadline);
    assert!(matches!(
        &events[0],
        Event::DecisionClosed(c::DecisionClosed {
            closure: Closure::NoAnswer,
            ..
        })
    ));
    assert!(matches!(
        &events[1],
        Event::PenaltyGiven(c::PenaltyGiven {
            reason: PenaltyReason::NoAnswer,
            turns_to_miss: 1,
            correction: Some(_),
            ..
        })
    ));
}

#[test]
fn no_answer_at_a_mine_field_costs_three_turns_and_at_a_wreck_or_garage_one() {
    for (kind, turns) in [
        (EventKind::MineField, 3),
        (EventKind::Wreck, 1),
        (EventKind::Garage, 1),
    ] {
        let (mut race, _) = one_car(1, (1, 3, 1), kind);
        let deadline = race.next_deadline().unwrap();
        let events = race.tick_at(deadline);
        assert!(
            matches!(&events[1], Event::PenaltyGiven(c::PenaltyGiven { reason: PenaltyReason::NoAnswer, turns_to_miss, correction: None, .. }) if *turns_to_miss == turns),
            "{kind:?}: {events:?}"
        );
        assert!(matches!(
            &events[2],
            Event::EventResolved(c::EventResolved {
                outcome: EventOutcome::NoAnswer,
                turns_to_miss: 0,
                ..
            })
        ));
        assert_eq!(race.state().car("red-1").unwrap().turns_to_miss, turns);
    }
}

#[test]
fn an_answer_to_another_question_is_a_wrong_answer() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::Wreck);
    let events = race.answer("red-1", Answer::CrossMineField { cross: true });
    assert!(matches!(
        &events[0],
        Event::DecisionClosed(c::DecisionClosed {
            closure: Closure::WrongAnswer,
            ..
        })
    ));
    assert!(matches!(
        &events[1],
        Event::PenaltyGiven(c::PenaltyGiven {
            reason: PenaltyReason::WrongAnswer,
            turns_to_miss: 1,
            ..
        })
    ));
    assert!(matches!(
        &events[2],
        Event::EventResolved(c::EventResolved {
            outcome: EventOutcome::WrongAnswer,
            ..
        })
    ));
}

#[test]
fn no_answer_to_should_fight_is_penalised_and_counts_as_refusing() {
    let mut race = new_race(5);
    race.register("red", "red-1", (1, 3, 2));
    race.register("blue", "blue-1", (1, 3, 2));
    race.start(only(EventKind::Nothing));
    race.answer("red-1", Answer::ShouldFight { fight: false });
    let deadline = race.next_deadline().unwrap();
    let events = race.tick_at(deadline);
    assert!(
        matches!(&events[1], Event::PenaltyGiven(c::PenaltyGiven { car, reason: PenaltyReason::NoAnswer, turns_to_miss: 1, .. }) if &**car == "blue-1")
    );
    assert!(
        having(&events, |e| matches!(e, Event::AchievementAwarded(_))).is_empty(),
        "no Pacifiste for a silence"
    );
    assert!(having(&events, |e| matches!(e, Event::CombatResolved(_))).len() == 1);
}

#[test]
fn late_unknown_closed_and_foreign_answers_are_refused() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::Nothing);
    let (decision_id, _) = race.question("red-1");
    let truth = race.truth("red-1");
    let answer = |id: u64, team: &str, car: &str| Input::Answer {
        decision_id: id,
        team: team.into(),
        car: car.into(),
        answer: Answer::ReportState {
            square: truth.square,
            modules: truth.modules,
        },
    };
    race.when(answer(99, "red", "red-1"))
        .then_reject(Rejection::UnknownDecision { decision_id: 99 });
    race.when(answer(decision_id, "blue", "blue-1"))
        .then_reject(Rejection::NotYours {
            decision_id,
            car: "red-1".into(),
            team: "blue".into(),
            answered_by: "blue-1".into(),
        });
    let deadline = race.state().pending[&decision_id].deadline_ms;
    race.set_now(deadline);
    let late = answer(decision_id, "red", "red-1");
    let rejection = Rejection::Late {
        decision_id,
        deadline_ms: deadline,
    };
    race.when(late.clone()).then_reject(rejection.clone());
    assert!(
        matches!(&race.decider().master().refusal(&late, &rejection)[..],
        [Event::CommandRejected(c::CommandRejected { command, decision_id: Some(_), .. })] if command == "race.decision.made.v1")
    );
    race.tick_at(deadline);
    race.when(answer(decision_id, "red", "red-1"))
        .then_reject(Rejection::DecisionClosed { decision_id });
    assert!(
        race.pending()
            .iter()
            .all(|(_, _, a)| *a != Asked::ReportState)
    );
}

#[test]
fn a_master_restarted_with_another_seed_refuses_to_go_on() {
    let (race, _) = one_car(1, (1, 3, 1), EventKind::Nothing);
    let expected = race.state().settings.as_ref().unwrap().seed_sha256.clone();
    Scenario::given(RaceService::new(2), race.history().to_vec())
        .at(race.now_ms())
        .when(Input::Tick)
        .then_reject(Rejection::SeedMismatch { expected });
}
