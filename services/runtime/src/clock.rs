//! The runtime's clock: wall-clock milliseconds derived from tokio's clock, so a test that
//! pauses tokio's time (`tokio::time::pause`, `advance`) controls every timestamp and timer a
//! service sees.

use tokio::time::Instant;

/// Milliseconds since the Unix epoch, advancing with tokio's clock.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    base_ms: u64,
    base: Instant,
}

impl Clock {
    /// Starts at the system's current time.
    pub fn system() -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        Self::starting_at(now)
    }

    /// Starts at a given time (tests, replays).
    pub fn starting_at(base_ms: u64) -> Self {
        Clock {
            base_ms,
            base: Instant::now(),
        }
    }

    /// Now, in milliseconds since the epoch.
    pub fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.base.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.base_ms.saturating_add(elapsed)
    }

    /// The tokio instant at which the clock will read `ms`.
    pub fn instant_at(&self, ms: u64) -> Instant {
        self.base + std::time::Duration::from_millis(ms.saturating_sub(self.base_ms))
    }
}

/// RFC 3339 with milliseconds, UTC, as the envelope's `occurred_at` uses.
pub fn rfc3339_ms(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn follows_tokio_time() {
        let clock = Clock::starting_at(1_000);
        assert_eq!(clock.now_ms(), 1_000);
        tokio::time::advance(std::time::Duration::from_millis(1_500)).await;
        assert_eq!(clock.now_ms(), 2_500);
        assert_eq!(
            clock.instant_at(3_000),
            clock.instant_at(2_500) + std::time::Duration::from_millis(500)
        );
    }

    #[test]
    fn formats_with_milliseconds() {
        assert_eq!(rfc3339_ms(1_764_417_600_123), "2025-11-29T12:00:00.123Z");
    }
}
