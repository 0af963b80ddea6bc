//! The constructive generator: `(seed, stage)` → a playable puzzle and its witness solution.
//! The algorithm and every choice it makes are described in the [`strata`](super) module docs.

use super::cell::{CELLS, CROSS, Cell, CellSet, neighbours_of};
use super::rng::SeedRng;
use super::stage::Stage;
use super::state::{State, advance};

/// How many candidates the generator draws before giving up on a seed. Measured over seeds
/// 0–199,999 at every stage: 83–93 % of seeds take the first candidate and none needs more
/// than 7 (a candidate is rejected with probability ≈ 0.15, so 64 rejections in a row has
/// probability ≈ 10⁻⁵³); the bound only keeps generation total.
pub const MAX_ATTEMPTS: u8 = 64;

/// The longest witness: two inverse pulses for each of stage 5's five shuffle pulses.
pub const MAX_WITNESS: usize = 10;

/// A generated puzzle: its initial state and a verified witness solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Puzzle {
    seed: i64,
    stage: Stage,
    start: State,
    path: CellSet,
    shuffle: [Cell; 5],
    shuffle_len: u8,
    attempts: u8,
}

/// The generator could not build a puzzle (never observed; see [`MAX_ATTEMPTS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no playable puzzle for seed {seed} at stage {stage} after {MAX_ATTEMPTS} candidates")]
pub struct GenerationExhausted {
    /// The seed.
    pub seed: i64,
    /// The stage.
    pub stage: Stage,
}

/// A list of up to 25 distinct cell indices, without allocation.
struct Pool {
    items: [u8; CELLS],
    len: usize,
}

impl Pool {
    fn of(mask: u32) -> Pool {
        let mut pool = Pool {
            items: [0; CELLS],
            len: 0,
        };
        let mut rest = mask;
        while rest != 0 {
            pool.items[pool.len] = rest.trailing_zeros() as u8;
            pool.len += 1;
            rest &= rest - 1;
        }
        pool
    }

    /// Removes and returns a uniformly drawn item (swap-remove keeps it O(1)).
    fn take(&mut self, rng: &mut SeedRng) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let at = rng.below(self.len as u32) as usize;
        let item = self.items[at];
        self.len -= 1;
        self.items[at] = self.items[self.len];
        Some(item)
    }
}

fn bit(x: u8, y: u8) -> u32 {
    1 << (y as u32 * 5 + x as u32)
}

/// Draws the source row, the target row and the resonant path between them.
fn draw_path(stage: Stage, rng: &mut SeedRng) -> (u8, u8, u32) {
    let source_row = rng.below(5) as u8;
    if !stage.bends() {
        let path = (0..5).fold(0, |m, x| m | bit(x, source_row));
        return (source_row * 5, source_row * 5 + 4, path);
    }
    let target_row = (source_row + 1 + rng.below(4) as u8) % 5;
    let bend = 1 + rng.below(3) as u8;
    let mut path = 0;
    for x in 0..=bend {
        path |= bit(x, source_row);
    }
    for y in source_row.min(target_row)..=source_row.max(target_row) {
        path |= bit(bend, y);
    }
    for x in bend..5 {
        path |= bit(x, target_row);
    }
    (source_row * 5, target_row * 5 + 4, path)
}

impl Puzzle {
    /// Generates the puzzle of `(seed, stage)`; the same inputs always give the same puzzle.
    pub fn generate(seed: i64, stage: Stage) -> Result<Puzzle, GenerationExhausted> {
        let mut rng = SeedRng::new(seed);
        for attempt in 1..=MAX_ATTEMPTS {
            if let Some(mut puzzle) = Self::candidate(seed, stage, &mut rng) {
                puzzle.attempts = attempt;
                return Ok(puzzle);
            }
        }
        Err(GenerationExhausted { seed, stage })
    }

    /// One candidate; `None` if it starts solved or its witness does not replay to a win.
    fn candidate(seed: i64, stage: Stage, rng: &mut SeedRng) -> Option<Puzzle> {
        let (source, target, path) = draw_path(stage, rng);
        let anchors = (1u32 << source) | (1 << target);
        let ground_path = path & !anchors;

        // Decoys: every cell off the path is low or high, in index order.
        let mut high = 0u32;
        let mut off_path = !path & ((1 << CELLS) - 1);
        let mut rest = off_path;
        while rest != 0 {
            let i = rest.trailing_zeros();
            if rng.below(2) == 1 {
                high |= 1 << i;
            }
            rest &= rest - 1;
        }

        // Stone: the first one touches the path so that a shuffle pulse can cross it.
        let mut immutable = anchors;
        let mut crossing: Option<u8> = None;
        if stage.stones() > 0 {
            let first = Pool::of(off_path & neighbours_of(ground_path)).take(rng)?;
            immutable |= 1 << first;
            off_path &= !(1 << first);
            if stage.crosses_stone() {
                crossing = Some(Pool::of(ground_path & neighbours_of(1 << first)).take(rng)?);
            }
            let mut others = Pool::of(off_path);
            for _ in 1..stage.stones() {
                immutable |= 1 << others.take(rng)?;
            }
        }

        // Shuffle: distinct mutable centres whose cross reaches a mutable path cell.
        let near = (ground_path | neighbours_of(ground_path)) & !immutable;
        let mut pool = Pool::of(near & !crossing.map_or(0, |c| 1 << c));
        let mut shuffle = [Cell::new(0, 0); 5];
        let count = stage.shuffle_pulses() as usize;
        for (n, slot) in shuffle.iter_mut().take(count).enumerate() {
            let index = match (n, crossing) {
                (0, Some(c)) => c,
                _ => pool.take(rng)?,
            };
            *slot = Cell::from_index_unchecked(index as u32);
        }

        let (mut resonant, mut high) = (path, high);
        for cell in &shuffle[..count] {
            let index = cell.y as usize * 5 + cell.x as usize;
            (resonant, high) = advance(resonant, high, CROSS[index] & !immutable);
        }
        let start = State::from_masks(
            resonant,
            high,
            immutable,
            source,
            target,
            stage.move_limit(),
        );
        if start.is_won() {
            return None;
        }
        let puzzle = Puzzle {
            seed,
            stage,
            start,
            path: CellSet(path),
            shuffle,
            shuffle_len: count as u8,
            attempts: 0,
        };
        puzzle
            .replay_witness()
            .filter(|end| end.is_won())
            .map(|_| puzzle)
    }

    /// Plays the witness through the public [`State::pulse`]; `None` if a pulse is refused
    /// (including because the game was already won before the witness's last pulse).
    pub fn replay_witness(&self) -> Option<State> {
        self.witness().try_fold(self.start, |state, cell| {
            state.pulse(cell).ok().map(|p| p.state)
        })
    }

    /// The seed it was generated from.
    pub fn seed(&self) -> i64 {
        self.seed
    }

    /// Its stage.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The initial state: unsolved, with [`Puzzle::move_limit`] moves.
    pub fn start(&self) -> State {
        self.start
    }

    /// The move limit: the witness length, `2 × stage`.
    pub fn move_limit(&self) -> u8 {
        2 * self.shuffle_len
    }

    /// The resonant path the generator built (anchors included) before shuffling.
    pub fn path(&self) -> CellSet {
        self.path
    }

    /// The shuffle pulses, in the order they were applied to the solved board.
    pub fn shuffle(&self) -> &[Cell] {
        &self.shuffle[..self.shuffle_len as usize]
    }

    /// The witness: every shuffle pulse twice, in reverse order. Verified to win, through the
    /// public pulse rule, exactly at its last pulse.
    pub fn witness(&self) -> impl ExactSizeIterator<Item = Cell> + Clone + '_ {
        (0..2 * self.shuffle_len as usize)
            .map(|n| self.shuffle[self.shuffle_len as usize - 1 - n / 2])
    }

    /// How many candidates were drawn (1 when the first was playable).
    pub fn attempts(&self) -> u8 {
        self.attempts
    }
}
