//! The grid of a card: 3 to 9 cells per side, cells numbered row by row from 0, and an
//! optional free centre (odd sizes only). Sets of cells are bit masks ([`CellMask`]): a 9×9
//! grid has 81 cells, which fit in a `u128`.

use super::config_error::ConfigError;
use super::limits::{MAX_GRID, MIN_GRID};

/// A set of cells of one grid: bit `n` is cell `n`.
pub type CellMask = u128;

/// The bit of one cell.
pub fn bit(cell: u8) -> CellMask {
    1u128 << cell
}

/// The cells of a mask, in increasing order.
pub fn cells_of(mask: CellMask) -> Vec<u8> {
    (0..128u8).filter(|&c| mask & bit(c) != 0).collect()
}

/// The shape of a game's cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    size: u8,
    free_centre: bool,
}

impl Grid {
    /// A grid of `size` cells per side. `free_centre` absent means: free centre when the size is
    /// odd. An even grid has no centre cell, so asking for one is refused.
    pub fn new(size: u32, free_centre: Option<bool>) -> Result<Grid, ConfigError> {
        if !(MIN_GRID..=MAX_GRID).contains(&size) {
            return Err(ConfigError::GridSize(size));
        }
        let odd = size % 2 == 1;
        let free_centre = match free_centre {
            None => odd,
            Some(true) if !odd => return Err(ConfigError::FreeCentreOnEvenGrid(size)),
            Some(wanted) => wanted,
        };
        // `size` is at most 9 here.
        Ok(Grid {
            size: size as u8,
            free_centre,
        })
    }

    /// Cells per side.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// Whether the centre cell is free.
    pub fn has_free_centre(&self) -> bool {
        self.free_centre
    }

    /// Number of cells (size²).
    pub fn cells(&self) -> u8 {
        self.size * self.size
    }

    /// The free centre cell, if the grid has one.
    pub fn free_cell(&self) -> Option<u8> {
        self.free_centre.then(|| self.cells() / 2)
    }

    /// How many squares a card draws: every cell but the free centre.
    pub fn draws(&self) -> usize {
        usize::from(self.cells()) - usize::from(self.free_centre)
    }

    /// The cell of the `draw`-th drawn square (draws fill the cells in order, around the free
    /// centre).
    pub fn cell_of_draw(&self, draw: usize) -> u8 {
        let cell = draw as u8;
        match self.free_cell() {
            Some(free) if cell >= free => cell + 1,
            _ => cell,
        }
    }

    /// The mask of the free centre (empty without one): ticked on every card.
    pub fn free_mask(&self) -> CellMask {
        self.free_cell().map_or(0, bit)
    }

    /// Every cell.
    pub fn full(&self) -> CellMask {
        (0..self.cells()).fold(0, |m, c| m | bit(c))
    }

    /// Each row, top to bottom.
    pub fn rows(&self) -> Vec<CellMask> {
        let n = self.size;
        (0..n)
            .map(|r| (0..n).fold(0, |m, c| m | bit(r * n + c)))
            .collect()
    }

    /// Each column, left to right.
    pub fn columns(&self) -> Vec<CellMask> {
        let n = self.size;
        (0..n)
            .map(|c| (0..n).fold(0, |m, r| m | bit(r * n + c)))
            .collect()
    }

    /// The two diagonals: top left to bottom right, then top right to bottom left.
    pub fn diagonals(&self) -> Vec<CellMask> {
        let n = self.size;
        let down = (0..n).fold(0, |m, i| m | bit(i * n + i));
        let up = (0..n).fold(0, |m, i| m | bit(i * n + (n - 1 - i)));
        vec![down, up]
    }

    /// The four corners.
    pub fn corners(&self) -> CellMask {
        let n = self.size;
        bit(0) | bit(n - 1) | bit(n * (n - 1)) | bit(n * n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_outside_three_to_nine_are_refused() {
        assert_eq!(Grid::new(2, None), Err(ConfigError::GridSize(2)));
        assert_eq!(Grid::new(10, None), Err(ConfigError::GridSize(10)));
        assert!(Grid::new(3, None).is_ok());
        assert!(Grid::new(9, None).is_ok());
    }

    #[test]
    fn odd_grids_have_a_free_centre_by_default_and_even_ones_none() {
        assert_eq!(Grid::new(5, None).unwrap().free_cell(), Some(12));
        assert_eq!(Grid::new(3, None).unwrap().free_cell(), Some(4));
        assert_eq!(Grid::new(4, None).unwrap().free_cell(), None);
        assert_eq!(Grid::new(5, Some(false)).unwrap().free_cell(), None);
        assert_eq!(
            Grid::new(4, Some(true)),
            Err(ConfigError::FreeCentreOnEvenGrid(4))
        );
    }

    #[test]
    fn draws_fill_every_cell_but_the_free_centre_in_order() {
        let grid = Grid::new(5, None).unwrap();
        assert_eq!(grid.draws(), 24);
        let cells: Vec<u8> = (0..24).map(|d| grid.cell_of_draw(d)).collect();
        assert_eq!(cells, (0..25).filter(|&c| c != 12).collect::<Vec<u8>>());
        assert_eq!(Grid::new(4, None).unwrap().draws(), 16);
        assert_eq!(Grid::new(9, None).unwrap().draws(), 80);
    }

    #[test]
    fn lines_and_corners_are_numbered_row_by_row() {
        let grid = Grid::new(3, None).unwrap();
        assert_eq!(cells_of(grid.rows()[1]), vec![3, 4, 5]);
        assert_eq!(cells_of(grid.columns()[2]), vec![2, 5, 8]);
        assert_eq!(cells_of(grid.diagonals()[0]), vec![0, 4, 8]);
        assert_eq!(cells_of(grid.diagonals()[1]), vec![2, 4, 6]);
        assert_eq!(cells_of(grid.corners()), vec![0, 2, 6, 8]);
        assert_eq!(cells_of(Grid::new(9, None).unwrap().full()).len(), 81);
    }
}
