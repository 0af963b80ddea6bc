//! The race master's decider: `decide` (all the rules) on a copy of the state, applying each
//! fact as it is decided, then `evolve` ([`RaceState::evolve`]) alone on replay.
//!
//! A race advances as far as it can inside one `decide`: when an input closes the last open
//! question of a step, the next step runs at once, up to the next question to a car (or the
//! next turn's start time). So the state at rest is always "waiting": for answers (whose
//! deadlines [`RaceMaster::next_deadline`] reports), for the next turn, or for the start.

mod account;
mod answers;
mod fight;
mod setup;
mod track;
mod work;

pub use account::MAX_GRANT;
pub use setup::valid_name;

use arcade_contracts::race::{CommandRejected, RegistrationRejected};
use sha2::{Digest, Sha256};

use super::decision::Answer;
use super::event::{Event, RegistrationProblem};
use super::rules::{Achievement, Distribution, Modules};
use super::state::{RaceState, Stage, Status};
use work::Work;

/// The settings of `race.start.v1`; `None` takes the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StartSettings {
    /// Turns after which the race ends.
    pub turns: Option<u32>,
    /// Length of the race (default two hours).
    pub duration_ms: Option<u64>,
    /// Least time between turn starts (default 10 s).
    pub turn_interval_ms: Option<u64>,
    /// Time a car has to answer (default 5 s).
    pub decision_timeout_ms: Option<u64>,
    /// Odds of the random events (default 50/10/10/15/15).
    pub distribution: Option<Distribution>,
}

/// What the race master reacts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// `race.start.v1`.
    Start(StartSettings),
    /// `race.distribution.set.v1`.
    SetDistribution(Distribution),
    /// `race.car.register.v1`.
    Register {
        /// The team.
        team: String,
        /// The car's name.
        car: String,
        /// Its modules.
        modules: Modules,
    },
    /// `race.budget.query.v1`.
    QueryBudget {
        /// The team.
        team: String,
    },
    /// `race.state.query.v1`.
    QueryState {
        /// The team.
        team: String,
        /// The race asked about by its number; `None`: the current race.
        race: Option<u32>,
    },
    /// `race.budget.grant.v1`.
    Grant {
        /// The team.
        team: String,
        /// Dollars.
        amount: u32,
        /// Why.
        reason: Option<String>,
    },
    /// `race.decision.made.v1`.
    Answer {
        /// The decision answered.
        decision_id: u64,
        /// The car's team.
        team: String,
        /// The car.
        car: String,
        /// The answer.
        answer: Answer,
    },
    /// `race.hint.publish.v1`: a hint about this achievement, now.
    PublishHint(Achievement),
    /// Time passed (the host calls at [`RaceMaster::next_deadline`]).
    Tick,
}

impl Input {
    /// The contract type this input came as.
    pub fn command_type(&self) -> &'static str {
        match self {
            Input::Start(_) => "race.start.v1",
            Input::SetDistribution(_) => "race.distribution.set.v1",
            Input::Register { .. } => "race.car.register.v1",
            Input::QueryBudget { .. } => "race.budget.query.v1",
            Input::QueryState { .. } => "race.state.query.v1",
            Input::Grant { .. } => "race.budget.grant.v1",
            Input::Answer { .. } => "race.decision.made.v1",
            Input::PublishHint(_) => "race.hint.publish.v1",
            Input::Tick => "tick",
        }
    }
}

/// Why an input was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// A registration broke a rule.
    #[error("{reason}")]
    Registration {
        /// Which rule.
        problem: RegistrationProblem,
        /// In words.
        reason: String,
    },
    /// `race.start.v1` while the race runs (after its finish, it starts the next).
    #[error("the race already started")]
    AlreadyStarted,
    /// Anything but a budget query (or the next race's start) after the end.
    #[error("the race is over (a race.start.v1 starts the next one)")]
    Finished,
    /// A hint before the race started (a hint comes with a turn).
    #[error("the race has not started: a hint comes with a turn")]
    NotStarted,
    /// Odds that do not add up to 100.
    #[error("the odds add up to {sum}, not 100")]
    BadDistribution {
        /// Their sum.
        sum: u64,
    },
    /// A start setting out of bounds.
    #[error("{setting} must be {bounds}, got {value}")]
    BadSetting {
        /// The setting.
        setting: &'static str,
        /// Its bounds.
        bounds: &'static str,
        /// What was given.
        value: u64,
    },
    /// A state query naming a race this data dir never held.
    #[error("race {race} is not one of this data dir's (races 1 to {current})")]
    UnknownRace {
        /// The race asked about.
        race: u32,
        /// The current race's number.
        current: u32,
    },
    /// A budget query from a team that never registered.
    #[error("team {team} has no car registered")]
    UnknownTeam {
        /// The team.
        team: String,
    },
    /// An answer to a decision never asked.
    #[error("decision {decision_id} was never asked")]
    UnknownDecision {
        /// The decision.
        decision_id: u64,
    },
    /// An answer to a decision already closed.
    #[error("decision {decision_id} is already closed")]
    DecisionClosed {
        /// The decision.
        decision_id: u64,
    },
    /// An answer from another car than the one asked.
    #[error("decision {decision_id} was asked to car {car}, not to {team}'s car {answered_by}")]
    NotYours {
        /// The decision.
        decision_id: u64,
        /// The car asked.
        car: String,
        /// The team that answered.
        team: String,
        /// The car that answered.
        answered_by: String,
    },
    /// An answer at or after the deadline (the next tick closes it as unanswered).
    #[error("decision {decision_id}'s deadline passed at {deadline_ms}")]
    Late {
        /// The decision.
        decision_id: u64,
        /// Its deadline.
        deadline_ms: u64,
    },
    /// This master's seed is not the one the race started with.
    #[error("this race master's seed is not the race's (its SHA-256 is {expected})")]
    SeedMismatch {
        /// The race's seed hash, hex.
        expected: String,
    },
}

/// The race master: rules, with the race's seed as its secret configuration.
#[derive(Debug, Clone)]
pub struct RaceMaster {
    seed: u64,
    seed_sha256: [u8; 32],
}

impl RaceMaster {
    /// A master drawing every random number of its race from `seed`. The seed stays out of the
    /// published facts until the end (`race.started.v1` shows its SHA-256), so cars cannot
    /// foresee the draws; restart the master with the same seed.
    pub fn new(seed: u64) -> RaceMaster {
        RaceMaster {
            seed,
            seed_sha256: Sha256::digest(seed.to_le_bytes()).into(),
        }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The master of race `number` of this data dir: the first draws from the seed itself;
    /// each next from its own seed, the first 8 bytes of SHA-256("arcade race", seed, number),
    /// so the seed `race.finished.v1` reveals for one race tells nothing of the next.
    pub fn for_race(&self, number: u32) -> RaceMaster {
        if number <= 1 {
            return self.clone();
        }
        let digest = Sha256::new()
            .chain_update(b"arcade race")
            .chain_update(self.seed.to_le_bytes())
            .chain_update(number.to_le_bytes())
            .finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        RaceMaster::new(u64::from_le_bytes(first))
    }

    /// Decides what `input` does at `now_ms`.
    pub fn decide(
        &self,
        state: &RaceState,
        input: &Input,
        now_ms: u64,
    ) -> Result<Vec<Event>, Rejection> {
        let current = self.for_race(state.race.max(1));
        if let Some(started) = &state.settings
            && started.seed_sha256 != hex::encode(current.seed_sha256)
        {
            return Err(Rejection::SeedMismatch {
                expected: started.seed_sha256.clone(),
            });
        }
        let next;
        let master = if matches!(input, Input::Start(_)) && state.status == Status::Finished {
            next = self.for_race(state.race + 1);
            &next
        } else {
            &current
        };
        let mut work = Work::new(master, state, now_ms);
        match input {
            Input::Start(settings) => work.start(settings)?,
            Input::SetDistribution(distribution) => work.set_distribution(*distribution)?,
            Input::Register { team, car, modules } => work.register(team, car, *modules)?,
            Input::QueryBudget { team } => work.report_budget(team)?,
            Input::QueryState { team, race } => work.report_state_of(team, *race)?,
            Input::Grant {
                team,
                amount,
                reason,
            } => work.grant(team, *amount, reason.as_deref())?,
            Input::Answer {
                decision_id,
                team,
                car,
                answer,
            } => {
                work.answer(*decision_id, team, car, answer)?;
                work.advance();
            }
            Input::PublishHint(achievement) => work.publish_hint(*achievement)?,
            Input::Tick => {
                work.expire();
                work.advance();
            }
        }
        Ok(work.into_events())
    }

    /// Applies one fact (replay calls only this).
    pub fn evolve(state: &mut RaceState, event: &Event) {
        state.evolve(event);
    }

    /// When to send the next [`Input::Tick`]: the earliest answer deadline, or the next turn's
    /// start (or the race's end) when nothing is awaited.
    pub fn next_deadline(&self, state: &RaceState) -> Option<u64> {
        if state.status != Status::Running {
            return None;
        }
        if let Some(earliest) = state.pending.values().map(|p| p.deadline_ms).min() {
            return Some(earliest);
        }
        match state.stage {
            Stage::BetweenTurns => {
                let next = state.next_turn_at()?;
                Some(state.ends_at().map_or(next, |end| next.min(end)))
            }
            _ => None,
        }
    }

    /// The facts that tell a refused command's sender why: `race.registration.rejected.v1`
    /// for a registration, `race.command.rejected.v1` otherwise; none for a tick.
    pub fn refusal(&self, input: &Input, rejection: &Rejection) -> Vec<Event> {
        match (input, rejection) {
            (Input::Tick, _) => Vec::new(),
            (Input::Register { team, car, .. }, Rejection::Registration { problem, reason }) => {
                vec![Event::RegistrationRejected(RegistrationRejected {
                    team: team.clone(),
                    car: car.clone(),
                    problem: *problem,
                    reason: reason.clone(),
                })]
            }
            (input, rejection) => {
                let (team, decision_id) = match input {
                    Input::Register { team, .. }
                    | Input::QueryBudget { team }
                    | Input::QueryState { team, .. }
                    | Input::Grant { team, .. } => (Some(team.clone()), None),
                    Input::Answer {
                        team, decision_id, ..
                    } => (Some(team.clone()), Some(*decision_id)),
                    _ => (None, None),
                };
                vec![Event::CommandRejected(CommandRejected {
                    command: input.command_type().to_string(),
                    team,
                    decision_id,
                    reason: rejection.to_string(),
                })]
            }
        }
    }
}
