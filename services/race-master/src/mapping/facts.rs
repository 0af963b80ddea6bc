//! The plain facts: those whose every field goes to the wire under its own name, converted by
//! [`Wire`] (plus, for some, fields the wire adds, computed from the others). One line each
//! makes both their encoding and their decoding; the other facts
//! (named once below, so a new fact does not compile until it is placed) have their own arms
//! in `encode` and `decode`.

use arcade_contracts::race as c;

use super::wire::Wire;
use super::{RaceMessage, ValueError};
use crate::domain::event::Event;
use crate::domain::rules::{AchievementRules, RING_SQUARES};

/// Builds [`encode_plain`] and [`decode_plain`] from the list of plain facts and their fields.
macro_rules! plain_facts {
    (
        plain: [$(
            $fact:ident { $($field:ident),+ $(,)? } $(+ { $($extra:ident: $value:expr),+ $(,)? })?
        ),+ $(,)?],
        special: [$($special:ident),+ $(,)?] $(,)?
    ) => {
        /// The message of a plain fact; the other facts are encoded by `encode` itself.
        pub(super) fn encode_plain(event: &Event) -> RaceMessage {
            match event {
                $(Event::$fact { $($field),+ } => RaceMessage::$fact(c::$fact {
                    $($field: $field.to_wire(),)+
                    $($($extra: $value,)+)?
                }),)+
                $(Event::$special { .. })|+ => {
                    unreachable!("{event:?} is not a plain fact: `encode` has its arm")
                }
            }
        }

        /// The plain fact of a message; an error for any other message (`decode` has their
        /// arms).
        pub(super) fn decode_plain(message: &RaceMessage) -> Result<Event, ValueError> {
            Ok(match message {
                $(RaceMessage::$fact(m) => Event::$fact {
                    $($field: Wire::from_wire(&m.$field)?),+
                },)+
                other => {
                    return Err(ValueError(format!(
                        "{} is not a plain fact",
                        other.message_type()
                    )));
                }
            })
        }
    };
}

plain_facts! {
    plain: [
        CarRegistered { team, car, modules, price, budget_left, starts_turn },
        RegistrationRejected { team, car, problem, reason },
        CommandRejected { command, team, decision_id, reason },
        BudgetReported { team, budget, points, cars },
        StateReported { team, turn, budget, points, cars },
        BudgetGranted { team, amount, reason, budget_left },
        TurnStarted { turn, at_ms, joining },
        PhaseStarted { turn, phase },
        CarMoved { car, team, turn, from, to, reason, turns_to_miss }
            + { ring_square: Some(to % RING_SQUARES) },
        CarStopped { car, team, reason, square },
        PenaltyGiven { car, team, decision_id, reason, turns_to_miss, correction },
        EventResolved {
            car, team, event, outcome, roll, module, price, duel_id, turns_to_miss,
        },
        CombatPaired { combat_id, turn, square, fighters },
        CombatResolved { combat_id, outcome, winner, loser, loser_turns_to_miss, duel_id },
        DuelStarted { duel_id, combat_id, turn, fighters, first_player },
        AchievementAwarded { team, car, achievement, money, points, budget_left }
            + { title: achievement.title().to_string() },
        StandingsUpdated { turn, standings },
        DecisionRequested { decision_id, team, car, turn, deadline_ms, question },
    ],
    special: [
        RaceStarted,
        DistributionChanged,
        HintPublished,
        ModuleChanged,
        EventDrawn,
        DuelPlayed,
        DuelResolved,
        RaceFinished,
        DecisionClosed,
    ],
}
