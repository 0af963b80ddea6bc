//! `arcade bingo show --game G [--serial N] [--json]`: a game (mode, status, called squares,
//! winners in order, cards) or one of its cards, as the service holds them (the admin
//! endpoint's `GET /bingo/games/…`), in text or as the JSON it answers.

use std::process::ExitCode;

use arcade_contracts::bingo::TickMode;
use arcade_contracts::bingo::reads::{CardRead, GameRead, GameStatus};
use clap::Args;

use super::link::Admin;
use super::{grid_text, mode_name};
use crate::client::segment;
use crate::connection::AdminArg;

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

/// Runs `arcade bingo show`.
pub async fn run(args: ShowArgs) -> anyhow::Result<ExitCode> {
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
