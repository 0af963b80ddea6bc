//! The domain's values and their contract forms, both ways ([`Wire`]): names, the counts of
//! modules, a car's state, the odds, fighters, pairs, and the contract's own types, which the
//! domain uses as they are.

use std::sync::Arc;

use arcade_contracts::race as c;

use super::ValueError;
use crate::domain::car::{CarState, Name};
use crate::domain::duel::Illegal;
use crate::domain::event::{Bonus, Fighter};
use crate::domain::rules::{Distribution, Modules};

/// A domain value that goes to the wire as [`Wire::Form`] and comes back from it.
pub(super) trait Wire: Sized {
    /// Its contract form.
    type Form;

    /// To the wire.
    fn to_wire(&self) -> Self::Form;

    /// From the wire; an error for a value that is not a valid domain value.
    fn from_wire(form: &Self::Form) -> Result<Self, ValueError>;
}

/// A domain struct whose fields all go to the wire under their own names (plus, after `+`,
/// fields the wire adds, each computed from the domain value by a function).
macro_rules! wire_struct {
    (
        $domain:ty => $form:path { $($field:ident),+ $(,)? }
        $(+ { $($extra:ident: $value:expr),+ $(,)? })?
    ) => {
        impl $crate::mapping::wire::Wire for $domain {
            type Form = $form;

            fn to_wire(&self) -> $form {
                $form {
                    $($field: $crate::mapping::wire::Wire::to_wire(&self.$field),)+
                    $($($extra: ($value)(self),)+)?
                }
            }

            fn from_wire(form: &$form) -> Result<$domain, $crate::mapping::ValueError> {
                Ok(Self {
                    $($field: $crate::mapping::wire::Wire::from_wire(&form.$field)?,)+
                })
            }
        }
    };
}
pub(super) use wire_struct;

/// A type the domain and the contract share: it goes as it is.
trait Same: Clone {}

impl<T: Same> Wire for T {
    type Form = T;

    fn to_wire(&self) -> T {
        self.clone()
    }

    fn from_wire(form: &T) -> Result<T, ValueError> {
        Ok(form.clone())
    }
}

impl Same for u8 {}
impl Same for u32 {}
impl Same for u64 {}
impl Same for bool {}
impl Same for String {}
impl Same for c::Achievement {}
impl Same for c::BonusKind {}
impl Same for c::CombatOutcome {}
impl Same for c::DuelAction {}
impl Same for c::DuelReason {}
impl Same for c::EventOutcome {}
impl Same for c::FinishReason {}
impl Same for c::ModuleKind {}
impl Same for c::ModuleReason {}
impl Same for c::MoveReason {}
impl Same for c::PenaltyReason {}
impl Same for c::ParryOutcome {}
impl Same for c::Phase {}
impl Same for c::RaceEventKind {}
impl Same for c::RegistrationProblem {}
impl Same for c::StopReason {}
impl Same for c::TeamStanding {}

/// A fighter, 0 or 1: the domain's fighters are indexes (every `usize` that goes to the
/// wire is one), the wire's are `u8`.
impl Wire for usize {
    type Form = u8;

    fn to_wire(&self) -> u8 {
        *self as u8
    }

    fn from_wire(form: &u8) -> Result<usize, ValueError> {
        match *form {
            0 | 1 => Ok(usize::from(*form)),
            other => Err(ValueError(format!("fighter {other} is not 0 or 1"))),
        }
    }
}

impl Wire for Name {
    type Form = String;

    fn to_wire(&self) -> String {
        self.to_string()
    }

    fn from_wire(form: &String) -> Result<Name, ValueError> {
        Ok(Arc::from(form.as_str()))
    }
}

impl<T: Wire> Wire for Option<T> {
    type Form = Option<T::Form>;

    fn to_wire(&self) -> Self::Form {
        self.as_ref().map(T::to_wire)
    }

    fn from_wire(form: &Self::Form) -> Result<Self, ValueError> {
        form.as_ref().map(T::from_wire).transpose()
    }
}

impl<T: Wire> Wire for Vec<T> {
    type Form = Vec<T::Form>;

    fn to_wire(&self) -> Self::Form {
        self.iter().map(T::to_wire).collect()
    }

    fn from_wire(form: &Self::Form) -> Result<Self, ValueError> {
        form.iter().map(T::from_wire).collect()
    }
}

/// Fighter 0's and fighter 1's (squares, hands, fighters): a list of exactly 2 on the wire.
impl<T: Wire> Wire for [T; 2] {
    type Form = Vec<T::Form>;

    fn to_wire(&self) -> Self::Form {
        self.iter().map(T::to_wire).collect()
    }

    fn from_wire(form: &Self::Form) -> Result<Self, ValueError> {
        let [a, b] = form.as_slice() else {
            return Err(ValueError(format!(
                "2 values expected (fighter 0 and 1), got {}",
                form.len()
            )));
        };
        Ok([T::from_wire(a)?, T::from_wire(b)?])
    }
}

wire_struct!(Modules => c::Modules { pilots, engines, weapons });
wire_struct!(Distribution => c::EventDistribution { nothing, pirates, garage, wreck, mine_field });
wire_struct!(CarState => c::CarState { square, modules });
wire_struct!(Fighter => c::DuelFighter { car, team, weapons });

/// Modules from the wire, where no error can be told.
impl From<c::Modules> for Modules {
    fn from(m: c::Modules) -> Modules {
        Modules::new(m.pilots, m.engines, m.weapons)
    }
}

impl Wire for Illegal {
    type Form = c::IllegalAnswer;

    fn to_wire(&self) -> c::IllegalAnswer {
        let (reason, card, distance) = match *self {
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

    fn from_wire(i: &c::IllegalAnswer) -> Result<Illegal, ValueError> {
        let card = i.card.unwrap_or(0);
        let distance = i.distance.unwrap_or(0);
        Ok(match i.reason {
            c::IllegalReason::Empty => Illegal::Empty,
            c::IllegalReason::NotACard => Illegal::NotACard(card),
            c::IllegalReason::NotHeld => Illegal::NotHeld(card),
            c::IllegalReason::TooFar => Illegal::TooFar { card, distance },
            c::IllegalReason::OutOfReach => Illegal::OutOfReach {
                value: card,
                distance,
            },
            c::IllegalReason::BadShape => Illegal::BadShape,
        })
    }
}

wire_struct!(Bonus => c::Bonus { kind, value, teams, cars, points });
