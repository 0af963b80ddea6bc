//! Victory points: each car scores by its farthest square (stopped cars included), teams add
//! their achievements, and at the end the rule book's four +20 bonuses go to the best teams
//! (every team tied at the top; nobody when the best is 0).

use std::collections::BTreeSet;

use super::car::Name;
use super::event::{Bonus, BonusKind, TeamStanding};
use super::rules::{BONUS_POINTS, distance_points};
use super::state::RaceState;

/// The standings now, with `bonuses` added; best first, equal points by team name.
pub fn standings(state: &RaceState, bonuses: &[Bonus]) -> Vec<TeamStanding> {
    let mut lines: Vec<TeamStanding> = state
        .teams
        .iter()
        .map(|team| {
            let cars = team.cars.iter().map(|&i| &state.cars[i]);
            let distance_points = cars
                .clone()
                .map(|c| distance_points(c.farthest))
                .sum::<u32>();
            let bonus_points = bonuses
                .iter()
                .filter(|b| b.teams.iter().any(|t| **t == *team.name))
                .map(|b| b.points)
                .sum::<u32>();
            TeamStanding {
                rank: 0,
                team: team.name.to_string(),
                points: distance_points + team.achievement_points + bonus_points,
                distance_points,
                achievement_points: team.achievement_points,
                bonus_points,
                distance: cars.clone().map(|c| c.farthest).sum(),
                fights_won: cars.clone().map(|c| c.fights_won).sum(),
                budget: team.budget,
                cars_racing: cars.clone().filter(|c| c.stopped.is_none()).count() as u32,
                cars: team.cars.len() as u32,
            }
        })
        .collect();
    lines.sort_by(|a, b| b.points.cmp(&a.points).then_with(|| a.team.cmp(&b.team)));
    let points: Vec<u32> = lines.iter().map(|l| l.points).collect();
    for line in &mut lines {
        line.rank = 1 + points.iter().filter(|&&p| p > line.points).count() as u32;
    }
    lines
}

/// The points of a team so far (distance and achievements).
pub fn team_points(state: &RaceState, team: usize) -> u32 {
    state.teams.get(team).map_or(0, |t| {
        t.achievement_points
            + t.cars
                .iter()
                .map(|&i| distance_points(state.cars[i].farthest))
                .sum::<u32>()
    })
}

/// The four end bonuses.
pub fn bonuses(state: &RaceState) -> Vec<Bonus> {
    let per_car = |kind, value: &dyn Fn(usize) -> u32| {
        let (best, cars) = leaders(state.cars.len(), value);
        let teams = cars
            .iter()
            .map(|&i| state.teams[state.cars[i].team].name.clone())
            .collect();
        let cars = cars.iter().map(|&i| state.cars[i].name.clone()).collect();
        bonus(kind, best, teams, cars)
    };
    let per_team = |kind, value: &dyn Fn(usize) -> u32| {
        let team_value = |t: usize| state.teams[t].cars.iter().map(|&i| value(i)).sum::<u32>();
        let (best, teams) = leaders(state.teams.len(), team_value);
        let teams = teams.iter().map(|&t| state.teams[t].name.clone()).collect();
        bonus(kind, best, teams, Vec::new())
    };
    let fights = |i: usize| state.cars[i].fights_won;
    let farthest = |i: usize| state.cars[i].farthest;
    vec![
        per_car(BonusKind::CarMostFightsWon, &fights),
        per_team(BonusKind::TeamMostFightsWon, &fights),
        per_car(BonusKind::CarFarthest, &farthest),
        per_team(BonusKind::TeamFarthest, &farthest),
    ]
}

/// The best value among `count` cars or teams, and those that reach it (none when it is 0).
fn leaders(count: usize, value: impl Fn(usize) -> u32) -> (u32, Vec<usize>) {
    let best = (0..count).map(&value).max().unwrap_or(0);
    if best == 0 {
        return (0, Vec::new());
    }
    (best, (0..count).filter(|&i| value(i) == best).collect())
}

/// The `kind` bonus earned with `value` by `teams` (the cars behind it, for a per-car bonus).
fn bonus(kind: BonusKind, value: u32, teams: BTreeSet<Name>, cars: Vec<Name>) -> Bonus {
    Bonus {
        kind,
        value,
        teams: teams.iter().map(ToString::to_string).collect(),
        cars: cars.iter().map(ToString::to_string).collect(),
        points: BONUS_POINTS,
    }
}
