//! Duel steps, questions and answers to and from the wire.

use arcade_contracts::race as c;

use super::ValueError;
use super::wire::{Wire, wire_struct};
use crate::domain::car::CarState;
use crate::domain::decision::{Answer, DuelView, HistoryEntry, Question};
use crate::domain::duel::{Action, Play, StepOutcome};
use crate::domain::rules::{Module, ModuleRules};

/// A duel step to the wire: `fighter` played `play`, which did `outcome`, leaving the fighters
/// on `squares` (the part `race.duel.played.v1` and a transcript's step both tell).
pub fn duel_answer_to(
    fighter: usize,
    play: &Play,
    outcome: &StepOutcome,
    squares: &[u32; 2],
) -> c::DuelAnswer {
    let (cards, silence) = match play {
        Play::Cards(cards) => (cards.clone(), None),
        Play::Silent(s) => (Vec::new(), Some(*s)),
    };
    let (action, illegal, played, parry) = match *outcome {
        StepOutcome::Illegal(i) => (c::DuelAction::Illegal, Some(i.to_wire()), None, None),
        StepOutcome::Silent(_) => (c::DuelAction::Silent, None, None, None),
        StepOutcome::Played { action, parry } => {
            let kind = match action {
                Action::Move(_) => c::DuelAction::Move,
                Action::Attack { .. } => c::DuelAction::Attack,
                Action::MoveAttack { .. } => c::DuelAction::MoveAttack,
            };
            (kind, None, Some(action), parry)
        }
    };
    let attack = played.and_then(|a| a.attack());
    c::DuelAnswer {
        fighter: fighter.to_wire(),
        cards,
        silence,
        action,
        illegal,
        moved: played.map_or(0, |a| u32::from(a.moved())),
        attack_value: attack.map(|(v, _)| v),
        attack_cards: attack.map_or(0, |(_, n)| u32::from(n)),
        parry,
        squares: squares.to_wire(),
    }
}

fn small(value: u32, what: &str) -> Result<u8, ValueError> {
    u8::try_from(value).map_err(|_| ValueError(format!("{what} {value} is out of range")))
}

/// A duel step from the wire: who played, what, what it did, and the squares after.
pub fn duel_answer_from(
    f: &c::DuelAnswer,
) -> Result<(usize, Play, StepOutcome, [u32; 2]), ValueError> {
    let play = match f.silence {
        Some(s) => Play::Silent(s),
        None => Play::Cards(f.cards.clone()),
    };
    let value = || {
        f.attack_value
            .ok_or_else(|| ValueError("an attack without attackValue".into()))
    };
    let outcome = match f.action {
        c::DuelAction::Illegal => StepOutcome::Illegal(Wire::from_wire(
            &f.illegal
                .ok_or_else(|| ValueError("an illegal step without its fault".into()))?,
        )?),
        c::DuelAction::Silent => StepOutcome::Silent(match &play {
            Play::Silent(s) => *s,
            Play::Cards(_) => return Err(ValueError("a silent step without its silence".into())),
        }),
        c::DuelAction::Move => StepOutcome::Played {
            action: Action::Move(small(f.moved, "move")?),
            parry: f.parry,
        },
        c::DuelAction::Attack => StepOutcome::Played {
            action: Action::Attack {
                value: value()?,
                count: small(f.attack_cards, "attackCards")?,
            },
            parry: f.parry,
        },
        c::DuelAction::MoveAttack => StepOutcome::Played {
            action: Action::MoveAttack {
                step: small(f.moved, "move")?,
                value: value()?,
                count: small(f.attack_cards, "attackCards")?,
            },
            parry: f.parry,
        },
    };
    let fighter = Wire::from_wire(&f.fighter)?;
    Ok((fighter, play, outcome, Wire::from_wire(&f.squares)?))
}

wire_struct!(HistoryEntry => c::DuelHistoryEntry { fighter, cards, action, parry });
wire_struct!(DuelView => c::DuelQuestion {
    duel_id,
    you,
    cards,
    squares,
    distance,
    opponent_cards,
    deck_left,
    history,
});

impl Wire for Question {
    type Form = c::Question;

    fn to_wire(&self) -> c::Question {
        match self {
            Question::ShouldFight {
                combat_id,
                square,
                opponent,
                opponent_team,
                opponent_weapons,
            } => c::Question::ShouldFight(c::Opponent {
                combat_id: *combat_id,
                square: *square,
                car: opponent.to_wire(),
                team: opponent_team.to_wire(),
                weapons: *opponent_weapons,
            }),
            Question::CrossMineField => c::Question::CrossMineField,
            Question::ExploreWreck => c::Question::ExploreWreck,
            Question::BuyAtGarage { budget } => c::Question::BuyAtGarage(c::GaragePrices {
                pilot: Module::Pilot.price(),
                engine: Module::Engine.price(),
                weapon: Module::Weapon.price(),
                budget: *budget,
            }),
            Question::DuelAnswer(v) => c::Question::DuelAnswer(v.to_wire()),
            Question::ReportState => c::Question::ReportState,
        }
    }

    fn from_wire(q: &c::Question) -> Result<Question, ValueError> {
        Ok(match q {
            c::Question::ShouldFight(o) => Question::ShouldFight {
                combat_id: o.combat_id,
                square: o.square,
                opponent: Wire::from_wire(&o.car)?,
                opponent_team: Wire::from_wire(&o.team)?,
                opponent_weapons: o.weapons,
            },
            c::Question::CrossMineField => Question::CrossMineField,
            c::Question::ExploreWreck => Question::ExploreWreck,
            c::Question::BuyAtGarage(p) => Question::BuyAtGarage { budget: p.budget },
            c::Question::DuelAnswer(v) => Question::DuelAnswer(Wire::from_wire(v)?),
            c::Question::ReportState => Question::ReportState,
        })
    }
}

/// An answer to the wire.
pub fn answer_to(a: &Answer) -> c::Answer {
    match a {
        Answer::ShouldFight(fight) => c::Answer::ShouldFight { fight: *fight },
        Answer::CrossMineField(cross) => c::Answer::CrossMineField { cross: *cross },
        Answer::ExploreWreck(explore) => c::Answer::ExploreWreck { explore: *explore },
        Answer::BuyAtGarage(module) => c::Answer::BuyAtGarage { module: *module },
        Answer::DuelAnswer(cards) => c::Answer::DuelAnswer {
            cards: cards.clone(),
        },
        Answer::ReportState(s) => c::Answer::ReportState {
            square: s.square,
            modules: s.modules.to_wire(),
        },
    }
}

/// An answer from the wire.
pub fn answer_from(a: c::Answer) -> Answer {
    match a {
        c::Answer::ShouldFight { fight } => Answer::ShouldFight(fight),
        c::Answer::CrossMineField { cross } => Answer::CrossMineField(cross),
        c::Answer::ExploreWreck { explore } => Answer::ExploreWreck(explore),
        c::Answer::BuyAtGarage { module } => Answer::BuyAtGarage(module),
        c::Answer::DuelAnswer { cards } => Answer::DuelAnswer(cards),
        c::Answer::ReportState { square, modules } => Answer::ReportState(CarState {
            square,
            modules: modules.into(),
        }),
    }
}
