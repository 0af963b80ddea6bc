//! Where a client reaches Arcade: the [`Connection`] arguments every command that talks to
//! the services shares (a broker, or the admin endpoint of `arcade run`), and the RabbitMQ bus
//! built from them.

use std::net::SocketAddr;

use arcade_runtime::app::args::BrokerArgs;
use arcade_runtime::app::connect_amqp;
use arcade_runtime::bus::amqp::AmqpBus;
use clap::Args;
use serde_json::Value;

/// The admin endpoint of `arcade run`: what the tools that reach the services only through it
/// (`arcade bingo …`) take.
#[derive(Debug, Clone, Args)]
pub struct AdminArg {
    /// Address of the admin endpoint that `arcade run` serves on loopback.
    #[arg(
        long,
        env = "ARCADE_ADMIN_ADDR",
        default_value = "127.0.0.1:7878",
        value_name = "ADDR"
    )]
    pub admin: SocketAddr,
}

/// Where to reach the services: a broker, or the admin endpoint of `arcade run`.
#[derive(Debug, Clone, Args)]
pub struct Connection {
    /// The broker, if any.
    #[command(flatten)]
    pub broker: BrokerArgs,
    /// The admin endpoint.
    #[command(flatten)]
    pub endpoint: AdminArg,
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
    /// The address of the admin endpoint.
    pub fn admin(&self) -> SocketAddr {
        self.endpoint.admin
    }

    /// Sends `request` to the admin endpoint: its answer when it is a success, else the error
    /// [`successful`] gives, or [`Connection::unreachable`] when nothing answers.
    pub async fn answer(
        &self,
        request: reqwest::RequestBuilder,
        what: impl FnOnce(reqwest::StatusCode) -> String,
        unexplained: &str,
    ) -> anyhow::Result<reqwest::Response> {
        // Over its address's request rate (429), a tool waits as `Retry-After` says and sends
        // again, for up to PATIENCE: bulk tools (`arcade puzzle simulate`) go at the rate the
        // endpoint allows instead of failing.
        let started = std::time::Instant::now();
        let mut request = request;
        loop {
            let again = request.try_clone();
            let response = request.send().await.map_err(|e| self.unreachable(&e))?;
            if response.status() == reqwest::StatusCode::TOO_MANY_REQUESTS
                && started.elapsed() < PATIENCE
                && let Some(again) = again
            {
                tokio::time::sleep(retry_after(&response)).await;
                request = again;
                continue;
            }
            return successful(response, what, unexplained).await;
        }
    }

    /// The error of a tool that found no admin endpoint where it was told to look.
    pub fn unreachable(&self, error: &reqwest::Error) -> anyhow::Error {
        crate::exit::Failure::undelivered(format_args!(
            "no `arcade run` answers at {} ({error}); start one, pass --admin ADDR, or set ARCADE_AMQP_URL to use RabbitMQ",
            self.admin()
        ))
    }
}

/// How long a tool keeps sending a request the admin endpoint answers 429.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

/// The wait a 429 asks for: its `Retry-After` in seconds (1 when absent or unreadable, at most
/// 10).
fn retry_after(response: &reqwest::Response) -> std::time::Duration {
    let seconds = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(1);
    std::time::Duration::from_secs(seconds.clamp(1, 10))
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

/// The status and JSON body of the answer to `url`; an answer that is not JSON is an error.
pub async fn json_answer(
    response: reqwest::Response,
    url: &str,
) -> anyhow::Result<(reqwest::StatusCode, Value)> {
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .map_err(|e| anyhow::anyhow!("{url}: the answer is not JSON: {e}"))?;
    Ok((status, body))
}

/// `response` when its status is a success; else the error `{what(status)}: {why}`, `why`
/// being the `error` of the answer's JSON body (`unexplained` when it has none), with the
/// status's exit code ([`crate::exit::for_status`]).
pub async fn successful(
    response: reqwest::Response,
    what: impl FnOnce(reqwest::StatusCode) -> String,
    unexplained: &str,
) -> anyhow::Result<reqwest::Response> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let body: Value = response.json().await.unwrap_or_default();
    let why = body["error"].as_str().unwrap_or(unexplained);
    Err(crate::exit::Failure {
        code: crate::exit::for_status(status),
        message: format!("{}: {why}", what(status)),
    }
    .into())
}
