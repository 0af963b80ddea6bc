//! The parts of facts that several contract messages carry: duel fighters, team standings,
//! bonuses.

use arcade_contracts::race as c;

use super::enums::bonus_kind_to;
use crate::domain::event::{Bonus, Fighter, Standing};

pub(super) fn s(name: &str) -> String {
    name.to_string()
}

pub(super) fn fighter(f: &Fighter) -> c::DuelFighter {
    c::DuelFighter {
        car: f.car.as_deref().map(s),
        team: s(&f.team),
        weapons: f.weapons,
    }
}

pub(super) fn standing(l: &Standing) -> c::TeamStanding {
    c::TeamStanding {
        rank: l.rank,
        team: s(&l.team),
        points: l.points,
        distance_points: l.distance_points,
        achievement_points: l.achievement_points,
        bonus_points: l.bonus_points,
        distance: l.distance,
        fights_won: l.fights_won,
        budget: l.budget,
        cars_racing: l.cars_racing,
        cars: l.cars,
    }
}

pub(super) fn bonus(b: &Bonus) -> c::Bonus {
    c::Bonus {
        kind: bonus_kind_to(b.kind),
        value: b.value,
        teams: b.teams.iter().map(|t| s(t)).collect(),
        cars: b.cars.iter().map(|t| s(t)).collect(),
        points: b.points,
    }
}
