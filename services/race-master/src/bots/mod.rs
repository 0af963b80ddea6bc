//! Built-in car programs: a team's cars played by a strategy (cautious, aggressive, random).
//! A [`CarBot`] sees only contract messages — the race's facts and the questions sent to its
//! team — keeps its own state from them ([`TeamView`]) and answers; it reports its state
//! truthfully. `arcade race simulate` runs them in process; `arcade car` runs one over the bus.

mod view;

use arcade_contracts::race::{
    self as c, CarRegister, DecisionMade, DecisionRequested, ModuleKind, Modules, Question,
};

pub use view::{OwnCar, TeamView};

use crate::domain::dice::{Dice, Purpose};
use crate::domain::duel::tactics::{Style, choose};
use crate::domain::duel::{Hand, legal_answers};
use crate::mapping::RaceMessage;

/// How a built-in car plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Keeps its pilots and modules safe: fights only stronger-armed, crosses mines with spares.
    Cautious,
    /// Fights, crosses, explores, buys weapons.
    Aggressive,
    /// Flips a coin for everything; plays any legal duel answer.
    Random,
}

/// A team's car program.
#[derive(Debug, Clone)]
pub struct CarBot {
    strategy: Strategy,
    view: TeamView,
    dice: Dice,
}

impl CarBot {
    /// The program of `team`; `seed` drives its own random choices.
    pub fn new(team: &str, strategy: Strategy, seed: u64, number: u32) -> CarBot {
        CarBot {
            strategy,
            view: TeamView::new(team),
            dice: Dice::new(seed, Purpose::Bot, 0, number),
        }
    }

    /// What it knows.
    pub fn view(&self) -> &TeamView {
        &self.view
    }

    /// Its strategy.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Registrations for `cars` cars named `<team>-1`, `<team>-2`…, each of 10 modules or less.
    pub fn registrations(&mut self, cars: usize) -> Vec<CarRegister> {
        (1..=cars)
            .map(|i| {
                let modules = match self.strategy {
                    Strategy::Cautious => Modules {
                        pilots: 2,
                        engines: 4,
                        weapons: 4,
                    },
                    Strategy::Aggressive => Modules {
                        pilots: 1,
                        engines: 4,
                        weapons: 5,
                    },
                    Strategy::Random => {
                        let pilots = 1 + self.dice.below(2);
                        let engines = 1 + self.dice.below(6);
                        let weapons = self.dice.up_to(10 - pilots - engines);
                        Modules {
                            pilots,
                            engines,
                            weapons,
                        }
                    }
                };
                CarRegister {
                    team: self.view.team().to_string(),
                    car: format!("{}-{i}", self.view.team()),
                    modules,
                }
            })
            .collect()
    }

    /// Takes in a message of the race.
    pub fn observe(&mut self, message: &RaceMessage) {
        self.view.observe(message);
    }

    fn coin(&mut self) -> bool {
        self.dice.below(2) == 1
    }

    /// Answers a question to one of its cars.
    pub fn answer(&mut self, request: &DecisionRequested) -> DecisionMade {
        let me = self.view.car(&request.car).copied().unwrap_or(OwnCar {
            square: 0,
            modules: Modules {
                pilots: 0,
                engines: 0,
                weapons: 0,
            },
            stopped: false,
        });
        let answer = match &request.question {
            Question::ShouldFight(opponent) => c::Answer::ShouldFight {
                fight: match self.strategy {
                    Strategy::Cautious => me.modules.weapons > opponent.weapons,
                    Strategy::Aggressive => me.modules.weapons > 0,
                    Strategy::Random => self.coin(),
                },
            },
            Question::CrossMineField => c::Answer::CrossMineField {
                cross: match self.strategy {
                    Strategy::Cautious => me.modules.pilots >= 2 && me.modules.engines >= 2,
                    Strategy::Aggressive => true,
                    Strategy::Random => self.coin(),
                },
            },
            Question::ExploreWreck => c::Answer::ExploreWreck {
                explore: match self.strategy {
                    Strategy::Cautious => me.modules.pilots >= 2,
                    Strategy::Aggressive => true,
                    Strategy::Random => self.coin(),
                },
            },
            Question::BuyAtGarage(prices) => c::Answer::BuyAtGarage {
                module: self.shop(&me, prices),
            },
            Question::DuelAnswer(question) => c::Answer::DuelAnswer {
                cards: self.duel(question),
            },
            Question::ReportState => c::Answer::ReportState {
                square: me.square,
                modules: me.modules,
            },
        };
        DecisionMade {
            decision_id: request.decision_id,
            team: request.team.clone(),
            car: request.car.clone(),
            answer,
        }
    }

    fn shop(&mut self, me: &OwnCar, prices: &c::GaragePrices) -> Option<ModuleKind> {
        let budget = prices.budget;
        match self.strategy {
            Strategy::Cautious if me.modules.pilots == 1 && budget >= prices.pilot => {
                Some(ModuleKind::Pilot)
            }
            Strategy::Cautious => (budget >= 20 + prices.engine).then_some(ModuleKind::Engine),
            Strategy::Aggressive => (budget >= prices.weapon).then_some(ModuleKind::Weapon),
            Strategy::Random => {
                let choices: Vec<ModuleKind> = [
                    (ModuleKind::Pilot, prices.pilot),
                    (ModuleKind::Engine, prices.engine),
                    (ModuleKind::Weapon, prices.weapon),
                ]
                .into_iter()
                .filter(|&(_, price)| price <= budget)
                .map(|(kind, _)| kind)
                .collect();
                let pick = self.dice.below(choices.len() as u32 + 1) as usize;
                choices.get(pick).copied()
            }
        }
    }

    fn duel(&mut self, question: &c::DuelQuestion) -> Vec<u8> {
        let hand = Hand::of(&question.cards);
        let distance = question.distance;
        let action = match self.strategy {
            Strategy::Cautious | Strategy::Aggressive => {
                let style = if self.strategy == Strategy::Cautious {
                    Style::Cautious
                } else {
                    Style::Aggressive
                };
                choose(
                    style,
                    &hand,
                    distance,
                    &seen(question),
                    question.opponent_cards,
                )
            }
            Strategy::Random => {
                let answers = legal_answers(&hand, distance);
                let pick = self.dice.below(answers.len() as u32) as usize;
                answers.get(pick).copied()
            }
        };
        action.map(|a| a.cards()).unwrap_or_default()
    }
}

/// Cards out of play in a duel, from its public history: every card played, and for each
/// parried attack as many cards of its value.
pub fn seen(question: &c::DuelQuestion) -> Hand {
    let mut seen = Hand::default();
    for entry in &question.history {
        let attack_from = match entry.action {
            c::DuelAction::Move | c::DuelAction::Attack => 0,
            c::DuelAction::MoveAttack => 1,
            c::DuelAction::Illegal | c::DuelAction::Silent => continue,
        };
        entry.cards.iter().for_each(|&card| seen.add(card));
        if matches!(
            entry.parry,
            Some(c::ParryOutcome::Parried | c::ParryOutcome::ParriedLastCards)
        ) && entry.action != c::DuelAction::Move
        {
            entry
                .cards
                .iter()
                .skip(attack_from)
                .for_each(|&card| seen.add(card));
        }
    }
    seen
}
