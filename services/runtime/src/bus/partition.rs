//! Partitioned services: a service that keeps per-game state runs as N instances, instance K
//! owning the games RabbitMQ's consistent-hash exchange hashes to it (`--partition K/N`).
//!
//! Instance K of service S is named `S.pK`: its data dir, its producer name and its queue. The
//! topology (declared idempotently by every instance, see `amqp/declare.rs`): an exchange
//! `S.partitions` of type `x-consistent-hash` hashing the header [`HEADER_PARTITION_KEY`] (the
//! game id), bound from the events exchange with the service's per-game patterns and from the
//! commands exchange with key `S`; all N queues `S.p0 … S.p{N-1}` bound to it with weight 1, in
//! lexicographic order of their names. Messages that are not about one game (bingo's activity
//! and mapped types) are bound from the events exchange to each instance's own queue.

use std::fmt;
use std::str::FromStr;

pub use crate::wire::HEADER_PARTITION_KEY;

/// The type of the exchange that routes a partitioned service's messages (RabbitMQ plugin
/// `rabbitmq_consistent_hash_exchange`).
pub const CONSISTENT_HASH: &str = "x-consistent-hash";

/// One instance's share of a partitioned service: instance `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Partition {
    index: u32,
    count: u32,
}

/// A `--partition` value that is not `K/N` with `0 ≤ K < N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid partition {value:?}: {reason}")]
pub struct InvalidPartition {
    /// The value given.
    pub value: String,
    /// Why it is refused.
    pub reason: String,
}

impl Partition {
    /// Instance `index` of `count` (`index < count`).
    pub fn new(index: u32, count: u32) -> Result<Partition, InvalidPartition> {
        let refuse = |reason: String| InvalidPartition {
            value: format!("{index}/{count}"),
            reason,
        };
        if count == 0 {
            return Err(refuse("N must be at least 1".into()));
        }
        if index >= count {
            return Err(refuse(format!(
                "K must be less than N (instances are numbered 0 to {})",
                count - 1
            )));
        }
        Ok(Partition { index, count })
    }

    /// K.
    pub fn index(self) -> u32 {
        self.index
    }

    /// N.
    pub fn count(self) -> u32 {
        self.count
    }

    /// The instance name (and queue, and data dir) of this partition of `service`: `S.pK`.
    pub fn instance(self, service: &str) -> String {
        instance(service, self.index)
    }

    /// The queues of every partition of `service`, in lexicographic order of their names: the
    /// order they are bound to the exchange in (see [`Partitioned`]).
    pub fn queues(self, service: &str) -> Vec<String> {
        let mut queues: Vec<String> = (0..self.count).map(|k| instance(service, k)).collect();
        queues.sort();
        queues
    }

    /// The consistent-hash exchange of `service`: `S.partitions`.
    pub fn exchange(service: &str) -> String {
        format!("{service}.partitions")
    }
}

fn instance(service: &str, index: u32) -> String {
    format!("{service}.p{index}")
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Partition {
    type Err = InvalidPartition;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let refuse = |reason: &str| InvalidPartition {
            value: value.to_string(),
            reason: reason.to_string(),
        };
        let (k, n) = value
            .trim()
            .split_once('/')
            .ok_or_else(|| refuse("expected K/N, e.g. 0/2 (instance K of N)"))?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| refuse("K is not a whole number ≥ 0"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| refuse("N is not a whole number ≥ 1"))?;
        Partition::new(k, n).map_err(|e| InvalidPartition {
            value: value.to_string(),
            reason: e.reason,
        })
    }
}

/// How a subscription of a partition instance is routed (on [`super::SubscriptionSpec`]).
///
/// The spec's queue is the instance's own (`S.pK`) and its `bindings` are bound to that queue
/// directly (messages every partition must get); `keyed` patterns are bound from the events
/// exchange to `S.partitions`, which also takes the commands sent to queue `S`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partitioned {
    /// The service's name `S` (what commands are addressed to).
    pub service: String,
    /// This instance's share.
    pub partition: Partition,
    /// Topic patterns of the per-game events, routed by the partition key.
    pub keyed: Vec<String>,
}

impl Partitioned {
    /// The consistent-hash exchange, `S.partitions`.
    pub fn exchange(&self) -> String {
        Partition::exchange(&self.service)
    }

    /// Every partition's queue, in the order they are bound (lexicographic: the order RabbitMQ
    /// rebuilds the hash ring in at a restart).
    pub fn queues(&self) -> Vec<String> {
        self.partition.queues(&self.service)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_of_n_is_read_and_bad_values_say_why() {
        let p: Partition = "1/3".parse().unwrap();
        assert_eq!((p.index(), p.count()), (1, 3));
        assert_eq!(p.to_string(), "1/3");
        assert_eq!(p.instance("bingo"), "bingo.p1");
        assert_eq!("0/1".parse::<Partition>().unwrap().count(), 1);
        for (value, reason) in [
            ("2/2", "K must be less than N"),
            ("0/0", "N must be at least 1"),
            ("3", "expected K/N"),
            ("a/2", "K is not a whole number"),
            ("-1/2", "K is not a whole number"),
            ("1/x", "N is not a whole number"),
        ] {
            let error = value.parse::<Partition>().unwrap_err().to_string();
            assert!(
                error.contains(reason) && error.contains(value),
                "{value}: {error}"
            );
        }
    }

    #[test]
    fn queues_are_listed_in_the_order_the_broker_rebuilds_the_ring_in() {
        let p = Partition::new(0, 12).unwrap();
        let queues = p.queues("bingo");
        assert_eq!(queues.len(), 12);
        assert_eq!(
            &queues[..4],
            ["bingo.p0", "bingo.p1", "bingo.p10", "bingo.p11"]
        );
        assert_eq!(queues.last().unwrap(), "bingo.p9");
        assert_eq!(Partition::exchange("bingo"), "bingo.partitions");
    }
}
