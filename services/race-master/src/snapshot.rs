//! The on-disk format of the race master's state snapshots (`arcade_runtime::Snapshot`).
//!
//! Version 1, postcard ([`format`]): where the race is (status, stage, turn and when it
//! started), its settings, the odds now, the teams (name, money, achievements and their points,
//! cars), the cars (name, team, modules, square, farthest square, turns to miss, why stopped,
//! first turn, fights won, whether changed this turn), the random events, combats and duels in
//! progress (a duel as its fighters, weapons, first player and every answer so far), the
//! questions awaiting answers, and the last decision, combat and duel ids given. The name
//! indexes are rebuilt from the teams and cars in order, as `evolve` built them (a name twice,
//! an index out of range, a fighter other than 0 or 1, keys out of order: refused as
//! `SnapshotError::Payload`, so the host skips the snapshot). These structs are the format;
//! the domain's types never go to disk.
//!
//! Then [`format::RacesV1`]: the race's number and the races over before it (each a `RaceV1`
//! with its number). A snapshot written before a data dir held several races ends after the
//! `RaceV1`: it is read as the first race (numbered 1 once started), none before it.
//!
//! No secret: the race's seed is not in the state, and so not here. The state holds no random
//! generator either: every draw is a fresh ChaCha stream of (seed, purpose, turn, subject) that
//! the decider opens from the seed the master is constructed with (`RaceMaster::new`, from
//! `--race-seed`), and a duel in progress is kept as its answers, its deck being dealt again
//! from the seed when it is needed. What the state keeps of the seed is its SHA-256, which
//! `race.started.v1` already publishes (the master checks its own seed against it). A snapshot
//! of a race the master's seed did not start is thus restored as it is, and refused command by
//! command (`SeedMismatch`), exactly as the replayed log would be.

mod format;

use std::collections::BTreeMap;

use arcade_runtime::{Snapshot, SnapshotError};

use crate::domain::car::Name;
use crate::domain::state::{
    About, Car, Combat, DuelProgress, OpenEvent, Pending, RaceState, Side, Team,
};
use crate::service::RaceService;
use format::{
    AboutV1, CarV1, CombatV1, DuelV1, OpenEventV1, PendingV1, PlayV1, RaceV1, RacesV1, SideV1,
    TeamV1,
};

fn payload(reason: impl Into<String>) -> SnapshotError {
    SnapshotError::Payload(reason.into())
}

/// An index as the format writes it (a race has far fewer than 2^32 cars or teams).
fn index_out(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// An index the format read, checked against the `len` items it points into.
fn index_in(index: u32, len: usize, what: &str) -> Result<usize, SnapshotError> {
    usize::try_from(index)
        .ok()
        .filter(|&i| i < len)
        .ok_or_else(|| payload(format!("{what} {index} is not one of the {len} there are")))
}

/// A fighter's number (0 or 1).
fn fighter_in(value: u8, what: &str) -> Result<usize, SnapshotError> {
    match value {
        0 | 1 => Ok(usize::from(value)),
        other => Err(payload(format!("{what} is fighter {other}, not 0 or 1"))),
    }
}

fn race_v1(state: &RaceState) -> RaceV1 {
    RaceV1 {
        status: state.status.into(),
        settings: state.settings.as_ref().map(Into::into),
        distribution: state.distribution.into(),
        teams: state
            .teams
            .iter()
            .map(|team| TeamV1 {
                name: team.name.to_string(),
                budget: team.budget,
                achievements: team.achievements,
                achievement_points: team.achievement_points,
                cars: team.cars.iter().map(|&car| index_out(car)).collect(),
            })
            .collect(),
        cars: state
            .cars
            .iter()
            .map(|car| CarV1 {
                name: car.name.to_string(),
                team: index_out(car.team),
                modules: car.modules.into(),
                square: car.square,
                farthest: car.farthest,
                turns_to_miss: car.turns_to_miss,
                stopped: car.stopped.map(Into::into),
                starts_turn: car.starts_turn,
                fights_won: car.fights_won,
                changed: car.changed,
            })
            .collect(),
        turn: state.turn,
        turn_started_at: state.turn_started_at,
        stage: state.stage.into(),
        open_events: state
            .open_events
            .iter()
            .map(|(&car, event)| {
                let event = OpenEventV1 {
                    kind: event.kind.into(),
                    pirates: event.pirates.map(Into::into),
                };
                (index_out(car), event)
            })
            .collect(),
        combats: state
            .combats
            .iter()
            .map(|(&id, combat)| {
                let combat = CombatV1 {
                    cars: combat.cars.map(index_out),
                    square: combat.square,
                    choices: combat.choices.map(|choice| choice.map(Into::into)),
                };
                (id, combat)
            })
            .collect(),
        duels: state
            .duels
            .iter()
            .map(|(&id, duel)| {
                let duel = DuelV1 {
                    combat: duel.combat,
                    sides: duel.sides.map(|side| match side {
                        Side::Car(car) => SideV1::Car(index_out(car)),
                        Side::Pirates => SideV1::Pirates,
                    }),
                    weapons: duel.weapons,
                    first: u8::from(duel.first != 0),
                    plays: duel.plays.iter().map(Into::into).collect(),
                };
                (id, duel)
            })
            .collect(),
        pending: state
            .pending
            .iter()
            .map(|(&id, pending)| {
                let pending = PendingV1 {
                    car: index_out(pending.car),
                    deadline_ms: pending.deadline_ms,
                    about: match pending.about {
                        About::Event => AboutV1::Event,
                        About::Fight { combat, side } => {
                            AboutV1::Fight(combat, u8::from(side != 0))
                        }
                        About::Duel { duel } => AboutV1::Duel(duel),
                        About::StateCheck => AboutV1::StateCheck,
                    },
                    asked: pending.asked.into(),
                };
                (id, pending)
            })
            .collect(),
        last_decision: state.last_decision,
        last_combat: state.last_combat,
        last_duel: state.last_duel,
    }
}

/// Entries in increasing key order, as the domain's maps give them: anything else was not
/// written by this format.
fn map_in<K: Ord + Copy + std::fmt::Display, V, T>(
    entries: Vec<(K, V)>,
    what: &str,
    mut value: impl FnMut(V) -> Result<T, SnapshotError>,
) -> Result<BTreeMap<K, T>, SnapshotError> {
    let mut map = BTreeMap::new();
    for (key, item) in entries {
        if map.last_key_value().is_some_and(|(last, _)| *last >= key) {
            return Err(payload(format!("{what} {key} out of order or twice")));
        }
        map.insert(key, value(item)?);
    }
    Ok(map)
}

/// Indexes a team or car by its name, at the position it is about to take; a name that comes
/// twice was not written by this format.
fn indexed(
    index: &mut BTreeMap<Name, usize>,
    name: &Name,
    at: usize,
    what: &str,
) -> Result<(), SnapshotError> {
    match index.insert(name.clone(), at) {
        Some(_) => Err(payload(format!("{what} {name} twice"))),
        None => Ok(()),
    }
}

fn race_from(snapshot: RaceV1) -> Result<RaceState, SnapshotError> {
    let (teams_len, cars_len) = (snapshot.teams.len(), snapshot.cars.len());
    let car_in = |index: u32, what: &str| index_in(index, cars_len, what);
    let mut state = RaceState {
        status: snapshot.status.into(),
        settings: snapshot.settings.map(Into::into),
        distribution: snapshot.distribution.into(),
        turn: snapshot.turn,
        turn_started_at: snapshot.turn_started_at,
        stage: snapshot.stage.into(),
        last_decision: snapshot.last_decision,
        last_combat: snapshot.last_combat,
        last_duel: snapshot.last_duel,
        ..RaceState::default()
    };
    for team in snapshot.teams {
        let name: Name = team.name.into();
        let cars = team
            .cars
            .into_iter()
            .map(|car| car_in(car, &format!("team {name}'s car")))
            .collect::<Result<_, _>>()?;
        indexed(&mut state.team_index, &name, state.teams.len(), "team")?;
        state.teams.push(Team {
            name,
            budget: team.budget,
            achievements: team.achievements,
            achievement_points: team.achievement_points,
            cars,
        });
    }
    for car in snapshot.cars {
        let name: Name = car.name.into();
        let team = index_in(car.team, teams_len, &format!("car {name}'s team"))?;
        indexed(&mut state.car_index, &name, state.cars.len(), "car")?;
        state.cars.push(Car {
            name,
            team,
            modules: car.modules.into(),
            square: car.square,
            farthest: car.farthest,
            turns_to_miss: car.turns_to_miss,
            stopped: car.stopped.map(Into::into),
            starts_turn: car.starts_turn,
            fights_won: car.fights_won,
            changed: car.changed,
        });
    }
    let open_events = snapshot
        .open_events
        .into_iter()
        .map(|(car, event)| Ok((car_in(car, "the car of a random event")?, event)))
        .collect::<Result<Vec<_>, SnapshotError>>()?;
    state.open_events = map_in(open_events, "random event of car", |event| {
        Ok(OpenEvent {
            kind: event.kind.into(),
            pirates: event.pirates.map(Into::into),
        })
    })?;
    state.combats = map_in(snapshot.combats, "combat", |combat| {
        let [a, b] = combat.cars;
        Ok(Combat {
            cars: [car_in(a, "a combat's car")?, car_in(b, "a combat's car")?],
            square: combat.square,
            choices: combat.choices.map(|choice| choice.map(Into::into)),
        })
    })?;
    state.duels = map_in(snapshot.duels, "duel", |duel| {
        let side = |side: SideV1| match side {
            SideV1::Car(car) => car_in(car, "a duel's car").map(Side::Car),
            SideV1::Pirates => Ok(Side::Pirates),
        };
        let [a, b] = duel.sides;
        Ok(DuelProgress {
            combat: duel.combat,
            sides: [side(a)?, side(b)?],
            weapons: duel.weapons,
            first: fighter_in(duel.first, "a duel's first player")?,
            plays: duel.plays.into_iter().map(PlayV1::into).collect(),
        })
    })?;
    state.pending = map_in(snapshot.pending, "decision", |pending| {
        Ok(Pending {
            car: car_in(pending.car, "the car asked")?,
            deadline_ms: pending.deadline_ms,
            about: match pending.about {
                AboutV1::Event => About::Event,
                AboutV1::Fight(combat, side) => About::Fight {
                    combat,
                    side: fighter_in(side, "a fight question's side")?,
                },
                AboutV1::Duel(duel) => About::Duel { duel },
                AboutV1::StateCheck => About::StateCheck,
            },
            asked: pending.asked.into(),
        })
    })?;
    Ok(state)
}

impl Snapshot for RaceService {
    const VERSION: u32 = 1;

    fn encode(state: &RaceState) -> Vec<u8> {
        // Plain integers, strings, options and vectors always serialize.
        let races = RacesV1 {
            race: state.race,
            past: state
                .past
                .iter()
                .map(|race| (race.race, race_v1(race)))
                .collect(),
        };
        let bytes = postcard::to_allocvec(&race_v1(state)).unwrap_or_default();
        postcard::to_extend(&races, bytes).unwrap_or_default()
    }

    fn decode(bytes: &[u8]) -> Result<RaceState, SnapshotError> {
        let (snapshot, rest): (RaceV1, _) =
            postcard::take_from_bytes(bytes).map_err(|e| payload(e.to_string()))?;
        let mut state = race_from(snapshot)?;
        if rest.is_empty() {
            // Written before a data dir held several races: its one race, if started.
            state.race = u32::from(state.settings.is_some());
            return Ok(state);
        }
        let races: RacesV1 = postcard::from_bytes(rest).map_err(|e| payload(e.to_string()))?;
        state.race = races.race;
        for (number, past) in races.past {
            let mut race = race_from(past)?;
            race.race = number;
            state.past.push(std::sync::Arc::new(race));
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::state::Status;
    use crate::domain::{Input, RaceMaster, StartSettings};

    fn started(state: &RaceState, master: &RaceMaster) -> RaceState {
        let mut next = state.clone();
        let start = Input::Start(StartSettings::default());
        for event in master.decide(state, &start, 1_000).unwrap() {
            next.evolve(&event);
        }
        next
    }

    #[test]
    fn a_snapshot_written_with_one_race_per_data_dir_reads_as_the_first_race() {
        let master = RaceMaster::new(5);
        let fresh = RaceState::default();
        let first = started(&fresh, &master);
        assert_eq!(first.race, 1);
        for (state, race) in [(&fresh, 0), (&first, 1)] {
            // What the format wrote before: the RaceV1 alone.
            let old = postcard::to_allocvec(&race_v1(state)).unwrap();
            let read = RaceService::decode(&old).unwrap();
            assert_eq!(read.race, race);
            assert!(read.past.is_empty());
            assert_eq!(&read, state);
        }
    }

    #[test]
    fn the_races_over_are_kept_in_the_snapshot() {
        let master = RaceMaster::new(5);
        let mut state = started(&RaceState::default(), &master);
        state.status = Status::Finished;
        let second = started(&state, &master);
        assert_eq!((second.race, second.past.len()), (2, 1));
        assert_ne!(second.settings, state.settings, "its own seed's hash");
        let read = RaceService::decode(&RaceService::encode(&second)).unwrap();
        assert_eq!(read, second);
        assert_eq!(
            read.race_number(1).map(|r| r.status),
            Some(Status::Finished)
        );
    }
}
