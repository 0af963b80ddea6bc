//! `arcade race simulate`: a whole race with built-in cars; the same seed gives the same
//! output byte for byte; every message round-trips through the contract; replaying the facts
//! alone rebuilds the race; truthful cars are never penalised for their state.

use arcade_race_master::cli::{Command, SimulateArgs, run};
use arcade_race_master::domain::{RaceMaster, RaceState};
use arcade_race_master::simulation::{SimulationConfig, simulate};
use arcade_race_master::wire::{RaceMessage, decode, encode};

fn simulate_cli(seed: u64, events: Option<std::path::PathBuf>) -> (u8, String, String) {
    let args = SimulateArgs { seed, teams: 4, cars: 5, turns: 40, events };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(Command::Simulate(args), &mut out, &mut err);
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

#[test]
fn the_same_seed_gives_the_same_output_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let first = simulate_cli(42, Some(a.clone()));
    let second = simulate_cli(42, Some(b.clone()));
    assert_eq!(first.0, 0, "stderr: {}", first.2);
    assert_eq!(first, second);
    let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    assert!(!a.is_empty());
    assert_eq!(a, b);
    let other = simulate_cli(43, None);
    assert_ne!(first.1, other.1, "another seed gives another race");
}
