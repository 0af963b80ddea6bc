//! `arcade puzzle …`: the pure tools of the puzzle crate (`generate`), plus two that reach a
//! running telemetry service:
//!
//! - `arcade puzzle stats`: prints the statistics as a table (`--json`: the JSON). Embedded
//!   transport: the live statistics from `arcade run`'s admin endpoint (`GET /puzzle/stats`).
//!   With `--amqp`: the next `puzzle.stats.updated.v1` published on the broker (waits up to
//!   `--wait`; the service publishes only when sessions arrive). With `--partitions N` (needs
//!   `--amqp`): the statistics of N partitioned instances merged — the newest
//!   `puzzle.partition.updated.v1` of each partition 0 to N − 1, read from the history stream
//!   `arcade.history` to its end (so the answer is immediate when they have published before)
//!   and then followed until every partition is heard from, up to `--timeout`.
//! - `arcade puzzle simulate --sessions N [--stage S] [--seed X] [--contract v1|v2]`: the bot
//!   plays N real sessions and publishes one `game.session.completed.v2` each (with its moves;
//!   `--contract v1`: one `game.session.completed.v1`, as a producer that has not migrated),
//!   through the admin endpoint (`POST /messages/<type>`) or with `--amqp` on the broker. The
//!   same seed plays the same sessions under the same `gameId`s, so a run repeated is counted
//!   once. A progress bar on stderr when it is a terminal.

use std::process::ExitCode;
use std::sync::Arc;

use arcade_contracts::Message;
use arcade_contracts::game::{GameSessionCompleted, GameSessionCompletedV2, Outcome};
use arcade_puzzle_telemetry::domain::bot::{SimulatedSession, Simulator};
use arcade_puzzle_telemetry::domain::strata::Stage;
use arcade_runtime::Runtime;
use clap::{Args, Subcommand, ValueEnum};
use futures::StreamExt;

use crate::connection::{Connection, tool_bus};

/// Producer name (`app_id`) of the simulated sessions.
pub const SIMULATOR: &str = "puzzle-simulator";

/// The `arcade puzzle` subcommands.
#[derive(Debug, Subcommand)]
pub enum PuzzleCommand {
    /// The pure tools.
    #[command(flatten)]
    Tool(arcade_puzzle_telemetry::cli::Command),
    /// Print the telemetry's per-stage statistics as a table.
    Stats(super::puzzle_stats::StatsArgs),
    /// Play sessions with the bot and publish one game.session.completed.v2 each (v1 with
    /// --contract v1).
    Simulate(SimulateArgs),
}

/// `arcade puzzle simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// How many sessions to play and publish.
    #[arg(long, value_name = "N")]
    pub sessions: u64,
    /// Play only this stage (1 to 5); default: stages drawn, later ones less often.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub stage: Option<u8>,
    /// Seed of the players (the same seed plays the same sessions, under the same gameIds);
    /// default: from the clock.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The contract version to publish: v2 (with the moves) or v1 (a producer that has not
    /// migrated).
    #[arg(long, value_enum, default_value = "v2")]
    pub contract: Contract,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// Which `game.session.completed` version the simulator publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Contract {
    /// `game.session.completed.v1`: no moves.
    V1,
    /// `game.session.completed.v2`: with the moves and the producer's version.
    V2,
}

impl Contract {
    /// The message type.
    pub fn message_type(self) -> &'static str {
        match self {
            Contract::V1 => GameSessionCompleted::TYPE,
            Contract::V2 => GameSessionCompletedV2::TYPE,
        }
    }

    /// A simulated session as this version's payload.
    pub fn payload(self, session: &SimulatedSession) -> serde_json::Value {
        let value = match self {
            Contract::V1 => serde_json::to_value(&session.v1),
            Contract::V2 => serde_json::to_value(session.v2(PRODUCER_VERSION)),
        };
        value.unwrap_or_default()
    }
}

/// The `producerVersion` of the simulator's v2 sessions.
pub const PRODUCER_VERSION: &str = concat!("arcade-puzzle-simulator ", env!("CARGO_PKG_VERSION"));

/// Runs an `arcade puzzle` subcommand.
pub async fn run(command: PuzzleCommand) -> anyhow::Result<ExitCode> {
    match command {
        PuzzleCommand::Tool(command) => Ok(crate::pipe::tool(|out, err| {
            arcade_puzzle_telemetry::cli::run(command, out, err)
        })),
        PuzzleCommand::Stats(args) => super::puzzle_stats::run(args).await,
        PuzzleCommand::Simulate(args) => simulate(args).await,
    }
}

/// How the simulated sessions ended.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Sessions published.
    pub sessions: u64,
    /// Won.
    pub won: u64,
    /// Failed.
    pub failed: u64,
    /// Abandoned.
    pub abandoned: u64,
}

impl Tally {
    fn count(&mut self, session: &GameSessionCompleted) {
        self.sessions += 1;
        match session.outcome {
            Outcome::Won => self.won += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Abandoned => self.abandoned += 1,
        }
    }
}

/// A progress bar on stderr, drawn only when stderr is a terminal.
fn progress(count: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(count),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} sessions, {per_sec}, eta {eta}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Publications in flight at once through the admin endpoint. Each is a durable publish (a sled
/// flush); the runtime's stores flush through sled's `flush_async`, whose small thread pool can
/// deadlock when many flushes wait at once, so the simulator stays at one there.
const IN_FLIGHT_ADMIN: usize = 1;

/// Publications in flight at once on RabbitMQ: each is a confirmed publish on the broker (no
/// local store), so several are on their way while the broker confirms the earlier ones.
const IN_FLIGHT_AMQP: usize = 32;

/// The message id of session `index` of a simulation from `seed` published as `message_type`:
/// the same on every run, so that a rerun (or a retry after a failure) is applied once. The
/// type is part of it: the same session sent as v1 and as v2 is two messages (with two bodies),
/// which the telemetry counts once by their `gameId`.
pub fn session_id(message_type: &str, seed: u64, index: u64) -> String {
    use sha2::{Digest, Sha256};
    let digest =
        Sha256::digest(format!("arcade puzzle simulate {message_type} {seed} {index}").as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Uuid::new_v8(bytes).to_string()
}

/// What a simulation plays and how it publishes the sessions.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// How many sessions.
    pub count: u64,
    /// The stage of every session, if one is given.
    pub stage: Option<Stage>,
    /// The seed the sessions are drawn from.
    pub seed: u64,
    /// The contract version of the payloads.
    pub contract: Contract,
}

/// Plays the `plan`'s sessions and hands each to `publish` with its stable id
/// ([`session_id`]) as a payload of its contract, `in_flight` at a time, with a progress bar
/// on stderr when it is a terminal.
pub async fn play_and_publish<F, Fut>(
    plan: Plan,
    in_flight: usize,
    publish: F,
) -> anyhow::Result<Tally>
where
    F: Fn(String, serde_json::Value) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let Plan {
        count,
        stage,
        seed,
        contract,
    } = plan;
    let mut simulator = Simulator::new(seed);
    let mut tally = Tally::default();
    let sessions: Vec<(String, serde_json::Value)> = (0..count)
        .map(|index| {
            let session = simulator.play(stage);
            tally.count(&session.v1);
            (
                session_id(contract.message_type(), seed, index),
                contract.payload(&session),
            )
        })
        .collect();
    let bar = progress(count);
    let mut sends = futures::stream::iter(
        sessions
            .into_iter()
            .map(|(id, payload)| publish(id, payload)),
    )
    .buffer_unordered(in_flight.max(1));
    while let Some(sent) = sends.next().await {
        if let Err(error) = sent {
            bar.abandon();
            return Err(error);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(tally)
}

async fn simulate(args: SimulateArgs) -> anyhow::Result<ExitCode> {
    let stage = args
        .stage
        .map(|s| Stage::new(s.into()))
        .transpose()
        .map_err(|e| anyhow::anyhow!("--stage: {e}"))?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let plan = Plan {
        count: args.sessions,
        stage,
        seed,
        contract: args.contract,
    };
    let started = std::time::Instant::now();
    let tally = match tool_bus(&args.connection.broker, "arcade puzzle simulate").await? {
        Some(bus) => {
            let runtime = Arc::new(Runtime::new(Arc::new(bus)));
            play_and_publish(plan, IN_FLIGHT_AMQP, |id, payload| {
                let runtime = runtime.clone();
                async move {
                    let options = arcade_runtime::SendOptions {
                        message_id: Some(id),
                        sender: None,
                        traceparent: None,
                    };
                    runtime
                        .send_with(args.contract.message_type(), payload, SIMULATOR, options)
                        .await?;
                    Ok(())
                }
            })
            .await?
        }
        None => {
            let client = crate::auth::http_client(args.connection.token.as_deref());
            let url = format!(
                "http://{}/messages/{}",
                args.connection.admin(),
                args.contract.message_type()
            );
            let connection = args.connection.clone();
            play_and_publish(plan, IN_FLIGHT_ADMIN, |id, payload| {
                let request = client
                    .post(&url)
                    .query(&[("producer", SIMULATOR)])
                    .header("Idempotency-Key", id)
                    .json(&payload);
                let connection = connection.clone();
                async move {
                    let refused = |_| "the admin endpoint refused a session".to_string();
                    connection
                        .answer(request, refused, "no reason given")
                        .await?;
                    Ok(())
                }
            })
            .await?
        }
    };
    println!(
        "published {} sessions as {} (seed {seed}) in {:.1}s: {} won, {} failed, {} abandoned",
        tally.sessions,
        args.contract.message_type(),
        started.elapsed().as_secs_f64(),
        tally.won,
        tally.failed,
        tally.abandoned
    );
    Ok(ExitCode::SUCCESS)
}
