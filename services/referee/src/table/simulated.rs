//! A simulated table: balls from a script or from a seeded generator, ball locks recorded.

use std::collections::VecDeque;
use std::convert::Infallible;

use super::{Ball, BallLocks, GoalSensors};
use crate::domain::{BallKind, IbrLock, Side};

#[derive(Debug, Clone)]
enum Source {
    Script(VecDeque<Ball>),
    Random { state: u64 },
}

/// A table in memory. Its sensors give the scripted balls in order (then none), or an endless
/// seeded sequence (the same seed always gives the same balls); its locks record every write.
#[derive(Debug, Clone)]
pub struct SimulatedTable {
    source: Source,
    locks: [Option<IbrLock>; 2],
    writes: Vec<(Side, IbrLock)>,
}

impl SimulatedTable {
    /// A table whose sensors see exactly these balls, in order.
    pub fn scripted(balls: impl IntoIterator<Item = Ball>) -> SimulatedTable {
        SimulatedTable::with(Source::Script(balls.into_iter().collect()))
    }

    /// A table whose sensors see random balls drawn from `seed`: either side with equal
    /// chance, one ball in five an `inout`.
    pub fn random(seed: u64) -> SimulatedTable {
        SimulatedTable::with(Source::Random { state: seed })
    }

    fn with(source: Source) -> SimulatedTable {
        SimulatedTable {
            source,
            locks: [None; 2],
            writes: Vec::new(),
        }
    }

    /// The current state of one side's ball return; `None` before the first write.
    pub fn lock(&self, side: Side) -> Option<IbrLock> {
        self.locks[side as usize]
    }

    /// Every lock write so far, in order.
    pub fn writes(&self) -> &[(Side, IbrLock)] {
        &self.writes
    }
}

impl GoalSensors for SimulatedTable {
    type Error = Infallible;
    fn poll_ball(&mut self) -> Result<Option<Ball>, Infallible> {
        Ok(match &mut self.source {
            Source::Script(balls) => balls.pop_front(),
            Source::Random { state } => {
                let draw = splitmix64(state);
                let side = if draw & 1 == 0 {
                    Side::Hinge
                } else {
                    Side::Lock
                };
                let kind = if (draw >> 1).is_multiple_of(5) {
                    BallKind::Inout
                } else {
                    BallKind::Goal
                };
                Some(Ball { side, kind })
            }
        })
    }
}

impl BallLocks for SimulatedTable {
    type Error = Infallible;
    fn set_lock(&mut self, side: Side, lock: IbrLock) -> Result<(), Infallible> {
        self.locks[side as usize] = Some(lock);
        self.writes.push((side, lock));
        Ok(())
    }
}

/// SplitMix64: tiny, and stable forever (the demo's games replay from their seed).
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
