//! The race's read model: the race in progress (or the last one) as the race master's public
//! facts tell it — its settings, every car on the ring of 300 squares, the standings after each
//! turn, each turn's story, every duel ([`super::duels`]) and every team's own log
//! ([`super::teams`]).
//!
//! Pure: folded from `race.*` events only, times from the events (or `Observed::seen_at_ms`).
//! Bounded: cars, teams, duels, turns kept, lines per turn and log entries per team are capped
//! (a producer cannot grow it without end). The race's seed appears only once
//! `race.finished.v1` has revealed it.

use std::collections::{BTreeMap, VecDeque};

use arcade_contracts::Message;
use arcade_contracts::race::{
    AchievementAwarded, CarMoved, CarRegistered, CarStopped, CombatPaired, CombatResolved,
    CommandRejected, DistributionChanged, DuelPlayed, DuelResolved, DuelStarted, EventDistribution,
    EventDrawn, EventResolved, HintPublished, ModuleChanged, PenaltyGiven, PhaseStarted,
    RaceFinished, RaceStarted, StandingsUpdated, TeamStanding, TurnStarted,
};
use serde::{Deserialize, Serialize};

use super::duels::Duels;
use super::lines;
pub use super::state::{
    Car, Finished, KEPT_TURNS, MAX_CARS, MAX_LINES, MAX_NEWS, Notice, RING, Settings, Status, Turn,
};
use super::teams::Teams;
use crate::observed::Observed;
use crate::projection::{ReadModel, of_topic};

/// The race.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Race {
    /// Where it is.
    pub status: Status,
    /// Its settings, once started.
    pub settings: Option<Settings>,
    /// The odds of the random events now.
    pub distribution: Option<EventDistribution>,
    /// The turn in progress or last played.
    pub turn: u32,
    /// The step of the turn in progress.
    pub phase: Option<String>,
    /// Every car, by name.
    pub cars: BTreeMap<String, Car>,
    /// Cars not kept (over [`MAX_CARS`]).
    pub cars_dropped: u32,
    /// The latest standings.
    pub standings: Vec<TeamStanding>,
    /// The newest turns' stories, oldest first.
    pub turns: VecDeque<Turn>,
    /// How it ended.
    pub finished: Option<Finished>,
    /// Hints published, newest last.
    pub hints: VecDeque<Notice>,
    /// Achievements awarded, newest last.
    pub achievements: VecDeque<Notice>,
    /// Organiser commands the master refused (no team named), newest last.
    pub refusals: VecDeque<Notice>,
    /// Every duel.
    pub duels: Duels,
    /// Every team's own log.
    pub teams: Teams,
}

fn push_capped<T>(list: &mut VecDeque<T>, item: T, cap: usize) {
    list.push_back(item);
    while list.len() > cap {
        list.pop_front();
    }
}

impl Race {
    /// A car, if seen.
    pub fn car(&self, car: &str) -> Option<&Car> {
        self.cars.get(car)
    }

    /// A kept turn's story.
    pub fn turn(&self, turn: u32) -> Option<&Turn> {
        self.turns.iter().find(|t| t.turn == turn)
    }

    fn line(&mut self, line: lines::Line) {
        if let Some(turn) = self.turns.back_mut() {
            if turn.lines.len() < MAX_LINES {
                turn.lines.push(line);
            } else {
                turn.dropped += 1;
            }
        }
    }

    fn notice(&self, event: &Observed, title: String, text: String) -> Notice {
        Notice {
            turn: self.turn,
            seen_at_ms: event.seen_at_ms,
            title,
            text,
        }
    }

    /// A new race after one that is over: a fact of a race that is not the finished one
    /// (its start, or a registration, which the finished race's master refuses).
    fn begin_again_if_over(&mut self) {
        if self.status == Status::Finished {
            *self = Race::default();
        }
    }

    fn fold(&mut self, event: &Observed) -> Option<()> {
        match event.message_type.as_str() {
            RaceStarted::TYPE => {
                let m: RaceStarted = event.payload_as().ok()?;
                self.begin_again_if_over();
                self.status = Status::Running;
                self.distribution = Some(m.distribution);
                self.settings = Some(Settings {
                    at_ms: m.at_ms,
                    turns: m.turns,
                    duration_ms: m.duration_ms,
                    turn_interval_ms: m.turn_interval_ms,
                    decision_timeout_ms: m.decision_timeout_ms,
                    seed_sha256: m.seed_sha256,
                });
            }
            DistributionChanged::TYPE => {
                let m: DistributionChanged = event.payload_as().ok()?;
                self.distribution = Some(m.distribution);
                self.line(lines::distribution(&m.distribution));
            }
            CarRegistered::TYPE => {
                let m: CarRegistered = event.payload_as().ok()?;
                self.begin_again_if_over();
                if !self.cars.contains_key(&m.car) && self.cars.len() >= MAX_CARS {
                    self.cars_dropped += 1;
                } else {
                    self.cars.insert(
                        m.car.clone(),
                        Car {
                            car: m.car.clone(),
                            team: m.team.clone(),
                            modules: m.modules,
                            square: 0,
                            ring: 0,
                            turns_to_miss: 0,
                            starts_turn: m.starts_turn,
                            stopped: None,
                            fights_won: 0,
                        },
                    );
                }
                self.teams.registered(&m, self.turn, event.seen_at_ms);
            }
            TurnStarted::TYPE => {
                let m: TurnStarted = event.payload_as().ok()?;
                self.turn = m.turn;
                self.phase = Some("onTrack".into());
                push_capped(
                    &mut self.turns,
                    Turn {
                        turn: m.turn,
                        at_ms: m.at_ms,
                        lines: Vec::new(),
                        dropped: 0,
                        standings: None,
                    },
                    KEPT_TURNS,
                );
                if !m.joining.is_empty() {
                    self.line(lines::joining(&m.joining));
                }
            }
            PhaseStarted::TYPE => {
                let m: PhaseStarted = event.payload_as().ok()?;
                let phase = serde_json::to_value(m.phase).ok()?;
                self.phase = phase.as_str().map(str::to_string);
                self.teams.phase_started(m.phase, self.cars.values());
            }
            CarMoved::TYPE => {
                let m: CarMoved = event.payload_as().ok()?;
                let car = self.cars.get_mut(&m.car)?;
                car.square = m.to;
                car.ring = m.ring_square.unwrap_or(m.to % RING);
                car.turns_to_miss = m.turns_to_miss;
                self.line(lines::moved(&m));
            }
            CarStopped::TYPE => {
                let m: CarStopped = event.payload_as().ok()?;
                if let Some(car) = self.cars.get_mut(&m.car) {
                    car.stopped = Some(m.reason);
                    car.square = m.square;
                    car.ring = m.square % RING;
                }
                self.line(lines::stopped(&m));
                self.teams.stopped(&m, self.turn, event.seen_at_ms);
            }
            ModuleChanged::TYPE => {
                let m: ModuleChanged = event.payload_as().ok()?;
                if let Some(car) = self.cars.get_mut(&m.car) {
                    car.modules = m.modules;
                }
                self.line(lines::module(&m));
                self.teams.module(&m, self.turn, event.seen_at_ms);
            }
            PenaltyGiven::TYPE => {
                let m: PenaltyGiven = event.payload_as().ok()?;
                if let Some(car) = self.cars.get_mut(&m.car) {
                    car.turns_to_miss = car.turns_to_miss.saturating_add(m.turns_to_miss);
                }
                self.line(lines::penalty(&m));
                self.teams.penalty(&m, self.turn, event.seen_at_ms);
            }
            EventDrawn::TYPE => {
                let m: EventDrawn = event.payload_as().ok()?;
                self.line(lines::drawn(&m));
                self.teams.event_drawn(&m);
            }
            EventResolved::TYPE => {
                let m: EventResolved = event.payload_as().ok()?;
                self.line(lines::resolved(&m));
            }
            CombatPaired::TYPE => {
                let m: CombatPaired = event.payload_as().ok()?;
                self.line(lines::paired(&m));
                self.teams.combat_paired(&m);
            }
            CombatResolved::TYPE => {
                let m: CombatResolved = event.payload_as().ok()?;
                if let Some(winner) = m.winner.as_ref().and_then(|w| self.cars.get_mut(w)) {
                    winner.fights_won += 1;
                }
                self.line(lines::combat(&m));
                self.duels.combat_resolved(&m);
            }
            DuelStarted::TYPE => {
                let m: DuelStarted = event.payload_as().ok()?;
                self.line(lines::duel_started(&m));
                self.teams.duel_started(&m);
                self.duels.started(m, event.seen_at_ms);
            }
            DuelPlayed::TYPE => {
                let m: DuelPlayed = event.payload_as().ok()?;
                self.duels.played(m);
            }
            DuelResolved::TYPE => {
                let m: DuelResolved = event.payload_as().ok()?;
                self.line(lines::duel_resolved(&m));
                self.duels.resolved(m, self.turn, event.seen_at_ms);
            }
            AchievementAwarded::TYPE => {
                let m: AchievementAwarded = event.payload_as().ok()?;
                let text = format!("{} ({}) earned it", m.car, m.team);
                let notice = self.notice(event, m.title.clone(), text);
                push_capped(&mut self.achievements, notice, MAX_NEWS);
                self.line(lines::achievement(&m));
                self.teams.achievement(&m, self.turn, event.seen_at_ms);
            }
            HintPublished::TYPE => {
                let m: HintPublished = event.payload_as().ok()?;
                let notice = Notice {
                    turn: m.turn,
                    ..self.notice(event, m.title.clone(), m.hint.clone())
                };
                push_capped(&mut self.hints, notice, MAX_NEWS);
                self.line(lines::hint(&m));
            }
            StandingsUpdated::TYPE => {
                let m: StandingsUpdated = event.payload_as().ok()?;
                if let Some(turn) = self.turns.iter_mut().rev().find(|t| t.turn == m.turn) {
                    turn.standings = Some(m.standings.clone());
                }
                self.standings = m.standings;
            }
            RaceFinished::TYPE => {
                let m: RaceFinished = event.payload_as().ok()?;
                self.status = Status::Finished;
                self.phase = None;
                self.standings = m.standings;
                self.line(lines::finished(m.turn, m.reason));
                self.finished = Some(Finished {
                    turn: m.turn,
                    at_ms: m.at_ms,
                    reason: m.reason,
                    bonuses: m.bonuses,
                    seed: m.seed,
                });
            }
            CommandRejected::TYPE => {
                let m: CommandRejected = event.payload_as().ok()?;
                match &m.team {
                    Some(_) => self.teams.rejected(&m, self.turn, event.seen_at_ms),
                    None => {
                        let notice = self.notice(event, m.command.clone(), m.reason.clone());
                        push_capped(&mut self.refusals, notice, MAX_NEWS);
                    }
                }
            }
            _ => return self.teams.fold_other(event, self.turn),
        }
        Some(())
    }
}

impl ReadModel for Race {
    const KEY: &'static str = "race";
    const VERSION: u32 = 1;

    fn apply(&mut self, event: &Observed) -> bool {
        of_topic(event, "race") && self.fold(event).is_some()
    }
}
