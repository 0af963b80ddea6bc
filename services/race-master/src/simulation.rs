//! A whole race in one process: the decider driven directly, built-in cars answering every
//! question at once through contract messages, time advanced as values to each deadline. The
//! same configuration gives the same race, message for message.

use std::collections::{BTreeMap, VecDeque};

use arcade_contracts::race::{DecisionRequested, RaceFinished};

use crate::bots::{CarBot, Strategy};
use crate::domain::{Input, RaceMaster, RaceState, StartSettings};
use crate::mapping::{RaceMessage, encode, input_of_answer, input_of_register};

/// What to simulate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulationConfig {
    /// The race's seed (the built-in cars draw from it too, on their own streams).
    pub seed: u64,
    /// Teams, named `team-1`, `team-2`…; strategies cycle cautious, aggressive, random.
    pub teams: u32,
    /// Cars each team registers before the start (registrations over budget are refused).
    pub cars: u32,
    /// Turns to play.
    pub turns: u32,
    /// Keep every message the master sends, in order.
    pub record: bool,
}

/// A simulated race.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The final facts, if the race finished.
    pub finished: Option<RaceFinished>,
    /// Every message the master sent, in order (when recorded).
    pub messages: Vec<RaceMessage>,
    /// The master's final state.
    pub state: RaceState,
    /// The built-in cars, with what they believe.
    pub bots: Vec<CarBot>,
    /// Inputs decided.
    pub inputs: u64,
}

const STRATEGIES: [Strategy; 3] = [Strategy::Cautious, Strategy::Aggressive, Strategy::Random];

struct Driver<'p> {
    progress: &'p mut dyn FnMut(u32),
    master: RaceMaster,
    sim: Simulation,
    teams: BTreeMap<String, usize>,
    questions: VecDeque<DecisionRequested>,
    now: u64,
    record: bool,
}

impl Driver<'_> {
    fn apply(&mut self, input: &Input) {
        self.sim.inputs += 1;
        let events = match self.master.decide(&self.sim.state, input, self.now) {
            Ok(events) => events,
            Err(rejection) => self.master.refusal(input, &rejection),
        };
        for event in &events {
            RaceMaster::evolve(&mut self.sim.state, event);
            let message = encode(event);
            for bot in &mut self.sim.bots {
                bot.observe(&message);
            }
            match &message {
                RaceMessage::DecisionRequested(request) => {
                    self.questions.push_back(request.clone())
                }
                RaceMessage::RaceFinished(finished) => self.sim.finished = Some(finished.clone()),
                RaceMessage::StandingsUpdated(m) => (self.progress)(m.turn),
                _ => {}
            }
            if self.record {
                self.sim.messages.push(message);
            }
        }
    }
}

/// Runs a race to its end, with the default start settings but `config.turns`.
pub fn simulate(config: &SimulationConfig) -> Simulation {
    simulate_with(config, StartSettings::default())
}

/// Runs a race to its end with these start settings (their `turns` is `config.turns`): the
/// reference a race played over the bus with the same seed and settings is compared to.
pub fn simulate_with(config: &SimulationConfig, settings: StartSettings) -> Simulation {
    simulate_observed(config, settings, &mut |_| {})
}

/// [`simulate_with`], telling `on_turn` each turn as it is scored (a progress bar).
pub fn simulate_observed(
    config: &SimulationConfig,
    settings: StartSettings,
    on_turn: &mut dyn FnMut(u32),
) -> Simulation {
    let bots = (0..config.teams)
        .map(|i| {
            CarBot::new(
                &format!("team-{}", i + 1),
                STRATEGIES[i as usize % 3],
                config.seed,
                i,
            )
        })
        .collect();
    let mut driver = Driver {
        progress: on_turn,
        master: RaceMaster::new(config.seed),
        sim: Simulation {
            finished: None,
            messages: Vec::new(),
            state: RaceState::default(),
            bots,
            inputs: 0,
        },
        teams: (0..config.teams)
            .map(|i| (format!("team-{}", i + 1), i as usize))
            .collect(),
        questions: VecDeque::new(),
        now: 0,
        record: config.record,
    };
    for team in 0..driver.sim.bots.len() {
        for registration in driver.sim.bots[team].registrations(config.cars as usize) {
            driver.apply(&input_of_register(&registration));
        }
    }
    driver.apply(&Input::Start(StartSettings {
        turns: Some(config.turns),
        ..settings
    }));
    loop {
        while let Some(question) = driver.questions.pop_front() {
            let Some(&team) = driver.teams.get(&question.team) else {
                continue;
            };
            let made = driver.sim.bots[team].answer(&question);
            driver.apply(&input_of_answer(&made));
        }
        if driver.sim.finished.is_some() {
            break;
        }
        match driver.master.next_deadline(&driver.sim.state) {
            Some(at) => {
                driver.now = driver.now.max(at);
                driver.apply(&Input::Tick);
            }
            None => break,
        }
    }
    driver.sim
}
