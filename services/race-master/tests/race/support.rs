//! A race under test: given past facts (or inputs), when an input, then facts or a refusal.

use arcade_race_master::domain::car::CarState;
use arcade_race_master::domain::decision::{Answer, Asked, Question};
use arcade_race_master::domain::event::Event;
use arcade_race_master::domain::rules::{Distribution, EventKind, Modules};
use arcade_race_master::domain::{Input, RaceMaster, RaceState, Rejection, StartSettings};

/// Odds that always give `kind`.
pub fn only(kind: EventKind) -> Distribution {
    let mut d = Distribution {
        nothing: 0,
        pirates: 0,
        garage: 0,
        wreck: 0,
        mine_field: 0,
    };
    match kind {
        EventKind::Nothing => d.nothing = 100,
        EventKind::Pirates => d.pirates = 100,
        EventKind::Garage => d.garage = 100,
        EventKind::Wreck => d.wreck = 100,
        EventKind::MineField => d.mine_field = 100,
    }
    d
}

/// A race at time `now`, with its log.
pub struct Race {
    pub master: RaceMaster,
    pub state: RaceState,
    pub now: u64,
    pub log: Vec<Event>,
}

impl Race {
    pub fn new(seed: u64) -> Race {
        Race {
            master: RaceMaster::new(seed),
            state: RaceState::default(),
            now: 1_000,
            log: Vec::new(),
        }
    }

    /// Given: facts applied without deciding.
    pub fn given(&mut self, events: &[Event]) -> &mut Self {
        for event in events {
            RaceMaster::evolve(&mut self.state, event);
            self.log.push(event.clone());
        }
        self
    }

    /// When: an input decided now; its facts are applied.
    pub fn when(&mut self, input: Input) -> Result<Vec<Event>, Rejection> {
        let events = self.master.decide(&self.state, &input, self.now)?;
        self.given(&events);
        Ok(events)
    }

    /// An input that must be accepted.
    pub fn ok(&mut self, input: Input) -> Vec<Event> {
        match self.when(input.clone()) {
            Ok(events) => events,
            Err(rejection) => panic!("{input:?} was refused: {rejection}"),
        }
    }

    pub fn register(
        &mut self,
        team: &str,
        car: &str,
        (pilots, engines, weapons): (u32, u32, u32),
    ) -> Vec<Event> {
        let modules = Modules::new(pilots, engines, weapons);
        self.ok(Input::Register {
            team: team.into(),
            car: car.into(),
            modules,
        })
    }

    pub fn start(&mut self, distribution: Distribution) -> Vec<Event> {
        self.ok(Input::Start(StartSettings {
            distribution: Some(distribution),
            ..StartSettings::default()
        }))
    }

    /// Open questions: (decision, car, kind).
    pub fn pending(&self) -> Vec<(u64, String, Asked)> {
        self.state
            .pending
            .iter()
            .map(|(&id, p)| (id, self.state.cars[p.car].name.to_string(), p.asked))
            .collect()
    }

    /// The open question to `car`.
    pub fn question(&self, car: &str) -> (u64, Question) {
        self.log
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::DecisionRequested {
                    decision_id,
                    car: c,
                    question,
                    ..
                } if &**c == car && self.state.pending.contains_key(decision_id) => {
                    Some((*decision_id, question.clone()))
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no open question to {car}; open: {:?}", self.pending()))
    }

    /// Car `car` answers its open question.
    pub fn answer(&mut self, car: &str, answer: Answer) -> Vec<Event> {
        let (decision_id, _) = self.question(car);
        let team = self.state.teams[self.state.car(car).unwrap().team]
            .name
            .to_string();
        self.ok(Input::Answer {
            decision_id,
            team,
            car: car.into(),
            answer,
        })
    }

    /// The state the master holds for a car.
    pub fn truth(&self, car: &str) -> CarState {
        let c = self.state.car(car).unwrap();
        CarState {
            square: c.square,
            modules: c.modules,
        }
    }

    /// Every open state check answered with the truth.
    pub fn report_truthfully(&mut self) -> Vec<Event> {
        let mut all = Vec::new();
        for (_, car, asked) in self.pending() {
            if asked == Asked::ReportState {
                let truth = self.truth(&car);
                all.extend(self.answer(&car, Answer::ReportState(truth)));
            }
        }
        all
    }

    /// Time passes to `at`, and the master is ticked.
    pub fn tick_at(&mut self, at: u64) -> Vec<Event> {
        self.now = at;
        self.ok(Input::Tick)
    }

    /// Time passes to the master's next deadline.
    pub fn tick(&mut self) -> Vec<Event> {
        let at = self
            .master
            .next_deadline(&self.state)
            .expect("something is scheduled");
        self.tick_at(at.max(self.now))
    }

    /// Reports truthfully, then runs to the next turn's start.
    pub fn next_turn(&mut self) -> Vec<Event> {
        self.report_truthfully();
        assert!(
            self.state.pending.is_empty(),
            "open questions left: {:?}",
            self.pending()
        );
        self.tick()
    }
}

/// The facts of one kind, by a pattern.
#[macro_export]
macro_rules! having {
    ($events:expr, $pattern:pat) => {
        $events
            .iter()
            .filter(|e| matches!(e, $pattern))
            .collect::<Vec<_>>()
    };
}
