//! `arcade puzzle stats`: prints the telemetry's statistics as a table (`--json`: the JSON).
//! Embedded transport: the live statistics from `arcade run`'s admin endpoint (`GET
//! /puzzle/stats`). With `--amqp`: the next `puzzle.stats.updated.v1` published on the broker
//! (waits up to `--wait`). With `--partitions N` (needs `--amqp`): the statistics of N
//! partitioned instances merged (see `puzzle_partitions`).

use std::process::ExitCode;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::puzzle::StatsUpdated;
use arcade_puzzle_telemetry::cli::render_stats_table;
use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Bus, SubscriptionSpec};
use clap::Args;

use crate::connection::{Connection, tool_bus};

/// `arcade puzzle stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Print the JSON (a puzzle.stats.updated.v1 payload) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// With --amqp: how long to wait for the next publication (with --partitions: for every
    /// partition to be heard from), e.g. 30s.
    #[arg(long, visible_alias = "timeout", default_value = "30s", value_parser = crate::hosted::puzzle::parse_period, value_name = "DURATION")]
    pub wait: Duration,
    /// Merge the statistics of N partitioned telemetry instances (`arcade run
    /// puzzle-telemetry --partition K/N`): the newest puzzle.partition.updated.v1 of each
    /// partition 0 to N - 1, from the history stream and then as they come. Needs --amqp.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub partitions: Option<u32>,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// Runs `arcade puzzle stats`.
pub async fn run(args: StatsArgs) -> anyhow::Result<ExitCode> {
    if args.partitions.is_some() && args.connection.broker.amqp.is_none() {
        return Err(crate::exit::Failure::invalid(
            "--partitions needs RabbitMQ (--amqp / ARCADE_AMQP_URL): partitioned telemetry instances publish their statistics there",
        ));
    }
    let bus = tool_bus(&args.connection.broker, "arcade puzzle stats").await?;
    let stats: StatsUpdated = match (bus, args.partitions) {
        (Some(bus), Some(partitions)) => {
            super::puzzle_partitions::merged(bus, partitions, args.wait).await?
        }
        (Some(bus), None) => next_stats(&bus, args.wait).await?,
        (None, _) => admin_stats(&args.connection).await?,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        print!("{}", render_stats_table(&stats));
    }
    Ok(ExitCode::SUCCESS)
}

/// The next `puzzle.stats.updated.v1` on the broker, within `wait`.
async fn next_stats(bus: &AmqpBus, wait: Duration) -> anyhow::Result<StatsUpdated> {
    let spec = SubscriptionSpec::temporary(
        format!("puzzle-stats.{}", uuid::Uuid::new_v4().simple()),
        vec![StatsUpdated::TYPE.into()],
    );
    let mut consumer = bus.subscribe(&spec).await?;
    eprintln!(
        "waiting up to {wait:?} for the next {} on {}",
        StatsUpdated::TYPE,
        bus.name()
    );
    let delivery = tokio::time::timeout(wait, consumer.next())
        .await
        .map_err(|_| {
            crate::exit::Failure::undelivered(format_args!(
                "no {} within {wait:?}: statistics are published only while sessions arrive",
                StatsUpdated::TYPE,
            ))
        })??;
    let envelope = lossy_envelope(&delivery.message);
    delivery.ack().await?;
    serde_json::from_value(envelope.payload)
        .map_err(|e| anyhow::anyhow!("{}: {e}", StatsUpdated::TYPE))
}

/// The live statistics from the admin endpoint of `arcade run`.
async fn admin_stats(connection: &Connection) -> anyhow::Result<StatsUpdated> {
    let url = format!("http://{}/puzzle/stats", connection.admin());
    let response = crate::auth::http_client(connection.token.as_deref())
        .get(&url)
        .send()
        .await
        .map_err(|e| connection.unreachable(&e))?;
    let status = response.status();
    let body: serde_json::Value = response.json().await?;
    if !status.is_success() {
        return Err(crate::exit::Failure {
            code: crate::exit::for_status(status),
            message: format!("{url}: {}", body["error"].as_str().unwrap_or("refused")),
        }
        .into());
    }
    serde_json::from_value(body).map_err(|e| anyhow::anyhow!("{url}: {e}"))
}
