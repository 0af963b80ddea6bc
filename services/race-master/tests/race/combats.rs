//! Combats: cars of different teams on the same square are paired and asked whether they
//! fight; both refusing is "Pacifiste"; a car with no weapon is destroyed; otherwise a duel,
//! whose loser loses a random module and misses a move.

use arcade_contracts::race as c;
use arcade_race_master::domain::decision::{Answer, Asked, Question};
use arcade_race_master::domain::event::{
    CombatOutcome, Event, ModuleReason, MoveReason, StopReason,
};
use arcade_race_master::domain::rules::ModuleCounts as _;
use arcade_race_master::domain::rules::{Achievement, EventKind};

use crate::support::having;
use crate::support::{Race, RaceSteps, new_race, only};

/// Cars meeting on square 3 after turn 1 (3 engines each), with nothing else happening.
fn meeting(cars: &[(&str, &str, (u32, u32, u32))]) -> (Race, Vec<Event>) {
    let mut race = new_race(5);
    for (team, car, modules) in cars {
        race.register(team, car, *modules);
    }
    let events = race.start(only(EventKind::Nothing));
    (race, events)
}

#[test]
fn two_teams_on_a_square_are_asked_and_both_refusing_is_pacifiste() {
    let (mut race, events) = meeting(&[("red", "red-1", (1, 3, 2)), ("blue", "blue-1", (1, 3, 4))]);
    let [
        Event::CombatPaired(c::CombatPaired {
            combat_id: 1,
            square: 3,
            fighters,
            ..
        }),
    ] = &having(&events, |e| matches!(e, Event::CombatPaired(_)))[..]
    else {
        panic!("{events:?}")
    };
    let names: Vec<_> = fighters.iter().map(|f| f.car.as_deref().unwrap()).collect();
    assert!(names.contains(&"red-1") && names.contains(&"blue-1"));
    let Question::ShouldFight(c::Opponent {
        car: opponent,
        weapons: 4,
        ..
    }) = race.question("red-1").1
    else {
        panic!()
    };
    assert_eq!(opponent, "blue-1");
    race.answer("red-1", Answer::ShouldFight { fight: false });
    let events = race.answer("blue-1", Answer::ShouldFight { fight: false });
    let earned: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::AchievementAwarded(c::AchievementAwarded {
                team,
                achievement,
                points: 1,
                ..
            }) => Some((team.to_string(), *achievement)),
            _ => None,
        })
        .collect();
    assert_eq!(earned.len(), 2);
    assert!(earned.iter().all(|(_, a)| *a == Achievement::Pacifiste));
    assert!(matches!(
        having(&events, |e| matches!(e, Event::CombatResolved(_)))[..],
        [Event::CombatResolved(c::CombatResolved {
            outcome: CombatOutcome::Declined,
            winner: None,
            ..
        })]
    ));
}

#[test]
fn cars_of_one_team_never_fight_each_other() {
    let (race, events) = meeting(&[("red", "red-1", (1, 3, 2)), ("red", "red-2", (1, 3, 4))]);
    assert!(having(&events, |e| matches!(e, Event::CombatPaired(_))).is_empty());
    assert!(
        race.pending()
            .iter()
            .all(|(_, _, asked)| *asked == Asked::ReportState)
    );
}

#[test]
fn each_car_fights_once_per_turn_and_only_another_team() {
    let (_, events) = meeting(&[
        ("red", "red-1", (1, 3, 2)),
        ("red", "red-2", (1, 3, 2)),
        ("blue", "blue-1", (1, 3, 2)),
        ("green", "green-1", (1, 3, 2)),
    ]);
    let pairs = having(&events, |e| matches!(e, Event::CombatPaired(_)));
    assert_eq!(pairs.len(), 2);
    let mut seen = Vec::new();
    for pair in pairs {
        let Event::CombatPaired(c::CombatPaired { fighters, .. }) = pair else {
            unreachable!()
        };
        assert_ne!(fighters[0].team, fighters[1].team);
        seen.extend(fighters.iter().map(|f| f.car.clone().unwrap()));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 4);
}

#[test]
fn a_car_with_no_weapon_is_destroyed_when_the_other_wants_to_fight() {
    let (mut race, _) = meeting(&[("red", "red-1", (1, 3, 2)), ("blue", "blue-1", (1, 3, 0))]);
    race.answer("red-1", Answer::ShouldFight { fight: true });
    let events = race.answer("blue-1", Answer::ShouldFight { fight: false });
    assert!(
        matches!(&events[1], Event::CarStopped(c::CarStopped { car, reason: StopReason::Destroyed, .. }) if &**car == "blue-1")
    );
    assert!(matches!(
        &events[2],
        Event::AchievementAwarded(c::AchievementAwarded {
            achievement: Achievement::ClicClic,
            ..
        })
    ));
    assert!(
        matches!(&events[3], Event::CombatResolved(c::CombatResolved { outcome: CombatOutcome::Destroyed, winner: Some(w), .. }) if &**w == "red-1")
    );
    assert_eq!(race.state().car("red-1").unwrap().fights_won, 1);
}

#[test]
fn the_duel_loser_loses_a_random_module_and_misses_its_next_move() {
    let (mut race, _) = meeting(&[("red", "red-1", (2, 3, 3)), ("blue", "blue-1", (2, 3, 3))]);
    race.answer("red-1", Answer::ShouldFight { fight: true });
    let mut events = race.answer("blue-1", Answer::ShouldFight { fight: false });
    // Red plays legal moves; blue answers with no card at all: illegal, it loses.
    while let Some((_, car, _)) = race
        .pending()
        .into_iter()
        .find(|(_, _, a)| *a == Asked::DuelAnswer)
    {
        let Question::DuelAnswer(view) = race.question(&car).1 else {
            unreachable!()
        };
        let cards = if car == "red-1" {
            vec![
                *view
                    .cards
                    .iter()
                    .filter(|&&c| u32::from(c) < view.distance)
                    .min()
                    .unwrap(),
            ]
        } else {
            vec![]
        };
        events.extend(race.answer(&car, Answer::DuelAnswer { cards }));
    }
    let [Event::DuelResolved(transcript)] =
        &having(&events, |e| matches!(e, Event::DuelResolved(_)))[..]
    else {
        panic!("{events:?}")
    };
    let red = transcript
        .fighters
        .iter()
        .position(|f| f.car.as_deref() == Some("red-1"))
        .unwrap();
    assert_eq!(transcript.winner, Some(red as u8));
    assert!(
        matches!(having(&events, |e| matches!(e, Event::ModuleChanged(_)))[..],
        [Event::ModuleChanged(c::ModuleChanged { car, change: c::ModuleChange::Lost, reason: ModuleReason::DuelLost, modules, .. })] if &**car == "blue-1" && modules.total() == 7)
    );
    assert!(
        matches!(having(&events, |e| matches!(e, Event::CombatResolved(_)))[..],
        [Event::CombatResolved(c::CombatResolved { outcome: CombatOutcome::Won, winner: Some(w), loser: Some(l), loser_turns_to_miss: 1, duel_id: Some(1), .. })]
        if &**w == "red-1" && &**l == "blue-1")
    );
    let events = race.next_turn();
    assert!(events.iter().any(|e| matches!(e, Event::CarMoved(c::CarMoved { car, reason: MoveReason::MissedTurn, .. }) if &**car == "blue-1")));
    assert!(events.iter().any(|e| matches!(e, Event::CarMoved(c::CarMoved { car, reason: MoveReason::OnTrack, .. }) if &**car == "red-1")));
}
