//! A bounded exact search for the fewest pulses that win, used to check short claimed wins.
//!
//! A pulse adds one level (mod 3) to a fixed set of cells that depends only on the stone mask,
//! so pulses commute and three pulses on one cell cancel: every sequence of pulses has the
//! effect of a multiset of centres with multiplicities 0–2. The search enumerates those
//! multisets by size, so its cost is the number of multisets of at most `max_turns` centres
//! (≈ 230 for two turns on a 20-cell board), not `cells^turns`.

use super::cell::{CELLS, CROSS};
use super::state::{State, advance, charged_mask};

struct Search {
    masks: [u32; CELLS],
    len: usize,
    source: u8,
    target: u32,
}

impl Search {
    fn wins(&self, resonant: u32) -> bool {
        charged_mask(resonant, self.source) & self.target != 0
    }

    /// Whether some multiset of at most `left` pulses on centres `from..` wins.
    fn exists(&self, from: usize, left: u8, resonant: u32, high: u32) -> bool {
        for i in from..self.len {
            let (mut r, mut h) = (resonant, high);
            for times in 1..=2u8.min(left) {
                (r, h) = advance(r, h, self.masks[i]);
                if self.wins(r) || (left > times && self.exists(i + 1, left - times, r, h)) {
                    return true;
                }
            }
        }
        false
    }
}

impl State {
    /// The fewest pulses that win from this state, if at most `max_turns` (and the moves
    /// left) suffice; `Some(0)` if already won, `None` if no win is that close.
    ///
    /// Exact: the smallest winning multiset of pulses never wins before its last pulse, in
    /// any order, so it is also the fewest turns a player can win in.
    pub fn min_turns_to_win(&self, max_turns: u8) -> Option<u8> {
        if self.is_won() {
            return Some(0);
        }
        if self.is_finished() {
            return None;
        }
        let (resonant, high, immutable) = self.masks();
        let mut search = Search {
            masks: [0; CELLS],
            len: 0,
            source: self.source().y * 5,
            target: 1 << (self.target().y as u32 * 5 + 4),
        };
        for (index, cross) in CROSS.iter().enumerate() {
            if immutable & (1 << index) == 0 {
                search.masks[search.len] = cross & !immutable;
                search.len += 1;
            }
        }
        (1..=max_turns.min(self.moves_left())).find(|&d| search.exists(0, d, resonant, high))
    }
}
