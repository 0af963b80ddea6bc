//! The type and arguments of Arcade's durable queues on RabbitMQ, and what to tell the operator
//! when a queue already exists with other ones.
//!
//! - **Quorum** (the default): `x-queue-type: quorum`, replicated over the cluster's nodes (one
//!   replica on a single-node broker), `x-delivery-limit` so a message that keeps coming back
//!   (a consumer crashing on it) ends in the dead letters instead of looping forever, and
//!   `x-dead-letter-strategy: at-least-once` (with `x-overflow: reject-publish`, which that
//!   strategy needs) so the broker's own dead-lettering is confirmed too. A service queue is
//!   also `x-single-active-consumer`: when its consumer's node dies, the queue's new leader may
//!   serve a new consumer fresh messages before it returns the dead consumer's unacked ones
//!   (seen on RabbitMQ 3.10: a block of deliveries lost in flight came back after later
//!   messages, breaking per-producer order); with a single active consumer the new one stays
//!   waiting until the old one is taken for down and its messages are returned, so they come
//!   first. One host consumes a service queue (partitions have queues of their own); a second
//!   consumer is a standby. The dead-letter queue is a quorum queue without a delivery limit,
//!   dead-letter exchange or single active consumer of its own.
//! - **Classic**: durable classic queues with `x-dead-letter-exchange`, as before: for a small
//!   broker on an edge device, or a broker where quorum queues are not wanted.
//!
//! A queue's type and arguments cannot change in place: declaring over a queue that has others
//! fails (`PRECONDITION_FAILED`, inequivalent arg), and [`explain`] turns that into what to do.
//! The broker names the first argument that differs (often the dead-letter exchange), not the
//! type: the bus probes the type by declaring the queue with its arguments of the other type.

use std::time::Duration;

use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};

/// How many times a quorum queue delivers a message before dead-lettering it (reason
/// `delivery_limit` in its `x-death` header). Redeliveries come from consumers that die or
/// requeue with the message in hand; the runtime dead-letters what it cannot decode itself, so
/// this only stops a message that crashes its consumer again and again.
pub const DELIVERY_LIMIT: i64 = 20;

/// The type of the durable queues Arcade declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueType {
    /// Replicated (Raft) queues: the production shape, on one node or a cluster.
    #[default]
    Quorum,
    /// Classic durable queues.
    Classic,
}

impl QueueType {
    /// `quorum` or `classic`, as RabbitMQ names them.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueType::Quorum => "quorum",
            QueueType::Classic => "classic",
        }
    }

    fn other(self) -> QueueType {
        match self {
            QueueType::Quorum => QueueType::Classic,
            QueueType::Classic => QueueType::Quorum,
        }
    }
}

impl std::fmt::Display for QueueType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A queue type that is neither `quorum` nor `classic`.
#[derive(Debug, thiserror::Error)]
#[error("unknown queue type {0:?}: expected quorum or classic")]
pub struct UnknownQueueType(pub String);

impl std::str::FromStr for QueueType {
    type Err = UnknownQueueType;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value.trim().to_ascii_lowercase().as_str() {
            "quorum" => Ok(QueueType::Quorum),
            "classic" => Ok(QueueType::Classic),
            _ => Err(UnknownQueueType(value.to_string())),
        }
    }
}

fn short(value: &str) -> ShortString {
    ShortString::from(value.to_string())
}

fn long(value: &str) -> AMQPValue {
    AMQPValue::LongString(LongString::from(value.to_string()))
}

/// The arguments of a durable queue of type `kind`. `dead_letters` is the exchange it
/// dead-letters to (`None` for the dead-letter queue itself); `expire_after` is the tests'
/// `x-expires`.
pub fn durable_arguments(
    kind: QueueType,
    dead_letters: Option<&str>,
    expire_after: Option<Duration>,
) -> FieldTable {
    let mut arguments = FieldTable::default();
    if let Some(expiry) = expire_after {
        let millis = i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX);
        arguments.insert(short("x-expires"), AMQPValue::LongLongInt(millis));
    }
    if kind == QueueType::Quorum {
        arguments.insert(short("x-queue-type"), long("quorum"));
    }
    if let Some(exchange) = dead_letters {
        arguments.insert(short("x-dead-letter-exchange"), long(exchange));
        if kind == QueueType::Quorum {
            arguments.insert(
                short("x-delivery-limit"),
                AMQPValue::LongLongInt(DELIVERY_LIMIT),
            );
            arguments.insert(short("x-dead-letter-strategy"), long("at-least-once"));
            arguments.insert(short("x-overflow"), long("reject-publish"));
            arguments.insert(short("x-single-active-consumer"), AMQPValue::Boolean(true));
        }
    }
    arguments
}

/// Whether declaring failed because the queue exists with other arguments (or another type).
pub fn inequivalent(error: &str) -> bool {
    error.contains("inequivalent arg")
}

/// What to tell the operator when declaring `queue` as `kind` failed with `error` because it
/// exists with other arguments ([`inequivalent`]). `found` is its type when known (the caller
/// probes by declaring it with Arcade's arguments of the other type).
pub fn explain(queue: &str, kind: QueueType, found: Option<QueueType>, error: &str) -> String {
    let setting = format!("ARCADE_QUEUE_TYPE={}", kind.other());
    let what = match found {
        Some(found) if found != kind => format!(
            "queue {queue} already exists as a {found} queue and Arcade declares it as a {kind} queue"
        ),
        _ => format!("queue {queue} already exists with other arguments than Arcade declares"),
    };
    format!(
        "{what}; a queue's type and arguments cannot change in place: drain it and delete it \
         (ops/RUNBOOK.md, \"Moving queues to quorum\"), or keep it by setting {setting} \
         (broker said: {error})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(table: &FieldTable) -> Vec<String> {
        table.inner().keys().map(|k| k.to_string()).collect()
    }

    #[test]
    fn quorum_queues_get_a_delivery_limit_confirmed_dead_lettering_and_one_active_consumer() {
        let service = durable_arguments(QueueType::Quorum, Some("arcade.dead"), None);
        assert_eq!(
            keys(&service),
            [
                "x-dead-letter-exchange",
                "x-dead-letter-strategy",
                "x-delivery-limit",
                "x-overflow",
                "x-queue-type",
                "x-single-active-consumer"
            ]
        );
        let dead = durable_arguments(QueueType::Quorum, None, Some(Duration::from_secs(30)));
        assert_eq!(keys(&dead), ["x-expires", "x-queue-type"]);
        let classic = durable_arguments(QueueType::Classic, Some("arcade.dead"), None);
        assert_eq!(keys(&classic), ["x-dead-letter-exchange"]);
    }

    #[test]
    fn the_setting_is_parsed_or_refused_naming_the_value() {
        assert_eq!("quorum".parse::<QueueType>().unwrap(), QueueType::Quorum);
        assert_eq!(
            " Classic ".parse::<QueueType>().unwrap(),
            QueueType::Classic
        );
        let error = "stream".parse::<QueueType>().unwrap_err().to_string();
        assert!(
            error.contains("\"stream\"") && error.contains("quorum or classic"),
            "{error}"
        );
    }

    #[test]
    fn a_queue_of_the_other_type_is_explained() {
        let broker = "PRECONDITION_FAILED - inequivalent arg 'x-dead-letter-exchange' for queue \
                      'bingo' in vhost '/': received none but current is 'arcade.dead'";
        assert!(inequivalent(broker));
        assert!(!inequivalent("ACCESS_REFUSED"));
        let text = explain("bingo", QueueType::Quorum, Some(QueueType::Classic), broker);
        assert!(text.contains("already exists as a classic queue"), "{text}");
        assert!(text.contains("ARCADE_QUEUE_TYPE=classic"), "{text}");
        assert!(text.contains("RUNBOOK"), "{text}");
        let text = explain("bingo", QueueType::Classic, None, broker);
        assert!(text.contains("with other arguments"), "{text}");
        assert!(text.contains("ARCADE_QUEUE_TYPE=quorum"), "{text}");
    }
}
