//! What a team's car program knows, built only from the messages it sees: its own cars'
//! squares and modules (state reports and corrections included), and every car's weapons.

use std::collections::BTreeMap;

use arcade_contracts::race::{self as c, Modules};

use crate::mapping::RaceMessage;

/// One of the team's cars, as the program believes it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnCar {
    /// Its square.
    pub square: u32,
    /// Its modules.
    pub modules: Modules,
    /// Whether it left the race.
    pub stopped: bool,
}

/// A team's view of the race.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeamView {
    team: String,
    own: BTreeMap<String, OwnCar>,
    weapons: BTreeMap<String, u32>,
}

impl TeamView {
    /// The view of `team`, empty.
    pub fn new(team: &str) -> TeamView {
        TeamView {
            team: team.to_string(),
            ..TeamView::default()
        }
    }

    /// The team.
    pub fn team(&self) -> &str {
        &self.team
    }

    /// One of the team's cars.
    pub fn car(&self, car: &str) -> Option<&OwnCar> {
        self.own.get(car)
    }

    /// The team's cars, by name.
    pub fn cars(&self) -> impl Iterator<Item = (&str, &OwnCar)> {
        self.own.iter().map(|(name, car)| (name.as_str(), car))
    }

    /// Weapons of any car, as last published.
    pub fn weapons_of(&self, car: &str) -> Option<u32> {
        self.weapons.get(car).copied()
    }

    fn own_mut(&mut self, team: &str, car: &str) -> Option<&mut OwnCar> {
        if team == self.team {
            self.own.get_mut(car)
        } else {
            None
        }
    }

    /// Takes in a message of the race.
    pub fn observe(&mut self, message: &RaceMessage) {
        match message {
            RaceMessage::CarRegistered(m) => {
                self.weapons.insert(m.car.clone(), m.modules.weapons);
                if m.team == self.team {
                    self.own.insert(
                        m.car.clone(),
                        OwnCar {
                            square: 0,
                            modules: m.modules,
                            stopped: false,
                        },
                    );
                }
            }
            // A report naming a race is about a race over, not the cars now.
            RaceMessage::StateReported(m) if m.team == self.team && m.race_id.is_none() => {
                // The master's record: it replaces whatever the program believed.
                for car in &m.cars {
                    self.weapons.insert(car.car.clone(), car.modules.weapons);
                    self.own.insert(
                        car.car.clone(),
                        OwnCar {
                            square: car.square,
                            modules: car.modules,
                            stopped: car.stopped.is_some(),
                        },
                    );
                }
            }
            RaceMessage::CarMoved(m) => {
                if let Some(car) = self.own_mut(&m.team, &m.car) {
                    car.square = m.to;
                }
            }
            RaceMessage::ModuleChanged(m) => {
                self.weapons.insert(m.car.clone(), m.modules.weapons);
                if let Some(car) = self.own_mut(&m.team, &m.car) {
                    car.modules = m.modules;
                }
            }
            RaceMessage::CarStopped(m) => {
                if let Some(car) = self.own_mut(&m.team, &m.car) {
                    car.stopped = true;
                    car.square = m.square;
                }
            }
            RaceMessage::PenaltyGiven(c::PenaltyGiven {
                team,
                car,
                correction: Some(right),
                ..
            }) => {
                if let Some(own) = self.own_mut(team, car) {
                    own.square = right.square;
                    own.modules = right.modules;
                } else if *team == self.team {
                    // A car registered before this program started (a restarted program):
                    // the master's correction tells it the car's state.
                    self.own.insert(
                        car.clone(),
                        OwnCar {
                            square: right.square,
                            modules: right.modules,
                            stopped: false,
                        },
                    );
                }
            }
            _ => {}
        }
    }
}
