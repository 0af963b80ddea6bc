//! `arcade referee start|abort|goal|cancel`: an organiser's commands to the referee of one
//! table, published as `table.game.start.v1`, `table.game.abort.v1`, `table.goal.report.v1` and
//! `table.goal.cancel.v1`
//! exactly as `arcade send` publishes (through RabbitMQ with `--amqp`, else the admin endpoint
//! of `arcade run`), each then waiting for the referee's answer: the event it decided, printed
//! as a JSON line, or its `table.*.rejected.v1`, whose reason is printed with exit code 1. And
//! the rule authors' `replay` and `check`, which need no service.
//!
//! A command that no referee consumes (no queue `referee.<table>`) is not lost: it goes to the
//! dead letters with reason `unroutable`, and the command says so with exit code 3, as when no
//! answer comes within `--timeout`.

use std::path::PathBuf;
use std::process::ExitCode;

use arcade_contracts::Message;
use arcade_contracts::table::{
    TableGameAbort, TableGameFinished, TableGameRejected, TableGameStart, TableGameStarted,
    TableGoalCancel, TableGoalCancelled, TableGoalRejected, TableGoalReport, TableGoalScored,
};
use arcade_referee::settings::read_rules;
use serde_json::{Value, json};

use crate::connection::Connection;
use crate::exit::Failure;
use crate::reply::{self, AnswerArgs, Question};

/// `arcade referee …`.
#[derive(Debug, clap::Subcommand)]
pub enum RefereeCommand {
    /// Start a game on a table (table.game.start.v1).
    Start(StartArgs),
    /// End the game in progress on a table without a winner (table.game.abort.v1).
    Abort(AbortArgs),
    /// Report a goal on a table's game in progress (table.goal.report.v1).
    Goal(GoalArgs),
    /// Cancel the last ball of a table's game in progress (table.goal.cancel.v1).
    Cancel(CancelArgs),
    /// Draw one frame of the table's score display (8 rows, `#` lit), without hardware.
    Display(super::referee_display::DisplayArgs),
    /// Rule authors' tools, with no service.
    #[command(flatten)]
    Tool(arcade_referee::cli::Command),
}

/// `arcade referee start`.
#[derive(Debug, clap::Args)]
pub struct StartArgs {
    /// The table (its referee's queue is `referee.<table>`).
    #[arg(long, value_name = "T")]
    pub table: String,
    /// The game's id: used once per table.
    #[arg(long, value_name = "G")]
    pub game: String,
    /// The rules document (JSON), checked here before it is sent.
    #[arg(long, value_name = "R.json")]
    pub rules: PathBuf,
    /// Players on the hinge side.
    #[arg(long, value_name = "NAME", num_args = 1..)]
    pub hinge: Vec<String>,
    /// Players on the lock side.
    #[arg(long, value_name = "NAME", num_args = 1..)]
    pub lock: Vec<String>,
    /// The message id, and how long to wait for the referee's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade referee abort`.
#[derive(Debug, clap::Args)]
pub struct AbortArgs {
    /// The table.
    #[arg(long, value_name = "T")]
    pub table: String,
    /// The game to end (refused when it is not the table's game in progress).
    #[arg(long, value_name = "G")]
    pub game: String,
    /// Why, carried by table.game.finished.v1.
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// The message id, and how long to wait for the referee's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// A side of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SideArg {
    /// The hinge side.
    Hinge,
    /// The lock side.
    Lock,
}

/// How the ball went in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    /// A plain goal.
    Goal,
    /// A ball that went in and came back out.
    Inout,
}

/// `arcade referee goal`.
#[derive(Debug, clap::Args)]
pub struct GoalArgs {
    /// The table; the goal counts in its game in progress.
    #[arg(long, value_name = "T")]
    pub table: String,
    /// The side that scored.
    #[arg(long, value_enum, value_name = "S")]
    pub side: SideArg,
    /// How the ball went in.
    #[arg(long, value_enum, value_name = "K")]
    pub kind: KindArg,
    /// Who scored, carried by table.goal.scored.v1.
    #[arg(long, value_name = "P")]
    pub player: Option<String>,
    /// Only for this game: refused when the table plays another.
    #[arg(long, value_name = "G")]
    pub game: Option<String>,
    /// The message id, and how long to wait for the referee's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade referee cancel`.
#[derive(Debug, clap::Args)]
pub struct CancelArgs {
    /// The table.
    #[arg(long, value_name = "T")]
    pub table: String,
    /// The game in progress (refused when it is not the table's).
    #[arg(long, value_name = "G")]
    pub game: String,
    /// The ball to cancel, its number in table.goal.scored.v1: refused unless it is the last
    /// [default: the last ball, whichever it is].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub ball: Option<u64>,
    /// Why, carried by table.goal.cancelled.v1.
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// The message id, and how long to wait for the referee's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

const PRODUCER: &str = "arcade-referee-cli";

pub async fn run(command: RefereeCommand) -> anyhow::Result<ExitCode> {
    match command {
        RefereeCommand::Start(args) => {
            let rules = read_rules("--rules", &args.rules).map_err(Failure::invalid)?;
            let mut payload = json!({"tableId": args.table, "gameId": args.game, "rules": rules});
            if !args.hinge.is_empty() || !args.lock.is_empty() {
                payload["players"] = json!({"hinge": args.hinge, "lock": args.lock});
            }
            let answers = [TableGameStarted::TYPE, TableGameRejected::TYPE];
            ask(
                &args.connection,
                &args.answer,
                TableGameStart::TYPE,
                payload,
                &answers,
            )
            .await
        }
        RefereeCommand::Abort(args) => {
            let mut payload = json!({"tableId": args.table, "gameId": args.game});
            if let Some(reason) = args.reason {
                payload["reason"] = json!(reason);
            }
            let answers = [TableGameFinished::TYPE, TableGameRejected::TYPE];
            ask(
                &args.connection,
                &args.answer,
                TableGameAbort::TYPE,
                payload,
                &answers,
            )
            .await
        }
        RefereeCommand::Goal(args) => {
            let side = match args.side {
                SideArg::Hinge => "hinge",
                SideArg::Lock => "lock",
            };
            let kind = match args.kind {
                KindArg::Goal => "goal",
                KindArg::Inout => "inout",
            };
            let mut payload = json!({"tableId": args.table, "side": side, "kind": kind});
            if let Some(game) = args.game {
                payload["gameId"] = json!(game);
            }
            if let Some(player) = args.player {
                payload["player"] = json!(player);
            }
            let answers = [TableGoalScored::TYPE, TableGoalRejected::TYPE];
            ask(
                &args.connection,
                &args.answer,
                TableGoalReport::TYPE,
                payload,
                &answers,
            )
            .await
        }
        RefereeCommand::Cancel(args) => {
            let payload = TableGoalCancel {
                table_id: args.table,
                game_id: args.game,
                ball: args.ball,
                reason: args.reason,
            };
            let answers = [TableGoalCancelled::TYPE, TableGameRejected::TYPE];
            let payload = serde_json::to_value(payload)?;
            let (connection, answer) = (&args.connection, &args.answer);
            ask(connection, answer, TableGoalCancel::TYPE, payload, &answers).await
        }
        RefereeCommand::Display(args) => Ok(crate::pipe::tool(|out, err| {
            super::referee_display::run(&args, out, err)
        })),
        RefereeCommand::Tool(command) => Ok(crate::pipe::tool(|out, err| {
            arcade_referee::cli::run(command, out, err)
        })),
    }
}

/// Sends a command to a referee and waits for its answer, the first of its events of a type
/// in `answers` caused by the command: prints it as a JSON line (exit 0), or, for a
/// `*.rejected.v1`, prints its reason (exit 1).
async fn ask(
    connection: &Connection,
    answer: &AnswerArgs,
    message_type: &str,
    payload: Value,
    answers: &[&str],
) -> anyhow::Result<ExitCode> {
    let question = Question {
        message_type,
        payload,
        pattern: "table.#",
        answers,
        producer: PRODUCER,
    };
    let (id, reply) = reply::ask(connection, answer, question).await?;
    if reply.message_type.ends_with(".rejected.v1") {
        let reason = reply.payload["error"].as_str().unwrap_or("no reason given");
        return Err(Failure::refused(format_args!(
            "the referee refused {message_type} {id}: {reason}"
        )));
    }
    println!("{}", serde_json::to_string(&reply)?);
    Ok(ExitCode::SUCCESS)
}
