//! Capped exponential backoff with jitter, for reconnecting and republishing.

use std::time::Duration;

use rand::Rng;

/// Delays whose ceiling doubles from `base` up to `cap`, each drawn uniformly between half the
/// ceiling and the ceiling, so many services restarting together do not knock on the broker in
/// step.
#[derive(Debug, Clone)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    attempt: u32,
}

impl Backoff {
    /// A backoff from `base` doubling up to `cap`.
    pub fn new(base: Duration, cap: Duration) -> Self {
        Backoff {
            base,
            cap,
            attempt: 0,
        }
    }

    /// The delay before the next attempt.
    pub fn next_delay(&mut self) -> Duration {
        let ceiling = self.ceiling();
        self.attempt = self.attempt.saturating_add(1);
        let millis = u64::try_from(ceiling.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        Duration::from_millis(rand::rng().random_range(millis / 2..=millis))
    }

    /// The upper bound of the next delay.
    pub fn ceiling(&self) -> Duration {
        let factor = 2u32.saturating_pow(self.attempt.min(20));
        self.base.saturating_mul(factor).min(self.cap)
    }

    /// After a success: start again from `base`.
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new(Duration::from_millis(100), Duration::from_secs(10))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_the_cap_with_jitter_below_the_ceiling() {
        let mut backoff = Backoff::new(Duration::from_millis(100), Duration::from_millis(1000));
        let mut ceilings = Vec::new();
        for _ in 0..8 {
            let ceiling = backoff.ceiling();
            let delay = backoff.next_delay();
            assert!(
                delay <= ceiling && delay >= ceiling / 2,
                "{delay:?} vs {ceiling:?}"
            );
            ceilings.push(ceiling.as_millis());
        }
        assert_eq!(ceilings, vec![100, 200, 400, 800, 1000, 1000, 1000, 1000]);
        backoff.reset();
        assert_eq!(backoff.ceiling(), Duration::from_millis(100));
    }
}
