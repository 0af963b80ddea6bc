//! Building a board cell by cell (tests, tools, replays), with errors naming the bad cell.

use super::cell::{CELLS, Cell, LEFT_EDGE, RIGHT_EDGE};
use super::state::State;

/// A board described cell by cell, to build a [`State`] (tests, tools, replays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Level 0–2 of each cell, index `y*5 + x`.
    pub levels: [u8; CELLS],
    /// Whether each cell is immutable stone.
    pub immutable: [bool; CELLS],
    /// The source anchor, on the left edge.
    pub source: Cell,
    /// The target anchor, on the right edge.
    pub target: Cell,
    /// Pulses left.
    pub moves_left: u8,
}

/// Why a [`Layout`] is not a board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A level is not 0, 1 or 2.
    #[error("cell {cell} has level {level}; levels are 0, 1 or 2")]
    LevelOutOfRange {
        /// The offending cell.
        cell: Cell,
        /// Its level.
        level: u8,
    },
    /// The source is not a cell of the left edge (x = 0).
    #[error("the source {0} is not on the left edge (x = 0)")]
    SourceNotOnLeftEdge(Cell),
    /// The target is not a cell of the right edge (x = 4).
    #[error("the target {0} is not on the right edge (x = 4)")]
    TargetNotOnRightEdge(Cell),
    /// An anchor is mutable ground.
    #[error("the anchor {0} must be immutable")]
    MutableAnchor(Cell),
}

impl State {
    /// Builds a state from a cell-by-cell layout; turn 0, won/failed derived from the board.
    pub fn from_layout(layout: &Layout) -> Result<State, LayoutError> {
        let (mut resonant, mut high, mut immutable) = (0u32, 0u32, 0u32);
        for index in 0..CELLS {
            let bit = 1 << index;
            match layout.levels[index] {
                0 => {}
                1 => resonant |= bit,
                2 => high |= bit,
                level => {
                    let cell = Cell::from_index_unchecked(index as u32);
                    return Err(LayoutError::LevelOutOfRange { cell, level });
                }
            }
            if layout.immutable[index] {
                immutable |= bit;
            }
        }
        let source = match layout.source.index() {
            Some(i) if LEFT_EDGE & (1 << i) != 0 => i as u8,
            _ => return Err(LayoutError::SourceNotOnLeftEdge(layout.source)),
        };
        let target = match layout.target.index() {
            Some(i) if RIGHT_EDGE & (1 << i) != 0 => i as u8,
            _ => return Err(LayoutError::TargetNotOnRightEdge(layout.target)),
        };
        for (anchor, index) in [(layout.source, source), (layout.target, target)] {
            if immutable & (1 << index) == 0 {
                return Err(LayoutError::MutableAnchor(anchor));
            }
        }
        Ok(State::from_masks(
            resonant,
            high,
            immutable,
            source,
            target,
            layout.moves_left,
        ))
    }
}
