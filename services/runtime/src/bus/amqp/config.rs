//! Where and how to reach RabbitMQ ([`AmqpConfig`]), and URLs told without their passwords.

use std::time::Duration;

use super::{HistoryConfig, QueueType};
use crate::bus::{COMMANDS_EXCHANGE, DEAD_LETTERS, EVENTS_EXCHANGE};

/// The most bytes of unacked deliveries a consumer holds by default (128 MiB: 256 deliveries
/// of the broker's largest message).
pub const DEFAULT_PREFETCH_BYTES: u32 = 128 * 1024 * 1024;

/// The AMQP heartbeat proposed by default, in seconds. Both ends send a heartbeat when they have
/// written nothing for half of it, and lapin closes a connection that has read nothing for twice
/// it: a half-open link (a peer gone without a FIN, a NAT or firewall dropping the flow) is seen
/// within 20 s, reported by `/ready` and reconnected. RabbitMQ's own default (60 s) took 120 s.
pub const DEFAULT_HEARTBEAT_SECS: u16 = 10;

/// Where and how to reach RabbitMQ.
#[derive(Debug, Clone)]
pub struct AmqpConfig {
    /// `amqp://user:pass@host:port/vhost` or `amqps://…`; several nodes of one cluster
    /// comma-separated, each a full URL (see [`nodes`](super::nodes)).
    pub url: String,
    /// The topic exchange events are published on.
    pub events_exchange: String,
    /// The dead-letter exchange, and the queue that keeps dead letters.
    pub dead_letters: String,
    /// The topic exchange commands are sent on, routed by the name of the queue they are for
    /// (every durable queue is bound to it under its own name), so that the broker's topic
    /// permissions say who may send to which queue, which the default exchange cannot.
    pub commands_exchange: String,
    /// The connection's name, shown in the management UI.
    pub connection_name: String,
    /// How long one connection attempt may take.
    pub connect_timeout: Duration,
    /// Reconnection delays: first ceiling and cap.
    pub backoff: (Duration, Duration),
    /// For tests: queues expire after this long unused (`x-expires`) and exchanges are
    /// auto-deleted, so a test's randomly named topology goes away after it. `None` in service.
    pub expire_after: Option<Duration>,
    /// The largest frame to propose when the URL's query sets no `frame_max` (`None`: the
    /// broker's, 128 KiB on RabbitMQ). lapin keeps a receive and a send buffer of 32 frames
    /// each, zero-filled: an edge device proposes small frames.
    pub frame_max: Option<u32>,
    /// The heartbeat to propose, in seconds, when the URL's query sets no `heartbeat`
    /// ([`DEFAULT_HEARTBEAT_SECS`]; `None`: the broker's). The lower of the two proposals wins.
    pub heartbeat: Option<u16>,
    /// The largest message the broker accepts (`max_message_size` in `ops/rabbitmq/rabbitmq.conf`,
    /// 512 KiB): with [`AmqpConfig::prefetch_bytes`] it bounds what a consumer may hold unacked.
    pub max_message_bytes: u32,
    /// The most bytes of unacked deliveries a consumer may hold: its prefetch count is at most
    /// this over [`AmqpConfig::max_message_bytes`] (RabbitMQ implements no byte prefetch).
    pub prefetch_bytes: u32,
    /// The type of the service and dead-letter queues (`ARCADE_QUEUE_TYPE`; default quorum).
    pub queue_type: QueueType,
    /// How often the depth of each consumed durable queue is asked of the broker (the
    /// `arcade_consumer_lag_messages` gauge; the `lag` module says how).
    pub lag_interval: Duration,
    /// A PEM file of CA certificates trusted, besides the system roots, to sign the broker's
    /// certificate on an `amqps://` URL (for now set by code that builds the bus; the binaries
    /// read `SSL_CERT_FILE`). Read on every
    /// connection attempt, so a replaced file is picked up on reconnection.
    pub ca_file: Option<std::path::PathBuf>,
    /// The stream that keeps every event (`arcade.history`) and its retention, declared with
    /// the topology and bound to the events exchange (`None`: none; see
    /// [`history`](super::history)).
    pub history: Option<HistoryConfig>,
}

impl AmqpConfig {
    /// The standard topology (`arcade.events`, `arcade.dead`) at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        AmqpConfig {
            url: url.into(),
            events_exchange: EVENTS_EXCHANGE.to_string(),
            dead_letters: DEAD_LETTERS.to_string(),
            commands_exchange: COMMANDS_EXCHANGE.to_string(),
            connection_name: "arcade".to_string(),
            connect_timeout: Duration::from_secs(5),
            backoff: (Duration::from_millis(100), Duration::from_secs(10)),
            expire_after: None,
            frame_max: None,
            heartbeat: Some(DEFAULT_HEARTBEAT_SECS),
            max_message_bytes: 512 * 1024,
            prefetch_bytes: DEFAULT_PREFETCH_BYTES,
            queue_type: QueueType::default(),
            lag_interval: Duration::from_secs(5),
            ca_file: None,
            history: Some(HistoryConfig::default()),
        }
    }
}

/// A URL the transport cannot use.
#[derive(Debug, thiserror::Error)]
#[error("invalid RabbitMQ URL {url}: {reason}")]
pub struct InvalidUrl {
    /// The URL, its password hidden.
    pub url: String,
    /// Why.
    pub reason: String,
}

/// The URL (or comma-separated URLs) with passwords replaced by `***`, for messages and logs.
pub fn redact(url: &str) -> String {
    if url.contains(',') {
        return url.split(',').map(redact_one).collect::<Vec<_>>().join(",");
    }
    redact_one(url)
}

fn redact_one(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{host}{path}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact("amqp://guest:secret@127.0.0.1:5672/%2f"),
            "amqp://guest:***@127.0.0.1:5672/%2f"
        );
        assert_eq!(
            redact("amqps://referee:p@ss@broker.example/arcade"),
            "amqps://referee:***@broker.example/arcade"
        );
        assert_eq!(
            redact("amqp://127.0.0.1:5672/%2f"),
            "amqp://127.0.0.1:5672/%2f"
        );
    }
}
