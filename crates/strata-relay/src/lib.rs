//! Strata Relay's rules (`arcade-strata-relay`, shared by the puzzle telemetry and the console):
//! the 5 × 5 heightfield, the pulse, the signal and the constructive
//! generator. Pure and deterministic: no clock, no global randomness, no allocation on the
//! hot paths.
//!
//! # Board
//!
//! 25 columns, cell `(x, y)` with `x` the column 0–4 left to right and `y` the row 0–4, index
//! `y*5 + x`. Levels 0, 1, 2 have physical heights 1, 3, 5; level 1 is resonant. A cell is
//! mutable ground or immutable stone. The source anchor is on the left edge, the target on the
//! right edge, both immutable and resonant. [`State`] packs the board in 20 bytes and is `Copy`.
//!
//! # Turn
//!
//! [`State::pulse`] at a mutable cell advances the level (`(l + 1) % 3`) of that cell and its
//! mutable orthogonal neighbours (at most five cells), spends a move, counts a turn and returns
//! the changed cells with their heights before and after (in index order). After the end the
//! pulse is refused as `finished`; on stone, an anchor or outside the board as `immutable`
//! (checked in that order, as in the source); a refusal changes nothing. The charged cells are
//! the flood fill over orthogonally adjacent resonant cells from the source (empty if the
//! source is not resonant). Won when the target is charged; failed when no move is left and
//! the game is not won.
//!
//! # Generation
//!
//! [`Puzzle::generate`] draws from [`SeedRng`] (the source's LCG). Integer choices in `0..n`
//! use the 15 high bits of the next value modulo `n` ([`SeedRng::below`]). One candidate is:
//!
//! 1. **Path.** Source row `s = below(5)`. Stage 1: straight along row `s`. From stage 2, bent:
//!    target row `t = (s + 1 + below(4)) % 5` (always another row), bend column
//!    `b = 1 + below(3)`; the path runs along row `s` from `x = 0` to `b`, along column `b` from
//!    row `s` to row `t`, then along row `t` to `x = 4`. Path cells are resonant, anchors
//!    included; the anchors are its two ends.
//! 2. **Decoys.** Every cell off the path, in index order, is low (level 0) if `below(2) == 0`
//!    else high (level 2). So the solved board's charged cells are exactly the path.
//! 3. **Stone** ([`Stage::stones`]: 0, 0, 2, 4, 6), never on the path, keeping its decoy level.
//!    The first stone is drawn among off-path cells orthogonally adjacent to a mutable path
//!    cell; the others among the remaining off-path cells.
//! 4. **Shuffle.** As many pulses as the stage number, on distinct mutable centres "near the
//!    path": on a mutable path cell or orthogonally adjacent to one, so every shuffle pulse
//!    moves the path. From stage 3 the first shuffle pulse is centred on a path cell next to
//!    the first stone, so its cross is cut by stone ("stage 3 on has one that crosses stone").
//!    The rest are drawn without replacement. Each shuffle pulse advances the same cells a
//!    player's pulse there would (the generator applies them to the solved board directly,
//!    since a pulse on a won board is refused).
//! 5. **Checks.** The candidate is rejected, and the next one drawn from the same generator,
//!    if it starts solved, or if its witness does not replay through the public
//!    [`State::pulse`] to a win at its last pulse (a witness that wins early would leave
//!    pulses refused as `finished`). So every witness is exactly `2 × stage` accepted pulses.
//!
//! The witness is every shuffle pulse applied twice, in reverse order: three pulses on one
//! centre cancel, so it restores the solved board. The move limit is its length, `2 × stage`.
//! It is neither claimed shortest nor unique ([`State::min_turns_to_win`] finds shorter wins
//! when a bounded search is affordable). Stage 4's "false echoes" come from four overlapping
//! shuffle crosses near the path, which leave disconnected resonant fragments among the decoys.

mod cell;
mod generate;
mod layout;
mod rng;
mod search;
mod stage;
mod state;

pub use cell::{CELLS, Cell, CellIter, CellSet, SIZE};
pub use generate::{GenerationExhausted, MAX_ATTEMPTS, MAX_WITNESS, Puzzle};
pub use layout::{Layout, LayoutError};
pub use rng::SeedRng;
pub use stage::{Stage, StageOutOfRange};
pub use state::{
    Change, Changes, MAX_LEVEL, PulseRefused, Pulsed, RESONANT_LEVEL, State, physical_height,
};
