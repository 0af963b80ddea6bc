//! A turn's steps: start, "on track" (one square per engine; no engine or no pilot: stopped;
//! turns to miss: stay), one random event per racing car, combats (see `fight`), state checks,
//! scoring; and the end of the race after the configured turns or duration.

use arcade_contracts::race as c;

use super::work::Work;
use crate::domain::decision::{GaragePrices, Question};
use crate::domain::dice::Purpose;
use crate::domain::event::{
    Event, EventOutcome, FinishReason, ModuleReason, MoveReason, Phase, StopReason,
};
use crate::domain::rules::{
    Achievement, EventKind, FAST_ENGINES, GARAGE_SQUARES, MINE_DETOUR_TURNS, MINE_HURT_BELOW,
    Module, ModuleCounts, ModuleRules, Modules, Odds, PIRATES_MAX_WEAPONS, PIRATES_MODULES,
    PIRATES_NAME, RING_SQUARES, WRECK_TURNS, WreckFind, wreck_find,
};
use crate::domain::scoring;
use crate::domain::state::{Stage, Status};

/// What an event's answer came to, for [`Work::resolve_event`].
pub(super) enum Reply {
    /// Yes (cross, explore).
    Yes,
    /// No.
    No,
    /// A module to buy, or nothing.
    Buy(Option<Module>),
    /// No answer, or a wrong one: the penalty's reason.
    Failed(crate::domain::event::PenaltyReason),
}

impl Work<'_> {
    /// Runs the race forward until it waits for an answer, the next turn, or nothing.
    pub fn advance(&mut self) {
        while self.state.status == Status::Running {
            match self.state.stage {
                Stage::BetweenTurns => {
                    let time_up = self.state.ends_at().is_some_and(|end| self.now >= end);
                    if time_up && self.state.turn > 0 {
                        self.finish(FinishReason::Duration);
                    } else if self.state.next_turn_at().is_some_and(|at| self.now >= at) {
                        self.start_turn();
                    } else {
                        return;
                    }
                }
                Stage::OnTrack => {
                    self.on_track();
                    self.begin_events();
                }
                Stage::Events if self.state.open_events.is_empty() => self.begin_combats(),
                Stage::Combats if self.state.combats.is_empty() => self.begin_checks(),
                Stage::StateChecks if self.state.pending.is_empty() => self.score(),
                Stage::Events | Stage::Combats | Stage::StateChecks => return,
            }
        }
    }

    fn start_turn(&mut self) {
        let turn = self.state.turn + 1;
        let joining = self
            .state
            .cars
            .iter()
            .filter(|c| c.starts_turn == turn)
            .map(|c| c.name.to_string())
            .collect();
        self.emit(Event::TurnStarted(c::TurnStarted {
            turn,
            at_ms: self.now,
            joining,
        }));
        if let Some(achievement) = crate::domain::hints::hint_of_turn(turn) {
            self.emit(crate::domain::hints::published(turn, achievement));
        }
    }

    fn racing(&self) -> Vec<usize> {
        (0..self.state.cars.len())
            .filter(|&i| self.state.racing(i))
            .collect()
    }

    fn on_track(&mut self) {
        let turn = self.state.turn;
        for car in self.racing() {
            let c = &self.state.cars[car];
            let (from, engines, to_miss) = (c.square, c.modules.engines, c.turns_to_miss);
            if c.modules.pilots == 0 {
                self.stop(car, StopReason::NoPilot);
            } else if to_miss > 0 {
                self.moved(car, turn, [from, from], MoveReason::MissedTurn, to_miss - 1);
            } else if engines == 0 {
                self.stop(car, StopReason::NoEngine);
            } else {
                let to = from.saturating_add(engines);
                self.moved(car, turn, [from, to], MoveReason::OnTrack, 0);
                if engines >= FAST_ENGINES {
                    self.award(car, Achievement::RapideCommeLEclair);
                }
            }
        }
    }

    /// A car moved from one square to another (the same one when it missed its turn).
    fn moved(
        &mut self,
        car: usize,
        turn: u32,
        [from, to]: [u32; 2],
        reason: MoveReason,
        turns_to_miss: u32,
    ) {
        let (car_name, team) = self.names(car);
        self.emit(Event::CarMoved(c::CarMoved {
            car: car_name,
            team,
            turn,
            from,
            to,
            reason,
            turns_to_miss,
            ring_square: Some(to % RING_SQUARES),
        }));
    }

    fn begin_events(&mut self) {
        let turn = self.state.turn;
        self.emit(Event::PhaseStarted(c::PhaseStarted {
            turn,
            phase: Phase::Events,
        }));
        let cars = self.racing();
        for &car in &cars {
            let roll = self.dice(Purpose::EventRoll, turn, car as u32).below(100);
            let event = self.state.distribution.event(roll);
            let pirates = (event == EventKind::Pirates).then(|| {
                let weapons = 1 + self
                    .dice(Purpose::PirateCrew, turn, car as u32)
                    .below(PIRATES_MAX_WEAPONS);
                Modules::new(1, PIRATES_MODULES - 1 - weapons, weapons)
            });
            let (car_name, team) = self.names(car);
            self.emit(Event::EventDrawn(c::EventDrawn {
                car: car_name,
                team,
                turn,
                roll,
                event,
                pirates: pirates.map(|modules| c::PirateCrew {
                    name: PIRATES_NAME.to_string(),
                    modules,
                }),
            }));
        }
        for car in cars {
            let Some(open) = self.state.open_events.get(&car).cloned() else {
                continue;
            };
            let busy = self.state.cars[car].turns_to_miss > 0;
            match open.kind {
                EventKind::Wreck | EventKind::MineField if busy => {
                    self.resolved(car, EventOutcome::Skipped, None, None, None, 0);
                }
                EventKind::MineField => self.ask(car, Question::CrossMineField),
                EventKind::Wreck => self.ask(car, Question::ExploreWreck),
                EventKind::Garage => {
                    let budget = self.state.teams[self.state.cars[car].team].budget;
                    let prices = GaragePrices {
                        pilot: Module::Pilot.price(),
                        engine: Module::Engine.price(),
                        weapon: Module::Weapon.price(),
                        budget,
                    };
                    self.ask(car, Question::BuyAtGarage(prices));
                }
                EventKind::Pirates => self.meet_pirates(car, open.pirates.unwrap_or_default()),
                EventKind::Nothing => {}
            }
        }
    }

    /// Closes a car's event.
    pub fn resolved(
        &mut self,
        car: usize,
        outcome: EventOutcome,
        roll: Option<u32>,
        module: Option<Module>,
        duel_id: Option<u32>,
        turns_to_miss: u32,
    ) {
        let event = self
            .state
            .open_events
            .get(&car)
            .map_or(EventKind::Nothing, |o| o.kind);
        let price = (outcome == EventOutcome::Bought).then(|| module.map_or(0, |m| m.price()));
        let (car_name, team) = self.names(car);
        self.emit(Event::EventResolved(c::EventResolved {
            car: car_name,
            team,
            event,
            outcome,
            roll,
            module,
            price,
            duel_id,
            turns_to_miss,
        }));
    }

    /// The consequences of a car's answer at a mine field, wreck or garage.
    pub fn resolve_event(&mut self, car: usize, decision_id: u64, reply: Reply) {
        let Some(kind) = self.state.open_events.get(&car).map(|o| o.kind) else {
            return;
        };
        let turn = self.state.turn;
        let subject = car as u32;
        if let Reply::Failed(reason) = reply {
            let turns = if kind == EventKind::MineField {
                MINE_DETOUR_TURNS
            } else {
                WRECK_TURNS
            };
            self.penalise(car, decision_id, reason, turns, None);
            let outcome = match reason {
                crate::domain::event::PenaltyReason::WrongAnswer => EventOutcome::WrongAnswer,
                _ => EventOutcome::NoAnswer,
            };
            self.resolved(car, outcome, None, None, None, 0);
            return;
        }
        match (kind, reply) {
            (EventKind::MineField, Reply::Yes) => {
                let roll = self.dice(Purpose::MineRoll, turn, subject).up_to(100);
                if roll < MINE_HURT_BELOW {
                    let dice = self.dice(Purpose::MineLoss, turn, subject);
                    let lost = self.lose_random(car, dice, ModuleReason::MineField);
                    self.resolved(car, EventOutcome::CrossedHurt, Some(roll), lost, None, 0);
                } else {
                    self.award(car, Achievement::AsDuVolant);
                    self.resolved(car, EventOutcome::CrossedUnhurt, Some(roll), None, None, 0);
                }
            }
            (EventKind::MineField, _) => {
                self.resolved(
                    car,
                    EventOutcome::WentAround,
                    None,
                    None,
                    None,
                    MINE_DETOUR_TURNS,
                );
            }
            (EventKind::Wreck, Reply::Yes) => {
                let roll = self.dice(Purpose::WreckRoll, turn, subject).up_to(100);
                match wreck_find(roll) {
                    WreckFind::Nothing => {
                        self.resolved(
                            car,
                            EventOutcome::FoundNothing,
                            Some(roll),
                            None,
                            None,
                            WRECK_TURNS,
                        );
                    }
                    WreckFind::Module(module) => {
                        self.gain(car, module, ModuleReason::Wreck);
                        self.award(car, Achievement::TriSelectif);
                        self.resolved(
                            car,
                            EventOutcome::FoundModule,
                            Some(roll),
                            Some(module),
                            None,
                            WRECK_TURNS,
                        );
                    }
                    WreckFind::Snakes => {
                        let lost = self.lose(car, Module::Pilot, ModuleReason::Snakes);
                        self.award(car, Achievement::SnakesOnACar);
                        self.resolved(
                            car,
                            EventOutcome::Snakes,
                            Some(roll),
                            lost,
                            None,
                            WRECK_TURNS,
                        );
                    }
                }
            }
            (EventKind::Wreck, _) => self.resolved(car, EventOutcome::Ignored, None, None, None, 0),
            (EventKind::Garage, Reply::Buy(Some(module))) => {
                let budget = self.state.teams[self.state.cars[car].team].budget;
                if budget < module.price() {
                    self.resolved(car, EventOutcome::CannotAfford, None, Some(module), None, 0);
                    return;
                }
                self.gain(car, module, ModuleReason::Garage);
                let c = &self.state.cars[car];
                let (from, to_miss) = (c.square, c.turns_to_miss);
                let to = from.saturating_sub(GARAGE_SQUARES);
                self.moved(car, turn, [from, to], MoveReason::Garage, to_miss);
                self.resolved(car, EventOutcome::Bought, None, Some(module), None, 0);
                self.award(car, Achievement::PimpMyRide);
            }
            (EventKind::Garage, _) => {
                self.resolved(car, EventOutcome::Declined, None, None, None, 0)
            }
            _ => {}
        }
    }

    fn begin_checks(&mut self) {
        let turn = self.state.turn;
        self.emit(Event::PhaseStarted(c::PhaseStarted {
            turn,
            phase: Phase::StateChecks,
        }));
        for car in self.racing() {
            if self.state.cars[car].changed {
                self.ask(car, Question::ReportState);
            }
        }
    }

    fn score(&mut self) {
        let standings = scoring::standings(&self.state, &[]);
        self.emit(Event::StandingsUpdated(c::StandingsUpdated {
            turn: self.state.turn,
            standings,
        }));
        let settings = self.state.settings.as_ref();
        if settings
            .and_then(|s| s.turns)
            .is_some_and(|turns| self.state.turn >= turns)
        {
            self.finish(FinishReason::Turns);
        } else if self.state.ends_at().is_some_and(|end| self.now >= end) {
            self.finish(FinishReason::Duration);
        }
    }

    fn finish(&mut self, reason: FinishReason) {
        let bonuses = scoring::bonuses(&self.state);
        let standings = scoring::standings(&self.state, &bonuses);
        self.emit(Event::RaceFinished(c::RaceFinished {
            turn: self.state.turn,
            at_ms: self.now,
            reason,
            bonuses,
            standings,
            seed: self.master.seed().to_string(),
        }));
    }
}
