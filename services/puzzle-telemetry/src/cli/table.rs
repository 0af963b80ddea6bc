//! The statistics as a text table, for `arcade puzzle stats`.

use std::fmt::Write;

use arcade_contracts::puzzle::StatsUpdated;

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", v * 100.0))
}

fn decimal(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"))
}

fn seconds(ms: Option<u64>) -> String {
    ms.map_or_else(
        || "-".to_string(),
        |ms| format!("{:.1}s", ms as f64 / 1000.0),
    )
}

const HEADER: [&str; 16] = [
    "stage",
    "limit",
    "sessions",
    "won",
    "failed",
    "abandoned",
    "flagged",
    "verified",
    "v2",
    "win rate",
    "turns",
    "won in",
    "budget",
    "p50",
    "p90",
    "p99",
];

/// Renders the statistics as a table: one row per stage (sessions verified by replaying their
/// moves, share of sessions received as v2, win rate, mean turns overall and of the wins
/// against the move limit, share of the move budget used, duration percentiles),
/// a total row, then each stage's turns histogram.
pub fn render_stats_table(stats: &StatsUpdated) -> String {
    let mut rows: Vec<[String; 16]> = vec![HEADER.map(str::to_string)];
    for s in &stats.stages {
        rows.push([
            s.stage.to_string(),
            s.move_limit.to_string(),
            s.sessions.to_string(),
            s.won.to_string(),
            s.failed.to_string(),
            s.abandoned.to_string(),
            s.flagged.to_string(),
            s.verified.to_string(),
            percent(s.v2_share),
            percent(s.win_rate),
            decimal(s.mean_turns),
            decimal(s.mean_turns_won),
            percent(s.budget_use),
            seconds(s.duration.p50_ms),
            seconds(s.duration.p90_ms),
            seconds(s.duration.p99_ms),
        ]);
    }
    let sum = |f: fn(&arcade_contracts::puzzle::StageStats) -> u64| {
        stats.stages.iter().map(f).sum::<u64>().to_string()
    };
    let won: u64 = stats.stages.iter().map(|s| s.won).sum();
    let total_rate = (stats.sessions > 0).then(|| won as f64 / stats.sessions as f64);
    let (v1, v2): (u64, u64) = stats
        .stages
        .iter()
        .fold((0, 0), |(a, b), s| (a + s.v1_sessions, b + s.v2_sessions));
    let total_v2 = (v1 + v2 > 0).then(|| v2 as f64 / (v1 + v2) as f64);
    rows.push([
        "all".to_string(),
        String::new(),
        stats.sessions.to_string(),
        won.to_string(),
        sum(|s| s.failed),
        sum(|s| s.abandoned),
        stats.flagged.to_string(),
        sum(|s| s.verified),
        percent(total_v2),
        percent(total_rate),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ]);
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:>w$}"))
            .collect();
        let _ = writeln!(text, "{}", cells.join("  ").trim_end());
    }
    let _ = writeln!(
        text,
        "\nturns played (sessions with 0, 1, 2 … turns, up to the move limit)"
    );
    for s in &stats.stages {
        let counts: Vec<String> = s.turns_histogram.iter().map(u64::to_string).collect();
        let _ = writeln!(text, "  stage {}: {}", s.stage, counts.join(" "));
    }
    text
}
