//! One-to-one conversions between the domain's small enums and the contract's.

use arcade_contracts::race as c;

use crate::domain::car::CarState;
use crate::domain::decision::ActionKind;
use crate::domain::duel::{Illegal, Parry, Silence};
use crate::domain::event as d;
use crate::domain::rules::{Achievement, Distribution, EventKind, Module, Modules};

/// Maps unit enums with the same variant names both ways.
macro_rules! both_ways {
    ($to:ident, $from:ident, $domain:ty, $contract:ty, [$($variant:ident),+ $(,)?]) => {
        pub fn $to(value: $domain) -> $contract {
            match value { $(<$domain>::$variant => <$contract>::$variant),+ }
        }
        pub fn $from(value: $contract) -> $domain {
            match value { $(<$contract>::$variant => <$domain>::$variant),+ }
        }
    };
}

both_ways!(
    module_to,
    module_from,
    Module,
    c::ModuleKind,
    [Pilot, Engine, Weapon]
);
both_ways!(
    event_kind_to,
    event_kind_from,
    EventKind,
    c::RaceEventKind,
    [Nothing, Pirates, Garage, Wreck, MineField]
);
both_ways!(
    problem_to,
    problem_from,
    d::RegistrationProblem,
    c::RegistrationProblem,
    [
        BadName,
        NameTaken,
        TooManyModules,
        NoPilot,
        OverBudget,
        RaceFinished
    ]
);
both_ways!(
    phase_to,
    phase_from,
    d::Phase,
    c::Phase,
    [Events, Combats, StateChecks]
);
both_ways!(
    move_to,
    move_from,
    d::MoveReason,
    c::MoveReason,
    [OnTrack, MissedTurn, Garage]
);
both_ways!(
    stop_to,
    stop_from,
    d::StopReason,
    c::StopReason,
    [NoEngine, NoPilot, Destroyed]
);
both_ways!(
    module_reason_to,
    module_reason_from,
    d::ModuleReason,
    c::ModuleReason,
    [MineField, Wreck, Snakes, Garage, DuelLost]
);
both_ways!(
    penalty_to,
    penalty_from,
    d::PenaltyReason,
    c::PenaltyReason,
    [NoAnswer, WrongAnswer, WrongState]
);
both_ways!(
    outcome_to,
    outcome_from,
    d::EventOutcome,
    c::EventOutcome,
    [
        Skipped,
        CrossedUnhurt,
        CrossedHurt,
        WentAround,
        FoundNothing,
        FoundModule,
        Snakes,
        Ignored,
        Bought,
        CannotAfford,
        Declined,
        NoAnswer,
        WrongAnswer,
        FightWon,
        FightLost,
        FightDrawn,
        Destroyed,
    ]
);
both_ways!(
    combat_to,
    combat_from,
    d::CombatOutcome,
    c::CombatOutcome,
    [Declined, Destroyed, Won, Drawn]
);
both_ways!(
    duel_reason_to,
    duel_reason_from,
    d::DuelReason,
    c::DuelReason,
    [
        Hit,
        DefenderOutOfCards,
        IllegalAnswer,
        NoLegalAnswer,
        NoAnswer,
        WrongAnswer,
        DeckExhausted,
    ]
);
both_ways!(
    silence_to,
    silence_from,
    Silence,
    c::Silence,
    [NoAnswer, WrongAnswer]
);
both_ways!(
    parry_to,
    parry_from,
    Parry,
    c::ParryOutcome,
    [Parried, ParriedLastCards, Hit]
);
both_ways!(
    action_kind_to,
    action_kind_from,
    ActionKind,
    c::DuelAction,
    [Move, Attack, MoveAttack, Illegal, Silent]
);
both_ways!(
    achievement_to,
    achievement_from,
    Achievement,
    c::Achievement,
    [
        MadMax,
        RapideCommeLEclair,
        ArmeJusquAuxDents,
        SnakesOnACar,
        AsDuVolant,
        Pacifiste,
        TriSelectif,
        PimpMyRide,
        Stratege,
        ClicClic,
        PanneDEssence,
        Ulysse31,
        Picsou,
    ]
);
both_ways!(
    bonus_kind_to,
    bonus_kind_from,
    d::BonusKind,
    c::BonusKind,
    [
        CarMostFightsWon,
        TeamMostFightsWon,
        CarFarthest,
        TeamFarthest
    ]
);
both_ways!(
    finish_to,
    finish_from,
    d::FinishReason,
    c::FinishReason,
    [Turns, Duration]
);

/// Modules to the wire.
pub fn modules_to(m: Modules) -> c::Modules {
    c::Modules {
        pilots: m.pilots,
        engines: m.engines,
        weapons: m.weapons,
    }
}

/// Modules from the wire.
pub fn modules_from(m: c::Modules) -> Modules {
    Modules::new(m.pilots, m.engines, m.weapons)
}

/// Odds to the wire.
pub fn distribution_to(d: Distribution) -> c::EventDistribution {
    c::EventDistribution {
        nothing: d.nothing,
        pirates: d.pirates,
        garage: d.garage,
        wreck: d.wreck,
        mine_field: d.mine_field,
    }
}

/// Odds from the wire.
pub fn distribution_from(d: c::EventDistribution) -> Distribution {
    Distribution {
        nothing: d.nothing,
        pirates: d.pirates,
        garage: d.garage,
        wreck: d.wreck,
        mine_field: d.mine_field,
    }
}

/// A car's state to the wire.
pub fn state_to(s: CarState) -> c::CarState {
    c::CarState {
        square: s.square,
        modules: modules_to(s.modules),
    }
}

/// A car's state from the wire.
pub fn state_from(s: c::CarState) -> CarState {
    CarState {
        square: s.square,
        modules: modules_from(s.modules),
    }
}

/// An illegal answer's fault to the wire.
pub fn illegal_to(illegal: Illegal) -> c::IllegalAnswer {
    let (reason, card, distance) = match illegal {
        Illegal::Empty => (c::IllegalReason::Empty, None, None),
        Illegal::NotACard(card) => (c::IllegalReason::NotACard, Some(card), None),
        Illegal::NotHeld(card) => (c::IllegalReason::NotHeld, Some(card), None),
        Illegal::TooFar { card, distance } => {
            (c::IllegalReason::TooFar, Some(card), Some(distance))
        }
        Illegal::OutOfReach { value, distance } => {
            (c::IllegalReason::OutOfReach, Some(value), Some(distance))
        }
        Illegal::BadShape => (c::IllegalReason::BadShape, None, None),
    };
    c::IllegalAnswer {
        reason,
        card,
        distance,
    }
}

/// An illegal answer's fault from the wire.
pub fn illegal_from(i: c::IllegalAnswer) -> Illegal {
    let card = i.card.unwrap_or(0);
    let distance = i.distance.unwrap_or(0);
    match i.reason {
        c::IllegalReason::Empty => Illegal::Empty,
        c::IllegalReason::NotACard => Illegal::NotACard(card),
        c::IllegalReason::NotHeld => Illegal::NotHeld(card),
        c::IllegalReason::TooFar => Illegal::TooFar { card, distance },
        c::IllegalReason::OutOfReach => Illegal::OutOfReach {
            value: card,
            distance,
        },
        c::IllegalReason::BadShape => Illegal::BadShape,
    }
}
