//! `arcade bingo …`: the organiser's tools, which go through the bingo service hosted by an
//! `arcade run` (its admin endpoint, `--admin` / `ARCADE_ADMIN_ADDR`), or through RabbitMQ with
//! `--amqp` for the requests:
//!
//! - `open` (`open.rs`): opens a game whose pool is a squares file, called, ticked by its
//!   players' gestures, or by other services' events (`--tick-from TYPE …`).
//! - `deal`, `call`, `claim`, `verify`, `close` (`requests.rs`): the requests the console
//!   sends, each printing the service's answer.
//! - `print` (`print.rs`): prints cards of a called game through the service.
//! - `show` (`show.rs`): a game or one of its cards, as the service holds them.
//!
//! The requests wait for the service's answer as every organiser command does
//! (`crate::reply::ask`). Exit codes as every `arcade` command's (`crate::exit`): 1 the
//! service's refusal (printed with its reason) or a missing or wrong token, 2 bad input, 3 the
//! service could not be reached or did not answer within `--timeout`.

mod link;
mod open;
mod print;
mod requests;
mod show;

use std::process::ExitCode;

use arcade_contracts::bingo::{GridSpec, TickMode};
use clap::Subcommand;

/// The `arcade bingo` subcommands.
#[derive(Debug, Subcommand)]
pub enum BingoCommand {
    /// Open a game whose pool is a file of squares, one label per line (bingo.game.open.v1).
    Open(open::OpenArgs),
    /// Deal a player their card, the same one on every later deal (bingo.card.deal.v1).
    Deal(requests::DealArgs),
    /// Call a square of a called game, or let the service draw the next one
    /// (bingo.square.call.v1, bingo.square.draw.v1).
    Call(requests::CallArgs),
    /// Claim a win on a player's card, with the operator's token or the player's
    /// (bingo.card.claim.v1); a card that has not won is a refused claim.
    Claim(requests::ClaimArgs),
    /// Verify a card by serial, or a printed card by its label (bingo.card.verify.v1).
    Verify(requests::VerifyArgs),
    /// Close a game: no more deals, calls, ticks or wins (bingo.game.close.v1).
    Close(requests::CloseArgs),
    /// Print cards of a called game through the service: JSON lines, or an A4 HTML sheet.
    Print(print::PrintArgs),
    /// Show a game (mode, status, called squares, winners, cards) or one of its cards.
    Show(show::ShowArgs),
    /// Players' secrets: `add NAME` prints the bearer token of `bingo-player-NAME`.
    #[command(subcommand)]
    Player(crate::tools::principals::PlayerCommand),
}

/// Runs an `arcade bingo` subcommand.
pub async fn run(command: BingoCommand) -> anyhow::Result<ExitCode> {
    match command {
        BingoCommand::Open(args) => open::run(args).await,
        BingoCommand::Deal(args) => requests::deal(args).await,
        BingoCommand::Call(args) => requests::call(args).await,
        BingoCommand::Claim(args) => requests::claim(args).await,
        BingoCommand::Verify(args) => requests::verify(args).await,
        BingoCommand::Close(args) => requests::close(args).await,
        BingoCommand::Print(args) => print::run(args).await,
        BingoCommand::Show(args) => show::run(args).await,
        BingoCommand::Player(command) => crate::tools::principals::player(command).await,
    }
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
