//! The questions a team's cars are asked, as the facts show them: an event on their square, a
//! fight, a duel, the state checks. Each waits in the team's log for its decision.

use arcade_contracts::race::{CombatPaired, DuelStarted, EventDrawn, Phase, RaceEventKind};

use super::{Teams, asked};
use crate::games::race::state::Car;

impl Teams {
    /// `race.event.drawn.v1`: a mine field, a wreck or a garage is a question to the car.
    pub fn event_drawn(&mut self, m: &EventDrawn) {
        let question = match m.event {
            RaceEventKind::MineField => asked(
                "crossMineField",
                "a mine field: cross it (a module at risk) or go around (3 turns)?".into(),
            ),
            RaceEventKind::Wreck => asked(
                "exploreWreck",
                "a wreck: explore it (1 turn, maybe a module)?".into(),
            ),
            RaceEventKind::Garage => asked(
                "buyAtGarage",
                "a garage: buy a module (pilot $1, engine $2, weapon $2; one square back)?".into(),
            ),
            RaceEventKind::Pirates | RaceEventKind::Nothing => return,
        };
        self.ask(&m.team, &m.car, question);
    }

    /// `race.combat.paired.v1`: both cars are asked whether they fight.
    pub fn combat_paired(&mut self, m: &CombatPaired) {
        for (i, me) in m.fighters.iter().enumerate() {
            let (Some(car), Some(other)) = (&me.car, m.fighters.get(1 - i.min(1))) else {
                continue;
            };
            let name = other.car.clone().unwrap_or_else(|| other.team.clone());
            let text = format!(
                "combat {} on square {}: fight {name} ({}, {} weapon(s))?",
                m.combat_id, m.square, other.team, other.weapons
            );
            self.ask(&me.team, car, asked("shouldFight", text));
        }
    }

    /// `race.duel.started.v1`: each car in it answers with its cards, turn after turn.
    pub fn duel_started(&mut self, m: &DuelStarted) {
        for (i, me) in m.fighters.iter().enumerate() {
            let Some(car) = &me.car else { continue };
            let other = m
                .fighters
                .get(1 - i.min(1))
                .map(|o| o.car.clone().unwrap_or_else(|| o.team.clone()))
                .unwrap_or_default();
            let mut question = asked(
                "duelAnswer",
                format!("duel {} against {other}: your cards?", m.duel_id),
            );
            question.duel_id = Some(m.duel_id);
            self.ask(&me.team, car, question);
        }
    }

    /// `race.phase.started.v1`: at the state checks, the cars asked report their state.
    pub fn phase_started<'a>(&mut self, phase: Phase, cars: impl Iterator<Item = &'a Car>) {
        if phase != Phase::StateChecks {
            return;
        }
        for car in cars.filter(|c| c.stopped.is_none()) {
            let question = asked(
                "reportState",
                "the state checks: report your square and modules".into(),
            );
            self.ask(&car.team.clone(), &car.car.clone(), question);
        }
    }
}
