//! Penalties: no answer in time, an answer to another question, a wrong state report — each
//! costs the rule book's turns, and a state check's penalty comes with the right state. And
//! answers the master refuses: late, unknown, closed, or from another car.

use arcade_race_master::domain::car::CarState;
use arcade_race_master::domain::decision::{Answer, Asked};
use arcade_race_master::domain::event::{Closure, Event, EventOutcome, MoveReason, PenaltyReason};
use arcade_race_master::domain::rules::{EventKind, Modules};
use arcade_race_master::domain::{Input, Rejection};

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
    let events = race.answer("red-1", Answer::ReportState(wrong));
    assert!(matches!(
        &events[0],
        Event::DecisionClosed {
            closure: Closure::Answered(_),
            ..
        }
    ));
    assert_eq!(
        events[1],
        Event::PenaltyGiven {
            car: "red-1".into(),
            team: "red".into(),
            decision_id,
            reason: PenaltyReason::WrongState,
            turns_to_miss: 1,
            correction: Some(CarState {
                square: 3,
                modules: Modules::new(1, 3, 1)
            }),
        }
    );
    let events = race.tick();
    assert!(matches!(
        &events[1],
        Event::CarMoved {
            from: 3,
            to: 3,
            reason: MoveReason::MissedTurn,
            ..
        }
    ));
}

#[test]
fn a_true_state_report_costs_nothing() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::Nothing);
    let events = race.report_truthfully();
    assert!(having(&events, |e| matches!(e, Event::PenaltyGiven { .. })).is_empty());
    let events = race.tick();
    assert!(matches!(
        &events[1],
        Event::CarMoved {
            from: 3,
            to: 6,
            reason: MoveReason::OnTrack,
            ..
        }
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
        Event::DecisionClosed {
            closure: Closure::NoAnswer,
            ..
        }
    ));
    assert!(matches!(
        &events[1],
        Event::PenaltyGiven {
            reason: PenaltyReason::NoAnswer,
            turns_to_miss: 1,
            correction: Some(_),
            ..
        }
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
            matches!(&events[1], Event::PenaltyGiven { reason: PenaltyReason::NoAnswer, turns_to_miss, correction: None, .. } if *turns_to_miss == turns),
            "{kind:?}: {events:?}"
        );
        assert!(matches!(
            &events[2],
            Event::EventResolved {
                outcome: EventOutcome::NoAnswer,
                turns_to_miss: 0,
                ..
            }
        ));
        assert_eq!(race.state().car("red-1").unwrap().turns_to_miss, turns);
    }
}

#[test]
fn an_answer_to_another_question_is_a_wrong_answer() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::Wreck);
    let events = race.answer("red-1", Answer::CrossMineField(true));
    assert!(matches!(
        &events[0],
        Event::DecisionClosed {
            closure: Closure::WrongAnswer(_),
            ..
        }
    ));
    assert!(matches!(
        &events[1],
        Event::PenaltyGiven {
            reason: PenaltyReason::WrongAnswer,
            turns_to_miss: 1,
            ..
        }
    ));
    assert!(matches!(
        &events[2],
        Event::EventResolved {
            outcome: EventOutcome::WrongAnswer,
            ..
        }
    ));
}

#[test]
fn no_answer_to_should_fight_is_penalised_and_counts_as_refusing() {
    let mut race = new_race(5);
    race.register("red", "red-1", (1, 3, 2));
    race.register("blue", "blue-1", (1, 3, 2));
    race.start(only(EventKind::Nothing));
    race.answer("red-1", Answer::ShouldFight(false));
    let deadline = race.next_deadline().unwrap();
    let events = race.tick_at(deadline);
    assert!(
        matches!(&events[1], Event::PenaltyGiven { car, reason: PenaltyReason::NoAnswer, turns_to_miss: 1, .. } if &**car == "blue-1")
    );
    assert!(
        having(&events, |e| matches!(e, Event::AchievementAwarded { .. })).is_empty(),
        "no Pacifiste for a silence"
    );
    assert!(having(&events, |e| matches!(e, Event::CombatResolved { .. })).len() == 1);
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
        answer: Answer::ReportState(truth),
    };
    assert_eq!(
        race.try_run(answer(99, "red", "red-1")),
        Err(Rejection::UnknownDecision { decision_id: 99 })
    );
    assert!(matches!(
        race.try_run(answer(decision_id, "blue", "blue-1")),
        Err(Rejection::NotYours { .. })
    ));
    let deadline = race.state().pending[&decision_id].deadline_ms;
    race.set_now(deadline);
    let late = answer(decision_id, "red", "red-1");
    let rejection = race.try_run(late.clone()).unwrap_err();
    assert_eq!(
        rejection,
        Rejection::Late {
            decision_id,
            deadline_ms: deadline
        }
    );
    assert!(
        matches!(&race.decider().master().refusal(&late, &rejection)[..],
        [Event::CommandRejected { command, decision_id: Some(_), .. }] if command == "race.decision.made.v1")
    );
    race.tick_at(deadline);
    assert_eq!(
        race.try_run(answer(decision_id, "red", "red-1")),
        Err(Rejection::DecisionClosed { decision_id })
    );
    assert!(
        race.pending()
            .iter()
            .all(|(_, _, a)| *a != Asked::ReportState)
    );
}

#[test]
fn a_master_restarted_with_another_seed_refuses_to_go_on() {
    let (race, _) = one_car(1, (1, 3, 1), EventKind::Nothing);
    let other = arcade_race_master::domain::RaceMaster::new(2);
    assert!(matches!(
        other.decide(race.state(), &Input::Tick, race.now_ms()),
        Err(Rejection::SeedMismatch { .. })
    ));
}
