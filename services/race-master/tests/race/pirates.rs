//! Pirates: the generated opponent (1 pilot, 1 to 8 weapons, up to 10 modules) fights a duel
//! with its built-in tactics; a car with no weapon is destroyed.

use arcade_contracts::race as c;
use arcade_race_master::domain::event::{
    DuelReason, Event, EventOutcome, ModuleReason, StopReason,
};
use arcade_race_master::domain::rules::ModuleCounts as _;
use arcade_race_master::domain::rules::{Achievement, EventKind};

use crate::events::{fight_out, one_car};
use crate::support::RaceSteps;
use crate::support::having;

#[test]
fn pirates_fight_a_duel_whose_loser_pays() {
    let (mut wins, mut losses) = (0, 0);
    for seed in 0..30 {
        let (mut race, events) = one_car(seed, (2, 3, 3), EventKind::Pirates);
        let [
            Event::EventDrawn(c::EventDrawn {
                pirates: Some(crew),
                ..
            }),
        ] = &having(&events, |e| matches!(e, Event::EventDrawn(_)))[..]
        else {
            panic!()
        };
        assert!(
            (1..=8).contains(&crew.modules.weapons)
                && crew.modules.pilots == 1
                && crew.modules.total() == 10
        );
        let mut events = events.clone();
        events.extend(fight_out(&mut race, "red-1"));
        let [Event::DuelResolved(transcript)] =
            &having(&events, |e| matches!(e, Event::DuelResolved(_)))[..]
        else {
            panic!("{events:?}")
        };
        assert_eq!(transcript.fighters[1].weapons, crew.modules.weapons);
        let resolved = having(&events, |e| matches!(e, Event::EventResolved(_)));
        match transcript.winner {
            Some(0) => {
                wins += 1;
                assert!(matches!(
                    resolved[..],
                    [Event::EventResolved(c::EventResolved {
                        outcome: EventOutcome::FightWon,
                        turns_to_miss: 0,
                        ..
                    })]
                ));
                assert!(events.iter().any(|e| matches!(
                    e,
                    Event::AchievementAwarded(c::AchievementAwarded {
                        achievement: Achievement::MadMax,
                        money: 1,
                        points: 1,
                        ..
                    })
                )));
                assert_eq!(race.state().car("red-1").unwrap().fights_won, 1);
            }
            Some(_) => {
                losses += 1;
                assert!(matches!(
                    resolved[..],
                    [Event::EventResolved(c::EventResolved {
                        outcome: EventOutcome::FightLost,
                        turns_to_miss: 1,
                        ..
                    })]
                ));
                assert!(matches!(
                    having(&events, |e| matches!(e, Event::ModuleChanged(_)))[..],
                    [Event::ModuleChanged(c::ModuleChanged {
                        change: c::ModuleChange::Lost,
                        reason: ModuleReason::DuelLost,
                        ..
                    })]
                ));
            }
            None => assert_eq!(transcript.reason, DuelReason::DeckExhausted),
        }
    }
    assert!(wins > 0 && losses > 0, "wins {wins}, losses {losses}");
}

#[test]
fn pirates_destroy_a_car_with_no_weapon() {
    let (race, events) = one_car(1, (2, 3, 0), EventKind::Pirates);
    let tail: Vec<_> = events
        .iter()
        .skip_while(|e| !matches!(e, Event::EventDrawn(_)))
        .skip(1)
        .collect();
    assert!(matches!(
        tail[0],
        Event::CarStopped(c::CarStopped {
            reason: StopReason::Destroyed,
            square: 3,
            ..
        })
    ));
    assert!(matches!(
        tail[1],
        Event::AchievementAwarded(c::AchievementAwarded {
            achievement: Achievement::ClicClic,
            ..
        })
    ));
    assert!(matches!(
        tail[2],
        Event::EventResolved(c::EventResolved {
            outcome: EventOutcome::Destroyed,
            ..
        })
    ));
    assert!(race.pending().is_empty());
}
