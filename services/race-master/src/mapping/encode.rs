//! Domain facts to contract messages.

use arcade_contracts::race as c;

use super::RaceMessage;
use super::account;
use super::enums::*;
use super::parts::{bonus, fighter, s, standing};
use super::steps::{answer_to, question_to, step_to};
use crate::domain::event::{Closure, Event};
use crate::domain::rules::{PIRATES_NAME, RING_SQUARES};

/// The contract message of a fact.
pub fn encode(event: &Event) -> RaceMessage {
    use RaceMessage as M;
    match event {
        Event::RaceStarted(st) => M::RaceStarted(c::RaceStarted {
            at_ms: st.at_ms,
            turns: st.turns,
            duration_ms: st.duration_ms,
            turn_interval_ms: st.turn_interval_ms,
            decision_timeout_ms: st.decision_timeout_ms,
            distribution: distribution_to(st.distribution),
            seed_sha256: hex::encode(st.seed_sha256),
        }),
        Event::DistributionChanged(d) => M::DistributionChanged(c::DistributionChanged {
            distribution: distribution_to(*d),
        }),
        Event::CarRegistered {
            team,
            car,
            modules,
            price,
            budget_left,
            starts_turn,
        } => M::CarRegistered(c::CarRegistered {
            team: s(team),
            car: s(car),
            modules: modules_to(*modules),
            price: *price,
            budget_left: *budget_left,
            starts_turn: *starts_turn,
        }),
        Event::RegistrationRejected {
            team,
            car,
            problem,
            reason,
        } => M::RegistrationRejected(c::RegistrationRejected {
            team: team.clone(),
            car: car.clone(),
            problem: problem_to(*problem),
            reason: reason.clone(),
        }),
        Event::CommandRejected {
            command,
            team,
            decision_id,
            reason,
        } => M::CommandRejected(c::CommandRejected {
            command: command.clone(),
            team: team.clone(),
            decision_id: *decision_id,
            reason: reason.clone(),
        }),
        Event::BudgetReported {
            team,
            budget,
            points,
            cars,
        } => M::BudgetReported(c::BudgetReported {
            team: s(team),
            budget: *budget,
            points: *points,
            cars: cars.iter().map(|c| s(c)).collect(),
        }),
        Event::TurnStarted {
            turn,
            at_ms,
            joining,
        } => M::TurnStarted(c::TurnStarted {
            turn: *turn,
            at_ms: *at_ms,
            joining: joining.iter().map(|c| s(c)).collect(),
        }),
        Event::PhaseStarted { turn, phase } => M::PhaseStarted(c::PhaseStarted {
            turn: *turn,
            phase: phase_to(*phase),
        }),
        Event::CarMoved {
            car,
            team,
            turn,
            from,
            to,
            reason,
            turns_to_miss,
        } => M::CarMoved(c::CarMoved {
            car: s(car),
            team: s(team),
            turn: *turn,
            from: *from,
            to: *to,
            reason: move_to(*reason),
            turns_to_miss: *turns_to_miss,
            ring_square: Some(to % RING_SQUARES),
        }),
        Event::CarStopped {
            car,
            team,
            reason,
            square,
        } => M::CarStopped(c::CarStopped {
            car: s(car),
            team: s(team),
            reason: stop_to(*reason),
            square: *square,
        }),
        Event::ModuleChanged {
            car,
            team,
            module,
            gained,
            reason,
            modules,
        } => M::ModuleChanged(c::ModuleChanged {
            car: s(car),
            team: s(team),
            module: module_to(*module),
            change: if *gained {
                c::ModuleChange::Gained
            } else {
                c::ModuleChange::Lost
            },
            reason: module_reason_to(*reason),
            modules: modules_to(*modules),
        }),
        Event::PenaltyGiven {
            car,
            team,
            decision_id,
            reason,
            turns_to_miss,
            correction,
        } => M::PenaltyGiven(c::PenaltyGiven {
            car: s(car),
            team: s(team),
            decision_id: *decision_id,
            reason: penalty_to(*reason),
            turns_to_miss: *turns_to_miss,
            correction: correction.map(state_to),
        }),
        Event::EventDrawn {
            car,
            team,
            turn,
            roll,
            event,
            pirates,
        } => M::EventDrawn(c::EventDrawn {
            car: s(car),
            team: s(team),
            turn: *turn,
            roll: *roll,
            event: event_kind_to(*event),
            pirates: pirates.map(|m| c::PirateCrew {
                name: s(PIRATES_NAME),
                modules: modules_to(m),
            }),
        }),
        Event::EventResolved {
            car,
            team,
            event,
            outcome,
            roll,
            module,
            price,
            duel_id,
            turns_to_miss,
        } => M::EventResolved(c::EventResolved {
            car: s(car),
            team: s(team),
            event: event_kind_to(*event),
            outcome: outcome_to(*outcome),
            roll: *roll,
            module: module.map(module_to),
            price: *price,
            duel_id: *duel_id,
            turns_to_miss: *turns_to_miss,
        }),
        Event::CombatPaired {
            combat_id,
            turn,
            square,
            fighters,
        } => M::CombatPaired(c::CombatPaired {
            combat_id: *combat_id,
            turn: *turn,
            square: *square,
            fighters: fighters.iter().map(fighter).collect(),
        }),
        Event::CombatResolved {
            combat_id,
            outcome,
            winner,
            loser,
            loser_turns_to_miss,
            duel_id,
        } => M::CombatResolved(c::CombatResolved {
            combat_id: *combat_id,
            outcome: combat_to(*outcome),
            winner: winner.as_deref().map(s),
            loser: loser.as_deref().map(s),
            loser_turns_to_miss: *loser_turns_to_miss,
            duel_id: *duel_id,
        }),
        Event::DuelStarted {
            duel_id,
            combat_id,
            turn,
            fighters,
            first_player,
        } => M::DuelStarted(c::DuelStarted {
            duel_id: *duel_id,
            combat_id: *combat_id,
            turn: *turn,
            fighters: fighters.iter().map(fighter).collect(),
            first_player: *first_player as u8,
        }),
        Event::DuelPlayed {
            duel_id,
            step,
            fighter,
            play,
            outcome,
            squares,
            drew,
        } => {
            let f = step_to(play, outcome);
            M::DuelPlayed(c::DuelPlayed {
                duel_id: *duel_id,
                step: *step,
                fighter: *fighter as u8,
                cards: f.cards,
                silence: f.silence,
                action: f.action,
                illegal: f.illegal,
                moved: f.moved,
                attack_value: f.attack_value,
                attack_cards: f.attack_cards,
                parry: f.parry,
                squares: squares.to_vec(),
                drew: *drew,
            })
        }
        Event::DuelResolved(t) => M::DuelResolved(c::DuelResolved {
            duel_id: t.duel_id,
            combat_id: t.combat_id,
            fighters: t.fighters.iter().map(fighter).collect(),
            deck: t.deck.clone(),
            first_player: t.first_player as u8,
            hands: t.hands.to_vec(),
            steps: t
                .steps
                .iter()
                .map(|step| {
                    let f = step_to(&step.play, &step.outcome);
                    c::DuelStep {
                        fighter: step.fighter as u8,
                        cards: f.cards,
                        silence: f.silence,
                        action: f.action,
                        illegal: f.illegal,
                        moved: f.moved,
                        attack_value: f.attack_value,
                        attack_cards: f.attack_cards,
                        parry: f.parry,
                        squares: step.squares.to_vec(),
                        drawn: step.drawn.clone(),
                    }
                })
                .collect(),
            winner: t.winner.map(|w| w as u8),
            reason: duel_reason_to(t.reason),
        }),
        Event::AchievementAwarded {
            team,
            car,
            achievement,
            money,
            points,
            budget_left,
        } => M::AchievementAwarded(c::AchievementAwarded {
            team: s(team),
            car: s(car),
            achievement: achievement_to(*achievement),
            title: s(achievement.title()),
            money: *money,
            points: *points,
            budget_left: *budget_left,
        }),
        Event::StandingsUpdated { turn, standings } => M::StandingsUpdated(c::StandingsUpdated {
            turn: *turn,
            standings: standings.iter().map(standing).collect(),
        }),
        Event::RaceFinished {
            turn,
            at_ms,
            reason,
            bonuses,
            standings,
            seed,
        } => M::RaceFinished(c::RaceFinished {
            turn: *turn,
            at_ms: *at_ms,
            reason: finish_to(*reason),
            bonuses: bonuses.iter().map(bonus).collect(),
            standings: standings.iter().map(standing).collect(),
            seed: seed.to_string(),
        }),
        Event::DecisionRequested {
            decision_id,
            team,
            car,
            turn,
            deadline_ms,
            question,
        } => M::DecisionRequested(c::DecisionRequested {
            decision_id: *decision_id,
            team: s(team),
            car: s(car),
            turn: *turn,
            deadline_ms: *deadline_ms,
            question: question_to(question),
        }),
        Event::StateReported {
            team,
            turn,
            budget,
            points,
            cars,
        } => account::state_reported(team, *turn, *budget, *points, cars),
        Event::BudgetGranted {
            team,
            amount,
            reason,
            budget_left,
        } => account::budget_granted(team, *amount, reason, *budget_left),
        Event::HintPublished { turn, achievement } => account::hint_published(*turn, *achievement),
        Event::DecisionClosed {
            decision_id,
            team,
            car,
            closure,
        } => {
            let (closure, answer) = match closure {
                Closure::Answered(a) => (c::DecisionClosure::Answered, Some(answer_to(a))),
                Closure::WrongAnswer(a) => (c::DecisionClosure::WrongAnswer, Some(answer_to(a))),
                Closure::NoAnswer => (c::DecisionClosure::NoAnswer, None),
            };
            M::DecisionClosed(c::DecisionClosed {
                decision_id: *decision_id,
                team: s(team),
                car: s(car),
                closure,
                answer,
            })
        }
    }
}
