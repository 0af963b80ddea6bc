//! The race's only source of randomness: ChaCha8 keyed by the race's seed, one independent
//! stream per draw site, so a draw depends on (seed, purpose, turn, subject) and on nothing
//! else — not on how many draws came before, not on the order of inputs. Replay never draws:
//! every outcome is recorded in the events.
//!
//! Key: the seed's 8 little-endian bytes followed by the 24 bytes of [`KEY_TAIL`]. Stream:
//! `purpose << 56 | (turn & 0xFF_FFFF) << 32 | subject`. Bounded numbers use Lemire's
//! multiply-and-reject (unbiased), shuffles are Fisher–Yates from the last index down. Nothing
//! here relies on `rand`'s own sampling, whose values may change between versions.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// The fixed tail of the ChaCha key after the seed's bytes.
pub const KEY_TAIL: &[u8; 24] = b"arcade race master key 1";

/// What a draw is for; each purpose has its own streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Purpose {
    /// A car's random event (subject: the car's number).
    EventRoll = 1,
    /// The pirates' weapons (subject: the car's number).
    PirateCrew = 2,
    /// Crossing a mine field (subject: the car's number).
    MineRoll = 3,
    /// Exploring a wreck (subject: the car's number).
    WreckRoll = 4,
    /// Which module a mine takes (subject: the car's number).
    MineLoss = 5,
    /// Pairing the cars on a square (subject: the square).
    CombatPairing = 6,
    /// A duel's deck and first player (subject: the duel).
    DuelDeck = 7,
    /// Which module a duel's loser loses (subject: the duel).
    DuelLoss = 8,
    /// A built-in car's own choices (subject: the team's number).
    Bot = 9,
}

/// A stream of random numbers for one draw site.
#[derive(Debug, Clone)]
pub struct Dice(ChaCha8Rng);

impl Dice {
    /// The stream of `purpose` for `turn` and `subject`, under the race's `seed`.
    pub fn new(seed: u64, purpose: Purpose, turn: u32, subject: u32) -> Dice {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..].copy_from_slice(KEY_TAIL);
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(
            (purpose as u64) << 56 | (u64::from(turn) & 0xFF_FFFF) << 32 | u64::from(subject),
        );
        Dice(rng)
    }

    /// A number in `0..n`, uniformly; 0 when `n` is 0.
    pub fn below(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        let mut product = u64::from(self.0.next_u32()) * u64::from(n);
        let mut low = product as u32;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                product = u64::from(self.0.next_u32()) * u64::from(n);
                low = product as u32;
            }
        }
        (product >> 32) as u32
    }

    /// A number in `0..=max`, uniformly.
    pub fn up_to(&mut self, max: u32) -> u32 {
        match max.checked_add(1) {
            Some(n) => self.below(n),
            None => self.0.next_u32(),
        }
    }

    /// Shuffles in place (Fisher–Yates, last index first).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_site_gives_the_same_numbers_and_sites_differ() {
        let rolls = |seed, site| -> Vec<u32> {
            let mut dice = Dice::new(seed, Purpose::EventRoll, 3, site);
            (0..8).map(|_| dice.below(100)).collect()
        };
        let (a, b, c, d) = (rolls(7, 1), rolls(7, 1), rolls(7, 2), rolls(8, 1));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
        assert!(a.iter().all(|&x| x < 100));
    }

    #[test]
    fn below_covers_its_range_evenly() {
        let mut dice = Dice::new(1, Purpose::Bot, 0, 0);
        let mut counts = [0u32; 5];
        for _ in 0..50_000 {
            counts[dice.below(5) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(dice.below(0), 0);
        assert!(dice.up_to(100) <= 100);
    }
}
