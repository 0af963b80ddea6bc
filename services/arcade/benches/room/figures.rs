//! The figures from what the clients saw: each marked event's latency at each client that
//! should show it, the staleness of what clients showed (sampled), and percentiles.

use std::time::{Duration, Instant};

use crate::clients::Seen;
use crate::load::Mark;

/// Latencies (event sent → first frame showing it, at each client following its sequence)
/// and the events some client never showed.
pub fn latencies(
    marks: &[(Mark, Instant)],
    clients: &[(usize, Seen)],
    sequences: usize,
) -> (Vec<Duration>, usize) {
    let mut by_seq: Vec<Vec<&Seen>> = vec![Vec::new(); sequences];
    for (seq, seen) in clients {
        by_seq[*seq].push(seen);
    }
    let (mut all, mut missed) = (Vec::new(), 0);
    for (mark, sent) in marks {
        for seen in &by_seq[mark.seq] {
            match seen.iter().find(|(_, v)| *v >= mark.value) {
                Some((at, _)) => all.push(at.saturating_duration_since(*sent)),
                None => missed += 1,
            }
        }
    }
    all.sort();
    (all, missed)
}

/// Staleness every `every` from `from` to `to`: for each client, how long ago the oldest
/// event of its sequence that its last frame does not show was sent (0 when it shows all).
pub fn staleness(
    marks: &[(Mark, Instant)],
    clients: &[(usize, Seen)],
    sequences: usize,
    (from, to, every): (Instant, Instant, Duration),
) -> Vec<Duration> {
    let mut sent: Vec<Vec<(u64, Instant)>> = vec![Vec::new(); sequences];
    for (mark, at) in marks {
        sent[mark.seq].push((mark.value, *at));
    }
    let mut all = Vec::new();
    let mut at = from;
    while at <= to {
        for (seq, seen) in clients {
            let shown = seen
                .iter()
                .take_while(|(t, _)| *t <= at)
                .last()
                .map_or(0, |(_, v)| *v);
            let oldest_unshown = sent[*seq]
                .iter()
                .filter(|(v, t)| *v > shown && *t <= at)
                .map(|(_, t)| *t)
                .min();
            all.push(oldest_unshown.map_or(Duration::ZERO, |t| at - t));
        }
        at += every;
    }
    all.sort();
    all
}

/// The `p` quantile of sorted durations (zero when there are none).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// `p50 / p99 / max` in milliseconds.
pub fn summary(sorted: &[Duration]) -> String {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "{:.0} / {:.0} / {:.0} ms",
        ms(percentile(sorted, 0.5)),
        ms(percentile(sorted, 0.99)),
        ms(sorted.last().copied().unwrap_or_default())
    )
}
