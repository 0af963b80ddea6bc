//! Contract messages back to domain facts (what replay reads from the log); the inverse of
//! `encode`.

use arcade_contracts::race as c;
use arcade_runtime::MappingError;

use super::facts::decode_plain;
use super::steps::{answer_from, duel_answer_from};
use super::wire::Wire;
use super::{RaceMessage, ValueError};
use crate::domain::duel::Step;
use crate::domain::event::{Closure, Event, Started, Transcript};

fn step(s: &c::DuelStep) -> Result<Step, ValueError> {
    let (fighter, play, outcome, squares) = duel_answer_from(&s.answer)?;
    Ok(Step {
        fighter,
        play,
        outcome,
        squares,
        drawn: s.drawn.clone(),
    })
}

/// The domain fact of a message the master published; an error for a command or a payload
/// that breaks the fact's shape, naming the message type.
pub fn decode(message: &RaceMessage) -> Result<Event, MappingError> {
    fact(message).map_err(|e| MappingError::invalid(message.message_type(), e))
}

fn fact(message: &RaceMessage) -> Result<Event, ValueError> {
    use RaceMessage as M;
    Ok(match message {
        M::HintPublished(m) => super::account::hint_from(m),
        M::RaceStart(_)
        | M::DistributionSet(_)
        | M::CarRegister(_)
        | M::BudgetQuery(_)
        | M::StateQuery(_)
        | M::BudgetGrant(_)
        | M::HintPublish(_)
        | M::DecisionMade(_) => {
            return Err(ValueError(
                "it is a command, not a fact of the race master".into(),
            ));
        }
        M::RaceStarted(m) => {
            let mut seed_sha256 = [0u8; 32];
            hex::decode_to_slice(&m.seed_sha256, &mut seed_sha256)
                .map_err(|e| ValueError(format!("seedSha256: {e}")))?;
            Event::RaceStarted(Started {
                at_ms: m.at_ms,
                turns: m.turns,
                duration_ms: m.duration_ms,
                turn_interval_ms: m.turn_interval_ms,
                decision_timeout_ms: m.decision_timeout_ms,
                distribution: Wire::from_wire(&m.distribution)?,
                seed_sha256,
            })
        }
        M::DistributionChanged(m) => Event::DistributionChanged(Wire::from_wire(&m.distribution)?),
        M::ModuleChanged(m) => Event::ModuleChanged {
            car: Wire::from_wire(&m.car)?,
            team: Wire::from_wire(&m.team)?,
            module: m.module,
            gained: m.change == c::ModuleChange::Gained,
            reason: m.reason,
            modules: m.modules.into(),
        },
        M::EventDrawn(m) => Event::EventDrawn {
            car: Wire::from_wire(&m.car)?,
            team: Wire::from_wire(&m.team)?,
            turn: m.turn,
            roll: m.roll,
            event: m.event,
            pirates: m.pirates.as_ref().map(|p| p.modules.into()),
        },
        M::DuelPlayed(m) => {
            let (fighter, play, outcome, squares) = duel_answer_from(&m.answer)?;
            Event::DuelPlayed {
                duel_id: m.duel_id,
                step: m.step,
                fighter,
                play,
                outcome,
                squares,
                drew: m.drew,
            }
        }
        M::DuelResolved(m) => Event::DuelResolved(Box::new(Transcript {
            duel_id: m.duel_id,
            combat_id: m.combat_id,
            fighters: Wire::from_wire(&m.fighters)?,
            deck: m.deck.clone(),
            first_player: Wire::from_wire(&m.first_player)?,
            hands: Wire::from_wire(&m.hands)?,
            steps: m.steps.iter().map(step).collect::<Result<_, _>>()?,
            winner: Wire::from_wire(&m.winner)?,
            reason: m.reason,
        })),
        M::RaceFinished(m) => Event::RaceFinished {
            turn: m.turn,
            at_ms: m.at_ms,
            reason: m.reason,
            bonuses: Wire::from_wire(&m.bonuses)?,
            standings: m.standings.clone(),
            seed: m
                .seed
                .parse()
                .map_err(|e| ValueError(format!("seed {:?}: {e}", m.seed)))?,
        },
        M::DecisionClosed(m) => {
            let answer = || {
                m.answer.clone().map(answer_from).ok_or_else(|| {
                    ValueError(format!(
                        "decision {} was answered but carries no answer",
                        m.decision_id
                    ))
                })
            };
            let closure = match m.closure {
                c::DecisionClosure::Answered => Closure::Answered(answer()?),
                c::DecisionClosure::WrongAnswer => Closure::WrongAnswer(answer()?),
                c::DecisionClosure::NoAnswer => Closure::NoAnswer,
            };
            Event::DecisionClosed {
                decision_id: m.decision_id,
                team: Wire::from_wire(&m.team)?,
                car: Wire::from_wire(&m.car)?,
                closure,
            }
        }
        plain => return decode_plain(plain),
    })
}
