//! Win patterns: 1 to 16 per game, checked in order; the first whose cells are all ticked
//! names the win. Each pattern is a list of cell sets (masks); it matches when one set is
//! complete. The free centre is part of the ticked cells the caller passes in.

use std::collections::HashSet;

use super::config_error::ConfigError;
use super::grid::{CellMask, Grid, bit};
use super::limits::{MAX_CELL_SETS, MAX_PATTERN_NAME_BYTES, MAX_PATTERNS};

/// A kind of pattern, as the organiser names it (any full row, column, either diagonal, every
/// cell, the four corners, a line, or any one of its own 1 to 64 cell sets under its own name):
/// the contract's type, the same thing.
pub use arcade_contracts::bingo::PatternSpec as PatternKind;

/// A checked pattern with its cell sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    kind: PatternKind,
    sets: Vec<CellMask>,
}

impl Pattern {
    /// Its kind, as given.
    pub fn kind(&self) -> &PatternKind {
        &self.kind
    }

    /// The name a win with it carries.
    pub fn name(&self) -> &str {
        self.kind.name()
    }

    /// Its cell sets, in the order they are checked.
    pub fn sets(&self) -> &[CellMask] {
        &self.sets
    }
}

/// Which pattern, and which of its cell sets, a card completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatternMatch {
    /// Index of the pattern in the game's order.
    pub pattern: usize,
    /// The complete cell set.
    pub cells: CellMask,
}

/// A game's patterns, in the order they are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patterns(Vec<Pattern>);

impl Patterns {
    /// Checks 1 to 16 patterns against the grid.
    pub fn new(kinds: &[PatternKind], grid: &Grid) -> Result<Patterns, ConfigError> {
        if kinds.is_empty() || kinds.len() > MAX_PATTERNS {
            return Err(ConfigError::PatternCount(kinds.len()));
        }
        let mut names = HashSet::new();
        let mut patterns = Vec::with_capacity(kinds.len());
        for (i, kind) in kinds.iter().enumerate() {
            let name = kind.name();
            if let PatternKind::Custom { .. } = kind
                && (name.is_empty() || name.len() > MAX_PATTERN_NAME_BYTES)
            {
                return Err(ConfigError::PatternNameLength {
                    position: i + 1,
                    len: name.len(),
                });
            }
            if !names.insert(name.to_string()) {
                return Err(ConfigError::DuplicatePatternName(name.to_string()));
            }
            let sets = sets_of(kind, grid)?;
            patterns.push(Pattern {
                kind: kind.clone(),
                sets,
            });
        }
        Ok(Patterns(patterns))
    }

    /// The patterns, in order.
    pub fn all(&self) -> &[Pattern] {
        &self.0
    }

    /// The pattern at an index.
    pub fn get(&self, index: usize) -> Option<&Pattern> {
        self.0.get(index)
    }

    /// The kinds, as given (to put them back on the wire).
    pub fn kinds(&self) -> Vec<PatternKind> {
        self.0.iter().map(|p| p.kind.clone()).collect()
    }

    /// The first pattern (in order) with a complete cell set, and that set (the first complete
    /// one of the pattern). `ticked` must include the free centre.
    pub fn first_match(&self, ticked: CellMask) -> Option<PatternMatch> {
        self.0.iter().enumerate().find_map(|(pattern, p)| {
            p.sets
                .iter()
                .find(|&&set| set & ticked == set)
                .map(|&cells| PatternMatch { pattern, cells })
        })
    }
}

fn sets_of(kind: &PatternKind, grid: &Grid) -> Result<Vec<CellMask>, ConfigError> {
    Ok(match kind {
        PatternKind::Row => grid.rows(),
        PatternKind::Column => grid.columns(),
        PatternKind::Diagonal => grid.diagonals(),
        PatternKind::FullCard => vec![grid.full()],
        PatternKind::FourCorners => vec![grid.corners()],
        PatternKind::Line => {
            let mut sets = grid.rows();
            sets.extend(grid.columns());
            sets.extend(grid.diagonals());
            sets
        }
        PatternKind::Custom { name, cell_sets } => custom_sets(name, cell_sets, grid)?,
    })
}

fn custom_sets(
    name: &str,
    cell_sets: &[Vec<u8>],
    grid: &Grid,
) -> Result<Vec<CellMask>, ConfigError> {
    if cell_sets.is_empty() || cell_sets.len() > MAX_CELL_SETS {
        return Err(ConfigError::CellSetCount {
            name: name.to_string(),
            count: cell_sets.len(),
        });
    }
    let mut sets = Vec::with_capacity(cell_sets.len());
    for (i, cells) in cell_sets.iter().enumerate() {
        let set = i + 1;
        if cells.is_empty() {
            return Err(ConfigError::EmptyCellSet {
                name: name.to_string(),
                set,
            });
        }
        let mut mask = 0;
        for &cell in cells {
            if cell >= grid.cells() {
                return Err(ConfigError::CellOutsideGrid {
                    name: name.to_string(),
                    set,
                    cell: u32::from(cell),
                    size: grid.size(),
                    last: grid.cells() - 1,
                });
            }
            mask |= bit(cell);
        }
        if mask == grid.free_mask() {
            return Err(ConfigError::OnlyFreeCentre {
                name: name.to_string(),
                set,
            });
        }
        sets.push(mask);
    }
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::grid::cells_of;

    fn mask(cells: &[u8]) -> CellMask {
        cells.iter().fold(0, |m, &c| m | bit(c))
    }

    #[test]
    fn the_first_pattern_in_order_names_the_win() {
        let grid = Grid::new(5, None).unwrap();
        let kinds = [PatternKind::FourCorners, PatternKind::Row];
        let patterns = Patterns::new(&kinds, &grid).unwrap();
        // Top row complete: it holds two corners, but not all four.
        let top = mask(&[0, 1, 2, 3, 4]) | grid.free_mask();
        let m = patterns.first_match(top).unwrap();
        assert_eq!((m.pattern, cells_of(m.cells)), (1, vec![0, 1, 2, 3, 4]));
        // Top and bottom rows: both patterns complete, four corners comes first.
        let both = top | mask(&[20, 21, 22, 23, 24]);
        assert_eq!(patterns.first_match(both).unwrap().pattern, 0);
        assert_eq!(patterns.first_match(grid.free_mask()), None);
    }

    #[test]
    fn the_free_centre_completes_the_middle_row_with_four_ticks() {
        let grid = Grid::new(5, None).unwrap();
        let patterns = Patterns::new(&[PatternKind::Line], &grid).unwrap();
        let m = patterns
            .first_match(mask(&[10, 11, 13, 14]) | grid.free_mask())
            .unwrap();
        assert_eq!(cells_of(m.cells), vec![10, 11, 12, 13, 14]);
        assert_eq!(patterns.first_match(mask(&[10, 11, 13, 14])), None);
    }

    #[test]
    fn line_matches_rows_columns_and_diagonals() {
        let grid = Grid::new(4, None).unwrap();
        let patterns = Patterns::new(&[PatternKind::Line], &grid).unwrap();
        assert!(patterns.first_match(mask(&[1, 5, 9, 13])).is_some());
        assert!(patterns.first_match(mask(&[3, 6, 9, 12])).is_some());
        assert!(patterns.first_match(mask(&[4, 5, 6, 7])).is_some());
        assert!(patterns.first_match(mask(&[0, 5, 10, 14])).is_none());
    }

    #[test]
    fn pattern_limits_are_refused_with_reasons() {
        let grid = Grid::new(5, None).unwrap();
        assert_eq!(Patterns::new(&[], &grid), Err(ConfigError::PatternCount(0)));
        let seventeen: Vec<PatternKind> = (0..17)
            .map(|i| PatternKind::Custom {
                name: format!("p{i}"),
                cell_sets: vec![vec![0]],
            })
            .collect();
        assert_eq!(
            Patterns::new(&seventeen, &grid),
            Err(ConfigError::PatternCount(17))
        );
        assert!(Patterns::new(&seventeen[..16], &grid).is_ok());
        assert_eq!(
            Patterns::new(&[PatternKind::Row, PatternKind::Row], &grid),
            Err(ConfigError::DuplicatePatternName("row".into()))
        );
    }

    #[test]
    fn custom_pattern_limits_are_refused_with_reasons() {
        let grid = Grid::new(5, None).unwrap();
        let custom = |name: &str, cell_sets: Vec<Vec<u8>>| {
            Patterns::new(
                &[PatternKind::Custom {
                    name: name.into(),
                    cell_sets,
                }],
                &grid,
            )
        };
        assert_eq!(
            custom("", vec![vec![0]]),
            Err(ConfigError::PatternNameLength {
                position: 1,
                len: 0
            })
        );
        assert_eq!(
            custom(&"x".repeat(65), vec![vec![0]]),
            Err(ConfigError::PatternNameLength {
                position: 1,
                len: 65
            })
        );
        assert!(custom(&"x".repeat(64), vec![vec![0]]).is_ok());
        assert_eq!(
            custom("c", vec![]),
            Err(ConfigError::CellSetCount {
                name: "c".into(),
                count: 0
            })
        );
        assert_eq!(
            custom("c", vec![vec![0]; 65]),
            Err(ConfigError::CellSetCount {
                name: "c".into(),
                count: 65
            })
        );
        assert!(custom("c", vec![vec![0]; 64]).is_ok());
        assert_eq!(
            custom("c", vec![vec![0], vec![]]),
            Err(ConfigError::EmptyCellSet {
                name: "c".into(),
                set: 2
            })
        );
        assert_eq!(
            custom("c", vec![vec![0, 25]]),
            Err(ConfigError::CellOutsideGrid {
                name: "c".into(),
                set: 1,
                cell: 25,
                size: 5,
                last: 24
            })
        );
        assert_eq!(
            custom("c", vec![vec![12, 12]]),
            Err(ConfigError::OnlyFreeCentre {
                name: "c".into(),
                set: 1
            })
        );
    }

    #[test]
    fn the_source_cross_matches_its_nine_cells() {
        let grid = Grid::new(5, None).unwrap();
        let cross = PatternKind::Custom {
            name: "cross".into(),
            cell_sets: vec![vec![2, 7, 10, 11, 12, 13, 14, 17, 22]],
        };
        let patterns = Patterns::new(&[cross], &grid).unwrap();
        let ticked = mask(&[2, 7, 10, 11, 13, 14, 17, 22]) | grid.free_mask();
        assert_eq!(patterns.first_match(ticked).map(|m| m.pattern), Some(0));
        assert_eq!(patterns.first_match(ticked & !bit(22)), None);
        assert_eq!(patterns.get(0).unwrap().name(), "cross");
    }
}
