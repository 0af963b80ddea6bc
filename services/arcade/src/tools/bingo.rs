//! `arcade bingo …`: the organiser's tools, which go through the bingo service hosted by an
//! `arcade run` (its admin endpoint, `--admin` / `ARCADE_ADMIN_ADDR`):
//!
//! - `open --game G --grid N --squares FILE --patterns line,full [--mode called|activity]`:
//!   opens a game whose pool is the squares file (one label per line), and says how the
//!   service answered.
//! - `print --game G --count N [--format json|html]`: prints cards of a called game through the
//!   service (`print.rs`).
//! - `show --game G [--serial N]`: a game (mode, status, called squares, winners in order,
//!   cards) or one of its cards, as the service holds them.
//!
//! Exit codes as every `arcade` command's (`crate::exit`): 1 the service's refusal (printed
//! with its reason) or a missing or wrong token, 2 bad input, 3 the service could not be
//! reached or did not answer.

mod link;
mod print;

use std::path::PathBuf;
use std::process::ExitCode;

use arcade_bingo::cli::{patterns_from_list, squares_from_text};
use arcade_contracts::bingo::reads::{CardRead, GameRead, GameStatus};
use arcade_contracts::bingo::{GameOpened, GridSpec, OpenGame, RequestRejected, TickMode};
use arcade_contracts::{Catalog, Message};
use clap::{Args, Subcommand, ValueEnum};

use crate::client::segment;

pub use crate::connection::AdminArg;
pub use link::{Admin, invalid, refused};

/// The `arcade bingo` subcommands.
#[derive(Debug, Subcommand)]
pub enum BingoCommand {
    /// Open a game whose pool is a file of squares, one label per line.
    Open(OpenArgs),
    /// Print cards of a called game through the service: JSON lines, or an A4 HTML sheet.
    Print(print::PrintArgs),
    /// Show a game (mode, status, called squares, winners, cards) or one of its cards.
    Show(ShowArgs),
    /// Players' secrets: `add NAME` prints the bearer token of `bingo-player-NAME`.
    #[command(subcommand)]
    Player(crate::tools::principals::PlayerCommand),
}

/// How a game's cards get ticked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// By the squares the organiser calls.
    Called,
    /// By the players' gestures (each line of the squares file is `label | verb [| object]`).
    Activity,
}

/// `arcade bingo open`.
#[derive(Debug, Args)]
pub struct OpenArgs {
    /// The new game's id.
    #[arg(long)]
    pub game: String,
    /// Cells per side, 3 to 9 (odd sizes have a free centre).
    #[arg(long, value_parser = clap::value_parser!(u8).range(3..=9))]
    pub grid: u8,
    /// The squares, one label per line (numbered from 1); in an activity game `label | verb`
    /// or `label | verb | object`.
    #[arg(long, value_name = "FILE")]
    pub squares: PathBuf,
    /// Win patterns, checked in order, separated by commas: line, row, column, diagonal, full,
    /// corners.
    #[arg(long, value_name = "LIST")]
    pub patterns: String,
    /// How cards get ticked.
    #[arg(long, value_enum, default_value = "called")]
    pub mode: Mode,
    /// No free centre on an odd grid.
    #[arg(long)]
    pub no_free_centre: bool,
    /// The admin endpoint.
    #[command(flatten)]
    pub admin: AdminArg,
}

/// `arcade bingo show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The game.
    #[arg(long)]
    pub game: String,
    /// Show this card instead of the game.
    #[arg(long, value_name = "N")]
    pub serial: Option<u32>,
    /// Print the JSON the service answers instead of text.
    #[arg(long)]
    pub json: bool,
    /// The admin endpoint.
    #[command(flatten)]
    pub admin: AdminArg,
}

/// Runs an `arcade bingo` subcommand.
pub async fn run(command: BingoCommand) -> anyhow::Result<ExitCode> {
    match command {
        BingoCommand::Open(args) => open(args).await,
        BingoCommand::Print(args) => print::run(args).await,
        BingoCommand::Show(args) => show(args).await,
        BingoCommand::Player(command) => crate::tools::principals::player(command).await,
    }
}

async fn open(args: OpenArgs) -> anyhow::Result<ExitCode> {
    let mode = match args.mode {
        Mode::Called => TickMode::Called,
        Mode::Activity => TickMode::Activity,
    };
    let text = std::fs::read_to_string(&args.squares).map_err(|e| {
        crate::exit::Failure::invalid(format_args!("--squares {}: {e}", args.squares.display()))
    })?;
    let pool = match squares_from_text(&text, mode) {
        Ok(pool) => pool,
        Err(e) => {
            return Ok(invalid(format!(
                "--squares {}: {e}",
                args.squares.display()
            )));
        }
    };
    let patterns = match patterns_from_list(&args.patterns) {
        Ok(patterns) => patterns,
        Err(e) => return Ok(invalid(format!("--patterns: {e}"))),
    };
    let request_id = format!("open-{}", uuid::Uuid::now_v7().simple());
    let request = OpenGame {
        request_id: Some(request_id.clone()),
        game_id: args.game.clone(),
        tick_mode: mode,
        grid: GridSpec {
            size: args.grid,
            free_centre: args.no_free_centre.then_some(false),
        },
        pool,
        patterns,
        activity_sources: Vec::new(),
    };
    let payload = serde_json::to_value(&request)?;
    if let Err(e) = Catalog::new().validate(OpenGame::TYPE, &payload) {
        return Ok(invalid(e));
    }
    let admin = Admin::new(args.admin.admin);
    let mut answers = admin.answers().await?;
    admin.send(OpenGame::TYPE, &payload).await?;
    let answer = answers.answer(&request_id).await?;
    if answer.message_type == RequestRejected::TYPE {
        let rejection: RequestRejected = serde_json::from_value(answer.payload)?;
        return Ok(refused(rejection.reason));
    }
    let opened: GameOpened = serde_json::from_value(answer.payload)?;
    let names: Vec<String> = patterns_from_names(&args.patterns);
    println!(
        "opened game \"{}\": {}, {} cards from {} squares, won by {}",
        opened.game_id,
        mode_name(opened.tick_mode),
        grid_text(&opened.grid),
        opened.pool.len(),
        names.join(", then ")
    );
    Ok(ExitCode::SUCCESS)
}

fn patterns_from_names(list: &str) -> Vec<String> {
    list.split(',').map(|n| n.trim().to_string()).collect()
}

fn mode_name(mode: TickMode) -> &'static str {
    match mode {
        TickMode::Called => "called",
        TickMode::Activity => "ticked by activity",
    }
}

fn grid_text(grid: &GridSpec) -> String {
    let centre = if grid.free_centre == Some(true) {
        " (free centre)"
    } else {
        ""
    };
    format!("{0}×{0}{centre}", grid.size)
}

async fn show(args: ShowArgs) -> anyhow::Result<ExitCode> {
    let admin = Admin::new(args.admin.admin);
    let game_path = format!("/bingo/games/{}", segment(&args.game));
    let text = match args.serial {
        None => match admin.get::<GameRead>(&game_path).await? {
            Ok(game) if args.json => serde_json::to_string_pretty(&game)? + "\n",
            Ok(game) => game_text(&game),
            Err(refusal) => return Ok(refusal.exit()),
        },
        Some(serial) => {
            let path = format!("{game_path}/cards/{serial}");
            let card = match admin.get::<CardRead>(&path).await? {
                Ok(card) => card,
                Err(refusal) => return Ok(refusal.exit()),
            };
            if args.json {
                serde_json::to_string_pretty(&card)? + "\n"
            } else {
                let game = match admin.get::<GameRead>(&game_path).await? {
                    Ok(game) => game,
                    Err(refusal) => return Ok(refusal.exit()),
                };
                card_text(&game, &card)
            }
        }
    };
    crate::tools::bingo::print::write_stdout(text.as_bytes())
}

fn time(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(i64::MAX)).map_or_else(
        || format!("{ms} ms"),
        |t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
    )
}

fn game_text(game: &GameRead) -> String {
    let status = match game.status {
        GameStatus::Open => "open",
        GameStatus::Closed => "closed",
    };
    let mut text = format!(
        "game \"{}\": {}, {}; {} cards from {} squares; patterns {}\ncards: {}",
        game.game_id,
        mode_name(game.tick_mode),
        status,
        grid_text(&game.grid),
        game.pool.len(),
        game.patterns.join(", "),
        game.cards,
    );
    if game.tick_mode == TickMode::Called {
        text.push_str(&format!(" ({} more can be printed)", game.printable));
        let called: Vec<String> = game
            .called_squares
            .iter()
            .map(|id| label_of(game, *id))
            .collect();
        text.push_str(&format!(
            "\ncalled ({}): {}",
            called.len(),
            if called.is_empty() {
                "none yet".to_string()
            } else {
                called.join(", ")
            }
        ));
    }
    text.push_str(&format!("\nwinners ({}):", game.winners.len()));
    if game.winners.is_empty() {
        text.push_str(" none yet");
    }
    for w in &game.winners {
        let holder = w
            .player
            .as_deref()
            .map_or("printed".to_string(), |p| p.to_string());
        text.push_str(&format!(
            "\n  {}. card {} ({holder}) by {} at {}",
            w.place,
            w.serial,
            w.pattern,
            time(w.won_at)
        ));
    }
    text.push('\n');
    text
}

fn label_of(game: &GameRead, id: u32) -> String {
    game.pool
        .iter()
        .find(|s| s.id == id)
        .map_or_else(|| id.to_string(), |s| s.label.clone())
}

fn card_text(game: &GameRead, card: &CardRead) -> String {
    let holder = card
        .player
        .as_deref()
        .map_or("printed card".to_string(), |p| format!("held by {p}"));
    let mut text = format!(
        "card {} of game \"{}\", {holder}\n",
        card.serial, card.game_id
    );
    let size = usize::from(game.grid.size.max(1));
    let width = card
        .cells
        .iter()
        .map(|c| c.map_or(4, |id| label_of(game, id).chars().count()))
        .max()
        .unwrap_or(4);
    for (row, cells) in card.cells.chunks(size).enumerate() {
        let line: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(col, cell)| {
                let index = (row * size + col) as u8;
                let ticked = card.ticked_cells.contains(&index);
                let label = cell.map_or("FREE".to_string(), |id| label_of(game, id));
                let (open, close) = if ticked { ('[', ']') } else { (' ', ' ') };
                format!("{open}{label:^width$}{close}")
            })
            .collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    text.push_str("[ ] ticked");
    match &card.win {
        Some(win) => text.push_str(&format!(
            "; won by {} (place {}) at {}\n",
            win.pattern,
            win.place,
            time(win.won_at)
        )),
        None => text.push_str("; not won\n"),
    }
    text
}
