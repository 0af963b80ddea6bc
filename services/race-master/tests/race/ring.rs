//! The ring: the track is a ring of 300 squares. Cars meet on the same square of the ring
//! (their distances modulo 300), a lap apart or not; scoring keeps the distance driven.

use arcade_contracts::race as c;
use arcade_race_master::domain::event::Event;
use arcade_race_master::domain::rules::distance_points;
use arcade_race_master::mapping::RaceMessage;
use arcade_race_master::mapping::encode;

use crate::scoring::drive;

#[test]
fn cars_a_lap_apart_meet_on_the_same_square_of_the_ring() {
    // 8 and 2 engines: 8t and 2t are equal modulo 300 first at turn 50 (400 and 100).
    let (race, events) = drive(
        &[("red", "red-1", (1, 8, 1)), ("blue", "blue-1", (1, 2, 1))],
        50,
    );
    let paired: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::CombatPaired(c::CombatPaired {
                turn,
                square,
                fighters,
                ..
            }) => Some((*turn, *square, fighters.len())),
            _ => None,
        })
        .collect();
    assert_eq!(paired, [(50, 100, 2)], "they meet once, on ring square 100");
    assert_eq!(race.state().car("red-1").unwrap().square, 400);
    assert_eq!(race.state().car("blue-1").unwrap().square, 100);
    // The move says both: the distance (400) and the ring square (100).
    let moved = events.iter().rev().find_map(|e| match encode(e) {
        RaceMessage::CarMoved(m) if m.car == "red-1" => Some(m),
        _ => None,
    });
    let moved = moved.unwrap();
    assert_eq!((moved.to, moved.ring_square), (400, Some(100)));
    // Scoring keeps the distance driven: 400 squares is 45 points, not ring square 100's 8.
    let Some(Event::RaceFinished(c::RaceFinished { standings, .. })) = events.last() else {
        panic!("{:?}", events.last())
    };
    let red = standings.iter().find(|s| &*s.team == "red").unwrap();
    assert_eq!(
        (red.distance, red.distance_points),
        (400, distance_points(400))
    );
    assert_eq!(red.distance_points, 45);
}

#[test]
fn cars_on_different_squares_of_the_ring_do_not_meet() {
    // 5 and 3 engines: 5t and 3t are equal modulo 300 first at turn 150.
    let (_, events) = drive(
        &[("red", "red-1", (1, 5, 1)), ("blue", "blue-1", (1, 3, 1))],
        149,
    );
    assert!(
        !events.iter().any(|e| matches!(e, Event::CombatPaired(_))),
        "no meeting before turn 150"
    );
}
