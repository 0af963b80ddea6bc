//! `evolve`: how each fact changes the race. No rule is decided here.

use super::{
    About, Car, Choice, Combat, DuelProgress, OpenEvent, Pending, RaceState, Side, Stage, Status,
    Team,
};
use crate::domain::decision::{Answer, Question};
use crate::domain::event::{Closure, Event, EventOutcome, Phase};
use crate::domain::rules::{AchievementRules, EventKind, INITIAL_BUDGET};

impl RaceState {
    /// Applies one fact. Facts naming unknown cars or teams change nothing.
    pub fn evolve(&mut self, event: &Event) {
        match event {
            Event::RaceStarted(started) => {
                if self.status == Status::Finished {
                    self.begin_next();
                }
                self.race += 1;
                self.status = Status::Running;
                self.distribution = started.distribution;
                self.settings = Some(started.clone());
                self.stage = Stage::BetweenTurns;
            }
            Event::DistributionChanged(distribution) => self.distribution = *distribution,
            Event::CarRegistered {
                team,
                car,
                modules,
                budget_left,
                starts_turn,
                ..
            } => {
                let team_index = match self.team_index.get(team) {
                    Some(&i) => i,
                    None => {
                        self.teams.push(Team {
                            name: team.clone(),
                            budget: INITIAL_BUDGET,
                            achievements: 0,
                            achievement_points: 0,
                            cars: Vec::new(),
                        });
                        self.team_index.insert(team.clone(), self.teams.len() - 1);
                        self.teams.len() - 1
                    }
                };
                let index = self.cars.len();
                self.cars.push(Car {
                    name: car.clone(),
                    team: team_index,
                    modules: *modules,
                    square: 0,
                    farthest: 0,
                    turns_to_miss: 0,
                    stopped: None,
                    starts_turn: *starts_turn,
                    fights_won: 0,
                    changed: false,
                });
                self.car_index.insert(car.clone(), index);
                let team = &mut self.teams[team_index];
                team.budget = *budget_left;
                team.cars.push(index);
            }
            Event::RegistrationRejected { .. }
            | Event::CommandRejected { .. }
            | Event::BudgetReported { .. }
            | Event::StateReported { .. }
            | Event::HintPublished { .. } => {}
            Event::BudgetGranted {
                team, budget_left, ..
            } => {
                if let Some(team) = self.team_mut(team) {
                    team.budget = *budget_left;
                }
            }
            Event::DuelResolved(transcript) => {
                self.duels.remove(&transcript.duel_id);
            }
            Event::TurnStarted { turn, at_ms, .. } => {
                self.turn = *turn;
                self.turn_started_at = *at_ms;
                self.stage = Stage::OnTrack;
                for car in &mut self.cars {
                    car.changed = false;
                }
            }
            Event::PhaseStarted { phase, .. } => {
                self.stage = match phase {
                    Phase::Events => Stage::Events,
                    Phase::Combats => Stage::Combats,
                    Phase::StateChecks => Stage::StateChecks,
                };
            }
            Event::CarMoved {
                car,
                from,
                to,
                turns_to_miss,
                ..
            } => {
                if let Some(car) = self.car_mut(car) {
                    car.square = *to;
                    car.farthest = car.farthest.max(*to);
                    car.turns_to_miss = *turns_to_miss;
                    car.changed |= from != to;
                }
            }
            Event::CarStopped {
                car,
                reason,
                square,
                ..
            } => {
                if let Some(car) = self.car_mut(car) {
                    car.stopped = Some(*reason);
                    car.square = *square;
                }
            }
            Event::ModuleChanged { car, modules, .. } => {
                if let Some(car) = self.car_mut(car) {
                    car.modules = *modules;
                    car.changed = true;
                }
            }
            Event::PenaltyGiven {
                car, turns_to_miss, ..
            } => {
                if let Some(car) = self.car_mut(car) {
                    car.turns_to_miss = car.turns_to_miss.saturating_add(*turns_to_miss);
                }
            }
            Event::EventDrawn {
                car,
                event,
                pirates,
                ..
            } => {
                if *event != EventKind::Nothing
                    && let Some(&index) = self.car_index.get(car)
                {
                    self.open_events.insert(
                        index,
                        OpenEvent {
                            kind: *event,
                            pirates: *pirates,
                        },
                    );
                }
            }
            Event::EventResolved {
                car,
                team,
                outcome,
                price,
                turns_to_miss,
                ..
            } => {
                if let Some(&index) = self.car_index.get(car) {
                    self.open_events.remove(&index);
                    let car = &mut self.cars[index];
                    car.turns_to_miss = car.turns_to_miss.saturating_add(*turns_to_miss);
                    if *outcome == EventOutcome::FightWon {
                        car.fights_won += 1;
                    }
                }
                if *outcome == EventOutcome::Bought
                    && let Some(team) = self.team_mut(team)
                {
                    team.budget = team.budget.saturating_sub(price.unwrap_or(0));
                }
            }
            Event::CombatPaired {
                combat_id,
                square,
                fighters,
                ..
            } => {
                self.last_combat = self.last_combat.max(*combat_id);
                if let (Some(a), Some(b)) =
                    (self.index(&fighters[0].car), self.index(&fighters[1].car))
                {
                    let combat = Combat {
                        cars: [a, b],
                        square: *square,
                        choices: [None, None],
                    };
                    self.combats.insert(*combat_id, combat);
                }
            }
            Event::CombatResolved {
                combat_id,
                winner,
                loser,
                loser_turns_to_miss,
                ..
            } => {
                self.combats.remove(combat_id);
                if let Some(car) = winner.as_deref().and_then(|w| self.car_mut(w)) {
                    car.fights_won += 1;
                }
                if let Some(car) = loser.as_deref().and_then(|l| self.car_mut(l)) {
                    car.turns_to_miss = car.turns_to_miss.saturating_add(*loser_turns_to_miss);
                }
            }
            Event::DuelStarted {
                duel_id,
                combat_id,
                fighters,
                first_player,
                ..
            } => {
                self.last_duel = self.last_duel.max(*duel_id);
                let side = |state: &Self, i: usize| match state.index(&fighters[i].car) {
                    Some(car) => Side::Car(car),
                    None => Side::Pirates,
                };
                let progress = DuelProgress {
                    combat: *combat_id,
                    sides: [side(self, 0), side(self, 1)],
                    weapons: [fighters[0].weapons, fighters[1].weapons],
                    first: *first_player,
                    plays: Vec::new(),
                };
                self.duels.insert(*duel_id, progress);
            }
            Event::DuelPlayed { duel_id, play, .. } => {
                if let Some(duel) = self.duels.get_mut(duel_id) {
                    duel.plays.push(play.clone());
                }
            }
            Event::AchievementAwarded {
                team,
                achievement,
                points,
                budget_left,
                ..
            } => {
                if let Some(team) = self.team_mut(team) {
                    team.achievements |= achievement.bit();
                    team.achievement_points += points;
                    team.budget = *budget_left;
                }
            }
            Event::StandingsUpdated { .. } => self.stage = Stage::BetweenTurns,
            Event::RaceFinished { .. } => {
                self.status = Status::Finished;
                self.stage = Stage::BetweenTurns;
            }
            Event::DecisionRequested {
                decision_id,
                car,
                deadline_ms,
                question,
                ..
            } => {
                self.last_decision = self.last_decision.max(*decision_id);
                if let Some(&index) = self.car_index.get(car) {
                    let about = match question {
                        Question::ShouldFight { combat_id, .. } => About::Fight {
                            combat: *combat_id,
                            side: self
                                .combats
                                .get(combat_id)
                                .map_or(0, |c| usize::from(c.cars[1] == index)),
                        },
                        Question::DuelAnswer(view) => About::Duel { duel: view.duel_id },
                        Question::ReportState => About::StateCheck,
                        _ => About::Event,
                    };
                    let pending = Pending {
                        car: index,
                        deadline_ms: *deadline_ms,
                        about,
                        asked: question.kind(),
                    };
                    self.pending.insert(*decision_id, pending);
                }
            }
            Event::DecisionClosed {
                decision_id,
                closure,
                ..
            } => {
                if let Some(pending) = self.pending.remove(decision_id)
                    && let About::Fight { combat, side } = pending.about
                    && let Some(combat) = self.combats.get_mut(&combat)
                {
                    combat.choices[side.min(1)] = Some(match closure {
                        Closure::Answered(Answer::ShouldFight(true)) => Choice::Fight,
                        Closure::Answered(_) => Choice::Refuse,
                        Closure::WrongAnswer(_) | Closure::NoAnswer => Choice::Silent,
                    });
                }
            }
        }
    }
}
