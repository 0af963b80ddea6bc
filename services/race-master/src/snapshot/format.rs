//! The structs of the race master's snapshot format, version 1: what goes to disk, field by
//! field, and the small enums' codes. The order of every struct's fields and of every enum's
//! variants is the format (postcard writes fields in order and a variant as its index):
//! changing either means a new `VERSION` in `super`. The domain's types never go to disk; the
//! small enums' mirrors and their conversions are in `codes`.

use serde::{Deserialize, Serialize};

use crate::domain::duel::{Play, Silence};
use crate::domain::rules::{Distribution, ModuleCounts, Modules};
use arcade_contracts::race::RaceStarted;

mod codes;

pub(super) use codes::{AskedV1, ChoiceV1, EventKindV1, StageV1, StatusV1, StopV1};

/// The whole race.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct RaceV1 {
    pub status: StatusV1,
    pub settings: Option<StartedV1>,
    pub distribution: OddsV1,
    /// In order of their first registration (the name index is rebuilt from it).
    pub teams: Vec<TeamV1>,
    /// In registration order (the name index is rebuilt from it).
    pub cars: Vec<CarV1>,
    pub turn: u32,
    pub turn_started_at: u64,
    pub stage: StageV1,
    /// (car, event), by car.
    pub open_events: Vec<(u32, OpenEventV1)>,
    /// (combat id, combat), by id.
    pub combats: Vec<(u32, CombatV1)>,
    /// (duel id, duel), by id.
    pub duels: Vec<(u32, DuelV1)>,
    /// (decision id, question awaiting its answer), by id.
    pub pending: Vec<(u64, PendingV1)>,
    pub last_decision: u64,
    pub last_combat: u32,
    pub last_duel: u32,
}

/// Odds in percent: nothing, pirates, garage, wreck, mine field.
/// What follows a [`RaceV1`] since a data dir holds several races (a snapshot written before
/// ends after the `RaceV1`: its race is the first, none before it).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct RacesV1 {
    /// The race's number ([`crate::domain::RaceState::race`]).
    pub race: u32,
    /// The races over before it, oldest first: each its number and its state at the finish.
    pub past: Vec<(u32, RaceV1)>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct OddsV1(pub u32, pub u32, pub u32, pub u32, pub u32);

/// Pilots, engines, weapons.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ModulesV1(pub u32, pub u32, pub u32);

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct TeamV1 {
    pub name: String,
    pub budget: u32,
    pub achievements: u16,
    pub achievement_points: u32,
    /// Its cars (indexes into the cars).
    pub cars: Vec<u32>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct CarV1 {
    pub name: String,
    /// Its team (index into the teams).
    pub team: u32,
    pub modules: ModulesV1,
    pub square: u32,
    pub farthest: u32,
    pub turns_to_miss: u32,
    pub stopped: Option<StopV1>,
    pub starts_turn: u32,
    pub fights_won: u32,
    pub changed: bool,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct OpenEventV1 {
    pub kind: EventKindV1,
    pub pirates: Option<ModulesV1>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct CombatV1 {
    /// The two cars (indexes).
    pub cars: [u32; 2],
    pub square: u32,
    pub choices: [Option<ChoiceV1>; 2],
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct DuelV1 {
    pub combat: Option<u32>,
    pub sides: [SideV1; 2],
    pub weapons: [u32; 2],
    /// Who plays first: 0 or 1.
    pub first: u8,
    pub plays: Vec<PlayV1>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) enum SideV1 {
    /// A car (index).
    Car(u32),
    Pirates,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) enum PlayV1 {
    Cards(Vec<u8>),
    NoAnswer,
    WrongAnswer,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct PendingV1 {
    /// The car asked (index).
    pub car: u32,
    pub deadline_ms: u64,
    pub about: AboutV1,
    pub asked: AskedV1,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) enum AboutV1 {
    Event,
    /// A combat and the car's side in it (0 or 1).
    Fight(u32, u8),
    /// A duel.
    Duel(u32),
    StateCheck,
}

/// The settings of `race.started.v1`. The seed is not here, only its SHA-256, which that
/// event already publishes.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StartedV1 {
    pub at_ms: u64,
    pub turns: Option<u32>,
    pub duration_ms: u64,
    pub turn_interval_ms: u64,
    pub decision_timeout_ms: u64,
    pub distribution: OddsV1,
    pub seed_sha256: [u8; 32],
}

impl From<&RaceStarted> for StartedV1 {
    fn from(s: &RaceStarted) -> Self {
        // The log's reader refuses a hash that is not 32 bytes of hex; were one here, zeros
        // stand for it, which no seed's hash is either.
        let mut seed_sha256 = [0; 32];
        hex::decode_to_slice(&s.seed_sha256, &mut seed_sha256).unwrap_or_default();
        StartedV1 {
            at_ms: s.at_ms,
            turns: s.turns,
            duration_ms: s.duration_ms,
            turn_interval_ms: s.turn_interval_ms,
            decision_timeout_ms: s.decision_timeout_ms,
            distribution: s.distribution.into(),
            seed_sha256,
        }
    }
}

impl From<StartedV1> for RaceStarted {
    fn from(s: StartedV1) -> Self {
        RaceStarted {
            at_ms: s.at_ms,
            turns: s.turns,
            duration_ms: s.duration_ms,
            turn_interval_ms: s.turn_interval_ms,
            decision_timeout_ms: s.decision_timeout_ms,
            distribution: s.distribution.into(),
            seed_sha256: hex::encode(s.seed_sha256),
        }
    }
}

impl From<Distribution> for OddsV1 {
    fn from(d: Distribution) -> Self {
        OddsV1(d.nothing, d.pirates, d.garage, d.wreck, d.mine_field)
    }
}

impl From<OddsV1> for Distribution {
    fn from(OddsV1(nothing, pirates, garage, wreck, mine_field): OddsV1) -> Self {
        Distribution {
            nothing,
            pirates,
            garage,
            wreck,
            mine_field,
        }
    }
}

impl From<Modules> for ModulesV1 {
    fn from(m: Modules) -> Self {
        ModulesV1(m.pilots, m.engines, m.weapons)
    }
}

impl From<ModulesV1> for Modules {
    fn from(ModulesV1(pilots, engines, weapons): ModulesV1) -> Self {
        Modules::new(pilots, engines, weapons)
    }
}

impl From<&Play> for PlayV1 {
    fn from(play: &Play) -> Self {
        match play {
            Play::Cards(cards) => PlayV1::Cards(cards.clone()),
            Play::Silent(Silence::NoAnswer) => PlayV1::NoAnswer,
            Play::Silent(Silence::WrongAnswer) => PlayV1::WrongAnswer,
        }
    }
}

impl From<PlayV1> for Play {
    fn from(play: PlayV1) -> Self {
        match play {
            PlayV1::Cards(cards) => Play::Cards(cards),
            PlayV1::NoAnswer => Play::Silent(Silence::NoAnswer),
            PlayV1::WrongAnswer => Play::Silent(Silence::WrongAnswer),
        }
    }
}
