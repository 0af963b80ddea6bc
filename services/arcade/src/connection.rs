//! Where a client reaches Arcade: the [`Connection`] arguments every command that talks to
//! the services shares (a broker, or the admin endpoint of `arcade run`), and the RabbitMQ bus
//! built from them.

use std::net::SocketAddr;

use arcade_runtime::app::args::BrokerArgs;
use arcade_runtime::app::connect_amqp;
use arcade_runtime::bus::amqp::AmqpBus;
use clap::Args;

/// Where to reach the services: a broker, or the admin endpoint of `arcade run`.
#[derive(Debug, Clone, Args)]
pub struct Connection {
    /// The broker, if any.
    #[command(flatten)]
    pub broker: BrokerArgs,
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

impl Connection {
    /// The error of a tool that found no admin endpoint where it was told to look.
    pub fn unreachable(&self, error: &reqwest::Error) -> anyhow::Error {
        anyhow::anyhow!(
            "no `arcade run` answers at {} ({error}); start one, pass --admin ADDR, or set ARCADE_AMQP_URL to use RabbitMQ",
            self.admin
        )
    }
}

/// The RabbitMQ bus of a tool named `name`, when `broker` gives a URL (`None`: the tool goes
/// through the embedded transport). It connects at once: an unreachable broker is an error
/// (`arcade tap`, `arcade send`, `arcade car`…). A tool's bus declares no history stream:
/// `arcade run` (or the broker's definitions) owns it and its retention.
pub async fn tool_bus(broker: &BrokerArgs, name: &str) -> anyhow::Result<Option<AmqpBus>> {
    let Some(mut config) = broker.amqp_config(name) else {
        return Ok(None);
    };
    config.history = None;
    Ok(Some(connect_amqp(config, true).await?))
}
