//! `evolve`: how each fact changes the race. No rule is decided here.

use std::sync::Arc;

use super::{
    About, Car, Choice, Combat, DuelProgress, OpenEvent, Pending, RaceState, Side, Stage, Status,
    Team,
};
use crate::domain::decision::{Answer, Asked, Question};
use crate::domain::duel::Play;
use crate::domain::event::{DecisionClosure, Event, EventOutcome, Phase};
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
            Event::DistributionChanged(m) => self.distribution = m.distribution,
            Event::CarRegistered(m) => {
                let team_index = match self.team_index.get(m.team.as_str()) {
                    Some(&i) => i,
                    None => {
                        let name: Arc<str> = Arc::from(m.team.as_str());
                        self.teams.push(Team {
                            name: name.clone(),
                            budget: INITIAL_BUDGET,
                            achievements: 0,
                            achievement_points: 0,
                            cars: Vec::new(),
                        });
                        self.team_index.insert(name, self.teams.len() - 1);
                        self.teams.len() - 1
                    }
                };
                let index = self.cars.len();
                let name: Arc<str> = Arc::from(m.car.as_str());
                self.cars.push(Car {
                    name: name.clone(),
                    team: team_index,
                    modules: m.modules,
                    square: 0,
                    farthest: 0,
                    turns_to_miss: 0,
                    stopped: None,
                    starts_turn: m.starts_turn,
                    fights_won: 0,
                    changed: false,
                });
                self.car_index.insert(name, index);
                let team = &mut self.teams[team_index];
                team.budget = m.budget_left;
                team.cars.push(index);
            }
            Event::RegistrationRejected(_)
            | Event::CommandRejected(_)
            | Event::BudgetReported(_)
            | Event::StateReported(_)
            | Event::HintPublished(_) => {}
            Event::BudgetGranted(m) => {
                if let Some(team) = self.team_mut(&m.team) {
                    team.budget = m.budget_left;
                }
            }
            Event::DuelResolved(m) => {
                self.duels.remove(&m.duel_id);
            }
            Event::TurnStarted(m) => {
                self.turn = m.turn;
                self.turn_started_at = m.at_ms;
                self.stage = Stage::OnTrack;
                for car in &mut self.cars {
                    car.changed = false;
                }
            }
            Event::PhaseStarted(m) => {
                self.stage = match m.phase {
                    Phase::Events => Stage::Events,
                    Phase::Combats => Stage::Combats,
                    Phase::StateChecks => Stage::StateChecks,
                };
            }
            Event::CarMoved(m) => {
                if let Some(car) = self.car_mut(&m.car) {
                    car.square = m.to;
                    car.farthest = car.farthest.max(m.to);
                    car.turns_to_miss = m.turns_to_miss;
                    car.changed |= m.from != m.to;
                }
            }
            Event::CarStopped(m) => {
                if let Some(car) = self.car_mut(&m.car) {
                    car.stopped = Some(m.reason);
                    car.square = m.square;
                }
            }
            Event::ModuleChanged(m) => {
                if let Some(car) = self.car_mut(&m.car) {
                    car.modules = m.modules;
                    car.changed = true;
                }
            }
            Event::PenaltyGiven(m) => {
                if let Some(car) = self.car_mut(&m.car) {
                    car.turns_to_miss = car.turns_to_miss.saturating_add(m.turns_to_miss);
                }
            }
            Event::EventDrawn(m) => {
                if m.event != EventKind::Nothing
                    && let Some(&index) = self.car_index.get(m.car.as_str())
                {
                    let pirates = m.pirates.as_ref().map(|p| p.modules);
                    let kind = m.event;
                    self.open_events.insert(index, OpenEvent { kind, pirates });
                }
            }
            Event::EventResolved(m) => {
                if let Some(&index) = self.car_index.get(m.car.as_str()) {
                    self.open_events.remove(&index);
                    let car = &mut self.cars[index];
                    car.turns_to_miss = car.turns_to_miss.saturating_add(m.turns_to_miss);
                    if m.outcome == EventOutcome::FightWon {
                        car.fights_won += 1;
                    }
                }
                if m.outcome == EventOutcome::Bought
                    && let Some(team) = self.team_mut(&m.team)
                {
                    team.budget = team.budget.saturating_sub(m.price.unwrap_or(0));
                }
            }
            Event::CombatPaired(m) => {
                self.last_combat = self.last_combat.max(m.combat_id);
                if let [a, b] = &m.fighters[..]
                    && let (Some(a), Some(b)) =
                        (self.index(a.car.as_deref()), self.index(b.car.as_deref()))
                {
                    let combat = Combat {
                        cars: [a, b],
                        square: m.square,
                        choices: [None, None],
                    };
                    self.combats.insert(m.combat_id, combat);
                }
            }
            Event::CombatResolved(m) => {
                self.combats.remove(&m.combat_id);
                if let Some(car) = m.winner.as_deref().and_then(|w| self.car_mut(w)) {
                    car.fights_won += 1;
                }
                if let Some(car) = m.loser.as_deref().and_then(|l| self.car_mut(l)) {
                    car.turns_to_miss = car.turns_to_miss.saturating_add(m.loser_turns_to_miss);
                }
            }
            Event::DuelStarted(m) => {
                self.last_duel = self.last_duel.max(m.duel_id);
                let [a, b] = &m.fighters[..] else { return };
                let side = |car: Option<&str>| self.index(car).map_or(Side::Pirates, Side::Car);
                let progress = DuelProgress {
                    combat: m.combat_id,
                    sides: [side(a.car.as_deref()), side(b.car.as_deref())],
                    weapons: [a.weapons, b.weapons],
                    first: usize::from(m.first_player.min(1)),
                    plays: Vec::new(),
                };
                self.duels.insert(m.duel_id, progress);
            }
            Event::DuelPlayed(m) => {
                if let Some(duel) = self.duels.get_mut(&m.duel_id) {
                    duel.plays.push(match m.answer.silence {
                        Some(silence) => Play::Silent(silence),
                        None => Play::Cards(m.answer.cards.clone()),
                    });
                }
            }
            Event::AchievementAwarded(m) => {
                if let Some(team) = self.team_mut(&m.team) {
                    team.achievements |= m.achievement.bit();
                    team.achievement_points += m.points;
                    team.budget = m.budget_left;
                }
            }
            Event::StandingsUpdated(_) => self.stage = Stage::BetweenTurns,
            Event::RaceFinished(_) => {
                self.status = Status::Finished;
                self.stage = Stage::BetweenTurns;
            }
            Event::DecisionRequested(m) => {
                self.last_decision = self.last_decision.max(m.decision_id);
                if let Some(&index) = self.car_index.get(m.car.as_str()) {
                    let about = match &m.question {
                        Question::ShouldFight(o) => About::Fight {
                            combat: o.combat_id,
                            side: self
                                .combats
                                .get(&o.combat_id)
                                .map_or(0, |c| usize::from(c.cars[1] == index)),
                        },
                        Question::DuelAnswer(view) => About::Duel { duel: view.duel_id },
                        Question::ReportState => About::StateCheck,
                        _ => About::Event,
                    };
                    let pending = Pending {
                        car: index,
                        deadline_ms: m.deadline_ms,
                        about,
                        asked: Asked::of(&m.question),
                    };
                    self.pending.insert(m.decision_id, pending);
                }
            }
            Event::DecisionClosed(m) => {
                if let Some(pending) = self.pending.remove(&m.decision_id)
                    && let About::Fight { combat, side } = pending.about
                    && let Some(combat) = self.combats.get_mut(&combat)
                {
                    combat.choices[side.min(1)] = Some(match (m.closure, &m.answer) {
                        (DecisionClosure::Answered, Some(Answer::ShouldFight { fight: true })) => {
                            Choice::Fight
                        }
                        (DecisionClosure::Answered, _) => Choice::Refuse,
                        _ => Choice::Silent,
                    });
                }
            }
        }
    }
}
