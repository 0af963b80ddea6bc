//! `arcade referee start|abort|goal`: an organiser's commands to the referee of one table,
//! published as `table.game.start.v1`, `table.game.abort.v1` and `table.goal.report.v1`
//! exactly as `arcade send` publishes (through RabbitMQ with `--amqp`, else the admin endpoint
//! of `arcade run`); and the rule authors' `replay` and `check`, which need no service.
//!
//! A command that no referee consumes (no queue `referee.<table>`) is not lost: it goes to the
//! dead letters with reason `unroutable`, and the command says so with exit code 1.

use std::path::PathBuf;
use std::process::ExitCode;

use arcade_contracts::Message;
use arcade_contracts::table::{TableGameAbort, TableGameStart, TableGoalReport};
use arcade_referee::settings::read_rules;
use serde_json::json;

use crate::client::publish;
use crate::connection::Connection;

/// `arcade referee …`.
#[derive(Debug, clap::Subcommand)]
pub enum RefereeCommand {
    /// Start a game on a table (table.game.start.v1).
    Start(StartArgs),
    /// End the game in progress on a table without a winner (table.game.abort.v1).
    Abort(AbortArgs),
    /// Report a goal on a table's game in progress (table.goal.report.v1).
    Goal(GoalArgs),
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
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

const PRODUCER: &str = "arcade-referee-cli";
/// Exit code of a refused input (bad rules file), as `arcade send` uses.
const INVALID: u8 = 2;

pub async fn run(command: RefereeCommand) -> anyhow::Result<ExitCode> {
    match command {
        RefereeCommand::Start(args) => {
            let rules = match read_rules("--rules", &args.rules) {
                Ok(rules) => rules,
                Err(message) => {
                    eprintln!("error: {message}");
                    return Ok(ExitCode::from(INVALID));
                }
            };
            let mut payload = json!({"tableId": args.table, "gameId": args.game, "rules": rules});
            if !args.hinge.is_empty() || !args.lock.is_empty() {
                payload["players"] = json!({"hinge": args.hinge, "lock": args.lock});
            }
            publish(&args.connection, TableGameStart::TYPE, payload, PRODUCER).await
        }
        RefereeCommand::Abort(args) => {
            let mut payload = json!({"tableId": args.table, "gameId": args.game});
            if let Some(reason) = args.reason {
                payload["reason"] = json!(reason);
            }
            publish(&args.connection, TableGameAbort::TYPE, payload, PRODUCER).await
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
            publish(&args.connection, TableGoalReport::TYPE, payload, PRODUCER).await
        }
        RefereeCommand::Display(args) => Ok(crate::pipe::tool(|out, err| {
            super::referee_display::run(&args, out, err)
        })),
        RefereeCommand::Tool(command) => Ok(crate::pipe::tool(|out, err| {
            arcade_referee::cli::run(command, out, err)
        })),
    }
}
