//! The type and arguments of Arcade's durable queues on RabbitMQ, and what to tell the operator
//! when a queue already exists with other ones.
//!
//! A queue carries as arguments only what RabbitMQ takes from nowhere else: its type
//! (`x-queue-type`) and, on a service queue, `x-single-active-consumer`. What operators tune —
//! the dead-letter exchange, the delivery limit, the dead-lettering strategy, overflow and length
//! limits — comes from the broker's policy (`arcade-queues` in `ops/rabbitmq/definitions.json`),
//! which an operator changes in place (`rabbitmqctl set_policy`); an argument would override it
//! for good.
//!
//! - **Quorum** (the default): replicated over the cluster's nodes (one replica on a single-node
//!   broker). The policy gives a delivery limit so a message that keeps coming back (a consumer
//!   crashing on it) ends in the dead letters instead of looping forever, and at-least-once
//!   dead-lettering (with `reject-publish` overflow, which it needs). A service queue is also
//!   `x-single-active-consumer`: when its consumer's node dies, the queue's new leader may serve
//!   a new consumer fresh messages before it returns the dead consumer's unacked ones (seen on
//!   RabbitMQ 3.10: a block of deliveries lost in flight came back after later messages,
//!   breaking per-producer order); with a single active consumer the new one stays waiting
//!   until the old one is taken for down and its messages are returned, so they come first. One
//!   host consumes a service queue (partitions have queues of their own); a second consumer is
//!   a standby.
//! - **Classic**: durable classic queues, for a small broker on an edge device, or a broker
//!   where quorum queues are not wanted; the policy gives them their dead-letter exchange.
//!
//! Queues declared by earlier releases carry all of those settings as arguments
//! ([`earlier_arguments`]). A queue's arguments cannot change in place: the transport keeps such
//! a queue as it is (with a warning naming what to do), and a declaration that fits neither
//! fails (`PRECONDITION_FAILED`, inequivalent arg), which [`explain`] turns into what to do. The
//! broker names the first argument that differs, not the type: the bus probes the type by
//! declaring the queue with the arguments of the other type.

use std::time::Duration;

use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};

/// How many times a quorum queue delivers a message before dead-lettering it (reason
/// `delivery_limit` in its `x-death` header), in Arcade's policy and in the arguments of queues
/// earlier releases declared. Redeliveries come from consumers that die or requeue with the
/// message in hand; the runtime dead-letters what it cannot decode itself, so this only stops a
/// message that crashes its consumer again and again.
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

/// The arguments of a durable queue of type `kind`: its type, and a single active consumer on
/// a service queue (`dead_letters` is the exchange it dead-letters to, by the broker's policy;
/// `None` for the dead-letter queue itself); `expire_after` is the tests' `x-expires`.
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
        if dead_letters.is_some() {
            arguments.insert(short("x-single-active-consumer"), AMQPValue::Boolean(true));
        }
    }
    arguments
}

/// The arguments earlier releases declared a durable queue with: [`durable_arguments`] plus the
/// settings the policy now gives (dead-letter exchange; on a quorum queue the delivery limit,
/// at-least-once dead-lettering and `reject-publish`). An existing deployment's queues keep
/// them until an operator re-creates them.
pub fn earlier_arguments(
    kind: QueueType,
    dead_letters: Option<&str>,
    expire_after: Option<Duration>,
) -> FieldTable {
    let mut arguments = durable_arguments(kind, dead_letters, expire_after);
    if let Some(exchange) = dead_letters {
        arguments.insert(short("x-dead-letter-exchange"), long(exchange));
        if kind == QueueType::Quorum {
            arguments.insert(
                short("x-delivery-limit"),
                AMQPValue::LongLongInt(DELIVERY_LIMIT),
            );
            arguments.insert(short("x-dead-letter-strategy"), long("at-least-once"));
            arguments.insert(short("x-overflow"), long("reject-publish"));
        }
    }
    arguments
}

/// What to tell the operator about `queue`, which an earlier release declared with the settings
/// the policy now gives as arguments: it is used as it is, and the policy cannot change them.
pub fn kept_with_earlier_arguments(queue: &str) -> String {
    format!(
        "queue {queue} was declared by an earlier Arcade with its dead-letter exchange, delivery \
         limit and overflow as arguments, which the broker's policy cannot override; it is used \
         as it is. To let the policy decide, drain it and delete it while its service is stopped \
         (ops/rabbitmq/README.md, \"Policies and existing queues\")"
    )
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
    fn queues_carry_only_their_type_and_one_active_consumer_the_policy_gives_the_rest() {
        let service = durable_arguments(QueueType::Quorum, Some("arcade.dead"), None);
        assert_eq!(keys(&service), ["x-queue-type", "x-single-active-consumer"]);
        let dead = durable_arguments(QueueType::Quorum, None, Some(Duration::from_secs(30)));
        assert_eq!(keys(&dead), ["x-expires", "x-queue-type"]);
        let classic = durable_arguments(QueueType::Classic, Some("arcade.dead"), None);
        assert!(keys(&classic).is_empty());
    }

    #[test]
    fn earlier_releases_declared_the_policy_s_settings_as_arguments() {
        let service = earlier_arguments(QueueType::Quorum, Some("arcade.dead"), None);
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
        let dead = earlier_arguments(QueueType::Quorum, None, None);
        assert_eq!(keys(&dead), ["x-queue-type"]);
        let classic = earlier_arguments(QueueType::Classic, Some("arcade.dead"), None);
        assert_eq!(keys(&classic), ["x-dead-letter-exchange"]);
        let text = kept_with_earlier_arguments("bingo");
        assert!(
            text.contains("queue bingo") && text.contains("README"),
            "{text}"
        );
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
