//! The board state and the turn rule: a pulse advances a local cross of columns, then the signal
//! is recomputed by a bounded flood fill over resonant cells.

use super::cell::{ALL, CELLS, CROSS, Cell, CellSet, neighbours_of};

/// The resonant level (height 3): the signal travels over it.
pub const RESONANT_LEVEL: u8 = 1;
/// The highest level; a pulse on it wraps to level 0 (the peak fractures).
pub const MAX_LEVEL: u8 = 2;

/// The physical height of a level: 0, 1, 2 → 1, 3, 5 voxels.
pub const fn physical_height(level: u8) -> u8 {
    1 + 2 * level
}

const WON: u8 = 1;
const FAILED: u8 = 2;
const NO_CELL: u8 = u8::MAX;

/// The authoritative board: 25 ternary levels and 25 immutable flags packed in three 25-bit
/// masks, the two anchors and the turn metadata. `Copy`, 20 bytes: a pulse returns a new state.
///
/// Levels are stored as two bit planes: `resonant` has the cells at level 1, `high` the cells
/// at level 2; a cell in neither is at level 0. Resonance and charge are derived, not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    resonant: u32,
    high: u32,
    immutable: u32,
    source: u8,
    target: u8,
    moves_left: u8,
    turn: u8,
    last_cell: u8,
    flags: u8,
}

/// Why a pulse was refused; a refused pulse changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PulseRefused {
    /// The game is already won or failed.
    #[error("finished: the game is already {}", if *won { "won" } else { "failed" })]
    Finished {
        /// Whether it ended won (else failed).
        won: bool,
    },
    /// The cell is stone, an anchor, or outside the board.
    #[error("immutable: cell {cell} is stone, an anchor or outside the board")]
    Immutable {
        /// The refused cell.
        cell: Cell,
    },
}

impl PulseRefused {
    /// The source's error word: `finished` or `immutable`.
    pub fn code(&self) -> &'static str {
        match self {
            PulseRefused::Finished { .. } => "finished",
            PulseRefused::Immutable { .. } => "immutable",
        }
    }
}

/// One changed column, for the view to animate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// The column.
    pub cell: Cell,
    /// Physical height before the pulse (1, 3 or 5).
    pub before: u8,
    /// Physical height after the pulse.
    pub after: u8,
}

/// The columns a pulse changed (at most five), iterated in index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changes {
    mask: u32,
    resonant_before: u32,
    high_before: u32,
}

impl Changes {
    /// The changed cells.
    pub fn cells(&self) -> CellSet {
        CellSet(self.mask)
    }

    /// Number of changed columns, 1–5.
    pub fn len(&self) -> usize {
        self.mask.count_ones() as usize
    }

    /// Always false: an accepted pulse changes at least the pulsed cell.
    pub fn is_empty(&self) -> bool {
        self.mask == 0
    }

    /// Each changed column with its heights before and after.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Change> + '_ {
        CellSet(self.mask).iter().map(move |cell| {
            let bit = 1 << (cell.y as u32 * 5 + cell.x as u32);
            let before = level_of(self.resonant_before, self.high_before, bit);
            Change {
                cell,
                before: physical_height(before),
                after: physical_height((before + 1) % 3),
            }
        })
    }
}

/// An accepted pulse: the next state and what changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pulsed {
    /// The state after the pulse.
    pub state: State,
    /// The changed columns.
    pub changes: Changes,
}

fn level_of(resonant: u32, high: u32, bit: u32) -> u8 {
    if resonant & bit != 0 {
        1
    } else if high & bit != 0 {
        2
    } else {
        0
    }
}

/// Advances every cell of `mask` by one level (0 → 1 → 2 → 0) on the two bit planes.
#[inline]
pub(crate) const fn advance(resonant: u32, high: u32, mask: u32) -> (u32, u32) {
    let low = !(resonant | high);
    (
        (resonant & !mask) | (low & mask),
        (high & !mask) | (resonant & mask),
    )
}

/// The connected component of resonant cells containing the source (empty if the source is
/// not resonant). At most 25 dilation steps; each step is a handful of mask operations.
#[inline]
pub(crate) const fn charged_mask(resonant: u32, source: u8) -> u32 {
    let mut found = (1u32 << source) & resonant;
    if found == 0 {
        return 0;
    }
    loop {
        let grown = (found | neighbours_of(found)) & resonant;
        if grown == found {
            return found;
        }
        found = grown;
    }
}

impl State {
    /// Builds a state from masks the generator already checked.
    pub(crate) fn from_masks(
        resonant: u32,
        high: u32,
        immutable: u32,
        source: u8,
        target: u8,
        moves_left: u8,
    ) -> State {
        let mut state = State {
            resonant: resonant & ALL,
            high: high & ALL & !resonant,
            immutable: immutable & ALL,
            source,
            target,
            moves_left,
            turn: 0,
            last_cell: NO_CELL,
            flags: 0,
        };
        state.settle();
        state
    }

    /// Recomputes won and failed from the board and the budget.
    #[inline]
    fn settle(&mut self) {
        let won = charged_mask(self.resonant, self.source) & (1 << self.target) != 0;
        self.flags = if won {
            WON
        } else if self.moves_left == 0 {
            FAILED
        } else {
            0
        };
    }

    /// Applies a pulse at `cell`: advances the level of the cell and of its mutable orthogonal
    /// neighbours, spends one move, counts one turn, recomputes the signal and the end.
    ///
    /// Refused, changing nothing, after the end (`finished`, checked first as in the source)
    /// and on stone, an anchor or a cell outside the board (`immutable`).
    #[inline]
    pub fn pulse(&self, cell: Cell) -> Result<Pulsed, PulseRefused> {
        if self.flags != 0 {
            return Err(PulseRefused::Finished {
                won: self.flags & WON != 0,
            });
        }
        let index = match cell.index() {
            Some(i) if self.immutable & (1 << i) == 0 => i,
            _ => return Err(PulseRefused::Immutable { cell }),
        };
        let mask = CROSS[index] & !self.immutable;
        let mut next = *self;
        (next.resonant, next.high) = advance(self.resonant, self.high, mask);
        next.moves_left = self.moves_left.saturating_sub(1);
        next.turn = self.turn.saturating_add(1);
        next.last_cell = index as u8;
        next.settle();
        let changes = Changes {
            mask,
            resonant_before: self.resonant,
            high_before: self.high,
        };
        Ok(Pulsed {
            state: next,
            changes,
        })
    }

    /// The cells a pulse at `cell` would change (empty if it would be refused as `immutable`).
    pub fn affected_cells(&self, cell: Cell) -> CellSet {
        match cell.index() {
            Some(i) if self.immutable & (1 << i) == 0 => CellSet(CROSS[i] & !self.immutable),
            _ => CellSet::EMPTY,
        }
    }

    /// The level 0–2 of a cell, if it is on the board.
    pub fn level(&self, cell: Cell) -> Option<u8> {
        cell.index()
            .map(|i| level_of(self.resonant, self.high, 1 << i))
    }

    /// The physical height (1, 3 or 5) of a cell, if it is on the board.
    pub fn height(&self, cell: Cell) -> Option<u8> {
        self.level(cell).map(physical_height)
    }

    /// Every level, index `y*5 + x`.
    pub fn levels(&self) -> [u8; CELLS] {
        std::array::from_fn(|i| level_of(self.resonant, self.high, 1 << i))
    }

    /// Every immutable flag, index `y*5 + x`.
    pub fn immutable_flags(&self) -> [bool; CELLS] {
        std::array::from_fn(|i| self.immutable & (1 << i) != 0)
    }

    /// The immutable cells (anchors and stone).
    pub fn immutable_cells(&self) -> CellSet {
        CellSet(self.immutable)
    }

    /// The mutable cells (ground a pulse may target).
    pub fn mutable_cells(&self) -> CellSet {
        CellSet(!self.immutable & ALL)
    }

    /// The resonant cells (level 1).
    pub fn resonant_cells(&self) -> CellSet {
        CellSet(self.resonant)
    }

    /// The charged cells: resonant cells connected to the source through orthogonally adjacent
    /// resonant cells; empty if the source is not resonant.
    pub fn charged_cells(&self) -> CellSet {
        CellSet(charged_mask(self.resonant, self.source))
    }

    /// The source anchor (left edge).
    pub fn source(&self) -> Cell {
        Cell::from_index_unchecked(self.source as u32)
    }

    /// The target anchor (right edge).
    pub fn target(&self) -> Cell {
        Cell::from_index_unchecked(self.target as u32)
    }

    /// Pulses left.
    pub fn moves_left(&self) -> u8 {
        self.moves_left
    }

    /// Pulses played.
    pub fn turn(&self) -> u8 {
        self.turn
    }

    /// The cell of the last accepted pulse.
    pub fn last_cell(&self) -> Option<Cell> {
        Cell::from_index(self.last_cell as usize)
    }

    /// Whether the target is charged.
    pub fn is_won(&self) -> bool {
        self.flags & WON != 0
    }

    /// Whether no move is left and the target is not charged.
    pub fn is_failed(&self) -> bool {
        self.flags & FAILED != 0
    }

    /// Whether the game is over (won or failed): every further pulse is refused.
    pub fn is_finished(&self) -> bool {
        self.flags != 0
    }

    pub(crate) fn masks(&self) -> (u32, u32, u32) {
        (self.resonant, self.high, self.immutable)
    }
}
