//! `arcade puzzle stats --partitions N`: the statistics of N partitioned telemetry instances,
//! merged into the figures one instance fed every session would give.
//!
//! Each partition K publishes `puzzle.partition.updated.v1` (its raw counters) with each of its
//! `puzzle.stats.updated.v1`. This reads the newest one of every partition 0 to N − 1:
//!
//! 1. from the history stream `arcade.history`, from its first event to its end, so partitions
//!    that published before are heard at once and the newest publication of each wins. The
//!    end: the stream's length, RabbitMQ's answer to a passive `queue.declare` (each event
//!    read carries its position, `x-stream-offset`), then on until the stream has been quiet
//!    for [`SETTLE`] — that length is the broker's statistics figure, refreshed every 5 s by
//!    default, so the newest few events may lie beyond it;
//! 2. then, on the same reader, what comes next, until every partition has been heard from;
//! 3. where the history cannot be read (no stream on this broker, or no permission), from a
//!    temporary queue bound to `puzzle.partition.updated.v1`: each partition's next publication.
//!
//! Everything must be heard within `--timeout`; the partitions not heard from are named. Each
//! message is rebuilt into its [`Stats`] (a message whose counters do not hold together is
//! refused, naming the field), all partitions must report the same N as `--partitions`, and
//! the merge ([`Stats::merge`]) is printed as a `puzzle.stats.updated.v1` payload.

use std::collections::BTreeMap;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::puzzle::{PartitionUpdated, StatsUpdated};
use arcade_puzzle_telemetry::domain::telemetry::Stats;
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::amqp::history::HISTORY_STREAM;
use arcade_runtime::bus::amqp::{AmqpBus, StreamOffset};
use arcade_runtime::{Bus, Delivery, SubscriptionSpec};

/// Unacked history deliveries held at once (a stream consumer needs a prefetch).
const PREFETCH: u16 = 512;

/// The header RabbitMQ puts on each delivery from a stream: the event's position in it.
const OFFSET_HEADER: &str = "x-stream-offset";

/// How long the history must stay quiet, once read to the length RabbitMQ gave, to be taken
/// as read to its end.
const SETTLE: Duration = Duration::from_secs(2);

/// How long to wait for a broker node to answer the length of the history.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The newest `puzzle.partition.updated.v1` of each partition heard so far.
#[derive(Debug, Clone)]
pub struct Gathering {
    expected: u32,
    newest: BTreeMap<u32, PartitionUpdated>,
}

impl Gathering {
    /// Expecting partitions 0 to `expected − 1`.
    pub fn new(expected: u32) -> Self {
        Gathering {
            expected,
            newest: BTreeMap::new(),
        }
    }

    /// Takes one `puzzle.partition.updated.v1` body, newer than any heard before (a partition
    /// outside 0 to N − 1 is not one of those asked for, and left out). Returns why a body is
    /// not one.
    pub fn hear(&mut self, body: &[u8]) -> Result<(), String> {
        let update: PartitionUpdated = serde_json::from_slice(body)
            .map_err(|e| format!("a {} does not decode: {e}", PartitionUpdated::TYPE))?;
        if update.partition < self.expected {
            self.newest.insert(update.partition, update);
        }
        Ok(())
    }

    /// Whether every partition has been heard from.
    pub fn complete(&self) -> bool {
        (0..self.expected).all(|k| self.newest.contains_key(&k))
    }

    /// The partitions not heard from.
    pub fn missing(&self) -> Vec<u32> {
        (0..self.expected)
            .filter(|k| !self.newest.contains_key(k))
            .collect()
    }

    /// The merged statistics, as of the newest publication; an error naming the partitions
    /// that report another number of partitions, that were not heard from, or whose message
    /// does not hold together.
    pub fn merge(&self, waited: Duration) -> anyhow::Result<StatsUpdated> {
        let other_count: Vec<String> = self
            .newest
            .values()
            .filter(|update| update.partitions != self.expected)
            .map(|update| {
                format!(
                    "partition {} reports {} partitions",
                    update.partition, update.partitions
                )
            })
            .collect();
        let mut problems = Vec::new();
        if !other_count.is_empty() {
            problems.push(format!(
                "the partitions disagree on their number: {}, not {} (--partitions); is every instance run with --partition K/{}?",
                other_count.join(", "),
                self.expected,
                self.expected
            ));
        }
        let missing = self.missing();
        if !missing.is_empty() {
            let list: Vec<String> = missing.iter().map(u32::to_string).collect();
            let one = missing.len() == 1;
            problems.push(format!(
                "no {} from partition{} {} of {} within {waited:?}: {} not published statistics yet (an instance publishes only after sessions arrive), or {} not running",
                PartitionUpdated::TYPE,
                if one { "" } else { "s" },
                list.join(", "),
                self.expected,
                if one { "it has" } else { "they have" },
                if one { "is" } else { "are" },
            ));
        }
        if !problems.is_empty() {
            // Partitions that disagree are misconfigured (1); only missing ones: no answer in
            // time (3).
            let code = if other_count.is_empty() {
                crate::exit::UNDELIVERED
            } else {
                crate::exit::REFUSED
            };
            return Err(crate::exit::Failure {
                code,
                message: problems.join("; "),
            }
            .into());
        }
        let mut merged = Stats::default();
        for update in self.newest.values() {
            let (_, stats) = Stats::from_partition(update)
                .map_err(|e| anyhow::anyhow!("partition {}: {e}", update.partition))?;
            merged.merge(&stats);
        }
        let at = self
            .newest
            .values()
            .map(|update| update.published_at_ms)
            .max()
            .unwrap_or(0);
        Ok(merged.to_contract(at))
    }
}

/// The type of a delivered event: its routing key on the events exchange, else its `type`.
fn type_of(delivery: &Delivery) -> Option<&str> {
    delivery
        .topic_routing_key
        .as_deref()
        .or(delivery.message.message_type.as_deref())
}

/// How many events the history stream holds now: RabbitMQ's answer to a passive
/// `queue.declare` of the stream, on a connection of its own (the bus does not lend its
/// channels).
async fn history_length(bus: &AmqpBus) -> Result<u64, String> {
    use lapin::options::QueueDeclareOptions;
    use lapin::types::{FieldTable, LongString};
    let config = bus.config();
    let nodes = arcade_runtime::bus::amqp::nodes::parse(&config.url, None, config.heartbeat)
        .map_err(|(shown, why)| format!("{shown}: {why}"))?;
    let tls = match &config.ca_file {
        None => lapin::tcp::OwnedTLSConfig::default(),
        Some(path) => lapin::tcp::OwnedTLSConfig {
            identity: None,
            cert_chain: Some(
                std::fs::read_to_string(path)
                    .map_err(|e| format!("--amqp-ca {}: cannot read it: {e}", path.display()))?,
            ),
        },
    };
    let mut errors = Vec::new();
    for (_, uri, shown) in nodes.attempts() {
        let properties = lapin::ConnectionProperties::default()
            .with_connection_name(LongString::from("arcade puzzle stats (history length)"));
        let runtime = lapin::runtime::default_runtime().map_err(|e| e.to_string())?;
        let connected = tokio::time::timeout(
            CONNECT_TIMEOUT,
            lapin::Connection::connect_uri_with_config(
                uri.clone(),
                properties,
                tls.clone(),
                runtime,
            ),
        )
        .await;
        let amqp = match connected {
            Ok(Ok(amqp)) => amqp,
            Ok(Err(e)) => {
                errors.push(format!("{shown}: {e}"));
                continue;
            }
            Err(_) => {
                errors.push(format!("{shown}: no answer within {CONNECT_TIMEOUT:?}"));
                continue;
            }
        };
        let declared = async {
            let channel = amqp.create_channel().await?;
            channel
                .queue_declare(
                    HISTORY_STREAM.into(),
                    QueueDeclareOptions {
                        passive: true,
                        ..QueueDeclareOptions::default()
                    },
                    FieldTable::default(),
                )
                .await
        }
        .await;
        let _ = amqp.close(200, "length read".into()).await;
        return declared
            .map(|queue| u64::from(queue.message_count()))
            .map_err(|e| format!("{shown}: {e}"));
    }
    Err(errors.join("; "))
}

/// Reads the history from its first event to (at least) the `length`-th, where it ended when
/// asked, and on until it has been quiet for [`SETTLE`] (the length RabbitMQ gives is its
/// statistics' figure, refreshed every few seconds, so the newest events may lie beyond it);
/// then follows it until every partition is heard from or `deadline`. Returns whether the
/// history was read to its end.
async fn read_history(
    consumer: &mut dyn Consumer,
    length: u64,
    gathering: &mut Gathering,
    deadline: tokio::time::Instant,
) -> anyhow::Result<bool> {
    let mut caught_up = length == 0;
    let mut settled = false;
    let mut end: Option<u64> = None;
    while !(settled && gathering.complete()) {
        let wait_until = if caught_up && !settled {
            deadline.min(tokio::time::Instant::now() + SETTLE)
        } else {
            deadline
        };
        let Ok(delivery) = tokio::time::timeout_at(wait_until, consumer.next()).await else {
            if caught_up && !settled && tokio::time::Instant::now() < deadline {
                settled = true;
                continue;
            }
            break;
        };
        let delivery = delivery?;
        if !caught_up {
            match delivery
                .message
                .headers
                .get(OFFSET_HEADER)
                .and_then(|offset| offset.parse::<u64>().ok())
            {
                // The first event read is the oldest kept: the end is `length` events on.
                Some(offset) => {
                    let end = *end.get_or_insert(offset.saturating_add(length - 1));
                    caught_up = offset >= end;
                }
                // No position: the quiet period alone tells the end.
                None => caught_up = true,
            }
        }
        if type_of(&delivery) == Some(PartitionUpdated::TYPE)
            && let Err(why) = gathering.hear(&delivery.message.body)
        {
            eprintln!("skipped: {why}");
        }
        delivery.ack().await?;
    }
    Ok(settled)
}

/// Waits on a temporary queue for each partition's next publication, until all are heard
/// from or `deadline`.
async fn follow(
    bus: &dyn Bus,
    gathering: &mut Gathering,
    deadline: tokio::time::Instant,
) -> anyhow::Result<()> {
    let spec = SubscriptionSpec::temporary(
        format!("puzzle-stats.{}", uuid::Uuid::new_v4().simple()),
        vec![PartitionUpdated::TYPE.into()],
    );
    let mut consumer = bus.subscribe(&spec).await?;
    while !gathering.complete() {
        let Ok(delivery) = tokio::time::timeout_at(deadline, consumer.next()).await else {
            break;
        };
        let delivery = delivery?;
        if let Err(why) = gathering.hear(&delivery.message.body) {
            eprintln!("skipped: {why}");
        }
        delivery.ack().await?;
    }
    Ok(())
}

/// The merged statistics of partitions 0 to `partitions − 1` on the broker of `bus`, heard
/// within `timeout`.
pub async fn merged(
    bus: AmqpBus,
    partitions: u32,
    timeout: Duration,
) -> anyhow::Result<StatsUpdated> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut gathering = Gathering::new(partitions);
    let history = match history_length(&bus).await {
        Ok(length) => bus
            .replay(HISTORY_STREAM, "#", StreamOffset::First, PREFETCH)
            .await
            .map(|consumer| (consumer, length))
            .map_err(|e| e.to_string()),
        Err(why) => Err(why),
    };
    match history {
        Ok((mut consumer, length)) => {
            eprintln!(
                "reading {length} events of the history {HISTORY_STREAM} on {}, then waiting up to {timeout:?} for partitions 0 to {} of {partitions}",
                bus.name(),
                partitions - 1
            );
            let read_to_end =
                read_history(consumer.as_mut(), length, &mut gathering, deadline).await?;
            if !read_to_end && gathering.complete() {
                eprintln!(
                    "warning: the history was not read to its end within {timeout:?}; a partition may have published newer statistics than those merged (try a longer --timeout)"
                );
            }
        }
        Err(why) => {
            eprintln!(
                "cannot read the history stream {HISTORY_STREAM} ({why}); waiting up to {timeout:?} for the next {} of partitions 0 to {} of {partitions}",
                PartitionUpdated::TYPE,
                partitions - 1
            );
            follow(&bus, &mut gathering, deadline).await?;
        }
    }
    bus.close().await;
    gathering.merge(timeout)
}

#[cfg(test)]
mod tests;
