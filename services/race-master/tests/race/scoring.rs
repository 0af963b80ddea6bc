//! Scoring: points by farthest square (98 → 2, 156 → 8, +15 per 100 beyond 300), standings,
//! the four +20 end bonuses, and the end after the configured turns or duration (2 h).

use arcade_contracts::race as c;
use arcade_race_master::domain::event::{BonusKind, Event, FinishReason};
use arcade_race_master::domain::rules::{EventKind, distance_points};
use arcade_race_master::domain::{Input, StartSettings};

use crate::support::{Race, RaceSteps, new_race, only};

#[test]
fn points_by_farthest_square_follow_the_rule_book() {
    let table = [
        (0, 0),
        (29, 0),
        (30, 1),
        (49, 1),
        (50, 2),
        (98, 2),
        (99, 2),
        (100, 8),
        (156, 8),
        (199, 8),
        (200, 18),
        (299, 18),
        (300, 30),
        (399, 30),
        (400, 45),
        (499, 45),
        (500, 60),
        (1005, 135),
    ];
    for (square, points) in table {
        assert_eq!(distance_points(square), points, "square {square}");
    }
}

/// A race of `turns` turns where the cars only drive.
pub(crate) fn drive(cars: &[(&str, &str, (u32, u32, u32))], turns: u32) -> (Race, Vec<Event>) {
    let mut race = new_race(9);
    for (team, car, modules) in cars {
        race.register(team, car, *modules);
    }
    let mut events = race.run(Input::Start(StartSettings {
        turns: Some(turns),
        distribution: Some(only(EventKind::Nothing)),
        ..StartSettings::default()
    }));
    while race.state().status != arcade_race_master::domain::state::Status::Finished {
        // Nobody fights: every car refuses.
        for (_, car, asked) in race.pending() {
            if asked == arcade_race_master::domain::decision::Asked::ShouldFight {
                events.extend(race.answer(
                    &car,
                    arcade_race_master::domain::decision::Answer::ShouldFight { fight: false },
                ));
            }
        }
        events.extend(race.report_truthfully());
        if race.state().status != arcade_race_master::domain::state::Status::Finished {
            events.extend(race.tick());
        }
    }
    (race, events)
}

#[test]
fn standings_rank_by_points_and_the_race_ends_after_its_turns() {
    // Different squares every turn: 5, 3 and 2 engines never meet after the start.
    let (_, events) = drive(
        &[
            ("red", "red-1", (1, 5, 1)),
            ("blue", "blue-1", (1, 3, 1)),
            ("green", "green-1", (1, 2, 1)),
        ],
        20,
    );
    let Some(Event::RaceFinished(c::RaceFinished {
        turn: 20,
        reason: FinishReason::Turns,
        standings,
        bonuses,
        ..
    })) = events.last()
    else {
        panic!("{:?}", events.last())
    };
    // red: square 100 → 8 points; blue: 60 → 2; green: 40 → 1; red also goes farthest (+40).
    let lines: Vec<_> = standings
        .iter()
        .map(|s| (s.rank, s.team.to_string(), s.points, s.distance))
        .collect();
    assert_eq!(
        lines,
        [
            (1, "red".into(), 48, 100),
            (2, "blue".into(), 2, 60),
            (3, "green".into(), 1, 40)
        ]
    );
    let farthest: Vec<_> = bonuses
        .iter()
        .filter(|b| matches!(b.kind, BonusKind::CarFarthest | BonusKind::TeamFarthest))
        .collect();
    assert!(
        farthest
            .iter()
            .all(|b| b.teams == ["red"] && b.points == 20 && b.value == 100)
    );
    let fights: Vec<_> = bonuses
        .iter()
        .filter(|b| {
            matches!(
                b.kind,
                BonusKind::CarMostFightsWon | BonusKind::TeamMostFightsWon
            )
        })
        .collect();
    assert!(
        fights.iter().all(|b| b.teams.is_empty()),
        "nobody won a fight: no bonus"
    );
    let updates = events
        .iter()
        .filter(|e| matches!(e, Event::StandingsUpdated(_)))
        .count();
    assert_eq!(updates, 20, "standings after every turn");
}

#[test]
fn tied_teams_share_a_bonus_and_a_rank() {
    let (_, events) = drive(
        &[
            ("red", "red-1", (1, 5, 0)),
            ("blue", "blue-1", (1, 5, 0)),
            ("green", "green-1", (1, 2, 1)),
        ],
        4,
    );
    let Some(Event::RaceFinished(c::RaceFinished {
        standings, bonuses, ..
    })) = events.last()
    else {
        panic!()
    };
    // red and blue drive side by side, refuse every fight (Pacifiste, 1 point each).
    let car_farthest = bonuses
        .iter()
        .find(|b| b.kind == BonusKind::CarFarthest)
        .unwrap();
    assert_eq!(car_farthest.teams, ["blue", "red"]);
    assert_eq!(car_farthest.cars.len(), 2);
    let ranks: Vec<_> = standings
        .iter()
        .map(|s| (s.rank, s.team.to_string()))
        .collect();
    assert_eq!(
        ranks,
        [(1, "blue".into()), (1, "red".into()), (3, "green".into())]
    );
    assert_eq!(standings[0].points, 41);
}

#[test]
fn by_default_the_race_ends_after_two_hours() {
    let mut race = new_race(9);
    race.register("red", "red-1", (1, 1, 1));
    race.start(only(EventKind::Nothing));
    let start = race.now_ms();
    loop {
        race.report_truthfully();
        if race.state().status == arcade_race_master::domain::state::Status::Finished {
            break;
        }
        race.tick();
    }
    let Some(Event::RaceFinished(c::RaceFinished {
        turn,
        at_ms,
        reason: FinishReason::Duration,
        ..
    })) = race.history().last()
    else {
        panic!("{:?}", race.history().last())
    };
    // A turn every 10 s from the start: 720 turns in 7,200 s.
    assert_eq!((*turn, *at_ms - start), (720, 7_200_000));
}
