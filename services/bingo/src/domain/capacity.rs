//! How many cards a game can still print: at most 100,000 cards per game, and no more than the
//! distinct cards its grid and pool can make. A layout is an ordered draw of `draws` squares
//! from the pool, so a pool of `n` makes n!/(n−draws)! of them; only a 3×3 card drawn from 8
//! or 9 squares makes fewer than 100,000 (40,320 and 362,880).
//!
//! The service finds a new distinct card by trying serials one after the other, at most
//! [`MAX_SKIPPED_SERIALS`] + 1 of them. While a 64th of the possible cards are still free, a
//! try succeeds with a chance of at least 1/64, and 1,001 tries all fail with a chance below
//! 2 in 10 million; so a game prints up to its possible cards less a 64th of them, and a
//! request for more is refused before anything is dealt.

use super::config::{GameConfig, TickMode};
use super::limits::{MAX_CARDS, MAX_SKIPPED_SERIALS};
use super::state::Game;

/// The distinct layouts of `draws` squares from a pool of `pool` (saturating).
pub fn distinct_layouts(pool: usize, draws: usize) -> u64 {
    (0..draws).fold(1u64, |product, i| {
        product.saturating_mul(pool.saturating_sub(i) as u64)
    })
}

/// The most cards (dealt and printed) a game of this configuration holds.
pub fn card_capacity(config: &GameConfig) -> u32 {
    let possible = distinct_layouts(config.pool().len(), config.grid().draws());
    let reliable = possible - possible.div_ceil(64);
    // The 64th left free is what makes 1,001 tries enough (see the header).
    const { assert!(MAX_SKIPPED_SERIALS >= 1_000) };
    u32::try_from(reliable.min(u64::from(MAX_CARDS))).unwrap_or(MAX_CARDS)
}

impl Game {
    /// How many more cards a print request may ask for now: none in an activity game or a
    /// closed one; else what the game can still hold.
    pub fn printable(&self) -> u32 {
        if !self.open || self.config.tick_mode() != TickMode::Called {
            return 0;
        }
        card_capacity(&self.config).saturating_sub(self.card_count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_pools_make_few_distinct_cards() {
        assert_eq!(distinct_layouts(8, 8), 40_320);
        assert_eq!(distinct_layouts(9, 8), 362_880);
        assert_eq!(distinct_layouts(75, 24), u64::MAX);
        assert_eq!(distinct_layouts(3, 4), 0);
    }
}
