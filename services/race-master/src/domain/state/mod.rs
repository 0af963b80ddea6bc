//! The race as the master knows it: a fold of its own events ([`RaceState::evolve`]). No rule
//! is decided here; `evolve` only applies facts, so replaying the log rebuilds the race.

use std::collections::BTreeMap;
use std::sync::Arc;

use arcade_contracts::race::RaceStarted;

mod evolve;

use super::car::Name;
use super::decision::Asked;
use super::duel::Play;
use super::event::StopReason;
use super::rules::{Distribution, EventKind, Modules};

/// Where the race is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Status {
    /// Cars register; not started.
    #[default]
    Registration,
    /// Turns are played.
    Running,
    /// Over.
    Finished,
}

/// Where a running race is within its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stage {
    /// Between two turns (or before turn 1): waiting for the next start.
    #[default]
    BetweenTurns,
    /// The "on track" step (never seen at rest: it needs no answer).
    OnTrack,
    /// Random events: waiting for the cars' answers and pirate duels.
    Events,
    /// Combats: waiting for fight choices and duels.
    Combats,
    /// Waiting for state reports.
    StateChecks,
}

/// A team's account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    /// Its name.
    pub name: Name,
    /// Money left, in dollars.
    pub budget: u32,
    /// Achievements earned, one bit each ([`super::rules::Achievement::bit`]).
    pub achievements: u16,
    /// Points from achievements.
    pub achievement_points: u32,
    /// Its cars (indexes into the race's cars), in registration order.
    pub cars: Vec<usize>,
}

/// A car as the master records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Car {
    /// Its name.
    pub name: Name,
    /// Its team (index).
    pub team: usize,
    /// Its modules.
    pub modules: Modules,
    /// Its square.
    pub square: u32,
    /// The farthest square it reached (what scores).
    pub farthest: u32,
    /// "On track" steps it will miss.
    pub turns_to_miss: u32,
    /// Why it left the race, if it did.
    pub stopped: Option<StopReason>,
    /// The turn it starts racing.
    pub starts_turn: u32,
    /// Fights it won.
    pub fights_won: u32,
    /// Whether its square or modules changed this turn (it will be asked its state).
    pub changed: bool,
}

/// A car's random event still in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenEvent {
    /// The event.
    pub kind: EventKind,
    /// The pirates, for a pirate attack.
    pub pirates: Option<Modules>,
}

/// A car's choice to fight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Wants to fight.
    Fight,
    /// Does not.
    Refuse,
    /// Did not answer (or answered wrongly): counts as not wanting to.
    Silent,
}

/// A combat between two cars still in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combat {
    /// The two cars.
    pub cars: [usize; 2],
    /// Where.
    pub square: u32,
    /// Their choices as they come.
    pub choices: [Option<Choice>; 2],
}

/// A side of a duel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A car (index).
    Car(usize),
    /// The pirates.
    Pirates,
}

/// A duel in progress: enough to replay it from its deck.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuelProgress {
    /// Its combat; `None` against pirates.
    pub combat: Option<u32>,
    /// Fighter 0 and 1.
    pub sides: [Side; 2],
    /// Their weapons.
    pub weapons: [u32; 2],
    /// Who plays first.
    pub first: usize,
    /// Every answer so far.
    pub plays: Vec<Play>,
}

/// What an open decision is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum About {
    /// The car's random event.
    Event,
    /// Whether it fights in a combat (its side in it).
    Fight {
        /// The combat.
        combat: u32,
        /// The car's side.
        side: usize,
    },
    /// Its turn in a duel.
    Duel {
        /// The duel.
        duel: u32,
    },
    /// A state report.
    StateCheck,
}

/// A question awaiting its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The car asked.
    pub car: usize,
    /// Answers must come before this.
    pub deadline_ms: u64,
    /// What it is about.
    pub about: About,
    /// The question's kind, to check the answer's.
    pub asked: Asked,
}

/// The race: a fold of its events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RaceState {
    /// Where the race is.
    pub status: Status,
    /// Its settings, once started.
    pub settings: Option<RaceStarted>,
    /// The odds of the random events now.
    pub distribution: Distribution,
    /// Teams, in order of their first registration.
    pub teams: Vec<Team>,
    /// Team by name.
    pub team_index: BTreeMap<Name, usize>,
    /// Cars, in registration order.
    pub cars: Vec<Car>,
    /// Car by name.
    pub car_index: BTreeMap<Name, usize>,
    /// The turn in progress or last played (0 before turn 1).
    pub turn: u32,
    /// When it started.
    pub turn_started_at: u64,
    /// Where the turn is.
    pub stage: Stage,
    /// Random events in progress, by car.
    pub open_events: BTreeMap<usize, OpenEvent>,
    /// Combats in progress, by id.
    pub combats: BTreeMap<u32, Combat>,
    /// Duels in progress, by id.
    pub duels: BTreeMap<u32, DuelProgress>,
    /// Questions awaiting answers, by decision id.
    pub pending: BTreeMap<u64, Pending>,
    /// The last decision id given.
    pub last_decision: u64,
    /// The last combat id given.
    pub last_combat: u32,
    /// The last duel id given.
    pub last_duel: u32,
    /// The race's number in its data dir: 1 for the first started, 0 before any start. A
    /// `race.start.v1` after the finish starts the next.
    pub race: u32,
    /// The races over before this one, oldest first, each as it finished.
    pub past: Vec<Arc<RaceState>>,
}

impl RaceState {
    /// Race `number` of this data dir: this one (number 1 before any start too), or one over
    /// before it.
    pub fn race_number(&self, number: u32) -> Option<&RaceState> {
        if number == self.race.max(1) {
            return Some(self);
        }
        self.past
            .iter()
            .find(|race| race.race == number)
            .map(AsRef::as_ref)
    }

    /// Ends a finished race: it joins the past ones, and the state is that of a race not
    /// started, numbered as this one (its start counts the next).
    pub(crate) fn begin_next(&mut self) {
        let mut over = std::mem::take(self);
        self.past = std::mem::take(&mut over.past);
        self.race = over.race;
        self.distribution = over.distribution;
        self.past.push(Arc::new(over));
    }

    /// A car by name.
    pub fn car(&self, name: &str) -> Option<&Car> {
        self.car_index.get(name).map(|&i| &self.cars[i])
    }

    /// A team by name.
    pub fn team(&self, name: &str) -> Option<&Team> {
        self.team_index.get(name).map(|&i| &self.teams[i])
    }

    /// Whether car `index` races this turn: started and not stopped.
    pub fn racing(&self, index: usize) -> bool {
        self.cars
            .get(index)
            .is_some_and(|car| car.stopped.is_none() && car.starts_turn <= self.turn)
    }

    /// When the next turn may start: at the start for turn 1, then one interval after the last.
    pub fn next_turn_at(&self) -> Option<u64> {
        let settings = self.settings.as_ref()?;
        Some(if self.turn == 0 {
            settings.at_ms
        } else {
            self.turn_started_at
                .saturating_add(settings.turn_interval_ms)
        })
    }

    /// When the race's time runs out.
    pub fn ends_at(&self) -> Option<u64> {
        self.settings
            .as_ref()
            .map(|s| s.at_ms.saturating_add(s.duration_ms))
    }

    pub(crate) fn car_mut(&mut self, name: &str) -> Option<&mut Car> {
        let index = *self.car_index.get(name)?;
        self.cars.get_mut(index)
    }

    pub(crate) fn team_mut(&mut self, name: &str) -> Option<&mut Team> {
        let index = *self.team_index.get(name)?;
        self.teams.get_mut(index)
    }

    pub(crate) fn index(&self, car: Option<&str>) -> Option<usize> {
        car.and_then(|name| self.car_index.get(name).copied())
    }
}
