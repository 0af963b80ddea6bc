//! The goal sensors' debounce, pure: one ball that trips two sensors (its goal and its in-out
//! sensor) or makes one sensor bounce counts once, as the sensor that fired first, when the
//! activations fall within one window (`--sensor-debounce-ms`, default 50 ms). Timestamps are
//! values (the kernel's monotonic clock of a GPIO edge, or the time of a poll).

use std::time::Duration;

/// The debounce window by default: longer than a bounce or a ball crossing two sensors, far
/// shorter than the time between two goals.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(50);

/// Which activations are new balls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Debounce {
    window_ns: u64,
    last_ball_ns: Option<u64>,
}

impl Debounce {
    /// A debounce with this window (zero: every activation is a ball).
    pub fn new(window: Duration) -> Debounce {
        Debounce {
            window_ns: u64::try_from(window.as_nanos()).unwrap_or(u64::MAX),
            last_ball_ns: None,
        }
    }

    /// A sensor became active at `at_ns`: whether that is a new ball. It is not when it comes
    /// less than the window after the last ball counted (a bounce, or the same ball on another
    /// sensor), nor when it is older than that ball (a clock that went backwards).
    pub fn accept(&mut self, at_ns: u64) -> bool {
        let within = self
            .last_ball_ns
            .is_some_and(|last| at_ns < last.saturating_add(self.window_ns));
        if within {
            return false;
        }
        self.last_ball_ns = Some(at_ns);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn balls(window_ms: u64, times_ms: &[u64]) -> Vec<u64> {
        let mut debounce = Debounce::new(Duration::from_millis(window_ms));
        times_ms
            .iter()
            .copied()
            .filter(|&t| debounce.accept(t * MS))
            .collect()
    }

    #[test]
    fn bounces_inside_the_window_count_once_and_outside_it_again() {
        // A ball at 1000 ms bouncing for 30 ms; the next ball at 4000 ms.
        assert_eq!(
            balls(50, &[1000, 1003, 1010, 1030, 1049, 4000, 4020]),
            vec![1000, 4000]
        );
        // A bounce at exactly the window's end is a new activation.
        assert_eq!(balls(50, &[1000, 1050]), vec![1000, 1050]);
        // The window runs from the ball counted, not from the last bounce: a sensor that
        // chatters for longer than the window counts again.
        assert_eq!(balls(50, &[0, 40, 80, 120]), vec![0, 80]);
        assert_eq!(balls(0, &[0, 0, 1]), vec![0, 0, 1]);
    }

    #[test]
    fn a_timestamp_before_the_last_ball_is_not_a_new_ball() {
        assert_eq!(balls(50, &[1000, 900, 1100]), vec![1000, 1100]);
    }
}
