//! Per-stage statistics over recorded sessions, and their published form.

use arcade_contracts::puzzle::{
    DurationBucket, DurationStats, StageStats as ContractStage, StatsUpdated,
};

use super::session::Outcome;
use super::sketch::DurationSketch;
use crate::domain::strata::{MAX_WITNESS, Stage};

/// Statistics of one stage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StageStats {
    /// Recorded sessions.
    pub sessions: u64,
    /// Won sessions.
    pub won: u64,
    /// Failed sessions.
    pub failed: u64,
    /// Abandoned sessions.
    pub abandoned: u64,
    /// Flagged sessions of this stage (not counted in the others).
    pub flagged: u64,
    /// Sessions by turns, 0 to the largest move limit.
    pub turns: [u64; MAX_WITNESS + 1],
    /// Sum of turns over all sessions.
    pub turns_total: u64,
    /// Sum of turns over won sessions.
    pub won_turns_total: u64,
    /// Sum of the sessions' move limits.
    pub budget_total: u64,
    /// Sessions that used their whole budget.
    pub exhausted_budget: u64,
    /// Durations.
    pub durations: DurationSketch,
    /// Recorded sessions whose moves were replayed and agree.
    pub verified: u64,
    /// Sessions received as v1, recorded or flagged.
    pub v1: u64,
    /// Sessions received as v2 (or later), recorded or flagged.
    pub v2: u64,
}

impl StageStats {
    /// Adds another instance's statistics of the same stage (see [`Stats::merge`]).
    pub fn merge(&mut self, other: &StageStats) {
        self.sessions += other.sessions;
        self.won += other.won;
        self.failed += other.failed;
        self.abandoned += other.abandoned;
        self.flagged += other.flagged;
        for (mine, theirs) in self.turns.iter_mut().zip(&other.turns) {
            *mine += theirs;
        }
        self.turns_total += other.turns_total;
        self.won_turns_total += other.won_turns_total;
        self.budget_total += other.budget_total;
        self.exhausted_budget += other.exhausted_budget;
        self.durations.merge(&other.durations);
        self.verified += other.verified;
        self.v1 += other.v1;
        self.v2 += other.v2;
    }
}

/// Statistics of every stage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub(crate) stages: [StageStats; 5],
    pub(crate) flagged: u64,
}

fn ratio(numerator: u64, denominator: u64) -> Option<f64> {
    (denominator > 0).then(|| numerator as f64 / denominator as f64)
}

impl Stats {
    /// Counts a recorded session (already validated: `turns ≤ move_limit ≤ 10`).
    pub fn record(
        &mut self,
        stage: Stage,
        outcome: Outcome,
        turns: u32,
        move_limit: u8,
        duration_ms: u64,
    ) {
        let s = &mut self.stages[stage.index()];
        s.sessions += 1;
        match outcome {
            Outcome::Won => {
                s.won += 1;
                s.won_turns_total += u64::from(turns);
            }
            Outcome::Failed => s.failed += 1,
            Outcome::Abandoned => s.abandoned += 1,
        }
        s.turns[(turns as usize).min(MAX_WITNESS)] += 1;
        s.turns_total += u64::from(turns);
        s.budget_total += u64::from(move_limit);
        if turns >= u32::from(move_limit) {
            s.exhausted_budget += 1;
        }
        s.durations.record(duration_ms);
    }

    /// Counts the contract version a recorded or flagged session arrived in, and whether it was
    /// verified (per stage when the stage exists).
    pub fn arrived(&mut self, stage: Option<Stage>, version: u8, verified: bool) {
        let Some(stage) = stage else { return };
        let s = &mut self.stages[stage.index()];
        if version <= 1 {
            s.v1 += 1;
        } else {
            s.v2 += 1;
        }
        s.verified += u64::from(verified);
    }

    /// Counts a flagged session (per stage when the stage exists).
    pub fn flag(&mut self, stage: Option<Stage>) {
        self.flagged += 1;
        if let Some(stage) = stage {
            self.stages[stage.index()].flagged += 1;
        }
    }

    /// Adds another instance's statistics to these (another partition of the games): every
    /// counter is summed and the duration sketches merged bucket by bucket, so the result is
    /// exactly what one instance fed both sets of sessions holds.
    pub fn merge(&mut self, other: &Stats) {
        for (mine, theirs) in self.stages.iter_mut().zip(&other.stages) {
            mine.merge(theirs);
        }
        self.flagged += other.flagged;
    }

    /// One stage's statistics.
    pub fn stage(&self, stage: Stage) -> &StageStats {
        &self.stages[stage.index()]
    }

    /// Recorded sessions, all stages.
    pub fn sessions(&self) -> u64 {
        self.stages.iter().map(|s| s.sessions).sum()
    }

    /// Flagged sessions, all stages.
    pub fn flagged(&self) -> u64 {
        self.flagged
    }

    /// The published form, as of `at_ms`.
    pub fn to_contract(&self, at_ms: u64) -> StatsUpdated {
        let stages = Stage::ALL
            .iter()
            .map(|&stage| {
                let s = self.stage(stage);
                let limit = stage.move_limit();
                let d = &s.durations;
                ContractStage {
                    stage: stage.number(),
                    move_limit: limit,
                    sessions: s.sessions,
                    won: s.won,
                    failed: s.failed,
                    abandoned: s.abandoned,
                    flagged: s.flagged,
                    win_rate: ratio(s.won, s.sessions),
                    turns_histogram: s.turns[..=usize::from(limit)].to_vec(),
                    mean_turns: ratio(s.turns_total, s.sessions),
                    mean_turns_won: ratio(s.won_turns_total, s.won),
                    budget_use: ratio(s.turns_total, s.budget_total),
                    exhausted_budget: s.exhausted_budget,
                    duration: DurationStats {
                        p50_ms: d.percentile(500),
                        p90_ms: d.percentile(900),
                        p99_ms: d.percentile(990),
                        mean_ms: d.mean(),
                        max_ms: d.max(),
                        buckets: d
                            .coarse_buckets()
                            .into_iter()
                            .map(|(from_ms, to_ms, count)| DurationBucket {
                                from_ms,
                                to_ms,
                                count,
                            })
                            .collect(),
                    },
                    verified: s.verified,
                    v1_sessions: s.v1,
                    v2_sessions: s.v2,
                    v2_share: ratio(s.v2, s.v1 + s.v2),
                }
            })
            .collect();
        StatsUpdated {
            published_at_ms: at_ms,
            sessions: self.sessions(),
            flagged: self.flagged,
            stages,
        }
    }
}
