//! A race under test on the runtime's given/when/then harness ([`Scenario`]): odds, and the
//! race's steps (register, start, answer, tick) as builders.

use arcade_contracts::race as c;
use arcade_race_master::domain::car::CarState;
use arcade_race_master::domain::decision::{Answer, Asked, Question};
use arcade_race_master::domain::event::Event;
use arcade_race_master::domain::rules::ModuleCounts as _;
use arcade_race_master::domain::rules::{Distribution, EventKind, Modules};
use arcade_race_master::domain::{Input, StartSettings};
use arcade_race_master::service::RaceService;
use arcade_runtime::testkit::Scenario;

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

/// A race under the runtime's given/when/then harness: the race master's decider, its state
/// and log, and the clock.
pub type Race = Scenario<RaceService>;

/// A race master drawing from `seed`, nothing happened yet, at 1,000 ms.
pub fn new_race(seed: u64) -> Race {
    Scenario::new(RaceService::new(seed)).at(1_000)
}

/// The steps of a race: registrations, the start, questions and answers, time passing.
pub trait RaceSteps {
    /// Registers a car of (pilots, engines, weapons); must be accepted.
    fn register(&mut self, team: &str, car: &str, modules: (u32, u32, u32)) -> Vec<Event>;
    /// Starts the race with these odds; must be accepted.
    fn start(&mut self, distribution: Distribution) -> Vec<Event>;
    /// Open questions: (decision, car, kind).
    fn pending(&self) -> Vec<(u64, String, Asked)>;
    /// The open question to `car`.
    fn question(&self, car: &str) -> (u64, Question);
    /// Car `car` answers its open question.
    fn answer(&mut self, car: &str, answer: Answer) -> Vec<Event>;
    /// The state the master holds for a car.
    fn truth(&self, car: &str) -> CarState;
    /// Every open state check answered with the truth.
    fn report_truthfully(&mut self) -> Vec<Event>;
    /// Time passes to `at`, and the master is ticked.
    fn tick_at(&mut self, at: u64) -> Vec<Event>;
    /// Time passes to the master's next deadline.
    fn tick(&mut self) -> Vec<Event>;
    /// Reports truthfully, then runs to the next turn's start.
    fn next_turn(&mut self) -> Vec<Event>;
}

impl RaceSteps for Race {
    fn register(
        &mut self,
        team: &str,
        car: &str,
        (pilots, engines, weapons): (u32, u32, u32),
    ) -> Vec<Event> {
        let modules = Modules::new(pilots, engines, weapons);
        self.run(Input::Register {
            team: team.into(),
            car: car.into(),
            modules,
        })
    }

    fn start(&mut self, distribution: Distribution) -> Vec<Event> {
        self.run(Input::Start(StartSettings {
            distribution: Some(distribution),
            ..StartSettings::default()
        }))
    }

    fn pending(&self) -> Vec<(u64, String, Asked)> {
        self.state()
            .pending
            .iter()
            .map(|(&id, p)| (id, self.state().cars[p.car].name.to_string(), p.asked))
            .collect()
    }

    fn question(&self, car: &str) -> (u64, Question) {
        self.history()
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::DecisionRequested(c::DecisionRequested {
                    decision_id,
                    car: asked,
                    question,
                    ..
                }) if asked == car && self.state().pending.contains_key(decision_id) => {
                    Some((*decision_id, question.clone()))
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no open question to {car}; open: {:?}", self.pending()))
    }

    fn answer(&mut self, car: &str, answer: Answer) -> Vec<Event> {
        let (decision_id, _) = self.question(car);
        let team = self.state().teams[self.state().car(car).unwrap().team]
            .name
            .to_string();
        self.run(Input::Answer {
            decision_id,
            team,
            car: car.into(),
            answer,
        })
    }

    fn truth(&self, car: &str) -> CarState {
        let c = self.state().car(car).unwrap();
        CarState {
            square: c.square,
            modules: c.modules,
        }
    }

    fn report_truthfully(&mut self) -> Vec<Event> {
        let mut all = Vec::new();
        for (_, car, asked) in self.pending() {
            if asked == Asked::ReportState {
                let truth = self.truth(&car);
                all.extend(self.answer(
                    &car,
                    Answer::ReportState {
                        square: truth.square,
                        modules: truth.modules,
                    },
                ));
            }
        }
        all
    }

    fn tick_at(&mut self, at: u64) -> Vec<Event> {
        self.set_now(at);
        self.run(Input::Tick)
    }

    fn tick(&mut self) -> Vec<Event> {
        let at = self.next_deadline().expect("something is scheduled");
        self.tick_at(at.max(self.now_ms()))
    }

    fn next_turn(&mut self) -> Vec<Event> {
        self.report_truthfully();
        assert!(
            self.state().pending.is_empty(),
            "open questions left: {:?}",
            self.pending()
        );
        self.tick()
    }
}

/// The facts `keep` keeps (`|e| matches!(e, Event::CarMoved(_))`), in order.
pub fn having(events: &[Event], keep: impl Fn(&Event) -> bool) -> Vec<&Event> {
    events.iter().filter(|e| keep(e)).collect()
}
