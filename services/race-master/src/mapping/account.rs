//! A team's account on the wire: a car of a state report (its ring square added), and hints.

use arcade_contracts::race as c;

use super::RaceMessage;
use super::wire::wire_struct;
use crate::domain::event::{CarStatus, Event};
use crate::domain::hints::hint;
use crate::domain::rules::{Achievement, AchievementRules, RING_SQUARES};

wire_struct!(CarStatus => c::CarStatus {
    car,
    square,
    farthest,
    modules,
    turns_to_miss,
    starts_turn,
    stopped,
} + {
    ring_square: |car: &CarStatus| car.square % RING_SQUARES,
});

/// `race.hint.published.v1`.
pub fn hint_published(turn: u32, achievement: Achievement) -> RaceMessage {
    RaceMessage::HintPublished(c::HintPublished {
        turn,
        achievement,
        title: achievement.title().to_string(),
        hint: hint(achievement).to_string(),
    })
}

/// The fact of `race.hint.published.v1`.
pub fn hint_from(m: &c::HintPublished) -> Event {
    Event::HintPublished {
        turn: m.turn,
        achievement: m.achievement,
    }
}
