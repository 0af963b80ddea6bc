//! `arcade puzzle …`: the pure command-line tools (the `arcade` binary mounts [`Command`]),
//! and the statistics table printed by `arcade puzzle stats` ([`render_stats_table`]).

mod seeds;
mod table;

use std::io::Write;

use serde::Serialize;

use crate::domain::strata::{Puzzle, Stage};

pub use seeds::{SeedRange, SeedRangeError};
pub use table::render_stats_table;

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: the command ran and failed (a puzzle could not be built, output failed).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code: the arguments are wrong.
pub const EXIT_USAGE: u8 = 2;

/// The pure `arcade puzzle` subcommands.
#[derive(Debug, Clone, PartialEq, Eq, clap::Subcommand)]
pub enum Command {
    /// Print the generated puzzle of each seed as one JSON line:
    /// {"seed","stage","levels","immutable","source","target","movesLeft","witness"}.
    Generate {
        /// Difficulty stage, 1 to 5.
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
        stage: u8,
        /// Seeds: `A..B` (B excluded, as in Rust), `A..=B` (B included) or a single `A`.
        #[arg(long, allow_hyphen_values = true)]
        seeds: SeedRange,
    },
}

/// One line of `arcade puzzle generate`, keys in this order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GeneratedLine {
    seed: i64,
    stage: u8,
    levels: [u8; 25],
    immutable: [bool; 25],
    source: [u8; 2],
    target: [u8; 2],
    moves_left: u8,
    witness: Vec<[u8; 2]>,
}

impl GeneratedLine {
    fn of(puzzle: &Puzzle) -> Self {
        let start = puzzle.start();
        GeneratedLine {
            seed: puzzle.seed(),
            stage: puzzle.stage().number(),
            levels: start.levels(),
            immutable: start.immutable_flags(),
            source: [start.source().x, start.source().y],
            target: [start.target().x, start.target().y],
            moves_left: start.moves_left(),
            witness: puzzle.witness().map(|c| [c.x, c.y]).collect(),
        }
    }
}

/// Runs a subcommand, writing results to `out` and problems to `err`; returns the exit code.
pub fn run(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match command {
        Command::Generate { stage, seeds } => generate(stage, seeds, out, err),
    }
}

fn generate(stage: u8, seeds: SeedRange, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let stage = match Stage::new(stage.into()) {
        Ok(stage) => stage,
        Err(e) => {
            let _ = writeln!(err, "arcade puzzle generate: --stage: {e}");
            return EXIT_USAGE;
        }
    };
    for seed in seeds.iter() {
        let line = match Puzzle::generate(seed, stage) {
            Ok(puzzle) => GeneratedLine::of(&puzzle),
            Err(e) => {
                let _ = writeln!(err, "arcade puzzle generate: {e}");
                return EXIT_FAILURE;
            }
        };
        let written = serde_json::to_writer(&mut *out, &line)
            .map_err(std::io::Error::other)
            .and_then(|()| out.write_all(b"\n"));
        if let Err(e) = written {
            let _ = writeln!(err, "arcade puzzle generate: cannot write the output: {e}");
            return EXIT_FAILURE;
        }
    }
    EXIT_OK
}
