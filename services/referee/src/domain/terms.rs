//! The vocabulary of a foosball table: sides, ball kinds, phases, scores and ball-lock states
//! are the contract's own (`arcade_contracts::table`, with their names and `Display`); both
//! ball returns together ([`Ibr`]) are the referee's.

pub use arcade_contracts::table::{BallKind, IbrLock, Phase, Score, Side};
use serde::{Deserialize, Serialize};

/// Both sides' ball returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ibr {
    /// The hinge side's ball return.
    pub hinge: IbrLock,
    /// The lock side's ball return.
    pub lock: IbrLock,
}

impl Ibr {
    /// The hinge side's ball return, then the lock side's.
    pub const fn new(hinge: IbrLock, lock: IbrLock) -> Ibr {
        Ibr { hinge, lock }
    }

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
