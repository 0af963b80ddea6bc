//! Difficulty stages 1–5 and what each one adds.

use std::fmt;

/// A difficulty stage, 1 to 5:
///
/// 1. *First signal*: the three-state cycle, one shuffle pulse, a straight path.
/// 2. *Bent relay*: the path turns.
/// 3. *Bedrock*: two stone columns, one shuffle pulse crosses stone.
/// 4. *False echoes*: four shuffle pulses whose crosses overlap, four stones.
/// 5. *Deep strata*: five shuffle pulses with six stone columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Stage(u8);

/// A stage number outside 1–5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("stage {0} does not exist; stages are 1 to 5")]
pub struct StageOutOfRange(pub i64);

impl Stage {
    /// The first stage.
    pub const FIRST: Stage = Stage(1);
    /// The last stage.
    pub const LAST: Stage = Stage(5);
    /// Every stage, in order.
    pub const ALL: [Stage; 5] = [Stage(1), Stage(2), Stage(3), Stage(4), Stage(5)];

    /// The stage numbered `n`.
    pub fn new(n: i64) -> Result<Stage, StageOutOfRange> {
        if (1..=5).contains(&n) {
            Ok(Stage(n as u8))
        } else {
            Err(StageOutOfRange(n))
        }
    }

    /// Its number, 1–5.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// Its position in per-stage tables, 0–4.
    pub const fn index(self) -> usize {
        self.0 as usize - 1
    }

    /// How many shuffle pulses the generator applies: the stage number.
    pub const fn shuffle_pulses(self) -> u8 {
        self.0
    }

    /// The move limit of every puzzle of this stage: the witness length, two inverse pulses
    /// per shuffle pulse.
    pub const fn move_limit(self) -> u8 {
        2 * self.0
    }

    /// How many stone columns the generator places off the path: 0, 0, 2, 4, 6.
    pub const fn stones(self) -> u8 {
        [0, 0, 2, 4, 6][self.0 as usize - 1]
    }

    /// Whether the path bends (from stage 2).
    pub const fn bends(self) -> bool {
        self.0 >= 2
    }

    /// Whether one shuffle pulse crosses stone (from stage 3).
    pub const fn crosses_stone(self) -> bool {
        self.0 >= 3
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
