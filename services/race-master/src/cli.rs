//! `arcade race …`: pure command-line tools of the race master. `simulate` runs a whole race
//! with built-in cars in one process, prints the final standings (the `race.finished.v1`
//! payload) as JSON and, when asked, writes every message the master sent as JSON lines.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::domain::StartSettings;
use crate::simulation::{SimulationConfig, simulate_observed};

/// The race master's commands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Runs a whole race with built-in cars (cautious, aggressive, random, in turn) in one
    /// process; the same seed gives the same output, byte for byte.
    Simulate(SimulateArgs),
}

/// `arcade race simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// The race's seed.
    #[arg(long)]
    pub seed: u64,
    /// Teams (team-1, team-2, …).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub teams: u32,
    /// Cars per team, registered before the start (over budget: refused).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub cars: u32,
    /// Turns to play.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub turns: u32,
    /// Write every message as a JSON line `{"type":…,"payload":…}` to this file.
    #[arg(long)]
    pub events: Option<PathBuf>,
}

/// Runs a command; returns the exit code (0 done, 1 failed, with the reason on `err`). A
/// progress bar goes to the process's stderr when it is a terminal.
pub fn run(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    run_with_progress(command, out, err, target)
}

/// [`run`], drawing the progress bar on `target`.
pub fn run_with_progress(
    command: Command,
    out: &mut dyn Write,
    err: &mut dyn Write,
    target: ProgressDrawTarget,
) -> u8 {
    match command {
        Command::Simulate(args) => simulate_command(&args, out, err, target),
    }
}

/// The bar of a simulation: one step per turn scored.
pub fn turn_bar(turns: u32, target: ProgressDrawTarget) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(turns.into()), target);
    if let Ok(style) =
        ProgressStyle::with_template("{prefix} [{bar:40}] turn {pos}/{len} ({elapsed}, {eta} left)")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix("race simulate");
    bar
}

fn simulate_command(
    args: &SimulateArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    target: ProgressDrawTarget,
) -> u8 {
    let config = SimulationConfig {
        seed: args.seed,
        teams: args.teams,
        cars: args.cars,
        turns: args.turns,
        record: args.events.is_some(),
    };
    let bar = turn_bar(args.turns, target);
    let sim = simulate_observed(&config, StartSettings::default(), &mut |turn| {
        bar.set_position(turn.into())
    });
    bar.finish_and_clear();
    if let Some(path) = &args.events {
        let mut text = String::new();
        for message in &sim.messages {
            match message.json_line() {
                Ok(line) => text.push_str(&line),
                Err(e) => {
                    let _ = writeln!(err, "arcade race simulate: {e}");
                    return 1;
                }
            }
            text.push('\n');
        }
        if let Err(e) = std::fs::write(path, text) {
            let _ = writeln!(
                err,
                "arcade race simulate: cannot write --events {}: {e}",
                path.display()
            );
            return 1;
        }
    }
    let Some(finished) = sim.finished else {
        let _ = writeln!(
            err,
            "arcade race simulate: the race did not finish (turn {})",
            sim.state.turn
        );
        return 1;
    };
    match serde_json::to_string_pretty(&finished) {
        Ok(json) => match writeln!(out, "{json}") {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(err, "arcade race simulate: cannot write the standings: {e}");
                1
            }
        },
        Err(e) => {
            let _ = writeln!(
                err,
                "arcade race simulate: cannot encode the standings: {e}"
            );
            1
        }
    }
}
