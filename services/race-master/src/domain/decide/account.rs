//! A team's account: its points now (with the end bonuses once the race is over, as the final
//! standings count them), its cars' true state on request (in the current race or in one over
//! before), money the operator grants, and "Picsou" for a team whose money goes above $300.

use arcade_contracts::race::{BudgetGranted, CarStatus, StateReported};

use super::Rejection;
use super::work::Work;
use crate::domain::event::Event;
use crate::domain::rules::{Achievement, INITIAL_BUDGET, PICSOU_BUDGET, RING_SQUARES};
use crate::domain::scoring::{bonuses, team_points};
use crate::domain::state::{RaceState, Status};

/// Most dollars one grant may give.
pub const MAX_GRANT: u32 = 1_000_000;

/// A team's points in `race`: distance and achievements, and once that race is over the
/// bonuses too.
fn points_in(race: &RaceState, team: usize) -> u32 {
    let points = team_points(race, team);
    if race.status != Status::Finished {
        return points;
    }
    let name = &race.teams[team].name;
    points
        + bonuses(race)
            .iter()
            .filter(|b| b.teams.iter().any(|t| **t == **name))
            .map(|b| b.points)
            .sum::<u32>()
}

/// The true state of a team's cars in `race` (an empty report for a team that never
/// registered there), naming `race_id` when the query did.
fn state_report(race: &RaceState, team: &str, race_id: Option<u32>) -> StateReported {
    match race.team_index.get(team) {
        Some(&index) => {
            let t = &race.teams[index];
            StateReported {
                team: t.name.to_string(),
                race_id,
                turn: race.turn,
                budget: t.budget,
                points: points_in(race, index),
                cars: t
                    .cars
                    .iter()
                    .map(|&c| {
                        let car = &race.cars[c];
                        CarStatus {
                            car: car.name.to_string(),
                            square: car.square,
                            ring_square: car.square % RING_SQUARES,
                            farthest: car.farthest,
                            modules: car.modules,
                            turns_to_miss: car.turns_to_miss,
                            starts_turn: car.starts_turn,
                            stopped: car.stopped,
                        }
                    })
                    .collect(),
            }
        }
        None => StateReported {
            team: team.to_string(),
            race_id,
            turn: race.turn,
            budget: INITIAL_BUDGET,
            points: 0,
            cars: Vec::new(),
        },
    }
}

impl Work<'_> {
    /// A team's points now: distance and achievements, and after the end the bonuses too.
    pub fn points_now(&self, team: usize) -> u32 {
        points_in(&self.state, team)
    }

    /// The true state of a team's cars in the current race.
    pub fn report_state(&mut self, team: &str) {
        let report = state_report(&self.state, team, None);
        self.emit(Event::StateReported(report));
    }

    /// The true state of a team's cars in race `race` of this data dir, the current one when
    /// `None`; a race the data dir never held is refused.
    pub fn report_state_of(&mut self, team: &str, race: Option<u32>) -> Result<(), Rejection> {
        let Some(number) = race else {
            self.report_state(team);
            return Ok(());
        };
        let Some(asked) = self.state.race_number(number) else {
            return Err(Rejection::UnknownRace {
                race: number,
                current: self.state.race.max(1),
            });
        };
        let report = state_report(asked, team, race);
        self.emit(Event::StateReported(report));
        Ok(())
    }

    /// The operator gives a team money.
    pub fn grant(
        &mut self,
        team: &str,
        amount: u32,
        reason: Option<&str>,
    ) -> Result<(), Rejection> {
        if self.state.status == Status::Finished {
            return Err(Rejection::Finished);
        }
        let Some(&index) = self.state.team_index.get(team) else {
            return Err(Rejection::UnknownTeam {
                team: team.to_string(),
            });
        };
        if !(1..=MAX_GRANT).contains(&amount) {
            return Err(Rejection::BadSetting {
                setting: "amount",
                bounds: "1 to 1000000",
                value: amount.into(),
            });
        }
        let t = &self.state.teams[index];
        self.emit(Event::BudgetGranted(BudgetGranted {
            team: t.name.to_string(),
            amount,
            reason: reason.map(str::to_string),
            budget_left: t.budget.saturating_add(amount),
        }));
        self.picsou(index);
        // The team's own account, to its queue only (the grant's fact is not for its rivals).
        self.report_state(team);
        Ok(())
    }

    /// The operator's hint about `achievement`, with the turn in progress (refused before the
    /// start: a hint comes with a turn; and after the end).
    pub fn publish_hint(&mut self, achievement: Achievement) -> Result<(), Rejection> {
        match self.state.status {
            Status::Running if self.state.turn > 0 => {}
            Status::Finished => return Err(Rejection::Finished),
            _ => return Err(Rejection::NotStarted),
        }
        self.emit(crate::domain::hints::published(
            self.state.turn,
            achievement,
        ));
        Ok(())
    }

    /// "Picsou" for a team whose money is above $300 (credited to its first car).
    pub fn picsou(&mut self, team: usize) {
        let t = &self.state.teams[team];
        if t.budget > PICSOU_BUDGET
            && let Some(&car) = t.cars.first()
        {
            self.award(car, Achievement::Picsou);
        }
    }
}
