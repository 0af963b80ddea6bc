//! A team's account on the wire: state reports, grants and hints, both ways.

use std::sync::Arc;

use arcade_contracts::race as c;

use super::RaceMessage;
use super::enums::{
    achievement_from, achievement_to, modules_from, modules_to, stop_from, stop_to,
};
use crate::domain::car::Name;
use crate::domain::event::{CarStatus, Event};
use crate::domain::hints::hint;
use crate::domain::rules::{Achievement, RING_SQUARES};

/// `race.state.reported.v1`.
pub fn state_reported(
    team: &Name,
    turn: u32,
    budget: u32,
    points: u32,
    cars: &[CarStatus],
) -> RaceMessage {
    RaceMessage::StateReported(c::StateReported {
        team: team.to_string(),
        turn,
        budget,
        points,
        cars: cars
            .iter()
            .map(|car| c::CarStatus {
                car: car.car.to_string(),
                square: car.square,
                ring_square: car.square % RING_SQUARES,
                farthest: car.farthest,
                modules: modules_to(car.modules),
                turns_to_miss: car.turns_to_miss,
                starts_turn: car.starts_turn,
                stopped: car.stopped.map(stop_to),
            })
            .collect(),
    })
}

/// `race.budget.granted.v1`.
pub fn budget_granted(
    team: &Name,
    amount: u32,
    reason: &Option<String>,
    budget_left: u32,
) -> RaceMessage {
    RaceMessage::BudgetGranted(c::BudgetGranted {
        team: team.to_string(),
        amount,
        reason: reason.clone(),
        budget_left,
    })
}

/// `race.hint.published.v1`.
pub fn hint_published(turn: u32, achievement: Achievement) -> RaceMessage {
    RaceMessage::HintPublished(c::HintPublished {
        turn,
        achievement: achievement_to(achievement),
        title: achievement.title().to_string(),
        hint: hint(achievement).to_string(),
    })
}

/// The fact of `race.state.reported.v1`.
pub fn state_from(m: &c::StateReported) -> Event {
    Event::StateReported {
        team: Arc::from(m.team.as_str()),
        turn: m.turn,
        budget: m.budget,
        points: m.points,
        cars: m
            .cars
            .iter()
            .map(|car| CarStatus {
                car: Arc::from(car.car.as_str()),
                square: car.square,
                farthest: car.farthest,
                modules: modules_from(car.modules),
                turns_to_miss: car.turns_to_miss,
                starts_turn: car.starts_turn,
                stopped: car.stopped.map(stop_from),
            })
            .collect(),
    }
}

/// The fact of `race.budget.granted.v1`.
pub fn granted_from(m: &c::BudgetGranted) -> Event {
    Event::BudgetGranted {
        team: Arc::from(m.team.as_str()),
        amount: m.amount,
        reason: m.reason.clone(),
        budget_left: m.budget_left,
    }
}

/// The fact of `race.hint.published.v1`.
pub fn hint_from(m: &c::HintPublished) -> Event {
    Event::HintPublished {
        turn: m.turn,
        achievement: achievement_from(m.achievement),
    }
}
