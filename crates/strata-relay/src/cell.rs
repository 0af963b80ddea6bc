//! Cells of the 5 × 5 board and sets of cells as 25-bit masks (bit `y*5 + x`).

use std::fmt;

/// Width and depth of the board.
pub const SIZE: u8 = 5;
/// Number of columns (cells) of the board.
pub const CELLS: usize = 25;
/// Mask of every cell.
pub(crate) const ALL: u32 = (1 << CELLS) - 1;
/// Cells of the left edge (x = 0).
pub(crate) const LEFT_EDGE: u32 = column_mask(0);
/// Cells of the right edge (x = 4).
pub(crate) const RIGHT_EDGE: u32 = column_mask(4);

const fn column_mask(x: u32) -> u32 {
    let mut mask = 0;
    let mut y = 0;
    while y < 5 {
        mask |= 1 << (y * 5 + x);
        y += 1;
    }
    mask
}

/// The cell itself and its orthogonal neighbours inside the board, for each cell index.
pub(crate) const CROSS: [u32; CELLS] = {
    let mut table = [0u32; CELLS];
    let mut i = 0;
    while i < CELLS {
        let bit = 1u32 << i;
        table[i] = bit | neighbours_of(bit);
        i += 1;
    }
    table
};

/// The orthogonal neighbours of every cell of `mask`, inside the board.
pub(crate) const fn neighbours_of(mask: u32) -> u32 {
    let right = (mask << 1) & !LEFT_EDGE;
    let left = (mask >> 1) & !RIGHT_EDGE;
    let down = mask << 5;
    let up = mask >> 5;
    (right | left | down | up) & ALL
}

/// A column of the board: `x` is the column 0–4 from left to right, `y` the row 0–4.
///
/// A `Cell` may name a position outside the board (e.g. decoded from input); the rules treat
/// such a cell like stone (a pulse there is refused as `immutable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Column, 0–4 from left to right.
    pub x: u8,
    /// Row, 0–4.
    pub y: u8,
}

impl Cell {
    /// The cell at `(x, y)`; any coordinates, inside the board or not.
    pub const fn new(x: u8, y: u8) -> Self {
        Cell { x, y }
    }

    /// Whether the cell is on the board.
    pub const fn is_inside(self) -> bool {
        self.x < SIZE && self.y < SIZE
    }

    /// Its index `y*5 + x`, if it is on the board.
    pub const fn index(self) -> Option<usize> {
        if self.is_inside() {
            Some(self.y as usize * 5 + self.x as usize)
        } else {
            None
        }
    }

    /// The cell at an index `0..25`.
    pub const fn from_index(index: usize) -> Option<Self> {
        if index < CELLS {
            Some(Cell {
                x: (index % 5) as u8,
                y: (index / 5) as u8,
            })
        } else {
            None
        }
    }

    pub(crate) const fn from_index_unchecked(index: u32) -> Self {
        Cell {
            x: (index % 5) as u8,
            y: (index / 5) as u8,
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// A set of board cells, iterated in index order (row by row, left to right).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CellSet(pub(crate) u32);

impl CellSet {
    /// The empty set.
    pub const EMPTY: CellSet = CellSet(0);

    /// Number of cells in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the cell is in the set (never, for a cell outside the board).
    pub const fn contains(self, cell: Cell) -> bool {
        match cell.index() {
            Some(i) => self.0 & (1 << i) != 0,
            None => false,
        }
    }

    /// The set as a 25-bit mask, bit `y*5 + x`.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The cells, in index order.
    pub fn iter(self) -> CellIter {
        CellIter(self.0)
    }
}

impl IntoIterator for CellSet {
    type Item = Cell;
    type IntoIter = CellIter;
    fn into_iter(self) -> CellIter {
        CellIter(self.0)
    }
}

/// Iterator over a [`CellSet`], in index order.
#[derive(Debug, Clone)]
pub struct CellIter(u32);

impl Iterator for CellIter {
    type Item = Cell;
    fn next(&mut self) -> Option<Cell> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Cell::from_index_unchecked(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CellIter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_of_a_corner_has_three_cells_and_of_the_centre_five() {
        assert_eq!(CROSS[0].count_ones(), 3);
        assert_eq!(CROSS[12].count_ones(), 5);
        assert_eq!(
            CROSS[4],
            (1 << 4) | (1 << 3) | (1 << 9),
            "no wrap to the next row"
        );
        assert_eq!(
            CROSS[5],
            (1 << 5) | (1 << 6) | (1 << 0) | (1 << 10),
            "no wrap back"
        );
    }

    #[test]
    fn index_is_row_major() {
        assert_eq!(Cell::new(3, 2).index(), Some(13));
        assert_eq!(Cell::from_index(13), Some(Cell::new(3, 2)));
        assert_eq!(Cell::new(5, 0).index(), None);
        assert_eq!(Cell::from_index(25), None);
    }
}
