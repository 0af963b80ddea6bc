//! The car program without transport: what it answers, holds and learns.

use arcade_contracts::race::{self as c, Answer, Question};
use serde_json::to_value;

use super::*;
use crate::bots::Strategy;

fn program() -> CarProgram {
    CarProgram::synced(CarBot::new("red", Strategy::Cautious, 1, 0))
}

fn ask(team: &str, decision_id: u64, question: Question) -> (&'static str, serde_json::Value) {
    let request = DecisionRequested {
        decision_id,
        team: team.into(),
        car: format!("{team}-1"),
        turn: 1,
        deadline_ms: 10_000,
        question,
    };
    (DecisionRequested::TYPE, to_value(request).unwrap())
}

fn modules(pilots: u32, engines: u32, weapons: u32) -> c::Modules {
    c::Modules {
        pilots,
        engines,
        weapons,
    }
}

#[test]
fn answers_its_team_once_and_leaves_other_teams_alone() {
    let mut program = program();
    let registered = c::CarRegistered {
        team: "red".into(),
        car: "red-1".into(),
        modules: modules(2, 4, 4),
        price: 18,
        budget_left: 82,
        starts_turn: 1,
    };
    let heard = program
        .hear(c::CarRegistered::TYPE, &to_value(&registered).unwrap())
        .unwrap();
    assert!(matches!(heard, Heard::Fact(RaceMessage::CarRegistered(_))));
    let (t, p) = ask("red", 5, Question::ReportState);
    let Heard::Question { answer, .. } = program.hear(t, &p).unwrap() else {
        panic!("a question to the team is answered");
    };
    assert_eq!(answer.decision_id, 5);
    assert_eq!(
        answer.answer,
        Answer::ReportState {
            square: 0,
            modules: modules(2, 4, 4)
        }
    );
    assert!(matches!(program.hear(t, &p).unwrap(), Heard::Repeated(_)));
    let (t, p) = ask("blue", 6, Question::ReportState);
    assert_eq!(program.hear(t, &p).unwrap(), Heard::Ignored);
    assert_eq!(
        program.hear("game.session.completed.v1", &p).unwrap(),
        Heard::Ignored
    );
}

#[test]
fn a_restarted_program_learns_its_car_from_the_correction() {
    let mut program = program();
    let penalty = c::PenaltyGiven {
        car: "red-1".into(),
        team: "red".into(),
        decision_id: 7,
        reason: c::PenaltyReason::WrongState,
        turns_to_miss: 1,
        correction: Some(c::CarState {
            square: 12,
            modules: modules(1, 3, 2),
        }),
    };
    program
        .hear(c::PenaltyGiven::TYPE, &to_value(&penalty).unwrap())
        .unwrap();
    let (t, p) = ask("red", 8, Question::ReportState);
    let Heard::Question { answer, .. } = program.hear(t, &p).unwrap() else {
        panic!("answered");
    };
    assert_eq!(
        answer.answer,
        Answer::ReportState {
            square: 12,
            modules: modules(1, 3, 2)
        }
    );
}

#[test]
fn a_payload_that_is_not_its_type_is_an_error_naming_it() {
    let error = program()
        .hear(
            DecisionRequested::TYPE,
            &serde_json::json!({"decisionId": "x"}),
        )
        .unwrap_err();
    assert!(
        error.to_string().contains(DecisionRequested::TYPE),
        "{error}"
    );
}

#[test]
fn a_starting_program_holds_its_questions_until_its_state_report() {
    let mut program = CarProgram::new(CarBot::new("red", Strategy::Cautious, 1, 0));
    assert_eq!(program.state_query().team, "red");
    let (t, p) = ask("red", 9, Question::ReportState);
    assert!(matches!(program.hear(t, &p).unwrap(), Heard::Held(_)));
    let report = c::StateReported {
        team: "red".into(),
        race_id: None,
        turn: 4,
        budget: 82,
        points: 1,
        cars: vec![c::CarStatus {
            car: "red-1".into(),
            square: 312,
            ring_square: 12,
            farthest: 312,
            modules: modules(1, 3, 2),
            turns_to_miss: 0,
            starts_turn: 1,
            stopped: None,
        }],
    };
    let heard = program
        .hear(c::StateReported::TYPE, &to_value(&report).unwrap())
        .unwrap();
    let Heard::Synced { answers, .. } = &heard else {
        panic!("{heard:?}")
    };
    assert_eq!(answers.len(), 1);
    assert_eq!(
        answers[0].1.answer,
        Answer::ReportState {
            square: 312,
            modules: modules(1, 3, 2)
        },
        "the held question is answered with the master's state"
    );
    // The master knows red-1: only red-2 and red-3 are registered.
    let names: Vec<String> = program
        .missing_registrations(3)
        .into_iter()
        .map(|r| r.car)
        .collect();
    assert_eq!(names, ["red-2", "red-3"]);
    // A report of a race over (someone asked for it by number) is only a fact.
    let past = c::StateReported {
        race_id: Some(1),
        cars: Vec::new(),
        ..report.clone()
    };
    assert!(matches!(
        program
            .hear(c::StateReported::TYPE, &to_value(&past).unwrap())
            .unwrap(),
        Heard::Fact(_)
    ));
    // Another team's report is only a fact.
    let blue = c::StateReported {
        team: "blue".into(),
        ..report
    };
    assert!(matches!(
        program
            .hear(c::StateReported::TYPE, &to_value(&blue).unwrap())
            .unwrap(),
        Heard::Fact(_)
    ));
}
