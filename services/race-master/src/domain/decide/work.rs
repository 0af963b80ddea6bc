//! The decider's scratch pad: a copy of the state that each decided fact is applied to at
//! once, so later rules in the same `decide` see it; plus the small moves every rule uses
//! (ask a car, award, stop, gain or lose a module, penalise).

use arcade_contracts::race as c;

use super::RaceMaster;
use crate::domain::car::CarState;
use crate::domain::decision::Question;
use crate::domain::dice::Dice;
use crate::domain::event::{Event, ModuleChange, ModuleReason, PenaltyReason, StopReason};
use crate::domain::rules::{Achievement, AchievementRules, Module, ModuleCounts};
use crate::domain::state::RaceState;

/// A decision in progress.
pub(super) struct Work<'a> {
    pub master: &'a RaceMaster,
    pub state: RaceState,
    pub now: u64,
    out: Vec<Event>,
}

impl<'a> Work<'a> {
    pub fn new(master: &'a RaceMaster, state: &RaceState, now: u64) -> Work<'a> {
        Work {
            master,
            state: state.clone(),
            now,
            out: Vec::new(),
        }
    }

    pub fn into_events(self) -> Vec<Event> {
        self.out
    }

    /// Records a fact and applies it.
    pub fn emit(&mut self, event: Event) {
        self.state.evolve(&event);
        self.out.push(event);
    }

    /// A car's name and its team's.
    pub fn names(&self, car: usize) -> (String, String) {
        let c = &self.state.cars[car];
        (
            c.name.to_string(),
            self.state.teams[c.team].name.to_string(),
        )
    }

    /// The dice for a draw site.
    pub fn dice(&self, purpose: crate::domain::dice::Purpose, turn: u32, subject: u32) -> Dice {
        Dice::new(self.master.seed(), purpose, turn, subject)
    }

    /// The car's state as the master records it.
    pub fn truth(&self, car: usize) -> CarState {
        let c = &self.state.cars[car];
        CarState {
            square: c.square,
            modules: c.modules,
        }
    }

    /// Asks a car, with the race's answer time.
    pub fn ask(&mut self, car: usize, question: Question) {
        let timeout = self
            .state
            .settings
            .as_ref()
            .map_or(0, |s| s.decision_timeout_ms);
        let (car_name, team) = self.names(car);
        self.emit(Event::DecisionRequested(c::DecisionRequested {
            decision_id: self.state.last_decision + 1,
            team,
            car: car_name,
            turn: self.state.turn,
            deadline_ms: self.now.saturating_add(timeout),
            question,
        }));
    }

    /// Awards an achievement to the car's team, unless the team has it.
    pub fn award(&mut self, car: usize, achievement: Achievement) {
        let team = &self.state.teams[self.state.cars[car].team];
        if team.achievements & achievement.bit() != 0 {
            return;
        }
        let (money, points) = achievement.reward();
        let budget_left = team.budget.saturating_add(money);
        let (car_name, team) = self.names(car);
        self.emit(Event::AchievementAwarded(c::AchievementAwarded {
            team,
            car: car_name,
            achievement,
            title: achievement.title().to_string(),
            money,
            points,
            budget_left,
        }));
        if money > 0 {
            self.picsou(self.state.cars[car].team);
        }
    }

    /// Takes a car out of the race, with the achievement its reason earns.
    pub fn stop(&mut self, car: usize, reason: StopReason) {
        let (car_name, team) = self.names(car);
        let square = self.state.cars[car].square;
        self.emit(Event::CarStopped(c::CarStopped {
            car: car_name,
            team,
            reason,
            square,
        }));
        self.award(
            car,
            match reason {
                StopReason::NoEngine => Achievement::PanneDEssence,
                StopReason::NoPilot => Achievement::Ulysse31,
                StopReason::Destroyed => Achievement::ClicClic,
            },
        );
    }

    /// A module more.
    pub fn gain(&mut self, car: usize, module: Module, reason: ModuleReason) {
        self.change_module(car, module, ModuleChange::Gained, reason);
    }

    /// A module less of a given kind (if the car has one); a car left with no pilot stops.
    pub fn lose(&mut self, car: usize, module: Module, reason: ModuleReason) -> Option<Module> {
        if self.state.cars[car].modules.count(module) == 0 {
            return None;
        }
        self.change_module(car, module, ModuleChange::Lost, reason);
        if self.state.cars[car].modules.pilots == 0 && self.state.cars[car].stopped.is_none() {
            self.stop(car, StopReason::NoPilot);
        }
        Some(module)
    }

    /// A random module less, drawn with `dice` among all the car's modules.
    pub fn lose_random(
        &mut self,
        car: usize,
        mut dice: Dice,
        reason: ModuleReason,
    ) -> Option<Module> {
        let modules = self.state.cars[car].modules;
        let module = modules.nth(dice.below(modules.total()))?;
        self.lose(car, module, reason)
    }

    fn change_module(
        &mut self,
        car: usize,
        module: Module,
        change: ModuleChange,
        reason: ModuleReason,
    ) {
        let mut modules = self.state.cars[car].modules;
        match change {
            ModuleChange::Gained => modules.gain(module),
            ModuleChange::Lost => modules.lose(module),
        }
        let (car_name, team) = self.names(car);
        self.emit(Event::ModuleChanged(c::ModuleChanged {
            car: car_name,
            team,
            module,
            change,
            reason,
            modules,
        }));
    }

    /// Turns to miss for an answer that went wrong (with the right state after a check).
    pub fn penalise(
        &mut self,
        car: usize,
        decision_id: u64,
        reason: PenaltyReason,
        turns_to_miss: u32,
        correction: Option<CarState>,
    ) {
        let (car_name, team) = self.names(car);
        self.emit(Event::PenaltyGiven(c::PenaltyGiven {
            car: car_name,
            team,
            decision_id,
            reason,
            turns_to_miss,
            correction,
        }));
    }
}
