//! `arcade race simulate`: a whole race with built-in cars; the same seed gives the same
//! output byte for byte; every message is valid against its schema and round-trips; replaying
//! the facts alone rebuilds the race; truthful cars are never penalised for their state.

use arcade_contracts::Catalog;
use arcade_contracts::race as c;
use arcade_race_master::cli::{Command, SimulateArgs, run, run_with_progress};
use arcade_race_master::domain::event::{Event, PenaltyReason};
use arcade_race_master::mapping::{RaceMessage, decode, encode};
use arcade_race_master::service::RaceService;
use arcade_race_master::simulation::{SimulationConfig, simulate};
use arcade_runtime::testkit::Scenario;

fn simulate_cli(seed: u64, events: Option<std::path::PathBuf>) -> (u8, String, String) {
    let args = SimulateArgs {
        seed,
        teams: 4,
        cars: 5,
        turns: 40,
        events,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(Command::Simulate(args), &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn the_same_seed_gives_the_same_output_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let first = simulate_cli(42, Some(a.clone()));
    let second = simulate_cli(42, Some(b.clone()));
    assert_eq!(first.0, 0, "stderr: {}", first.2);
    assert_eq!(first, second);
    let finished: serde_json::Value = serde_json::from_str(&first.1).unwrap();
    assert_eq!(finished["turn"], 40);
    assert_eq!(finished["reason"], "turns");
    assert_eq!(finished["seed"], "42");
    assert_eq!(finished["standings"].as_array().unwrap().len(), 4);
    let (a, b) = (
        std::fs::read_to_string(a).unwrap(),
        std::fs::read_to_string(b).unwrap(),
    );
    assert_eq!(a, b);
    let lines: Vec<serde_json::Value> = a
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "race.car.registered.v1");
    assert_eq!(lines.last().unwrap()["type"], "race.finished.v1");
    assert_eq!(lines.last().unwrap()["payload"], finished);
    let other = simulate_cli(43, None);
    assert_ne!(first.1, other.1, "another seed gives another race");
}

#[test]
fn an_unwritable_events_file_fails_with_its_reason() {
    let (code, out, err) = simulate_cli(1, Some("/nonexistent-dir/race.jsonl".into()));
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with(
            "arcade race simulate: cannot write --events /nonexistent-dir/race.jsonl: "
        ),
        "{err}"
    );
}

fn recorded(seed: u64) -> arcade_race_master::simulation::Simulation {
    simulate(&SimulationConfig {
        seed,
        teams: 6,
        cars: 5,
        turns: 60,
        record: true,
    })
}

#[test]
fn every_message_fits_its_schema_and_round_trips() {
    let catalog = Catalog::new();
    let sim = recorded(7);
    assert!(sim.messages.len() > 1_000);
    for message in &sim.messages {
        let payload = message.payload().unwrap();
        catalog
            .validate(message.message_type(), &payload)
            .unwrap_or_else(|e| panic!("{e}"));
        let back = RaceMessage::read(message.message_type(), &payload)
            .unwrap()
            .unwrap();
        assert_eq!(&back, message);
        let event = decode(message).unwrap();
        assert_eq!(&encode(&event), message, "decode inverts encode");
    }
}

#[test]
fn replaying_the_facts_alone_rebuilds_the_race() {
    let sim = recorded(11);
    let facts = sim.messages.iter().map(|message| decode(message).unwrap());
    let replayed = Scenario::given(RaceService::new(11), facts);
    assert_eq!(replayed.state(), &sim.state);
}

#[test]
fn truthful_built_in_cars_are_never_penalised_and_know_their_cars() {
    let sim = recorded(13);
    assert!(sim.finished.is_some());
    let penalties = sim
        .messages
        .iter()
        .filter_map(|m| decode(m).ok())
        .filter(|e| matches!(e, Event::PenaltyGiven(_)))
        .collect::<Vec<_>>();
    assert!(
        penalties.iter().all(|p| !matches!(
            p,
            Event::PenaltyGiven(c::PenaltyGiven {
                reason: PenaltyReason::WrongState,
                ..
            })
        )),
        "{penalties:?}"
    );
    assert!(
        penalties.is_empty(),
        "built-in cars answer every question in time"
    );
    for bot in &sim.bots {
        for (name, believed) in bot.view().cars() {
            let car = sim.state.car(name).unwrap();
            assert_eq!(
                (
                    believed.square,
                    believed.modules.weapons,
                    believed.modules.pilots
                ),
                (car.square, car.modules.weapons, car.modules.pilots),
                "{name}"
            );
        }
    }
}

#[test]
fn a_whole_race_shows_every_kind_of_fact() {
    let sim = simulate(&SimulationConfig {
        seed: 2024,
        teams: 8,
        cars: 5,
        turns: 200,
        record: true,
    });
    let kinds: std::collections::BTreeSet<&str> =
        sim.messages.iter().map(|m| m.message_type()).collect();
    for kind in [
        "race.started.v1",
        "race.car.registered.v1",
        "race.turn.started.v1",
        "race.phase.started.v1",
        "race.car.moved.v1",
        "race.event.drawn.v1",
        "race.event.resolved.v1",
        "race.combat.paired.v1",
        "race.combat.resolved.v1",
        "race.duel.started.v1",
        "race.duel.played.v1",
        "race.duel.resolved.v1",
        "race.module.changed.v1",
        "race.car.stopped.v1",
        "race.achievement.awarded.v1",
        "race.standings.updated.v1",
        "race.finished.v1",
        "race.decision.requested.v1",
        "race.decision.closed.v1",
    ] {
        assert!(kinds.contains(kind), "no {kind} in a 200-turn race");
    }
    assert_eq!(sim.state.turn, 200);
}

/// A terminal that keeps what is drawn on it.
#[derive(Debug, Default, Clone)]
struct Screen(std::sync::Arc<std::sync::Mutex<String>>);

impl indicatif::TermLike for Screen {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write_str(&format!("{s}\n"))
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.0.lock().unwrap().push_str(s);
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_terminal_sees_the_turns_go_by_and_a_pipe_sees_nothing() {
    let args = || SimulateArgs {
        seed: 8,
        teams: 2,
        cars: 2,
        turns: 40,
        events: None,
    };
    let screen = Screen::default();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let target = indicatif::ProgressDrawTarget::term_like(Box::new(screen.clone()));
    let code = run_with_progress(Command::Simulate(args()), &mut out, &mut err, target);
    assert_eq!(code, 0);
    let drawn = screen.0.lock().unwrap().clone();
    assert!(
        drawn.contains("race simulate") && drawn.contains("/40"),
        "the bar shows the turns: {drawn:?}"
    );
    // Not a terminal: no bar, and the standings alone on stdout.
    let (mut quiet_out, mut quiet_err) = (Vec::new(), Vec::new());
    let hidden = indicatif::ProgressDrawTarget::hidden();
    run_with_progress(
        Command::Simulate(args()),
        &mut quiet_out,
        &mut quiet_err,
        hidden,
    );
    assert!(quiet_err.is_empty());
    assert_eq!(quiet_out, out, "the bar never mixes with the output");
}
