//! Contract messages back to domain facts (what replay reads from the log); the inverse of
//! `encode`.

use std::sync::Arc;

use arcade_contracts::race as c;

use super::enums::*;
use super::steps::{StepFields, answer_from, fighter_index, pair, question_from, step_from};
use arcade_runtime::MappingError;

use super::{RaceMessage, ValueError};
use crate::domain::car::Name;
use crate::domain::duel::Step;
use crate::domain::event::{Bonus, Closure, Event, Fighter, Standing, Started, Transcript};

fn n(name: &str) -> Name {
    Arc::from(name)
}

fn names(list: &[String]) -> Vec<Name> {
    list.iter().map(|s| n(s)).collect()
}

fn fighters(list: &[c::DuelFighter]) -> Result<[Fighter; 2], ValueError> {
    let [a, b] = list else {
        return Err(ValueError(format!(
            "a fight has 2 fighters, got {}",
            list.len()
        )));
    };
    let one = |f: &c::DuelFighter| Fighter {
        car: f.car.as_deref().map(n),
        team: n(&f.team),
        weapons: f.weapons,
    };
    Ok([one(a), one(b)])
}

fn standing(l: &c::TeamStanding) -> Standing {
    Standing {
        rank: l.rank,
        team: n(&l.team),
        points: l.points,
        distance_points: l.distance_points,
        achievement_points: l.achievement_points,
        bonus_points: l.bonus_points,
        distance: l.distance,
        fights_won: l.fights_won,
        budget: l.budget,
        cars_racing: l.cars_racing,
        cars: l.cars,
    }
}

fn bonus(b: &c::Bonus) -> Bonus {
    Bonus {
        kind: bonus_kind_from(b.kind),
        value: b.value,
        teams: names(&b.teams),
        cars: names(&b.cars),
        points: b.points,
    }
}

fn step(s: &c::DuelStep) -> Result<Step, ValueError> {
    let (play, outcome) = step_from(StepFields {
        cards: s.cards.clone(),
        silence: s.silence,
        action: s.action,
        illegal: s.illegal,
        moved: s.moved,
        attack_value: s.attack_value,
        attack_cards: s.attack_cards,
        parry: s.parry,
    })?;
    Ok(Step {
        fighter: fighter_index(s.fighter)?,
        play,
        outcome,
        squares: pair(&s.squares, "squares")?,
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
        M::StateReported(m) => super::account::state_from(m),
        M::BudgetGranted(m) => super::account::granted_from(m),
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
                distribution: distribution_from(m.distribution),
                seed_sha256,
            })
        }
        M::DistributionChanged(m) => Event::DistributionChanged(distribution_from(m.distribution)),
        M::CarRegistered(m) => Event::CarRegistered {
            team: n(&m.team),
            car: n(&m.car),
            modules: modules_from(m.modules),
            price: m.price,
            budget_left: m.budget_left,
            starts_turn: m.starts_turn,
        },
        M::RegistrationRejected(m) => Event::RegistrationRejected {
            team: m.team.clone(),
            car: m.car.clone(),
            problem: problem_from(m.problem),
            reason: m.reason.clone(),
        },
        M::CommandRejected(m) => Event::CommandRejected {
            command: m.command.clone(),
            team: m.team.clone(),
            decision_id: m.decision_id,
            reason: m.reason.clone(),
        },
        M::BudgetReported(m) => Event::BudgetReported {
            team: n(&m.team),
            budget: m.budget,
            points: m.points,
            cars: names(&m.cars),
        },
        M::TurnStarted(m) => Event::TurnStarted {
            turn: m.turn,
            at_ms: m.at_ms,
            joining: names(&m.joining),
        },
        M::PhaseStarted(m) => Event::PhaseStarted {
            turn: m.turn,
            phase: phase_from(m.phase),
        },
        M::CarMoved(m) => Event::CarMoved {
            car: n(&m.car),
            team: n(&m.team),
            turn: m.turn,
            from: m.from,
            to: m.to,
            reason: move_from(m.reason),
            turns_to_miss: m.turns_to_miss,
        },
        M::CarStopped(m) => Event::CarStopped {
            car: n(&m.car),
            team: n(&m.team),
            reason: stop_from(m.reason),
            square: m.square,
        },
        M::ModuleChanged(m) => Event::ModuleChanged {
            car: n(&m.car),
            team: n(&m.team),
            module: module_from(m.module),
            gained: m.change == c::ModuleChange::Gained,
            reason: module_reason_from(m.reason),
            modules: modules_from(m.modules),
        },
        M::PenaltyGiven(m) => Event::PenaltyGiven {
            car: n(&m.car),
            team: n(&m.team),
            decision_id: m.decision_id,
            reason: penalty_from(m.reason),
            turns_to_miss: m.turns_to_miss,
            correction: m.correction.map(state_from),
        },
        M::EventDrawn(m) => Event::EventDrawn {
            car: n(&m.car),
            team: n(&m.team),
            turn: m.turn,
            roll: m.roll,
            event: event_kind_from(m.event),
            pirates: m.pirates.as_ref().map(|p| modules_from(p.modules)),
        },
        M::EventResolved(m) => Event::EventResolved {
            car: n(&m.car),
            team: n(&m.team),
            event: event_kind_from(m.event),
            outcome: outcome_from(m.outcome),
            roll: m.roll,
            module: m.module.map(module_from),
            price: m.price,
            duel_id: m.duel_id,
            turns_to_miss: m.turns_to_miss,
        },
        M::CombatPaired(m) => Event::CombatPaired {
            combat_id: m.combat_id,
            turn: m.turn,
            square: m.square,
            fighters: fighters(&m.fighters)?,
        },
        M::CombatResolved(m) => Event::CombatResolved {
            combat_id: m.combat_id,
            outcome: combat_from(m.outcome),
            winner: m.winner.as_deref().map(n),
            loser: m.loser.as_deref().map(n),
            loser_turns_to_miss: m.loser_turns_to_miss,
            duel_id: m.duel_id,
        },
        M::DuelStarted(m) => Event::DuelStarted {
            duel_id: m.duel_id,
            combat_id: m.combat_id,
            turn: m.turn,
            fighters: fighters(&m.fighters)?,
            first_player: fighter_index(m.first_player)?,
        },
        M::DuelPlayed(m) => {
            let (play, outcome) = step_from(StepFields {
                cards: m.cards.clone(),
                silence: m.silence,
                action: m.action,
                illegal: m.illegal,
                moved: m.moved,
                attack_value: m.attack_value,
                attack_cards: m.attack_cards,
                parry: m.parry,
            })?;
            Event::DuelPlayed {
                duel_id: m.duel_id,
                step: m.step,
                fighter: fighter_index(m.fighter)?,
                play,
                outcome,
                squares: pair(&m.squares, "squares")?,
                drew: m.drew,
            }
        }
        M::DuelResolved(m) => {
            let [h0, h1] = m.hands.as_slice() else {
                return Err(ValueError(format!(
                    "a duel has 2 hands, got {}",
                    m.hands.len()
                )));
            };
            Event::DuelResolved(Box::new(Transcript {
                duel_id: m.duel_id,
                combat_id: m.combat_id,
                fighters: fighters(&m.fighters)?,
                deck: m.deck.clone(),
                first_player: fighter_index(m.first_player)?,
                hands: [h0.clone(), h1.clone()],
                steps: m.steps.iter().map(step).collect::<Result<_, _>>()?,
                winner: m.winner.map(fighter_index).transpose()?,
                reason: duel_reason_from(m.reason),
            }))
        }
        M::AchievementAwarded(m) => Event::AchievementAwarded {
            team: n(&m.team),
            car: n(&m.car),
            achievement: achievement_from(m.achievement),
            money: m.money,
            points: m.points,
            budget_left: m.budget_left,
        },
        M::StandingsUpdated(m) => Event::StandingsUpdated {
            turn: m.turn,
            standings: m.standings.iter().map(standing).collect(),
        },
        M::RaceFinished(m) => Event::RaceFinished {
            turn: m.turn,
            at_ms: m.at_ms,
            reason: finish_from(m.reason),
            bonuses: m.bonuses.iter().map(bonus).collect(),
            standings: m.standings.iter().map(standing).collect(),
            seed: m
                .seed
                .parse()
                .map_err(|e| ValueError(format!("seed {:?}: {e}", m.seed)))?,
        },
        M::DecisionRequested(m) => Event::DecisionRequested {
            decision_id: m.decision_id,
            team: n(&m.team),
            car: n(&m.car),
            turn: m.turn,
            deadline_ms: m.deadline_ms,
            question: question_from(m.question.clone())?,
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
                team: n(&m.team),
                car: n(&m.car),
                closure,
            }
        }
    })
}
