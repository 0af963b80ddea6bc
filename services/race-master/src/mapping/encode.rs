//! Domain facts to contract messages.

use arcade_contracts::race as c;

use super::RaceMessage;
use super::account;
use super::facts::encode_plain;
use super::steps::{answer_to, duel_answer_to};
use super::wire::Wire;
use crate::domain::event::{Closure, Event};
use crate::domain::rules::PIRATES_NAME;

/// The contract message of a fact (the plain facts' are in `facts`).
pub fn encode(event: &Event) -> RaceMessage {
    use RaceMessage as M;
    match event {
        Event::RaceStarted(st) => M::RaceStarted(c::RaceStarted {
            at_ms: st.at_ms,
            turns: st.turns,
            duration_ms: st.duration_ms,
            turn_interval_ms: st.turn_interval_ms,
            decision_timeout_ms: st.decision_timeout_ms,
            distribution: st.distribution.to_wire(),
            seed_sha256: hex::encode(st.seed_sha256),
        }),
        Event::DistributionChanged(d) => M::DistributionChanged(c::DistributionChanged {
            distribution: d.to_wire(),
        }),
        Event::ModuleChanged {
            car,
            team,
            module,
            gained,
            reason,
            modules,
        } => M::ModuleChanged(c::ModuleChanged {
            car: car.to_wire(),
            team: team.to_wire(),
            module: *module,
            change: if *gained {
                c::ModuleChange::Gained
            } else {
                c::ModuleChange::Lost
            },
            reason: *reason,
            modules: modules.to_wire(),
        }),
        Event::EventDrawn {
            car,
            team,
            turn,
            roll,
            event,
            pirates,
        } => M::EventDrawn(c::EventDrawn {
            car: car.to_wire(),
            team: team.to_wire(),
            turn: *turn,
            roll: *roll,
            event: *event,
            pirates: pirates.map(|m| c::PirateCrew {
                name: PIRATES_NAME.to_string(),
                modules: m.to_wire(),
            }),
        }),
        Event::DuelPlayed {
            duel_id,
            step,
            fighter,
            play,
            outcome,
            squares,
            drew,
        } => M::DuelPlayed(c::DuelPlayed {
            duel_id: *duel_id,
            step: *step,
            answer: duel_answer_to(*fighter, play, outcome, squares),
            drew: *drew,
        }),
        Event::DuelResolved(t) => M::DuelResolved(c::DuelResolved {
            duel_id: t.duel_id,
            combat_id: t.combat_id,
            fighters: t.fighters.to_wire(),
            deck: t.deck.clone(),
            first_player: t.first_player.to_wire(),
            hands: t.hands.to_wire(),
            steps: t
                .steps
                .iter()
                .map(|s| c::DuelStep {
                    answer: duel_answer_to(s.fighter, &s.play, &s.outcome, &s.squares),
                    drawn: s.drawn.clone(),
                })
                .collect(),
            winner: t.winner.to_wire(),
            reason: t.reason,
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
            reason: *reason,
            bonuses: bonuses.to_wire(),
            standings: standings.clone(),
            seed: seed.to_string(),
        }),
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
                team: team.to_wire(),
                car: car.to_wire(),
                closure,
                answer,
            })
        }
        plain => encode_plain(plain),
    }
}
