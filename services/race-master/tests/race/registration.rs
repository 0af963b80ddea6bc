//! Registration: at most 10 modules, at least one pilot, paid at once from the team's $100; a
//! car registered during the race starts on the next turn; budgets can be asked at any time.

use arcade_contracts::race as c;
use arcade_race_master::domain::event::{Event, MoveReason, RegistrationProblem};
use arcade_race_master::domain::rules::ModuleCounts as _;
use arcade_race_master::domain::rules::{EventKind, Modules};
use arcade_race_master::domain::{Input, Rejection};

use crate::support::having;
use crate::support::{Race, RaceSteps, new_race, only};

fn refused(
    race: &mut Race,
    team: &str,
    car: &str,
    modules: (u32, u32, u32),
) -> (RegistrationProblem, Vec<Event>) {
    let input = Input::Register {
        team: team.into(),
        car: car.into(),
        modules: Modules::new(modules.0, modules.1, modules.2),
    };
    match race.when(input.clone()).rejection() {
        rejection @ Rejection::Registration { problem, .. } => {
            (problem, race.decider().master().refusal(&input, &rejection))
        }
        other => panic!("expected a registration's refusal, got {other:?}"),
    }
}

#[test]
fn a_car_is_registered_and_paid_for() {
    let modules = Modules::new(2, 4, 4);
    new_race(1)
        .when(Input::Register {
            team: "red".into(),
            car: "red-1".into(),
            modules,
        })
        .then_expect([
            Event::CarRegistered(c::CarRegistered {
                team: "red".into(),
                car: "red-1".into(),
                modules,
                price: 18,
                budget_left: 82,
                starts_turn: 1,
            }),
            // Then the team's own account (to its queue only): its cars and its money.
            Event::StateReported(c::StateReported {
                team: "red".into(),
                race_id: None,
                turn: 0,
                budget: 82,
                points: 0,
                cars: vec![c::CarStatus {
                    car: "red-1".into(),
                    square: 0,
                    ring_square: 0,
                    farthest: 0,
                    modules,
                    turns_to_miss: 0,
                    starts_turn: 1,
                    stopped: None,
                }],
            }),
        ]);
}

#[test]
fn ten_modules_pass_and_eleven_are_refused() {
    let mut race = new_race(1);
    race.register("red", "red-1", (1, 4, 5));
    let (problem, refusal) = refused(&mut race, "red", "red-2", (1, 5, 5));
    assert_eq!(problem, RegistrationProblem::TooManyModules);
    assert!(
        matches!(&refusal[..], [Event::RegistrationRejected(c::RegistrationRejected { car, problem: RegistrationProblem::TooManyModules, reason, .. })]
        if car == "red-2" && reason.contains("11 modules"))
    );
}

#[test]
fn a_car_without_a_pilot_is_refused() {
    let mut race = new_race(1);
    assert_eq!(
        refused(&mut race, "red", "red-1", (0, 5, 5)).0,
        RegistrationProblem::NoPilot
    );
    assert!(race.state().cars.is_empty());
}

#[test]
fn a_car_over_the_team_budget_is_refused_and_nothing_is_paid() {
    let mut race = new_race(1);
    for i in 1..=5 {
        race.register("red", &format!("red-{i}"), (1, 4, 5)); // $19 each
    }
    assert_eq!(race.state().team("red").unwrap().budget, 5);
    let (problem, refusal) = refused(&mut race, "red", "red-6", (1, 1, 2));
    assert_eq!(problem, RegistrationProblem::OverBudget);
    assert!(
        matches!(&refusal[..], [Event::RegistrationRejected(c::RegistrationRejected { reason, .. })]
        if reason == "car red-6 costs $7, more than team red's money left")
    );
    assert_eq!(race.state().team("red").unwrap().budget, 5);
    // Exactly the budget is fine.
    race.register("red", "red-6", (1, 2, 0));
    assert_eq!(race.state().team("red").unwrap().budget, 0);
    // Another team has its own $100.
    race.register("blue", "blue-1", (1, 4, 5));
    assert_eq!(race.state().team("blue").unwrap().budget, 81);
}

#[test]
fn a_taken_or_malformed_name_is_refused() {
    let mut race = new_race(1);
    race.register("red", "red-1", (1, 1, 1));
    assert_eq!(
        refused(&mut race, "blue", "red-1", (1, 1, 1)).0,
        RegistrationProblem::NameTaken
    );
    assert_eq!(
        refused(&mut race, "Blue Team", "b-1", (1, 1, 1)).0,
        RegistrationProblem::BadName
    );
    assert_eq!(
        refused(&mut race, "blue", "-b", (1, 1, 1)).0,
        RegistrationProblem::BadName
    );
}

#[test]
fn a_car_registered_during_a_turn_starts_on_the_next_one() {
    let mut race = new_race(1);
    race.register("red", "red-1", (1, 3, 1));
    race.start(only(EventKind::Nothing));
    // Given turn 1 is waiting for red-1's state report, when blue registers a car,
    let events = race.register("blue", "blue-1", (1, 5, 1));
    assert!(matches!(
        &events[..],
        [
            Event::CarRegistered(c::CarRegistered { starts_turn: 2, .. }),
            Event::StateReported(_)
        ]
    ));
    // then it does not race in turn 1,
    assert_eq!(race.state().car("blue-1").unwrap().square, 0);
    assert!(!race.state().racing(race.state().car_index["blue-1"]));
    // and joins turn 2, moving with its 5 engines.
    let events = race.next_turn();
    assert!(
        matches!(&events[0], Event::TurnStarted(c::TurnStarted { turn: 2, joining, .. }) if joining.len() == 1 && &*joining[0] == "blue-1")
    );
    let moved = having(&events, |e| {
        matches!(
            e,
            Event::CarMoved(c::CarMoved {
                reason: MoveReason::OnTrack,
                ..
            })
        )
    });
    assert!(
        moved.iter().any(
            |e| matches!(e, Event::CarMoved(c::CarMoved { car, from: 0, to: 5, .. }) if &**car == "blue-1")
        )
    );
}

#[test]
fn a_team_asks_its_budget_at_any_time() {
    let mut race = new_race(1);
    race.register("red", "red-1", (2, 4, 4));
    race.when(Input::QueryBudget { team: "red".into() })
        .then_expect([Event::BudgetReported(c::BudgetReported {
            team: "red".into(),
            budget: 82,
            points: 0,
            cars: vec!["red-1".into()],
        })]);
    let unknown = Input::QueryBudget {
        team: "green".into(),
    };
    let rejection = Rejection::UnknownTeam {
        team: "green".into(),
    };
    race.when(unknown.clone()).then_reject(rejection.clone());
    assert_eq!(rejection.to_string(), "team green has no car registered");
    assert!(
        matches!(&race.decider().master().refusal(&unknown, &rejection)[..],
        [Event::CommandRejected(c::CommandRejected { command, .. })] if command == "race.budget.query.v1")
    );
}

#[test]
fn the_race_starts_once_and_a_finished_race_takes_no_car() {
    let mut race = new_race(1);
    race.register("red", "red-1", (1, 3, 1));
    race.run(Input::Start(arcade_race_master::domain::StartSettings {
        turns: Some(1),
        distribution: Some(only(EventKind::Nothing)),
        ..Default::default()
    }));
    let again = Input::Start(Default::default());
    race.when(again).then_reject(Rejection::AlreadyStarted);
    race.report_truthfully();
    assert_eq!(
        race.state().status,
        arcade_race_master::domain::state::Status::Finished
    );
    assert_eq!(
        refused(&mut race, "blue", "blue-1", (1, 1, 1)).0,
        RegistrationProblem::RaceFinished
    );
}

#[test]
fn a_start_after_the_finish_starts_the_next_race_with_its_own_seed_and_keeps_the_old_one() {
    use arcade_race_master::domain::state::Status;
    let settings = arcade_race_master::domain::StartSettings {
        turns: Some(1),
        distribution: Some(only(EventKind::Nothing)),
        ..Default::default()
    };
    let mut race = new_race(7);
    race.register("red", "red-1", (1, 3, 1));
    let first = race.run(Input::Start(settings));
    race.report_truthfully();
    assert_eq!(race.state().status, Status::Finished);
    assert_eq!(race.state().race, 1);
    let finished = race.state().clone();

    // Two turns: the first with no car, the second with the car registered meanwhile.
    let two_turns = arcade_race_master::domain::StartSettings {
        turns: Some(2),
        ..settings
    };
    let second = race.run(Input::Start(two_turns));
    let seed = |events: &[Event]| match &events[0] {
        Event::RaceStarted(started) => started.seed_sha256.clone(),
        other => panic!("{other:?}"),
    };
    assert_ne!(
        seed(&first),
        seed(&second),
        "race 2 draws from a seed of its own"
    );
    let state = race.state();
    assert_eq!((state.race, state.status), (2, Status::Running));
    assert!(state.teams.is_empty() && state.cars.is_empty(), "{state:?}");
    // Race 1 is kept as it finished, and readable by its number.
    assert_eq!(state.race_number(1), Some(&finished));
    assert_eq!(state.race_number(2).map(|r| r.race), Some(2));
    assert_eq!(state.race_number(3), None);
    // Cars join race 2; its seed is race 2's at its finish.
    race.register("red", "red-1", (1, 3, 1));
    race.when(Input::Start(settings))
        .then_reject(Rejection::AlreadyStarted);
    for _ in 0..6 {
        race.report_truthfully();
        if race.state().status == Status::Finished {
            break;
        }
        race.tick();
    }
    assert_eq!(race.state().status, Status::Finished);
    let revealed = race.history().iter().rev().find_map(|e| match e {
        Event::RaceFinished(c::RaceFinished { seed, .. }) => seed.parse::<u64>().ok(),
        _ => None,
    });
    let master = arcade_race_master::domain::RaceMaster::new(7);
    assert_eq!(revealed, Some(master.for_race(2).seed()));
    assert_ne!(revealed, Some(7), "race 1's seed is not race 2's");
}

#[test]
fn odds_that_do_not_add_up_to_100_are_refused() {
    let race = new_race(1);
    let mut odds = only(EventKind::Wreck);
    odds.garage = 5;
    race.when(Input::SetDistribution(odds))
        .then_reject(Rejection::BadDistribution { sum: 105 });
    odds.wreck = 95;
    race.when(Input::SetDistribution(odds))
        .then_expect([Event::DistributionChanged(c::DistributionChanged {
            distribution: odds,
        })]);
}
