//! A turn's "on track" step and each random event: nothing, mine field, wreck, garage,
//! pirates — with the odds forced to one event, and seeds picked for the draws wanted.

use arcade_contracts::race as c;
use arcade_race_master::domain::decision::{Answer, Question};
use arcade_race_master::domain::dice::{Dice, Purpose};
use arcade_race_master::domain::duel::Hand;
use arcade_race_master::domain::duel::tactics::{Style, choose};
use arcade_race_master::domain::event::{
    Event, EventOutcome, ModuleReason, MoveReason, StopReason,
};
use arcade_race_master::domain::rules::ModuleCounts as _;
use arcade_race_master::domain::rules::{Achievement, EventKind, Module, Modules};

use crate::support::having;
use crate::support::{Race, RaceSteps, new_race, only};

/// The first seed whose draw for car 0 on turn 1 satisfies `wanted`.
pub fn seed_where(purpose: Purpose, wanted: impl Fn(u32) -> bool) -> u64 {
    (0..100_000)
        .find(|&seed| wanted(Dice::new(seed, purpose, 1, 0).up_to(100)))
        .expect("a seed gives that draw")
}

/// The garage's prices, with a team's `budget`.
fn prices(budget: u32) -> c::GaragePrices {
    c::GaragePrices {
        pilot: 1,
        engine: 2,
        weapon: 2,
        budget,
    }
}

/// A one-car race (team red) started with only `kind` events.
pub fn one_car(seed: u64, modules: (u32, u32, u32), kind: EventKind) -> (Race, Vec<Event>) {
    let mut race = new_race(seed);
    race.register("red", "red-1", modules);
    let events = race.start(only(kind));
    (race, events)
}

/// Plays `car`'s duel to its end with the aggressive tactics.
pub fn fight_out(race: &mut Race, car: &str) -> Vec<Event> {
    let mut all = Vec::new();
    while race
        .pending()
        .iter()
        .any(|(_, c, a)| c == car && *a == arcade_race_master::domain::decision::Asked::DuelAnswer)
    {
        let Question::DuelAnswer(view) = race.question(car).1 else {
            unreachable!()
        };
        let action = choose(
            Style::Aggressive,
            &Hand::of(&view.cards),
            view.distance,
            &Hand::default(),
            view.opponent_cards,
        );
        all.extend(race.answer(
            car,
            Answer::DuelAnswer {
                cards: action.map(|a| a.cards()).unwrap_or_default(),
            },
        ));
    }
    all
}

#[test]
fn on_track_a_car_moves_one_square_per_engine_and_nothing_happens() {
    let (race, events) = one_car(1, (1, 3, 1), EventKind::Nothing);
    assert!(matches!(
        &events[1],
        Event::TurnStarted(c::TurnStarted { turn: 1, .. })
    ));
    assert!(matches!(
        &events[2],
        Event::CarMoved(c::CarMoved {
            from: 0,
            to: 3,
            reason: MoveReason::OnTrack,
            turns_to_miss: 0,
            ..
        })
    ));
    assert!(matches!(
        &events[4],
        Event::EventDrawn(c::EventDrawn {
            event: EventKind::Nothing,
            ..
        })
    ));
    assert!(having(&events, |e| matches!(e, Event::EventResolved(_))).is_empty());
    // The only question: report your state, since the car moved.
    let asked: Vec<_> = race.pending().into_iter().map(|(_, _, a)| a).collect();
    assert_eq!(
        asked,
        [arcade_race_master::domain::decision::Asked::ReportState]
    );
}

#[test]
fn a_car_with_no_engine_is_stopped_on_track() {
    let (race, events) = one_car(1, (1, 0, 3), EventKind::Nothing);
    assert!(matches!(
        &events[2],
        Event::CarStopped(c::CarStopped {
            reason: StopReason::NoEngine,
            square: 0,
            ..
        })
    ));
    assert!(matches!(
        &events[3],
        Event::AchievementAwarded(c::AchievementAwarded {
            achievement: Achievement::PanneDEssence,
            money: 0,
            points: 0,
            ..
        })
    ));
    assert!(
        having(&events, |e| matches!(e, Event::EventDrawn(_))).is_empty(),
        "a stopped car meets no event"
    );
    assert!(race.pending().is_empty());
}

#[test]
fn going_around_a_mine_field_costs_three_turns_and_busy_cars_skip_mines() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::MineField);
    assert_eq!(race.question("red-1").1, Question::CrossMineField);
    let events = race.answer("red-1", Answer::CrossMineField { cross: false });
    assert!(matches!(
        &events[1],
        Event::EventResolved(c::EventResolved {
            outcome: EventOutcome::WentAround,
            turns_to_miss: 3,
            ..
        })
    ));
    for left in [2, 1, 0] {
        let events = race.next_turn();
        assert!(
            matches!(&events[1], Event::CarMoved(c::CarMoved { from: 3, to: 3, reason: MoveReason::MissedTurn, turns_to_miss, .. }) if *turns_to_miss == left)
        );
        if left > 0 {
            assert!(matches!(
                having(&events, |e| matches!(e, Event::EventResolved(_)))[..],
                [Event::EventResolved(c::EventResolved {
                    outcome: EventOutcome::Skipped,
                    ..
                })]
            ));
        } else {
            // No turn left to miss: the mine field is asked again.
            assert_eq!(race.question("red-1").1, Question::CrossMineField);
            race.answer("red-1", Answer::CrossMineField { cross: false });
        }
    }
    race.next_turn();
    assert_eq!(
        race.state().car("red-1").unwrap().square,
        3,
        "still going around"
    );
}

#[test]
fn crossing_a_mine_field_below_80_costs_a_random_module() {
    let seed = seed_where(Purpose::MineRoll, |roll| roll < 80);
    let (mut race, _) = one_car(seed, (2, 3, 3), EventKind::MineField);
    let events = race.answer("red-1", Answer::CrossMineField { cross: true });
    let [
        Event::ModuleChanged(c::ModuleChanged {
            module,
            change: c::ModuleChange::Lost,
            reason: ModuleReason::MineField,
            modules,
            ..
        }),
    ] = &having(&events, |e| matches!(e, Event::ModuleChanged(_)))[..]
    else {
        panic!("one module lost: {events:?}")
    };
    assert_eq!(modules.total(), 7);
    assert_eq!(
        modules.count(*module),
        Modules::new(2, 3, 3).count(*module) - 1
    );
    assert!(
        matches!(having(&events, |e| matches!(e, Event::EventResolved(_)))[..],
        [Event::EventResolved(c::EventResolved { outcome: EventOutcome::CrossedHurt, roll: Some(r), turns_to_miss: 0, .. })] if *r < 80)
    );
}

#[test]
fn crossing_a_mine_field_at_80_or_more_is_unhurt_and_earns_as_du_volant() {
    let seed = seed_where(Purpose::MineRoll, |roll| roll >= 80);
    let (mut race, _) = one_car(seed, (2, 3, 3), EventKind::MineField);
    let events = race.answer("red-1", Answer::CrossMineField { cross: true });
    assert!(having(&events, |e| matches!(e, Event::ModuleChanged(_))).is_empty());
    assert!(matches!(
        &events[1],
        Event::AchievementAwarded(c::AchievementAwarded {
            achievement: Achievement::AsDuVolant,
            money: 0,
            points: 1,
            ..
        })
    ));
    assert!(
        matches!(&events[2], Event::EventResolved(c::EventResolved { outcome: EventOutcome::CrossedUnhurt, roll: Some(r), .. }) if *r >= 80)
    );
}

#[test]
fn exploring_a_wreck_costs_a_turn_and_finds_what_the_table_says() {
    type Row = (fn(u32) -> bool, EventOutcome, Option<Module>);
    let table: [Row; 5] = [
        (|r| r <= 50, EventOutcome::FoundNothing, None),
        (
            |r| (51..=75).contains(&r),
            EventOutcome::FoundModule,
            Some(Module::Engine),
        ),
        (
            |r| (76..=90).contains(&r),
            EventOutcome::FoundModule,
            Some(Module::Weapon),
        ),
        (
            |r| (91..=98).contains(&r),
            EventOutcome::FoundModule,
            Some(Module::Pilot),
        ),
        (|r| r >= 99, EventOutcome::Snakes, Some(Module::Pilot)),
    ];
    for (wanted, outcome, module) in table {
        let seed = seed_where(Purpose::WreckRoll, wanted);
        let (mut race, _) = one_car(seed, (2, 3, 3), EventKind::Wreck);
        assert_eq!(race.question("red-1").1, Question::ExploreWreck);
        let events = race.answer("red-1", Answer::ExploreWreck { explore: true });
        let resolved = having(&events, |e| matches!(e, Event::EventResolved(_)));
        assert!(
            matches!(resolved[..], [Event::EventResolved(c::EventResolved { outcome: o, module: m, turns_to_miss: 1, .. })] if *o == outcome && *m == module),
            "{events:?}"
        );
        let changes = having(&events, |e| matches!(e, Event::ModuleChanged(_)));
        let earned: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::AchievementAwarded(c::AchievementAwarded { achievement, .. }) => {
                    Some(*achievement)
                }
                _ => None,
            })
            .collect();
        match outcome {
            EventOutcome::FoundModule => {
                assert!(matches!(
                    changes[..],
                    [Event::ModuleChanged(c::ModuleChanged {
                        change: c::ModuleChange::Gained,
                        reason: ModuleReason::Wreck,
                        ..
                    })]
                ));
                assert_eq!(earned, [Achievement::TriSelectif]);
            }
            EventOutcome::Snakes => {
                assert!(matches!(
                    changes[..],
                    [Event::ModuleChanged(c::ModuleChanged {
                        module: Module::Pilot,
                        change: c::ModuleChange::Lost,
                        reason: ModuleReason::Snakes,
                        ..
                    })]
                ));
                assert_eq!(earned, [Achievement::SnakesOnACar]);
            }
            _ => assert!(changes.is_empty() && earned.is_empty()),
        }
        // The turn to miss: next "on track" step, the car stays.
        let events = race.next_turn();
        assert!(matches!(
            &events[1],
            Event::CarMoved(c::CarMoved {
                reason: MoveReason::MissedTurn,
                turns_to_miss: 0,
                ..
            })
        ));
    }
}

#[test]
fn a_wreck_left_alone_changes_nothing() {
    let (mut race, _) = one_car(1, (2, 3, 3), EventKind::Wreck);
    let events = race.answer("red-1", Answer::ExploreWreck { explore: false });
    assert!(matches!(
        &events[1],
        Event::EventResolved(c::EventResolved {
            outcome: EventOutcome::Ignored,
            turns_to_miss: 0,
            ..
        })
    ));
    assert!(having(&events, |e| matches!(e, Event::ModuleChanged(_))).is_empty());
}

#[test]
fn buying_at_the_garage_pays_adds_the_module_and_costs_one_square() {
    let (mut race, _) = one_car(1, (1, 3, 1), EventKind::Garage);
    assert_eq!(race.question("red-1").1, Question::BuyAtGarage(prices(91)));
    let events = race.answer(
        "red-1",
        Answer::BuyAtGarage {
            module: Some(Module::Engine),
        },
    );
    assert!(
        matches!(&events[1], Event::ModuleChanged(c::ModuleChanged { module: Module::Engine, change: c::ModuleChange::Gained, reason: ModuleReason::Garage, modules, .. }) if *modules == Modules::new(1, 4, 1))
    );
    assert!(matches!(
        &events[2],
        Event::CarMoved(c::CarMoved {
            from: 3,
            to: 2,
            reason: MoveReason::Garage,
            ..
        })
    ));
    assert!(matches!(
        &events[3],
        Event::EventResolved(c::EventResolved {
            outcome: EventOutcome::Bought,
            price: Some(2),
            module: Some(Module::Engine),
            ..
        })
    ));
    assert!(matches!(
        &events[4],
        Event::AchievementAwarded(c::AchievementAwarded {
            achievement: Achievement::PimpMyRide,
            budget_left: 89,
            ..
        })
    ));
    assert_eq!(race.state().team("red").unwrap().budget, 89);
    assert_eq!(
        race.state().car("red-1").unwrap().farthest,
        3,
        "the farthest square still counts"
    );
}

#[test]
fn a_team_without_money_cannot_buy_and_a_refusal_buys_nothing() {
    let mut race = new_race(1);
    for i in 1..=5 {
        race.register("red", &format!("red-{i}"), (1, 4, 5));
    }
    race.register("red", "red-6", (1, 2, 0));
    race.start(only(EventKind::Garage));
    assert_eq!(race.question("red-1").1, Question::BuyAtGarage(prices(0)));
    let events = race.answer(
        "red-1",
        Answer::BuyAtGarage {
            module: Some(Module::Pilot),
        },
    );
    assert!(matches!(
        &events[1],
        Event::EventResolved(c::EventResolved {
            outcome: EventOutcome::CannotAfford,
            price: None,
            ..
        })
    ));
    let events = race.answer("red-2", Answer::BuyAtGarage { module: None });
    assert!(matches!(
        &events[1],
        Event::EventResolved(c::EventResolved {
            outcome: EventOutcome::Declined,
            ..
        })
    ));
}
