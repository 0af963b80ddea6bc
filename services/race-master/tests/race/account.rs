//! A team's account: the budget report after the finish counts the end bonuses as the
//! standings do; a team's true state on request; money granted by the operator and "Picsou"
//! above $300; hints about the hidden achievements during the race.

use arcade_contracts::race as c;
use arcade_race_master::domain::event::Event;
use arcade_race_master::domain::hints::{HINT_ORDER, hint_of_turn, published};
use arcade_race_master::domain::rules::ModuleCounts as _;
use arcade_race_master::domain::rules::{Achievement, EventKind, Modules};
use arcade_race_master::domain::{Input, Rejection};

use crate::scoring::drive;
use crate::support::having;
use crate::support::{RaceSteps, new_race, only};

#[test]
fn the_budget_report_after_the_finish_counts_the_end_bonuses() {
    let (mut race, events) = drive(
        &[("red", "red-1", (1, 5, 1)), ("blue", "blue-1", (1, 3, 1))],
        20,
    );
    let Some(Event::RaceFinished(c::RaceFinished { standings, .. })) = events.last() else {
        panic!("{:?}", events.last())
    };
    for line in standings {
        let reported = race.run(Input::QueryBudget {
            team: line.team.to_string(),
        });
        let [Event::BudgetReported(c::BudgetReported { points, .. })] = &reported[..] else {
            panic!("{reported:?}")
        };
        assert_eq!(*points, line.points, "team {}", line.team);
    }
    // red: 100 squares (8 points) and both farthest bonuses (40).
    assert_eq!(standings[0].points, 48);
}

#[test]
fn a_team_gets_its_cars_true_state_at_any_time() {
    let mut race = new_race(3);
    // A team that never registered: nothing yet, $100.
    race.when(Input::QueryState {
        team: "red".into(),
        race: None,
    })
    .then_expect([Event::StateReported(c::StateReported {
        team: "red".into(),
        race_id: None,
        turn: 0,
        budget: 100,
        points: 0,
        cars: Vec::new(),
    })]);
    race.register("red", "red-1", (1, 4, 2));
    race.register("blue", "blue-1", (1, 3, 1));
    race.start(only(EventKind::Nothing));
    race.next_turn();
    race.when(Input::QueryState {
        team: "red".into(),
        race: None,
    })
    .then_expect([Event::StateReported(c::StateReported {
        team: "red".into(),
        race_id: None,
        turn: 2,
        budget: 100 - 13,
        points: 0,
        cars: vec![c::CarStatus {
            car: "red-1".into(),
            square: 8,
            ring_square: 8,
            farthest: 8,
            modules: Modules::new(1, 4, 2),
            turns_to_miss: 0,
            starts_turn: 1,
            stopped: None,
        }],
    })]);
}

#[test]
fn granted_money_above_300_is_picsou_once() {
    let mut race = new_race(3);
    race.register("red", "red-1", (1, 4, 2));
    race.start(only(EventKind::Nothing));
    let granted = race.run(Input::Grant {
        team: "red".into(),
        amount: 200,
        reason: Some("console".into()),
    });
    assert!(
        having(&granted, |e| matches!(e, Event::AchievementAwarded(_))).is_empty(),
        "$287 is not above $300"
    );
    let granted = race.run(Input::Grant {
        team: "red".into(),
        amount: 14,
        reason: None,
    });
    assert_eq!(
        granted[..2],
        [
            Event::BudgetGranted(c::BudgetGranted {
                team: "red".into(),
                amount: 14,
                reason: None,
                budget_left: 301
            }),
            Event::AchievementAwarded(c::AchievementAwarded {
                team: "red".into(),
                car: "red-1".into(),
                achievement: Achievement::Picsou,
                title: "Picsou".into(),
                money: 0,
                points: 0,
                budget_left: 301
            })
        ]
    );
    // Then the team's own account, to its queue only.
    assert!(
        matches!(
            &granted[2..],
            [Event::StateReported(c::StateReported { budget: 301, .. })]
        ),
        "{granted:?}"
    );
    assert_eq!(race.state().team("red").unwrap().budget, 301);
    let again = race.run(Input::Grant {
        team: "red".into(),
        amount: 1,
        reason: None,
    });
    assert_eq!(again.len(), 2, "Picsou once per team: {again:?}");
    race.when(Input::Grant {
        team: "nobody".into(),
        amount: 5,
        reason: None,
    })
    .then_reject(Rejection::UnknownTeam {
        team: "nobody".into(),
    });
    race.when(Input::Grant {
        team: "red".into(),
        amount: 0,
        reason: None,
    })
    .then_reject(Rejection::BadSetting {
        setting: "amount",
        bounds: "1 to 1000000",
        value: 0,
    });
}

#[test]
fn hints_come_during_the_race_every_fifth_turn() {
    let (_, events) = drive(&[("red", "red-1", (1, 1, 1))], 12);
    let hints: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::HintPublished(c::HintPublished {
                turn, achievement, ..
            }) => Some((*turn, *achievement)),
            _ => None,
        })
        .collect();
    assert_eq!(
        hints,
        [(5, HINT_ORDER[0]), (10, HINT_ORDER[1])],
        "nothing before turn 5: every achievement is hidden at the start"
    );
    // Each hint follows its turn's start.
    let at = events
        .iter()
        .position(|e| matches!(e, Event::HintPublished(c::HintPublished { turn: 5, .. })))
        .unwrap();
    assert!(matches!(
        events[at - 1],
        Event::TurnStarted(c::TurnStarted { turn: 5, .. })
    ));
    // Every achievement gets its hint once, in 65 turns.
    let all: Vec<_> = (1..=65).filter_map(hint_of_turn).collect();
    assert_eq!(all.len(), Achievement::ALL.len());
    assert!(Achievement::ALL.iter().all(|a| all.contains(a)));
}

#[test]
fn the_operator_publishes_a_hint_with_the_turn_in_progress() {
    let mut race = new_race(3);
    race.register("red", "red-1", (1, 4, 2));
    // A hint comes with a turn.
    race.when(Input::PublishHint(Achievement::Stratege))
        .then_reject(Rejection::NotStarted);
    race.start(only(EventKind::Nothing));
    race.next_turn();
    let turn = race.state().turn;
    assert!(turn >= 1);
    race.when(Input::PublishHint(Achievement::Stratege))
        .then_expect([published(turn, Achievement::Stratege)]);
    // Again, the same achievement: the organiser may repeat a hint.
    assert_eq!(race.run(Input::PublishHint(Achievement::Stratege)).len(), 1);
}

#[test]
fn a_state_query_naming_a_race_over_answers_from_that_race() {
    use arcade_race_master::domain::StartSettings;
    let settings = StartSettings {
        turns: Some(1),
        distribution: Some(only(EventKind::Nothing)),
        ..Default::default()
    };
    let query = |race: Option<u32>| Input::QueryState {
        team: "red".into(),
        race,
    };
    let report = |events: Vec<Event>| match &events[..] {
        [Event::StateReported(report)] => report.clone(),
        other => panic!("{other:?}"),
    };
    let mut race = new_race(5);
    race.register("red", "red-1", (1, 3, 1));
    // Before any start the race to come is race 1.
    let now = report(race.when(query(None)).events());
    let named = report(race.when(query(Some(1))).events());
    assert_eq!(named.race_id, Some(1));
    assert_eq!(
        c::StateReported {
            race_id: None,
            ..named
        },
        now
    );
    race.when(query(Some(2)))
        .then_reject(Rejection::UnknownRace {
            race: 2,
            current: 1,
        });

    race.run(Input::Start(settings));
    race.report_truthfully();
    let finished = report(race.when(query(None)).events());
    assert_eq!(finished.turn, 1);
    assert_eq!(finished.cars.len(), 1);

    // Race 2: red has no car there yet; race 1 is answered as it finished.
    race.run(Input::Start(settings));
    let current = report(race.when(query(None)).events());
    assert_eq!((current.budget, current.points), (100, 0));
    assert!(current.cars.is_empty(), "{current:?}");
    assert_eq!(current.race_id, None);
    let over = report(race.when(query(Some(1))).events());
    assert_eq!(
        over,
        c::StateReported {
            race_id: Some(1),
            ..finished
        }
    );
    let named_current = report(race.when(query(Some(2))).events());
    assert_eq!(
        named_current,
        c::StateReported {
            race_id: Some(2),
            ..current
        }
    );
    // A race never held is refused, naming the team.
    let refused = race.when(query(Some(3))).rejection();
    assert_eq!(
        refused,
        Rejection::UnknownRace {
            race: 3,
            current: 2
        }
    );
    let told = race.decider().master().refusal(&query(Some(3)), &refused);
    let [Event::CommandRejected(rejected)] = &told[..] else {
        panic!("{told:?}")
    };
    assert_eq!(rejected.team.as_deref(), Some("red"));
    assert_eq!(
        rejected.reason,
        "race 3 is not one of this data dir's (races 1 to 2)"
    );
}
