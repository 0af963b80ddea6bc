//! `arcade bingo …`: the organiser's command-line tools. `print` writes a batch of printed cards
//! of a called game whose pool is the squares 1 to N (a classic 75-square game is `--pool 75`),
//! one JSON line per card: `{"serial":1,"label":"…","cells":[…]}` with square ids row by row
//! and `null` for the free centre.
//!
//! The cards are exactly those `bingo.cards.print.v1` with the same count gives in a fresh
//! game with that id, grid and pool (squares 1 to N, in order) under the same secret: send
//! that request to the service to register the batch, so it can verify the labels.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use arcade_contracts::bingo::PrintedCard;

use crate::SECRET_ENV;
use crate::domain::limits::{MAX_CARDS, MAX_PRINT_BATCH};
use crate::domain::{
    Action, Bingo, Command as BingoCommand, Event, GameSpec, Input, PatternKind, Secret,
    SquareSpec, State, TickMode,
};

/// The `arcade bingo` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Print a batch of cards of a called game whose pool is the squares 1 to N, one JSON line
    /// each. The secret comes from --secret-file, or else from ARCADE_BINGO_SECRET.
    Print(PrintArgs),
}

/// Arguments of `arcade bingo print`.
#[derive(Debug, Clone, clap::Args)]
pub struct PrintArgs {
    /// The game id the cards belong to.
    #[arg(long)]
    pub game: String,
    /// Cells per side, 3 to 9 (odd sizes have a free centre).
    #[arg(long, default_value_t = 5)]
    pub grid: u32,
    /// Squares in the pool, numbered 1 to N (at least the cells a card draws, at most 500).
    #[arg(long)]
    pub pool: u32,
    /// How many cards, 1 to 100000.
    #[arg(long)]
    pub count: u32,
    /// No free centre on an odd grid.
    #[arg(long)]
    pub no_free_centre: bool,
    /// A file holding the server secret (one trailing line break is ignored).
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
}

/// Runs a subcommand with the secret of the environment ([`SECRET_ENV`]); returns the exit
/// code: 0 done, 1 output failed, 2 bad arguments or no usable secret.
pub fn run(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    run_with_env(command, std::env::var_os(SECRET_ENV), out, err)
}

/// [`run`], with the value of [`SECRET_ENV`] given (`None`: unset).
pub fn run_with_env(
    command: Command,
    env_secret: Option<OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    match command {
        Command::Print(args) => match print(&args, env_secret, out) {
            Ok(()) => 0,
            Err(Failure::Usage(message)) => {
                // Nothing more can be done if the error stream fails too.
                let _ = writeln!(err, "arcade bingo print: {message}");
                2
            }
            Err(Failure::Output(e)) => {
                let _ = writeln!(err, "arcade bingo print: cannot write the cards: {e}");
                1
            }
        },
    }
}

enum Failure {
    Usage(String),
    Output(std::io::Error),
}

fn secret(args: &PrintArgs, env_secret: Option<OsString>) -> Result<Secret, Failure> {
    crate::settings::load_secret(args.secret_file.as_deref(), env_secret, "--secret-file")
        .map_err(Failure::Usage)
}

fn print(
    args: &PrintArgs,
    env_secret: Option<OsString>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    if args.count == 0 || args.count > MAX_CARDS {
        return Err(Failure::Usage(format!(
            "--count is 1 to {MAX_CARDS} cards, not {}",
            args.count
        )));
    }
    let bingo = Bingo::new(&secret(args, env_secret)?);
    let spec = GameSpec {
        tick_mode: TickMode::Called,
        grid_size: args.grid,
        free_centre: args.no_free_centre.then_some(false),
        squares: (1..=args.pool)
            .map(|id| SquareSpec {
                id,
                label: id.to_string(),
                trigger: None,
            })
            .collect(),
        patterns: vec![PatternKind::Line],
        sources: Vec::new(),
    };
    let mut state = State::default();
    let step = |state: &mut State, action: Action| -> Result<Vec<Event>, Failure> {
        let input = Input::Command(BingoCommand {
            request_id: None,
            game_id: args.game.clone(),
            action,
        });
        let events = bingo
            .decide(state, &input, 0)
            .map_err(|r| Failure::Usage(r.to_string()))?;
        for event in &events {
            Bingo::evolve(state, event);
        }
        Ok(events)
    };
    step(&mut state, Action::Open(spec))?;
    let mut left = args.count;
    while left > 0 {
        let count = left.min(MAX_PRINT_BATCH);
        for event in step(&mut state, Action::Print { count })? {
            if let Event::CardsPrinted { cards, .. } = event {
                for card in cards {
                    let line = PrintedCard {
                        serial: card.serial,
                        label: card.label,
                        cells: card.cells,
                    };
                    let text = serde_json::to_string(&line)
                        .map_err(|e| Failure::Output(std::io::Error::other(e)))?;
                    writeln!(out, "{text}").map_err(Failure::Output)?;
                }
            }
        }
        left -= count;
    }
    out.flush().map_err(Failure::Output)
}
