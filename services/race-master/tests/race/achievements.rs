//! Achievements: each is earned once per team and adds its money and points (the notes' table).
//! Those met along the events and combats are checked there too; here the rest.

use arcade_contracts::race as c;
use arcade_race_master::domain::decision::{Answer, Asked, Question};
use arcade_race_master::domain::dice::Purpose;
use arcade_race_master::domain::event::{Event, StopReason};
use arcade_race_master::domain::rules::{Achievement, AchievementRules, EventKind};

use crate::events::{fight_out, one_car, seed_where};
use crate::support::having;
use crate::support::{RaceSteps, new_race, only};

fn earned(events: &[Event]) -> Vec<(String, Achievement, u32, u32)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::AchievementAwarded(c::AchievementAwarded {
                car,
                achievement,
                money,
                points,
                ..
            }) => Some((car.to_string(), *achievement, *money, *points)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_rewards_are_the_notes_table() {
    let table: Vec<(Achievement, u32, u32)> = Achievement::ALL
        .iter()
        .map(|a| (*a, a.reward().0, a.reward().1))
        .collect();
    assert_eq!(
        table,
        [
            (Achievement::MadMax, 1, 1),
            (Achievement::RapideCommeLEclair, 5, 2),
            (Achievement::ArmeJusquAuxDents, 5, 2),
            (Achievement::SnakesOnACar, 0, 1),
            (Achievement::AsDuVolant, 0, 1),
            (Achievement::Pacifiste, 0, 1),
            (Achievement::TriSelectif, 1, 1),
            (Achievement::PimpMyRide, 0, 1),
            (Achievement::Stratege, 1, 2),
            (Achievement::ClicClic, 0, 0),
            (Achievement::PanneDEssence, 0, 0),
            (Achievement::Ulysse31, 0, 0),
            (Achievement::Picsou, 0, 0),
        ]
    );
}

#[test]
fn moving_with_eight_engines_is_rapide_comme_l_eclair_once_per_team() {
    let mut race = new_race(1);
    race.register("red", "red-1", (1, 8, 1));
    race.register("red", "red-2", (1, 8, 1));
    let events = race.start(only(EventKind::Nothing));
    assert_eq!(
        earned(&events),
        [("red-1".to_string(), Achievement::RapideCommeLEclair, 5, 2)]
    );
    assert!(matches!(
        having(&events, |e| matches!(e, Event::AchievementAwarded(_)))[..],
        [Event::AchievementAwarded(c::AchievementAwarded {
            budget_left: 67,
            ..
        })]
    ));
    assert_eq!(race.state().team("red").unwrap().achievement_points, 2);
    let events = race.next_turn();
    assert!(earned(&events).is_empty(), "once per team");
}

#[test]
fn fighting_with_eight_weapons_is_arme_jusqu_aux_dents() {
    let (mut race, events) = one_car(3, (1, 1, 8), EventKind::Pirates);
    let mut events = events;
    events.extend(fight_out(&mut race, "red-1"));
    let got: Vec<_> = earned(&events).into_iter().map(|(_, a, _, _)| a).collect();
    assert!(got.contains(&Achievement::ArmeJusquAuxDents), "{got:?}");
}

#[test]
fn winning_with_three_weapons_fewer_is_stratege() {
    let mut race = new_race(5);
    race.register("red", "red-1", (1, 3, 1));
    race.register("blue", "blue-1", (1, 3, 4));
    race.start(only(EventKind::Nothing));
    race.answer("red-1", Answer::ShouldFight { fight: true });
    let mut events = race.answer("blue-1", Answer::ShouldFight { fight: true });
    while let Some((_, car, _)) = race
        .pending()
        .into_iter()
        .find(|(_, _, a)| *a == Asked::DuelAnswer)
    {
        let Question::DuelAnswer(view) = race.question(&car).1 else {
            unreachable!()
        };
        // Red moves with its card; blue plays a card it does not hold (illegal).
        let cards = if car == "red-1" {
            vec![view.cards[0]]
        } else {
            vec![9]
        };
        events.extend(race.answer(&car, Answer::DuelAnswer { cards }));
    }
    assert!(
        earned(&events).contains(&("red-1".to_string(), Achievement::Stratege, 1, 2)),
        "{events:?}"
    );
}

#[test]
fn losing_the_last_pilot_stops_the_car_ulysse_31() {
    let seed = seed_where(Purpose::WreckRoll, |roll| roll >= 99);
    let (mut race, _) = one_car(seed, (1, 3, 3), EventKind::Wreck);
    let events = race.answer("red-1", Answer::ExploreWreck { explore: true });
    assert!(events.iter().any(|e| matches!(
        e,
        Event::CarStopped(c::CarStopped {
            reason: StopReason::NoPilot,
            ..
        })
    )));
    let got: Vec<_> = earned(&events).into_iter().map(|(_, a, _, _)| a).collect();
    assert_eq!(got, [Achievement::Ulysse31, Achievement::SnakesOnACar]);
    assert!(race.state().car("red-1").unwrap().stopped.is_some());
}
