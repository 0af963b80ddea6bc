//! Where a client reaches Arcade: the [`Connection`] arguments every command that talks to
//! the services shares (a broker, or the admin endpoint of `arcade run`), and the RabbitMQ bus
//! built from them.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use arcade_runtime::Bus;
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig, HistoryConfig};
use clap::Args;
use tracing::warn;

/// Where to reach the services: a broker, or the admin endpoint of `arcade run`.
#[derive(Debug, Clone, Args)]
pub struct Connection {
    /// RabbitMQ URL (amqp:// or amqps://). Absent: the embedded transport of `arcade run`.
    /// Its value (with its password) is never shown.
    #[arg(
        long = "amqp",
        env = "ARCADE_AMQP_URL",
        value_name = "URL",
        hide_env_values = true
    )]
    pub amqp: Option<String>,
    /// PEM file of the CA certificates an amqps:// broker's certificate must chain to, besides
    /// the system's roots (a broker whose certificate neither signed is refused).
    #[arg(long = "amqp-ca", env = "ARCADE_AMQP_CA", value_name = "PEM")]
    pub amqp_ca: Option<std::path::PathBuf>,
    /// Type of the durable queues declared on RabbitMQ: quorum (replicated; the default) or
    /// classic. An existing queue keeps its type: see ops/RUNBOOK.md to move one.
    #[arg(
        long = "queue-type",
        env = "ARCADE_QUEUE_TYPE",
        default_value = "quorum",
        value_name = "TYPE"
    )]
    pub queue_type: arcade_runtime::bus::amqp::QueueType,
    /// Address of the admin endpoint that `arcade run` serves on loopback.
    #[arg(
        long,
        env = "ARCADE_ADMIN_ADDR",
        default_value = "127.0.0.1:7878",
        value_name = "ADDR"
    )]
    pub admin: SocketAddr,
    /// Bearer token for the admin endpoint: the operator's (`arcade run` uses it instead of
    /// generating one into DATA/admin-token; clients read that file when this is absent), or a
    /// team's or player's secret. Its value is never shown.
    #[arg(
        long = "token",
        env = "ARCADE_ADMIN_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
}

/// The RabbitMQ bus at `url` (standard topology), connecting at once. With `must_connect` an
/// unreachable broker is an error (`arcade tap`, `arcade send`); without it (`arcade run`) the
/// services start anyway, events wait in their logs, and the bus connects when the broker
/// appears. A tool's bus declares no history stream: `arcade run` (or the broker's
/// definitions) owns it and its retention.
pub async fn connect_amqp(
    connection: &Connection,
    url: &str,
    name: &str,
    must_connect: bool,
) -> anyhow::Result<Arc<dyn Bus>> {
    let bus = amqp_bus(
        url,
        connection.amqp_ca.as_deref(),
        name,
        connection.queue_type,
        None,
        must_connect,
    )
    .await?;
    Ok(Arc::new(bus))
}

/// The RabbitMQ bus at `url` with queues of `queue_type`, connecting at once (an unreachable
/// broker is an error): for the tools that have no [`Connection`] (`arcade dead`).
pub async fn connect_amqp_as(
    url: &str,
    ca_file: Option<&Path>,
    name: &str,
    queue_type: arcade_runtime::bus::amqp::QueueType,
) -> anyhow::Result<Arc<dyn Bus>> {
    Ok(Arc::new(
        amqp_bus(url, ca_file, name, queue_type, None, true).await?,
    ))
}

/// The RabbitMQ bus at `url` with queues of `queue_type`; with `history` it declares the
/// history stream with that retention (what hosts services does).
pub async fn amqp_bus(
    url: &str,
    ca_file: Option<&Path>,
    name: &str,
    queue_type: arcade_runtime::bus::amqp::QueueType,
    history: Option<HistoryConfig>,
    must_connect: bool,
) -> anyhow::Result<AmqpBus> {
    let mut config = AmqpConfig::new(url);
    config.connection_name = name.to_string();
    config.queue_type = queue_type;
    config.ca_file = ca_file.map(Path::to_path_buf);
    config.history = history;
    connect_bus(config, must_connect).await
}

/// The RabbitMQ bus of `config`, connecting at once (see [`amqp_bus`]).
pub async fn connect_bus(config: AmqpConfig, must_connect: bool) -> anyhow::Result<AmqpBus> {
    let bus = AmqpBus::new(config).map_err(|e| anyhow::anyhow!("--amqp / ARCADE_AMQP_URL: {e}"))?;
    if let Err(e) = bus.connect_now().await {
        if must_connect {
            anyhow::bail!("--amqp / ARCADE_AMQP_URL: {e}");
        }
        warn!(error = %e, "RabbitMQ not reachable yet; services run and connect when it appears");
    }
    Ok(bus)
}
