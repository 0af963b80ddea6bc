//! `arcade race team add NAME` and `arcade bingo player add NAME`: ask the admin endpoint of
//! `arcade run` (with the operator's token) for a principal's new secret and print it on
//! stdout, alone on its line, for the operator to hand over. Asked again, the endpoint gives a
//! new secret and the old one stops working (rotation).

use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::client::segment;
use crate::connection::{Connection, json_answer};

/// `arcade race team …`.
#[derive(Debug, Subcommand)]
pub enum TeamCommand {
    /// Add a team (or rotate its secret) and print its secret: the bearer token of
    /// `race-team-NAME`, which reads only the team's stream and sends only its own
    /// registrations, answers and queries.
    Add(NameArgs),
}

/// `arcade bingo player …`.
#[derive(Debug, Subcommand)]
pub enum PlayerCommand {
    /// Add a player (or rotate its secret) and print its secret: the bearer token of
    /// `bingo-player-NAME`, which may claim only that player's cards.
    Add(NameArgs),
}

/// A principal's name and where the endpoint is.
#[derive(Debug, Args)]
pub struct NameArgs {
    /// The team's or player's name.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The admin endpoint (and the operator's token).
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade race team add`.
pub async fn team(command: TeamCommand) -> anyhow::Result<ExitCode> {
    let TeamCommand::Add(args) = command;
    add(&args, "race/teams").await
}

/// `arcade bingo player add`.
pub async fn player(command: PlayerCommand) -> anyhow::Result<ExitCode> {
    let PlayerCommand::Add(args) = command;
    add(&args, "bingo/players").await
}

async fn add(args: &NameArgs, collection: &str) -> anyhow::Result<ExitCode> {
    let admin = args.connection.admin();
    let url = format!("http://{admin}/{collection}/{}", segment(&args.name));
    let response = crate::auth::http_client(args.connection.token.as_deref())
        .post(&url)
        .send()
        .await
        .map_err(|e| {
            crate::exit::Failure::undelivered(format_args!(
                "no `arcade run` answers at {admin} ({e}); start one or pass --admin ADDR"
            ))
        })?;
    let (status, body) = json_answer(response, &url).await?;
    if !status.is_success() {
        return Ok(crate::exit::print(
            crate::exit::for_status(status),
            body["error"].as_str().unwrap_or("refused by the endpoint"),
        ));
    }
    let (Some(principal), Some(token)) = (body["principal"].as_str(), body["token"].as_str())
    else {
        anyhow::bail!("{url}: the answer has no principal and token");
    };
    eprintln!("{principal}: its secret (hand it over privately; running this again replaces it):");
    println!("{token}");
    Ok(ExitCode::SUCCESS)
}
