//! `SeedRng`, the generator's pseudo-random source, exactly as in Strata Relay's `rules.gd`.

/// The linear congruential generator of the source:
/// `value = seed & 0x7fffffff` (0 becomes 1), then `next = (value * 1103515245 + 12345) & 0x7fffffff`.
///
/// The arithmetic is done on 64-bit integers like GDScript's `int`, so the sequence is the
/// source's bit for bit (the product of two values below 2³¹ fits in 63 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedRng {
    value: i64,
}

impl SeedRng {
    /// Seeds the generator; negative seeds keep their low 31 bits, as `seed & 0x7fffffff` does.
    pub fn new(seed: i64) -> Self {
        let value = seed & 0x7fff_ffff;
        SeedRng {
            value: if value == 0 { 1 } else { value },
        }
    }

    /// The current value (the seed's low 31 bits before the first draw).
    pub fn value(&self) -> i64 {
        self.value
    }

    /// Advances and returns the next value, in `0..2³¹`.
    pub fn next_int(&mut self) -> i64 {
        self.value = (self.value * 1_103_515_245 + 12_345) & 0x7fff_ffff;
        self.value
    }

    /// A draw in `0..n` for the generator's choices (`n` ≥ 1).
    ///
    /// The low bits of this generator are weak (bit 0 alternates on every draw), so this takes
    /// the 15 high bits of the next value, as C's classic `rand()` does, then reduces them
    /// modulo `n`. The bias is below `n / 2¹⁵`, i.e. under 0.1 % for every `n` the generator uses.
    pub fn below(&mut self, n: u32) -> u32 {
        let high = (self.next_int() >> 16) as u32;
        high % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_seed_becomes_one_and_high_bits_are_masked() {
        assert_eq!(SeedRng::new(0).value(), 1);
        assert_eq!(SeedRng::new(1 << 31).value(), 1);
        assert_eq!(SeedRng::new(-1).value(), 0x7fff_ffff);
        assert_eq!(SeedRng::new(0x1_2345_6789).value(), 0x2345_6789);
    }

    #[test]
    fn sequence_follows_the_source_formula() {
        let mut rng = SeedRng::new(42);
        // 42 * 1103515245 + 12345 = 46347652635, & 0x7fffffff = 1250496027
        assert_eq!(rng.next_int(), 1_250_496_027);
        let expected = (1_250_496_027_i64 * 1_103_515_245 + 12_345) & 0x7fff_ffff;
        assert_eq!(rng.next_int(), expected);
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = SeedRng::new(7);
        for n in 1..=30 {
            for _ in 0..100 {
                assert!(rng.below(n) < n);
            }
        }
    }
}
