//! Answers and silences: checking that an answer is awaited, from the car asked, in time;
//! closing the decision (answered, wrong kind, or no answer at the deadline); and handing the
//! outcome to the rule that asked.

use arcade_contracts::race::DecisionClosed;

use super::Rejection;
use super::track::Reply;
use super::work::Work;
use crate::domain::decision::Answer;
use crate::domain::duel::{Play, Silence};
use crate::domain::event::{DecisionClosure as Closure, Event, PenaltyReason};
use crate::domain::rules::PENALTY_TURNS;
use crate::domain::state::About;

impl Work<'_> {
    /// A car's answer to decision `decision_id`.
    pub fn answer(
        &mut self,
        decision_id: u64,
        team: &str,
        car: &str,
        answer: &Answer,
    ) -> Result<(), Rejection> {
        let Some(pending) = self.state.pending.get(&decision_id) else {
            return Err(
                if decision_id >= 1 && decision_id <= self.state.last_decision {
                    Rejection::DecisionClosed { decision_id }
                } else {
                    Rejection::UnknownDecision { decision_id }
                },
            );
        };
        let (asked_car, asked_team) = self.names(pending.car);
        if *asked_car != *car || *asked_team != *team {
            return Err(Rejection::NotYours {
                decision_id,
                car: asked_car.to_string(),
                team: team.to_string(),
                answered_by: car.to_string(),
            });
        }
        if self.now >= pending.deadline_ms {
            return Err(Rejection::Late {
                decision_id,
                deadline_ms: pending.deadline_ms,
            });
        }
        let closure = if pending.asked.accepts(answer) {
            Closure::Answered
        } else {
            Closure::WrongAnswer
        };
        self.close(decision_id, closure, Some(answer.clone()));
        Ok(())
    }

    /// Closes every decision whose deadline has come, as unanswered.
    pub fn expire(&mut self) {
        let due: Vec<u64> = self
            .state
            .pending
            .iter()
            .filter(|(_, p)| p.deadline_ms <= self.now)
            .map(|(&id, _)| id)
            .collect();
        for decision_id in due {
            self.close(decision_id, Closure::NoAnswer, None);
        }
    }

    fn close(&mut self, decision_id: u64, closure: Closure, answer: Option<Answer>) {
        let Some(pending) = self.state.pending.get(&decision_id).cloned() else {
            return;
        };
        let car = pending.car;
        let (car_name, team) = self.names(car);
        self.emit(Event::DecisionClosed(DecisionClosed {
            decision_id,
            team,
            car: car_name,
            closure,
            answer: answer.clone(),
        }));
        let failure = match closure {
            Closure::Answered => None,
            Closure::WrongAnswer => Some(PenaltyReason::WrongAnswer),
            Closure::NoAnswer => Some(PenaltyReason::NoAnswer),
        };
        // What a car answered in time to the question it was asked.
        let answered = answer.filter(|_| failure.is_none());
        match pending.about {
            About::Event => {
                let reply = match (answered, failure) {
                    (_, Some(reason)) => Reply::Failed(reason),
                    (
                        Some(
                            Answer::CrossMineField { cross: true }
                            | Answer::ExploreWreck { explore: true },
                        ),
                        _,
                    ) => Reply::Yes,
                    (Some(Answer::BuyAtGarage { module }), _) => Reply::Buy(module),
                    _ => Reply::No,
                };
                self.resolve_event(car, decision_id, reply);
            }
            About::Fight { combat, .. } => {
                if let Some(reason) = failure {
                    self.penalise(car, decision_id, reason, PENALTY_TURNS, None);
                }
                self.resolve_combat(combat);
            }
            About::Duel { duel } => {
                let play = match (answered, closure) {
                    (Some(Answer::DuelAnswer { cards }), _) => Play::Cards(cards),
                    (_, Closure::NoAnswer) => Play::Silent(Silence::NoAnswer),
                    _ => Play::Silent(Silence::WrongAnswer),
                };
                self.drive_duel(duel, Some(play));
            }
            About::StateCheck => {
                let truth = self.truth(car);
                let reason = match (answered, failure) {
                    (_, Some(reason)) => Some(reason),
                    (Some(Answer::ReportState { square, modules }), _)
                        if square == truth.square && modules == truth.modules =>
                    {
                        None
                    }
                    _ => Some(PenaltyReason::WrongState),
                };
                if let Some(reason) = reason {
                    self.penalise(car, decision_id, reason, PENALTY_TURNS, Some(truth));
                }
            }
        }
    }
}
