//! Before and around the turns: starting the race, changing the odds, registering cars (at most
//! 10 modules, at least one pilot, paid at once; a car registered during the race starts on the
//! next turn), and reporting a team's budget.

use arcade_contracts::race::{BudgetReported, CarRegistered, DistributionChanged, RaceStarted};

use super::work::Work;
use super::{Rejection, StartSettings};
use crate::domain::event::{Event, RegistrationProblem};
use crate::domain::rules::{
    DEFAULT_DECISION_TIMEOUT_MS, DEFAULT_DURATION_MS, DEFAULT_TURN_INTERVAL_MS, Distribution,
    INITIAL_BUDGET, MAX_MODULES_AT_REGISTRATION, MAX_TURNS, ModuleCounts, Modules, Odds,
};
use crate::domain::state::Status;

/// Whether a team or car name can be part of a queue name: `^[a-z0-9][a-z0-9-]{0,31}$`.
pub fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 32
        && bytes[0] != b'-'
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

fn check_distribution(distribution: &Distribution) -> Result<(), Rejection> {
    match distribution.sum() {
        100 => Ok(()),
        sum => Err(Rejection::BadDistribution { sum }),
    }
}

impl Work<'_> {
    pub fn start(&mut self, settings: &StartSettings) -> Result<(), Rejection> {
        // After the finish, a start starts the next race (the finished one is kept).
        if self.state.status == Status::Running {
            return Err(Rejection::AlreadyStarted);
        }
        if let Some(turns) = settings.turns
            && !(1..=MAX_TURNS).contains(&turns)
        {
            return Err(Rejection::BadSetting {
                setting: "turns",
                bounds: "1 to 100000",
                value: turns.into(),
            });
        }
        let duration_ms = settings.duration_ms.unwrap_or(DEFAULT_DURATION_MS);
        if duration_ms == 0 {
            return Err(Rejection::BadSetting {
                setting: "durationMs",
                bounds: "at least 1",
                value: 0,
            });
        }
        let decision_timeout_ms = settings
            .decision_timeout_ms
            .unwrap_or(DEFAULT_DECISION_TIMEOUT_MS);
        if !(1..=600_000).contains(&decision_timeout_ms) {
            return Err(Rejection::BadSetting {
                setting: "decisionTimeoutMs",
                bounds: "1 to 600000",
                value: decision_timeout_ms,
            });
        }
        let distribution = settings.distribution.unwrap_or(self.state.distribution);
        check_distribution(&distribution)?;
        self.emit(Event::RaceStarted(RaceStarted {
            at_ms: self.now,
            turns: settings.turns,
            duration_ms,
            turn_interval_ms: settings
                .turn_interval_ms
                .unwrap_or(DEFAULT_TURN_INTERVAL_MS),
            decision_timeout_ms,
            distribution,
            seed_sha256: hex::encode(self.master.seed_sha256),
        }));
        self.advance();
        Ok(())
    }

    pub fn set_distribution(&mut self, distribution: Distribution) -> Result<(), Rejection> {
        if self.state.status == Status::Finished {
            return Err(Rejection::Finished);
        }
        check_distribution(&distribution)?;
        self.emit(Event::DistributionChanged(DistributionChanged {
            distribution,
        }));
        Ok(())
    }

    pub fn register(&mut self, team: &str, car: &str, modules: Modules) -> Result<(), Rejection> {
        let refuse = |problem, reason: String| Err(Rejection::Registration { problem, reason });
        if self.state.status == Status::Finished {
            return refuse(
                RegistrationProblem::RaceFinished,
                "the race is over (a race.start.v1 starts the next one, which cars may join)"
                    .into(),
            );
        }
        for (what, name) in [("team", team), ("car", car)] {
            if !valid_name(name) {
                return refuse(
                    RegistrationProblem::BadName,
                    format!(
                        "{what} name {name:?} must be 1 to 32 of a-z, 0-9 and '-', not starting with '-'"
                    ),
                );
            }
        }
        if self.state.car_index.contains_key(car) {
            return refuse(
                RegistrationProblem::NameTaken,
                format!("car {car} is already registered"),
            );
        }
        if u64::from(modules.pilots) + u64::from(modules.engines) + u64::from(modules.weapons)
            > u64::from(MAX_MODULES_AT_REGISTRATION)
        {
            return refuse(
                RegistrationProblem::TooManyModules,
                format!(
                    "car {car} has {} modules; at most {MAX_MODULES_AT_REGISTRATION} at registration",
                    u64::from(modules.pilots)
                        + u64::from(modules.engines)
                        + u64::from(modules.weapons)
                ),
            );
        }
        if modules.pilots == 0 {
            return refuse(
                RegistrationProblem::NoPilot,
                format!("car {car} has no pilot; it needs at least one"),
            );
        }
        let budget = self.state.team(team).map_or(INITIAL_BUDGET, |t| t.budget);
        let price = modules.price();
        if price > u64::from(budget) {
            return refuse(
                RegistrationProblem::OverBudget,
                format!("car {car} costs ${price}, more than team {team}'s money left"),
            );
        }
        let price = price as u32;
        let starts_turn = if self.state.status == Status::Running {
            self.state.turn + 1
        } else {
            1
        };
        self.emit(Event::CarRegistered(CarRegistered {
            team: team.to_string(),
            car: car.to_string(),
            modules,
            price,
            budget_left: budget - price,
            starts_turn,
        }));
        // The team's own account, to its queue only: its cars and money from now on.
        self.report_state(team);
        Ok(())
    }

    pub fn report_budget(&mut self, team: &str) -> Result<(), Rejection> {
        let Some(&index) = self.state.team_index.get(team) else {
            return Err(Rejection::UnknownTeam {
                team: team.to_string(),
            });
        };
        let t = &self.state.teams[index];
        let event = Event::BudgetReported(BudgetReported {
            team: t.name.to_string(),
            budget: t.budget,
            points: self.points_now(index),
            cars: t
                .cars
                .iter()
                .map(|&c| self.state.cars[c].name.to_string())
                .collect(),
        });
        self.emit(event);
        Ok(())
    }
}
