//! The command line: subcommands, flags and their environment fallbacks.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Arcade: independent game services that talk only through versioned JSON events.
#[derive(Debug, Parser)]
#[command(name = "arcade", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Host services in this process: on the embedded bus (default) or on RabbitMQ (--amqp).
    Run(RunArgs),
    /// Print every message whose type matches a topic pattern, one JSON line each.
    Tap(TapArgs),
    /// Validate a payload against its message type's schema and publish it.
    Send(SendArgs),
    /// A scripted showcase of every service on a fresh temporary data dir; exits by itself.
    Demo(DemoArgs),
    /// List the message types of the contract, or print one's schema or example.
    Types(TypesArgs),
    /// Table referee: start, abort a game, report a goal; replay a script, check rules.
    #[command(subcommand)]
    Referee(crate::tools::referee::RefereeCommand),
    /// Bingo tools: open a game from a squares file, print cards through the service, show a
    /// game or a card.
    #[command(subcommand)]
    Bingo(crate::tools::bingo::BingoCommand),
    /// Race master tools: simulate a whole race in process.
    #[command(subcommand)]
    Race(arcade_race_master::cli::Command),
    /// A car program: plays a team's cars in the race through the bus only.
    Car(crate::tools::car::CarArgs),
    /// Strata Relay puzzle tools: generate puzzles, print the telemetry, simulate sessions.
    #[command(subcommand)]
    Puzzle(crate::tools::puzzle::PuzzleCommand),
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
    Completions(crate::shell::CompletionsArgs),
    /// Print the manual page (roff), or write one page per command with --dir.
    Man(crate::shell::ManArgs),
    /// Schema evolution: compare the generated schemas with a baseline (exit 1 if one breaks).
    #[command(subcommand)]
    Schemas(crate::tools::schemas::SchemasCommand),
}

/// Where to reach the services: a broker, or the admin endpoint of `arcade run`.
#[derive(Debug, Clone, Args)]
pub struct Connection {
    /// RabbitMQ URL (amqp:// or amqps://). Absent: the embedded transport of `arcade run`.
    #[arg(long = "amqp", env = "ARCADE_AMQP_URL", value_name = "URL")]
    pub amqp: Option<String>,
    /// Address of the admin endpoint that `arcade run` serves on loopback.
    #[arg(
        long,
        env = "ARCADE_ADMIN_ADDR",
        default_value = "127.0.0.1:7878",
        value_name = "ADDR"
    )]
    pub admin: SocketAddr,
}

/// `arcade run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Services to host (default: all). Several processes may each host some, on one broker.
    #[arg(value_enum, value_name = "SERVICE")]
    pub services: Vec<crate::services::ServiceName>,
    /// Settings of the services.
    #[command(flatten)]
    pub settings: crate::services::ServiceArgs,
    /// Directory of the services' data (one sled database each).
    #[arg(
        long = "data",
        env = "ARCADE_DATA_DIR",
        default_value = "./data",
        value_name = "DIR"
    )]
    pub data: PathBuf,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
    /// Health, readiness and metrics.
    #[command(flatten)]
    pub observe: crate::observe::ObserveArgs,
    /// State snapshots.
    #[command(flatten)]
    pub snapshots: SnapshotArgs,
}

/// When each hosted service snapshots its state, so that a restart replays only the log after
/// the newest snapshot.
#[derive(Debug, Clone, Args)]
pub struct SnapshotArgs {
    /// Snapshot a service's state after this many new log entries (0: not by count; with an
    /// interval of `off` too, no snapshots: a restart replays the whole log).
    #[arg(
        long = "snapshot-every",
        env = "ARCADE_SNAPSHOT_EVERY",
        default_value_t = 10_000,
        value_name = "N"
    )]
    pub every: u64,
    /// Snapshot a service's state at least this often while entries come, e.g. `60s`, `5m`
    /// (units ms, s, m, h, d; `off`: not by time).
    #[arg(
        long = "snapshot-interval",
        env = "ARCADE_SNAPSHOT_INTERVAL",
        default_value = "60s",
        value_parser = arcade_runtime::snapshot::parse_interval,
        value_name = "DURATION"
    )]
    pub interval: std::time::Duration,
}

impl SnapshotArgs {
    /// The runtime's policy.
    pub fn policy(&self) -> arcade_runtime::SnapshotPolicy {
        arcade_runtime::SnapshotPolicy::from_settings(self.every, self.interval)
    }
}

/// `arcade tap`.
#[derive(Debug, Args)]
pub struct TapArgs {
    /// Topic pattern over message types: `*` is one word, `#` zero or more (`game.#`, `#`).
    #[arg(default_value = "#")]
    pub pattern: String,
    /// Stop after this many messages.
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade send`.
#[derive(Debug, Args)]
pub struct SendArgs {
    /// Message type, e.g. `game.session.completed.v1`.
    #[arg(value_name = "TYPE")]
    pub message_type: String,
    /// File holding the JSON payload, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    pub file: String,
    /// Producer name the message carries (AMQP app_id).
    #[arg(long, default_value = "arcade-cli")]
    pub producer: String,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the demo's data here instead of a temporary directory.
    #[arg(long = "data", value_name = "DIR")]
    pub data: Option<PathBuf>,
}

/// `arcade types`.
#[derive(Debug, Args)]
pub struct TypesArgs {
    /// Print this type's JSON Schema.
    #[arg(long, value_name = "TYPE", conflicts_with = "example")]
    pub schema: Option<String>,
    /// Print this type's example payload.
    #[arg(long, value_name = "TYPE")]
    pub example: Option<String>,
}
