//! The `puzzle.*` types as [`Message`](crate::Message)s: their names, kinds and example
//! payloads, and the module's list of types.

use super::*;

messages! {
    Event SessionRecorded: "puzzle.session.recorded.v1" => SessionRecorded {
        game_id: "strata-7f3a2c".into(),
        seed: 421_337,
        stage: 3,
        outcome: Outcome::Won,
        turns: 5,
        move_limit: 6,
        duration_ms: 48_250,
        recorded_at_ms: 1_767_225_600_000,
        verified: true,
        source_version: 2,
    };
    Event SessionFlagged: "puzzle.session.flagged.v1" => SessionFlagged {
        game_id: "strata-0b91e4".into(),
        reason: FlagReason::TurnsAboveLimit,
        detail: "14 turns, above the move limit of 10 for seed 77 at stage 5".into(),
        seed: 77,
        stage: 5,
        outcome: Outcome::Failed,
        turns: 14,
        duration_ms: 95_000,
        move_limit: Some(10),
        flagged_at_ms: 1_767_225_600_500,
        move_index: None,
        move_cell: None,
        source_version: 1,
    };
    Event StatsUpdated: "puzzle.stats.updated.v1" => {
        let stage = |n: u8, won: u64, failed: u64, abandoned: u64| {
            let sessions = won + failed + abandoned;
            let limit = 2 * n;
            let mut turns_histogram = vec![0; limit as usize + 1];
            turns_histogram[0] = abandoned;
            turns_histogram[limit as usize] = won + failed;
            StageStats {
                stage: n,
                move_limit: limit,
                sessions,
                won,
                failed,
                abandoned,
                flagged: 0,
                win_rate: Some(won as f64 / sessions as f64),
                turns_histogram,
                mean_turns: Some(f64::from(limit) * (won + failed) as f64 / sessions as f64),
                mean_turns_won: Some(f64::from(limit)),
                budget_use: Some((won + failed) as f64 / sessions as f64),
                exhausted_budget: won + failed,
                duration: DurationStats {
                    p50_ms: Some(12_000 * u64::from(n)),
                    p90_ms: Some(20_000 * u64::from(n)),
                    p99_ms: Some(31_000 * u64::from(n)),
                    mean_ms: Some(13_500 * u64::from(n)),
                    max_ms: Some(33_000 * u64::from(n)),
                    buckets: vec![DurationBucket {
                        from_ms: 8_192 * u64::from(n),
                        to_ms: 40_959 * u64::from(n),
                        count: sessions,
                    }],
                },
                verified: sessions / 2,
                v1_sessions: sessions - sessions / 2,
                v2_sessions: sessions / 2,
                v2_share: Some((sessions / 2) as f64 / sessions as f64),
            }
        };
        StatsUpdated {
            published_at_ms: 1_767_225_605_000,
            sessions: 40,
            flagged: 1,
            stages: vec![
                stage(1, 9, 1, 2),
                stage(2, 7, 2, 1),
                stage(3, 4, 3, 1),
                stage(4, 2, 3, 1),
                stage(5, 1, 2, 1),
            ],
        }
    };
    Event PartitionUpdated: "puzzle.partition.updated.v1" => {
        let stage = |n: u8, won: u64, failed: u64, abandoned: u64| {
            let limit = 2 * u64::from(n);
            let mut turns_histogram = vec![0; 11];
            turns_histogram[0] = abandoned;
            turns_histogram[limit as usize] = won + failed;
            let sessions = won + failed + abandoned;
            // Every session of stage n lasts 12 s × n, so one bucket holds them all (stage
            // 1: bucket 16 + 9 × 16 + 7 = 167, [11 776, 12 288) ms).
            let ms = 12_000 * u64::from(n);
            let bucket = |v: u64| {
                let octave = 63 - v.leading_zeros();
                16 + u64::from(octave - 4) * 16 + ((v >> (octave - 4)) & 15)
            };
            PartitionStage {
                stage: n,
                sessions,
                won,
                failed,
                abandoned,
                flagged: 0,
                turns_histogram,
                turns_total: limit * (won + failed),
                won_turns_total: limit * won,
                budget_total: limit * sessions,
                exhausted_budget: won + failed,
                verified: sessions / 2,
                v1_sessions: sessions - sessions / 2,
                v2_sessions: sessions / 2,
                durations: DurationCounts {
                    buckets: vec![[bucket(ms), sessions]],
                    total: sessions,
                    sum_ms: (ms * sessions).to_string(),
                    min_ms: Some(ms),
                    max_ms: Some(ms),
                },
            }
        };
        PartitionUpdated {
            partition: 1,
            partitions: 2,
            published_at_ms: 1_767_225_605_000,
            flagged: 1,
            stages: vec![
                stage(1, 5, 1, 1),
                stage(2, 4, 1, 0),
                stage(3, 2, 2, 1),
                stage(4, 1, 1, 0),
                stage(5, 0, 1, 1),
            ],
        }
    };
}
