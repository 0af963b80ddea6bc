//! The command line: subcommands, flags and their environment fallbacks.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::client::{SendArgs, TapArgs, TypesArgs};
use crate::connection::Connection;

/// Arcade: independent game services that talk only through versioned JSON events.
#[derive(Debug, Parser)]
#[command(
    name = "arcade",
    version,
    propagate_version = true,
    after_help = crate::exit::HELP
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// How log lines are written.
    #[command(flatten)]
    pub logs: arcade_runtime::app::args::LogArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Host services in this process: on the embedded bus (default) or on RabbitMQ (--amqp).
    Run(Box<RunArgs>),
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
    /// Race master tools: simulate a whole race in process; add a team (its secret).
    #[command(subcommand)]
    Race(RaceCommand),
    /// A car program: plays a team's cars in the race through the bus only.
    Car(crate::tools::car::CarArgs),
    /// Strata Relay puzzle tools: generate puzzles, print the telemetry, simulate sessions.
    #[command(subcommand)]
    Puzzle(crate::tools::puzzle::PuzzleCommand),
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the manual page (roff), or write one page per command with --dir.
    Man(ManArgs),
    /// The dead letters: list them, show one, replay them to their queues (JSON lines).
    #[command(subcommand)]
    Dead(crate::dead::DeadCommand),
    /// A service's event log on a stopped data dir: its entries as JSON lines (--follow for
    /// new ones), a check of every chunk and snapshot (--verify), or its figures (--stats).
    Log(crate::oplog::LogArgs),
    /// Schema evolution: compare the generated schemas with a baseline (exit 1 if one breaks).
    #[command(subcommand)]
    Schemas(crate::tools::schemas::SchemasCommand),
    /// Write the reference (the command line, the settings, the message types) as Markdown.
    Docs(DocsArgs),
}

/// `arcade docs`.
#[derive(Debug, Args)]
pub struct DocsArgs {
    /// The directory to write `cli.md`, `settings.md` and `messages.md` into (created if
    /// missing; those three files are replaced).
    #[arg(long, value_name = "DIR", default_value = "docs/reference")]
    pub dir: std::path::PathBuf,
}

/// `arcade race …`.
#[derive(Debug, Subcommand)]
pub enum RaceCommand {
    /// The race master's own tools.
    #[command(flatten)]
    Master(arcade_race_master::cli::Command),
    /// Teams: `add NAME` prints the team's secret.
    #[command(subcommand)]
    Team(crate::tools::principals::TeamCommand),
}

/// Bounds on what a client of the admin endpoint may cost.
#[derive(Debug, Clone, Args)]
pub struct AdminLimitArgs {
    /// Another name the admin endpoint answers as (its `Host` header), besides its bound
    /// address (and localhost on loopback). Repeatable.
    #[arg(
        long = "admin-host",
        env = "ARCADE_ADMIN_HOSTS",
        value_delimiter = ',',
        value_name = "HOST"
    )]
    pub hosts: Vec<String>,
    /// Connections the admin endpoint serves at once (more wait until one closes).
    #[arg(
        long = "admin-max-connections",
        env = "ARCADE_ADMIN_MAX_CONNECTIONS",
        default_value_t = 1024,
        value_name = "N"
    )]
    pub max_connections: usize,
    /// Seconds an admin connection may stay open with no request and no traffic; also the
    /// time a request's headers may take.
    #[arg(
        long = "admin-idle-timeout",
        env = "ARCADE_ADMIN_IDLE_TIMEOUT",
        default_value_t = 60,
        value_name = "SECS"
    )]
    pub idle_timeout: u64,
    /// Seconds a stream's reader may leave a message unread before it is dropped.
    #[arg(
        long = "admin-stream-stall",
        env = "ARCADE_ADMIN_STREAM_STALL",
        default_value_t = 30,
        value_name = "SECS"
    )]
    pub stream_stall: u64,
}

/// `arcade run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Services to host (default: all). Several processes may each host some, on one broker.
    #[arg(value_enum, value_name = "SERVICE")]
    pub services: Vec<crate::hosted::ServiceName>,
    /// Settings of the services.
    #[command(flatten)]
    pub settings: crate::hosted::ServiceArgs,
    /// Where the data is.
    #[command(flatten)]
    pub data: arcade_runtime::app::args::DataArgs,
    /// Run as instance K of N of a partitioned service (`bingo` or `puzzle-telemetry`, alone
    /// in this process, on RabbitMQ): the instance owns the games the broker's consistent-hash
    /// exchange hashes to it, with its own log in DATA/SERVICE.pK and its own queue SERVICE.pK.
    /// N must stay the same while games run (ops/RUNBOOK.md).
    #[arg(long = "partition", env = "ARCADE_PARTITION", value_name = "K/N")]
    pub partition: Option<arcade_runtime::bus::partition::Partition>,
    /// On RabbitMQ, the most MiB of unacknowledged deliveries each service's consumer may hold
    /// (RabbitMQ counts a prefetch in messages only): its prefetch is this over the largest
    /// message the broker accepts (512 KiB), at most 1,024. 128 gives 256 deliveries; 512 gives
    /// 1,024, faster under load where the memory is there.
    #[arg(
        long = "consumer-memory-mib",
        env = "ARCADE_CONSUMER_MEMORY_MIB",
        default_value_t = arcade_runtime::bus::amqp::DEFAULT_PREFETCH_BYTES / (1024 * 1024),
        value_parser = clap::value_parser!(u32).range(1..=4095),
        value_name = "MIB"
    )]
    pub consumer_memory_mib: u32,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
    /// Bounds of the admin endpoint.
    #[command(flatten)]
    pub limits: AdminLimitArgs,
    /// What one client address may cost the admin endpoint and the console.
    #[command(flatten)]
    pub clients: arcade_runtime::guard::settings::ClientArgs,
    /// Health, readiness and metrics.
    #[command(flatten)]
    pub observe: arcade_runtime::app::args::ObserveArgs,
    /// The history stream on RabbitMQ.
    #[command(flatten)]
    pub history: HistoryArgs,
    /// Deduplication and snapshots of the services' logs.
    #[command(flatten)]
    pub host: arcade_runtime::app::args::HostArgs,
}

impl RunArgs {
    /// The partition to run as, if any, once it is checked against the rest: `--partition`
    /// needs RabbitMQ and exactly one partitionable service.
    pub fn partition(&self) -> anyhow::Result<Option<arcade_runtime::bus::partition::Partition>> {
        use crate::hosted::ServiceName;
        let Some(partition) = self.partition else {
            return Ok(None);
        };
        if self.connection.broker.amqp.is_none() {
            anyhow::bail!(
                "--partition / ARCADE_PARTITION {partition}: partitions need RabbitMQ (--amqp): the embedded bus runs one instance of each service"
            );
        }
        match self.services.as_slice() {
            [ServiceName::Bingo | ServiceName::PuzzleTelemetry] => Ok(Some(partition)),
            _ => anyhow::bail!(
                "--partition / ARCADE_PARTITION {partition}: a partition instance hosts exactly one service, bingo or puzzle-telemetry (`arcade run bingo --partition {partition}`); this run hosts {}",
                if self.services.is_empty() {
                    "every service".to_string()
                } else {
                    self.services
                        .iter()
                        .map(|s| {
                            clap::ValueEnum::to_possible_value(s)
                                .map(|v| v.get_name().to_string())
                                .unwrap_or_default()
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        }
    }
}

/// Retention of the RabbitMQ stream `arcade.history`, which keeps every event for `arcade tap
/// --from` and analytics readers. Applied when `arcade run` creates the stream; a stream that
/// exists keeps its own (ops/RUNBOOK.md says how to change it).
#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    /// The most the history stream keeps, in bytes; the oldest events go first.
    #[arg(
        long = "history-max-bytes",
        env = "ARCADE_HISTORY_MAX_BYTES",
        default_value_t = arcade_runtime::bus::amqp::history::DEFAULT_MAX_BYTES,
        value_name = "BYTES"
    )]
    pub max_bytes: u64,
    /// How long the history stream keeps an event: a number and one unit of Y, M, D, h, m, s
    /// (e.g. 30D, 12h).
    #[arg(
        long = "history-max-age",
        env = "ARCADE_HISTORY_MAX_AGE",
        default_value = arcade_runtime::bus::amqp::history::DEFAULT_MAX_AGE,
        value_parser = |v: &str| arcade_runtime::bus::amqp::history::parse_max_age(v),
        value_name = "AGE"
    )]
    pub max_age: String,
}

impl HistoryArgs {
    /// The bus's history settings.
    pub fn config(&self) -> arcade_runtime::bus::amqp::HistoryConfig {
        arcade_runtime::bus::amqp::HistoryConfig {
            max_bytes: self.max_bytes,
            max_age: self.max_age.clone(),
            ..Default::default()
        }
    }
}

/// `arcade completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell, e.g. `bash` (`arcade completions bash > /etc/bash_completion.d/arcade`).
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// `arcade man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write one page per command (`arcade.1`, `arcade-referee-start.1`, …) into DIR instead
    /// of printing `arcade.1`.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `arcade demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the demo's data here instead of a temporary directory.
    #[arg(long = "data", value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Run the demo on this RabbitMQ (amqp:// or amqps://) instead of the embedded bus: its
    /// events stay in the broker's history stream (`arcade tap --from first`). Its value is
    /// never shown.
    #[arg(long = "amqp", value_name = "URL")]
    pub amqp: Option<String>,
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn run(args: &[&str]) -> Result<RunArgs, clap::Error> {
        let cli = Cli::try_parse_from(["arcade", "run"].iter().chain(args))?;
        match cli.command {
            Command::Run(run) => Ok(*run),
            other => panic!("not a run: {other:?}"),
        }
    }

    const AMQP: [&str; 2] = ["--amqp", "amqp://guest:guest@127.0.0.1:5672/%2f"];

    #[test]
    fn a_partition_is_k_of_n() {
        let args = run(&["bingo", "--partition", "1/2", AMQP[0], AMQP[1]]).unwrap();
        let partition = args.partition().unwrap().unwrap();
        assert_eq!((partition.index(), partition.count()), (1, 2));
        let args = run(&["puzzle-telemetry", "--partition", "0/1", AMQP[0], AMQP[1]]).unwrap();
        assert_eq!(args.partition().unwrap().unwrap().count(), 1);
        let args = run(&["bingo", AMQP[0], AMQP[1]]).unwrap();
        assert_eq!(args.partition().unwrap(), None);
    }

    #[test]
    fn a_bad_partition_is_a_clap_error_naming_the_flag() {
        for (value, why) in [
            ("2/2", "K must be less than N"),
            ("3/2", "K must be less than N"),
            ("0/0", "N must be at least 1"),
            ("two", "expected K/N"),
        ] {
            let error = run(&["bingo", "--partition", value]).unwrap_err();
            assert_eq!(error.kind(), clap::error::ErrorKind::ValueValidation);
            let text = error.to_string();
            assert!(
                text.contains("--partition <K/N>") && text.contains(why),
                "{value}: {text}"
            );
        }
    }

    #[test]
    fn a_consumer_holds_128_mib_unless_told_otherwise() {
        let args = run(&["bingo"]).unwrap();
        if std::env::var_os("ARCADE_CONSUMER_MEMORY_MIB").is_none() {
            assert_eq!(args.consumer_memory_mib, 128);
        }
        let args = run(&["bingo", "--consumer-memory-mib", "512"]).unwrap();
        assert_eq!(args.consumer_memory_mib, 512);
        for wrong in ["0", "4096", "lots"] {
            let error = run(&["bingo", "--consumer-memory-mib", wrong])
                .unwrap_err()
                .to_string();
            assert!(error.contains("--consumer-memory-mib"), "{wrong}: {error}");
        }
    }

    #[test]
    fn partitions_are_refused_on_the_embedded_bus() {
        let mut args = run(&["bingo", "--partition", "0/2"]).unwrap();
        // No broker, whatever the environment says (CI sets ARCADE_AMQP_URL).
        args.connection.broker.amqp = None;
        let error = args.partition().unwrap_err().to_string();
        assert!(
            error.contains("--partition") && error.contains("partitions need RabbitMQ (--amqp)"),
            "{error}"
        );
    }

    #[test]
    fn partitions_are_refused_with_other_services_than_one_partitionable() {
        for services in [
            &[][..],
            &["referee"][..],
            &["race-master"][..],
            &["console"][..],
            &["bingo", "puzzle-telemetry"][..],
            &["bingo", "console"][..],
        ] {
            let mut args: Vec<&str> = services.to_vec();
            args.extend(["--partition", "0/2", AMQP[0], AMQP[1]]);
            let error = run(&args).unwrap().partition().unwrap_err().to_string();
            assert!(
                error.contains("--partition")
                    && error.contains("exactly one service, bingo or puzzle-telemetry"),
                "{services:?}: {error}"
            );
        }
    }
}
