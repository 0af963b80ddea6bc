//! Random race histories for the snapshot tests: operations (registrations, the start, odds,
//! grants, queries, answers by the built-in cars, wrong, foreign and late answers, ticks, time
//! passing, whole turns) driven through the race's own decider, refusals logged as the host
//! logs them, so every history is one the master could have written.

use std::collections::BTreeMap;

use arcade_contracts::race::DecisionRequested;
use arcade_race_master::bots::{CarBot, Strategy as Style};
use arcade_race_master::domain::decision::{Answer, Asked};
use arcade_race_master::domain::event::Event;
use arcade_race_master::domain::rules::{Distribution, ModuleCounts, Modules};
use arcade_race_master::domain::state::Status;
use arcade_race_master::domain::{Input, RaceMaster, RaceState, StartSettings};
use arcade_race_master::mapping::{self, RaceMessage};
use proptest::prelude::*;

/// The teams, each played by a built-in car of its strategy.
pub const TEAMS: [&str; 3] = ["red", "blue", "green"];
const STYLES: [Style; 3] = [Style::Cautious, Style::Aggressive, Style::Random];

#[derive(Debug, Clone)]
pub enum Op {
    /// Team, car number (4: a bad name), pilots, engines, weapons.
    Register(u8, u8, u32, u32, u32),
    /// Turns, odds, a short race.
    Start(u32, u8, bool),
    Odds(u8),
    Grant(u8, u32),
    QueryBudget(u8),
    QueryState(u8),
    /// The car asked answers its k-th open question, as its built-in program would.
    Answer(u8),
    /// The k-th open question answered wrongly: another kind, or a false state.
    Wrong(u8),
    /// The k-th open question answered by another team.
    Foreign(u8),
    /// The k-th open question answered at its deadline.
    Late(u8),
    /// Time goes to the next deadline.
    Tick,
    /// Time passes this long.
    Wait(u32),
    /// Every question answered by the cars, then the next deadline.
    Turn,
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..3, 0u8..5, 0u32..3, 0u32..6, 0u32..6)
            .prop_map(|(t, c, p, e, w)| Op::Register(t, c, p, e, w)),
        1 => (1u32..20, 0u8..6, any::<bool>()).prop_map(|(n, o, s)| Op::Start(n, o, s)),
        1 => (0u8..6).prop_map(Op::Odds),
        1 => (0u8..3, 0u32..300).prop_map(|(t, a)| Op::Grant(t, a)),
        1 => (0u8..3).prop_map(Op::QueryBudget),
        1 => (0u8..3).prop_map(Op::QueryState),
        6 => any::<u8>().prop_map(Op::Answer),
        1 => any::<u8>().prop_map(Op::Wrong),
        1 => any::<u8>().prop_map(Op::Foreign),
        1 => any::<u8>().prop_map(Op::Late),
        2 => Just(Op::Tick),
        1 => (1u32..3_000).prop_map(Op::Wait),
        3 => Just(Op::Turn),
    ]
}

/// Odds that give every kind of random event.
pub fn odds(which: u8) -> Distribution {
    let d = |nothing, pirates, garage, wreck, mine_field| Distribution {
        nothing,
        pirates,
        garage,
        wreck,
        mine_field,
    };
    match which % 6 {
        0 => Distribution::default(),
        1 => d(0, 100, 0, 0, 0),
        2 => d(0, 0, 100, 0, 0),
        3 => d(0, 0, 0, 100, 0),
        4 => d(0, 0, 0, 0, 100),
        _ => d(10, 30, 20, 20, 20),
    }
}

/// A race being written: the master, its state, its log, the cars' programs.
pub struct Driver {
    pub master: RaceMaster,
    pub state: RaceState,
    pub log: Vec<Event>,
    pub now: u64,
    bots: Vec<CarBot>,
    open: BTreeMap<u64, DecisionRequested>,
}

impl Driver {
    pub fn new(seed: u64) -> Driver {
        Driver {
            master: RaceMaster::new(seed),
            state: RaceState::default(),
            log: Vec::new(),
            now: 1_000_000,
            bots: (0..3)
                .map(|i| CarBot::new(TEAMS[i], STYLES[i], seed, i as u32))
                .collect(),
            open: BTreeMap::new(),
        }
    }

    /// Decides `input` now and logs what the host would: its facts, or the refusal's.
    pub fn apply(&mut self, input: &Input) {
        let events = match self.master.decide(&self.state, input, self.now) {
            Ok(events) => events,
            Err(rejection) => self.master.refusal(input, &rejection),
        };
        for event in events {
            RaceMaster::evolve(&mut self.state, &event);
            let message = mapping::encode(&event);
            for bot in &mut self.bots {
                bot.observe(&message);
            }
            if let RaceMessage::DecisionRequested(request) = message {
                self.open.insert(request.decision_id, request);
            }
            self.log.push(event);
        }
        let pending = &self.state.pending;
        self.open.retain(|id, _| pending.contains_key(id));
    }

    fn question(&self, k: u8) -> Option<DecisionRequested> {
        let n = self.open.len();
        if n == 0 {
            return None;
        }
        self.open.values().nth(usize::from(k) % n).cloned()
    }

    fn answered(request: &DecisionRequested, team: &str, answer: Answer) -> Input {
        Input::Answer {
            decision_id: request.decision_id,
            team: team.to_string(),
            car: request.car.clone(),
            answer,
        }
    }

    fn by_its_car(&mut self, request: &DecisionRequested) -> Input {
        let team = TEAMS.iter().position(|t| *t == request.team).unwrap();
        mapping::input_of_answer(&self.bots[team].answer(request))
    }

    fn tick(&mut self) {
        if let Some(at) = self.master.next_deadline(&self.state) {
            self.now = self.now.max(at);
        }
        self.apply(&Input::Tick);
    }

    pub fn run(&mut self, op: &Op) {
        let team = |t: u8| TEAMS[usize::from(t) % 3].to_string();
        match *op {
            Op::Register(t, c, pilots, engines, weapons) => {
                let car = match c {
                    4 => "Bad Name".to_string(),
                    c => format!("{}-{c}", team(t)),
                };
                self.apply(&Input::Register {
                    team: team(t),
                    car,
                    modules: Modules::new(pilots, engines, weapons),
                });
            }
            Op::Start(turns, which, short) => self.apply(&Input::Start(StartSettings {
                turns: Some(turns),
                duration_ms: short.then_some(20_000),
                turn_interval_ms: Some(10),
                decision_timeout_ms: Some(1_000),
                distribution: Some(odds(which)),
            })),
            Op::Odds(which) => self.apply(&Input::SetDistribution(odds(which))),
            Op::Grant(t, amount) => self.apply(&Input::Grant {
                team: team(t),
                amount,
                reason: None,
            }),
            Op::QueryBudget(t) => self.apply(&Input::QueryBudget { team: team(t) }),
            Op::QueryState(t) => self.apply(&Input::QueryState {
                team: team(t),
                race: None,
            }),
            Op::Answer(k) => {
                if let Some(request) = self.question(k) {
                    let input = self.by_its_car(&request);
                    self.apply(&input);
                }
            }
            Op::Wrong(k) => {
                if let Some(request) = self.question(k) {
                    let asked = self.state.pending[&request.decision_id].asked;
                    let answer = match asked {
                        Asked::ReportState => Answer::ReportState {
                            square: 1_000,
                            modules: Modules::new(9, 9, 9),
                        },
                        _ => Answer::ReportState {
                            square: 0,
                            modules: Modules::default(),
                        },
                    };
                    self.apply(&Self::answered(&request, &request.team, answer));
                }
            }
            Op::Foreign(k) => {
                if let Some(request) = self.question(k) {
                    let other = TEAMS.iter().find(|t| **t != request.team).unwrap();
                    let input =
                        Self::answered(&request, other, Answer::ShouldFight { fight: true });
                    self.apply(&input);
                }
            }
            Op::Late(k) => {
                if let Some(request) = self.question(k) {
                    self.now = self.now.max(request.deadline_ms);
                    let input = self.by_its_car(&request);
                    self.apply(&input);
                }
            }
            Op::Tick => self.tick(),
            Op::Wait(ms) => {
                self.now += u64::from(ms);
                self.apply(&Input::Tick);
            }
            Op::Turn => {
                for _ in 0..200 {
                    let Some(request) = self.question(0) else {
                        break;
                    };
                    let input = self.by_its_car(&request);
                    self.apply(&input);
                }
                self.tick();
            }
        }
    }

    /// Registers two cars of each team (`red` and `blue` with four engines each, so they meet),
    /// starts a race of `turns` turns with `odds`, and plays it to its end.
    pub fn whole_race(seed: u64, turns: u32, which: u8) -> Driver {
        let mut driver = Driver::new(seed);
        for t in 0..3u8 {
            for c in 0..2u8 {
                let (pilots, engines, weapons) = if t < 2 { (1, 4, 5) } else { (2, 3, 4) };
                driver.run(&Op::Register(t, c, pilots, engines, weapons));
            }
        }
        driver.run(&Op::Start(turns, which, false));
        for _ in 0..100_000 {
            if driver.state.status == Status::Finished {
                return driver;
            }
            driver.run(&Op::Turn);
        }
        panic!("the race of seed {seed} does not finish");
    }
}

/// The log of these operations from an empty race.
pub fn history(seed: u64, ops: &[Op]) -> Vec<Event> {
    let mut driver = Driver::new(seed);
    for op in ops {
        driver.run(op);
    }
    driver.log
}

/// The state `events` fold into from `state`.
pub fn fold(mut state: RaceState, events: &[Event]) -> RaceState {
    for event in events {
        RaceMaster::evolve(&mut state, event);
    }
    state
}
