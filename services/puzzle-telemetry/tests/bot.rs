//! The headless bot plays real sessions: deterministic per seed, every session it reports is
//! one the telemetry accepts, and it wins, fails and abandons in proportions that vary by stage.

use arcade_contracts::game::Outcome;
use arcade_puzzle_telemetry::domain::bot::{BotRng, Simulator, play};
use arcade_puzzle_telemetry::domain::strata::{Puzzle, Stage};
use arcade_puzzle_telemetry::domain::telemetry::{Session, validate};

#[test]
fn the_same_simulator_seed_plays_the_same_sessions() {
    let run = |seed| {
        let mut s = Simulator::new(seed);
        (0..50).map(|_| s.session(None)).collect::<Vec<_>>()
    };
    assert_eq!(run(9), run(9));
    assert_ne!(run(9), run(10));
    let ids: std::collections::HashSet<String> = run(9).into_iter().map(|s| s.game_id).collect();
    assert_eq!(ids.len(), 50, "game ids are unique within a run");
}

#[test]
fn every_simulated_session_passes_validation_and_each_stage_sees_all_three_outcomes() {
    let mut simulator = Simulator::new(1);
    for stage in Stage::ALL {
        let (mut won, mut failed, mut abandoned, mut short_wins) = (0, 0, 0, 0);
        for _ in 0..600 {
            let completed = simulator.session(Some(stage));
            assert_eq!(completed.stage, stage.number());
            let session: Session = completed.clone();
            let accepted = validate(&session).unwrap_or_else(|flag| {
                panic!("{completed:?} flagged: {}", flag.describe(&session))
            });
            let limit = u32::from(accepted.move_limit);
            match completed.outcome {
                Outcome::Won => {
                    won += 1;
                    if completed.turns < limit {
                        short_wins += 1;
                    }
                }
                Outcome::Failed => {
                    failed += 1;
                    assert_eq!(completed.turns, limit, "a failure spends the whole budget");
                }
                Outcome::Abandoned => {
                    abandoned += 1;
                    assert!(completed.turns < limit);
                }
            }
            assert!(
                completed.duration_ms >= 2_000,
                "at least the time to read the board"
            );
        }
        assert!(
            won > 0 && failed > 0 && abandoned > 0,
            "stage {stage}: {won}/{failed}/{abandoned}"
        );
        assert!(short_wins > 0, "stage {stage}: some wins spot a shortcut");
    }
}

#[test]
fn later_stages_are_harder_for_the_bot() {
    let win_rate = |stage| {
        let mut simulator = Simulator::new(77);
        let won = (0..800)
            .filter(|_| simulator.session(Some(stage)).outcome == Outcome::Won)
            .count();
        won as f64 / 800.0
    };
    let (first, last) = (win_rate(Stage::FIRST), win_rate(Stage::LAST));
    assert!(
        first > last + 0.15,
        "stage 1 {first:.2} vs stage 5 {last:.2}"
    );
}

#[test]
fn playing_a_puzzle_is_deterministic_for_a_player_seed() {
    let puzzle = Puzzle::generate(5, Stage::new(4).unwrap()).unwrap();
    let a = play(&puzzle, &mut BotRng::new(3));
    let b = play(&puzzle, &mut BotRng::new(3));
    assert_eq!(a, b);
    assert!(a.turns <= 8);
}
