//! The vocabulary of a foosball table: sides, ball kinds, phases, scores, ball-lock states.

use std::fmt;

/// A word of the vocabulary, an enum without data: `ALL` its values in order, `name` as rules
/// documents and the wire spell it (also its `Display`), `index` its position in `ALL`.
macro_rules! vocabulary {
    ($ty:ident, $all:literal { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            #[doc = $all]
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// The name used in rules documents and on the wire.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }

            pub(crate) fn index(self) -> usize {
                self as usize
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// A side of the table. The source names them after the table's hardware: `hinge` and `lock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The hinge side.
    Hinge,
    /// The lock side.
    Lock,
}

vocabulary!(Side, "Both sides, hinge first." {
    Hinge => "hinge",
    Lock => "lock",
});

impl Side {
    /// The opponent.
    pub fn other(self) -> Side {
        match self {
            Side::Hinge => Side::Lock,
            Side::Lock => Side::Hinge,
        }
    }
}

/// How a ball went in: a plain `goal`, or an `inout` (in and back out, counted by the sensors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BallKind {
    /// A plain goal.
    Goal,
    /// A ball that went in and came back out.
    Inout,
}

vocabulary!(BallKind, "Both kinds, goal first." {
    Goal => "goal",
    Inout => "inout",
});

/// The phase of a game; each has its own conditions and goal strengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// Normal play.
    Default,
    /// Entered from `default` when `conditions.tie_break.start_rule` holds for either side.
    TieBreak,
    /// Entered when the game clock reaches `timeout_s`.
    Timeout,
}

vocabulary!(Phase, "Every phase, in the order of the rules document." {
    Default => "default",
    TieBreak => "tie_break",
    Timeout => "timeout",
});

/// Both sides' scores. Never negative: every change is floored at 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Score {
    /// The hinge side's score.
    pub hinge: i64,
    /// The lock side's score.
    pub lock: i64,
}

impl Score {
    /// A score.
    pub fn new(hinge: i64, lock: i64) -> Score {
        Score { hinge, lock }
    }

    /// The score of one side.
    pub fn of(&self, side: Side) -> i64 {
        match side {
            Side::Hinge => self.hinge,
            Side::Lock => self.lock,
        }
    }

    /// Adds `points` (possibly negative) to one side, floored at 0.
    pub fn add(&mut self, side: Side, points: i64) {
        let slot = match side {
            Side::Hinge => &mut self.hinge,
            Side::Lock => &mut self.lock,
        };
        *slot = slot.saturating_add(points).max(0);
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hinge {} – lock {}", self.hinge, self.lock)
    }
}

/// The state of one side's ball return (IBR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IbrLock {
    /// The ball is kept: the next ball of this side could end the game (or it has ended).
    Locked,
    /// The ball is given back.
    Released,
}

impl IbrLock {
    /// The name used on the wire and in the replay tool.
    pub fn name(self) -> &'static str {
        match self {
            IbrLock::Locked => "locked",
            IbrLock::Released => "released",
        }
    }
}

impl fmt::Display for IbrLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Both sides' ball returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ibr {
    /// The hinge side's ball return.
    pub hinge: IbrLock,
    /// The lock side's ball return.
    pub lock: IbrLock,
}

impl Ibr {
    /// Both ball returns locked (after a win).
    pub const LOCKED: Ibr = Ibr {
        hinge: IbrLock::Locked,
        lock: IbrLock::Locked,
    };
    /// Both ball returns released.
    pub const RELEASED: Ibr = Ibr {
        hinge: IbrLock::Released,
        lock: IbrLock::Released,
    };

    /// One side's ball return.
    pub fn of(&self, side: Side) -> IbrLock {
        match side {
            Side::Hinge => self.hinge,
            Side::Lock => self.lock,
        }
    }
}
