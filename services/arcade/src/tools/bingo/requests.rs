//! `arcade bingo deal|call|claim|verify|close`: the organiser's requests to the bingo service,
//! the same messages the console's actions send (`bingo.card.deal.v1`, `bingo.square.call.v1`
//! or `bingo.square.draw.v1`, `bingo.card.claim.v1`, `bingo.card.verify.v1`,
//! `bingo.game.close.v1`), with the same tokens: the operator's, or for a claim the player's
//! (`bingo-player-<player>`, from `arcade bingo player add`).
//!
//! Each waits for the service's answer (`crate::reply::ask`) and prints it as a JSON line: exit
//! 0; its `bingo.request.rejected.v1` prints the reason with exit 1, and so does a claim whose
//! card has not won (its answer printed first). No answer within `--timeout`: exit 3.

use std::process::ExitCode;

use arcade_contracts::bingo::{
    CallSquare, CardDealt, ClaimAnswered, ClaimCard, CloseGame, DealCard, DrawSquare, GameClosed,
    RequestRejected, SquareCalled, VerifyCard,
};
use arcade_contracts::{Envelope, Message};
use clap::Args;
use serde_json::{Value, json};

use crate::connection::Connection;
use crate::exit::Failure;
use crate::reply::{self, AnswerArgs, Question};

/// The producer the tools' requests carry.
const PRODUCER: &str = "arcade-bingo-cli";

/// `arcade bingo deal`.
#[derive(Debug, Args)]
pub struct DealArgs {
    /// The game.
    #[arg(long, value_name = "G")]
    pub game: String,
    /// The player (in an activity game, the member of their gestures).
    #[arg(long, value_name = "NAME")]
    pub player: String,
    /// The message id, and how long to wait for the service's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade bingo call`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["square", "draw"]))]
pub struct CallArgs {
    /// The game (a called game).
    #[arg(long, value_name = "G")]
    pub game: String,
    /// The square to call, by its id in the pool (the line of the squares file, from 1).
    #[arg(long, value_name = "ID")]
    pub square: Option<u32>,
    /// Let the service draw the next square, which nobody can predict, and call it.
    #[arg(long)]
    pub draw: bool,
    /// The message id, and how long to wait for the service's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade bingo claim`.
#[derive(Debug, Args)]
pub struct ClaimArgs {
    /// The game.
    #[arg(long, value_name = "G")]
    pub game: String,
    /// The card's serial.
    #[arg(long, value_name = "N")]
    pub serial: u32,
    /// The player who holds the card; the claim needs the operator's token or theirs (--token).
    #[arg(long, value_name = "NAME")]
    pub player: String,
    /// The message id, and how long to wait for the service's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade bingo verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The game.
    #[arg(long, value_name = "G")]
    pub game: String,
    /// The card's serial.
    #[arg(long, value_name = "N")]
    pub serial: u32,
    /// The label printed on a printed card, checked first: a forged card is refused.
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,
    /// The message id, and how long to wait for the service's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade bingo close`.
#[derive(Debug, Args)]
pub struct CloseArgs {
    /// The game.
    #[arg(long, value_name = "G")]
    pub game: String,
    /// The message id, and how long to wait for the service's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// Sends a request to the bingo service and waits for its answer, one of `answers` or its
/// refusal: the answer, or the refusal as an error with exit code 1.
pub(super) async fn ask(
    connection: &Connection,
    answer: &AnswerArgs,
    message_type: &str,
    payload: Value,
    answers: &[&str],
) -> anyhow::Result<Envelope> {
    let question = Question {
        message_type,
        payload,
        pattern: "bingo.#",
        answers,
        producer: PRODUCER,
    };
    let (id, reply) = reply::ask(connection, answer, question).await?;
    if reply.message_type == RequestRejected::TYPE {
        let reason = reply.payload["reason"]
            .as_str()
            .unwrap_or("no reason given");
        let code = reply.payload["code"].as_str().unwrap_or("refused");
        return Err(Failure::refused(format_args!(
            "the bingo service refused {message_type} {id} ({code}): {reason}"
        )));
    }
    Ok(reply)
}

/// Prints an answer as a JSON line.
fn print(reply: &Envelope) -> anyhow::Result<ExitCode> {
    println!("{}", serde_json::to_string(reply)?);
    Ok(ExitCode::SUCCESS)
}

/// Runs `arcade bingo deal`.
pub async fn deal(args: DealArgs) -> anyhow::Result<ExitCode> {
    let payload = json!({"gameId": args.game, "player": args.player});
    let answers = [CardDealt::TYPE, RequestRejected::TYPE];
    let reply = ask(
        &args.connection,
        &args.answer,
        DealCard::TYPE,
        payload,
        &answers,
    )
    .await?;
    print(&reply)
}

/// Runs `arcade bingo call`.
pub async fn call(args: CallArgs) -> anyhow::Result<ExitCode> {
    let (message_type, payload) = match args.square {
        Some(square) => (
            CallSquare::TYPE,
            json!({"gameId": args.game, "squareId": square}),
        ),
        None => (DrawSquare::TYPE, json!({"gameId": args.game})),
    };
    let answers = [SquareCalled::TYPE, RequestRejected::TYPE];
    let reply = ask(
        &args.connection,
        &args.answer,
        message_type,
        payload,
        &answers,
    )
    .await?;
    print(&reply)
}

/// Runs `arcade bingo claim`: a card that has not won is a refused claim (exit 1), its answer
/// (the ticked cells) printed all the same.
pub async fn claim(args: ClaimArgs) -> anyhow::Result<ExitCode> {
    let payload = json!({"gameId": args.game, "serial": args.serial, "player": args.player});
    let answers = [ClaimAnswered::TYPE, RequestRejected::TYPE];
    let reply = ask(
        &args.connection,
        &args.answer,
        ClaimCard::TYPE,
        payload,
        &answers,
    )
    .await?;
    print(&reply)?;
    let answered: ClaimAnswered = serde_json::from_value(reply.payload)?;
    if answered.pattern.is_none() {
        let why = if answered.game_closed {
            "the game is closed"
        } else {
            "no pattern is complete"
        };
        return Err(Failure::refused(format_args!(
            "card {} of game \"{}\" has not won: {why} ({} cells ticked)",
            answered.serial,
            answered.game_id,
            answered.ticked_cells.len()
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `arcade bingo verify`.
pub async fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let mut payload = json!({"gameId": args.game, "serial": args.serial});
    if let Some(label) = args.label {
        payload["label"] = json!(label);
    }
    let answers = [ClaimAnswered::TYPE, RequestRejected::TYPE];
    let reply = ask(
        &args.connection,
        &args.answer,
        VerifyCard::TYPE,
        payload,
        &answers,
    )
    .await?;
    print(&reply)
}

/// Runs `arcade bingo close`.
pub async fn close(args: CloseArgs) -> anyhow::Result<ExitCode> {
    let payload = json!({"gameId": args.game});
    let answers = [GameClosed::TYPE, RequestRejected::TYPE];
    let reply = ask(
        &args.connection,
        &args.answer,
        CloseGame::TYPE,
        payload,
        &answers,
    )
    .await?;
    print(&reply)
}
