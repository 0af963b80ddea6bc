//! The history stream: every event published on the events exchange is also kept, in the order
//! the broker received it, in a RabbitMQ stream (`arcade.history`, `x-queue-type: stream`)
//! bound to the exchange with `#`, so that an analytics consumer that joins late, or rebuilds
//! its projection, can read the whole history and then follow ([`AmqpBus::replay`]).
//!
//! - Retention: the broker drops the oldest segments once the stream holds more than
//!   `x-max-length-bytes` or they are older than `x-max-age` (whole segments,
//!   `x-stream-max-segment-size-bytes`, 500 MB by default: retention is coarse).
//! - Reading: a consumer on its own channel with a bounded prefetch (RabbitMQ requires
//!   `basic.qos` on a stream), manual acks (which only grant credit: a stream keeps every
//!   message for every reader), and `x-stream-offset`: `first`, `last` (the last chunk the
//!   broker wrote), `next`, a timestamp (seconds; from the first chunk written at or after it)
//!   or an offset (a message's position in the stream, from 0).
//! - A stream cannot expire (`x-expires`): a test topology ([`super::AmqpConfig::expire_after`]
//!   set) gets no history, so its auto-deleted exchanges still go away.

use chrono::{DateTime, Utc};
use lapin::options::{BasicConsumeOptions, BasicQosOptions};
use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};

use super::consume::AmqpConsumer;
use super::{AmqpBus, short, unavailable};
use crate::bus::pattern::Pattern;
use crate::bus::{BusError, Consumer, Delivery};

/// Name of the stream that keeps every event.
pub const HISTORY_STREAM: &str = "arcade.history";
/// Default `x-max-length-bytes` of the history stream: 10 GB.
pub const DEFAULT_MAX_BYTES: u64 = 10_000_000_000;
/// Default `x-max-age` of the history stream: 30 days.
pub const DEFAULT_MAX_AGE: &str = "30D";

/// The history stream's name and retention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryConfig {
    /// The stream's name.
    pub stream: String,
    /// `x-max-length-bytes`: the most the stream keeps.
    pub max_bytes: u64,
    /// `x-max-age`: how long it keeps an event, in RabbitMQ's form (`7D`, `12h`; see
    /// [`parse_max_age`]).
    pub max_age: String,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            stream: HISTORY_STREAM.to_string(),
            max_bytes: DEFAULT_MAX_BYTES,
            max_age: DEFAULT_MAX_AGE.to_string(),
        }
    }
}

impl HistoryConfig {
    /// The arguments the stream is declared with.
    pub fn arguments(&self) -> FieldTable {
        let mut arguments = FieldTable::default();
        arguments.insert(
            short("x-queue-type"),
            AMQPValue::LongString(LongString::from("stream")),
        );
        arguments.insert(
            short("x-max-length-bytes"),
            AMQPValue::LongLongInt(i64::try_from(self.max_bytes).unwrap_or(i64::MAX)),
        );
        arguments.insert(
            short("x-max-age"),
            AMQPValue::LongString(LongString::from(self.max_age.clone())),
        );
        arguments
    }
}

/// A retention age RabbitMQ does not understand.
#[derive(Debug, thiserror::Error)]
#[error(
    "invalid max age {0:?}: expected a positive number and one unit of Y, M, D, h, m, s (e.g. 30D, 12h)"
)]
pub struct InvalidMaxAge(pub String);

/// Checks a stream's `x-max-age` as RabbitMQ reads it: digits, then one unit among `Y` (years),
/// `M` (months), `D` (days), `h`, `m`, `s`.
pub fn parse_max_age(value: &str) -> Result<String, InvalidMaxAge> {
    let value = value.trim();
    let invalid = || InvalidMaxAge(value.to_string());
    let unit = value.chars().last().ok_or_else(invalid)?;
    let digits = &value[..value.len() - unit.len_utf8()];
    let amount: u64 = digits.parse().map_err(|_| invalid())?;
    if amount == 0 || !matches!(unit, 'Y' | 'M' | 'D' | 'h' | 'm' | 's') {
        return Err(invalid());
    }
    Ok(value.to_string())
}

/// Where a reader of the history starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamOffset {
    /// The oldest event the stream still keeps.
    First,
    /// The last chunk the broker wrote (the newest few events).
    Last,
    /// Only what comes after the reader attaches.
    Next,
    /// The first chunk written at or after this time (second precision).
    Timestamp(DateTime<Utc>),
    /// This position in the stream (0 is its first event ever; an offset no longer kept reads
    /// from the oldest kept).
    Offset(u64),
}

/// A `--from` value that is none of the forms [`StreamOffset`] reads.
#[derive(Debug, thiserror::Error)]
#[error(
    "invalid history position {0:?}: expected first, last, next, an RFC 3339 timestamp (2026-12-02T19:30:00Z) or an offset (a non-negative integer)"
)]
pub struct InvalidOffset(pub String);

impl std::str::FromStr for StreamOffset {
    type Err = InvalidOffset;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let value = value.trim();
        match value {
            "first" => return Ok(StreamOffset::First),
            "last" => return Ok(StreamOffset::Last),
            "next" => return Ok(StreamOffset::Next),
            _ => {}
        }
        if let Ok(offset) = value.parse::<u64>() {
            return Ok(StreamOffset::Offset(offset));
        }
        DateTime::parse_from_rfc3339(value)
            .map(|time| StreamOffset::Timestamp(time.with_timezone(&Utc)))
            .map_err(|_| InvalidOffset(value.to_string()))
    }
}

impl std::fmt::Display for StreamOffset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamOffset::First => f.write_str("first"),
            StreamOffset::Last => f.write_str("last"),
            StreamOffset::Next => f.write_str("next"),
            StreamOffset::Timestamp(time) => f.write_str(&time.to_rfc3339()),
            StreamOffset::Offset(offset) => write!(f, "{offset}"),
        }
    }
}

impl StreamOffset {
    /// The `x-stream-offset` consumer argument.
    pub fn argument(self) -> AMQPValue {
        let text = |s: &str| AMQPValue::LongString(LongString::from(s));
        match self {
            StreamOffset::First => text("first"),
            StreamOffset::Last => text("last"),
            StreamOffset::Next => text("next"),
            StreamOffset::Timestamp(time) => {
                AMQPValue::Timestamp(u64::try_from(time.timestamp()).unwrap_or(0))
            }
            StreamOffset::Offset(offset) => {
                AMQPValue::LongLongInt(i64::try_from(offset).unwrap_or(i64::MAX))
            }
        }
    }
}

/// A reader of the history: the events whose type matches its pattern, in stream order. What
/// does not match is acked and skipped.
struct HistoryConsumer {
    inner: AmqpConsumer,
    pattern: Pattern,
}

impl HistoryConsumer {
    fn wanted(&self, delivery: &Delivery) -> bool {
        let key = delivery
            .topic_routing_key
            .as_deref()
            .or(delivery.message.message_type.as_deref());
        key.is_some_and(|key| self.pattern.matches(key))
    }
}

#[async_trait::async_trait]
impl Consumer for HistoryConsumer {
    async fn next(&mut self) -> Result<Delivery, BusError> {
        loop {
            let delivery = self.inner.next().await?;
            if self.wanted(&delivery) {
                return Ok(delivery);
            }
            delivery.ack().await?;
        }
    }

    fn try_next(&mut self) -> Option<Delivery> {
        loop {
            let delivery = self.inner.try_next()?;
            if self.wanted(&delivery) {
                return Some(delivery);
            }
            // Settled in the background: an ack on a stream only grants credit.
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                handle.spawn(delivery.ack());
            }
        }
    }
}

impl AmqpBus {
    /// Reads the history stream `stream` from `from`, then follows it: the events whose type
    /// matches `pattern`, in the order the broker received them, at most `prefetch` unacked at
    /// once. Refused when the stream does not exist (nothing hosting services declared it) or
    /// this bus's user may not read it.
    pub async fn replay(
        &self,
        stream: &str,
        pattern: &str,
        from: StreamOffset,
        prefetch: u16,
    ) -> Result<Box<dyn Consumer>, BusError> {
        let config = &self.inner.config;
        let (connection, _) = self.connection().await?;
        let channel = connection
            .create_channel()
            .await
            .map_err(|e| unavailable("cannot open a channel", e))?;
        let mut arguments = FieldTable::default();
        arguments.insert(ShortString::from("x-stream-offset"), from.argument());
        let tag = format!(
            "{}.{}",
            config.connection_name,
            uuid::Uuid::new_v4().simple()
        );
        let setup = async {
            channel
                .basic_qos(prefetch.max(1), BasicQosOptions::default())
                .await?;
            channel
                .basic_consume(
                    short(stream),
                    short(&tag),
                    BasicConsumeOptions::default(),
                    arguments,
                )
                .await
        };
        let deliveries = match setup.await {
            Ok(deliveries) => deliveries,
            Err(e) => {
                let _ = channel.close(200, short("replay failed")).await;
                let what = format!("cannot read the history stream {stream}");
                return Err(if connection.status().connected() {
                    BusError::Refused(format!("{what}: {e}"))
                } else {
                    unavailable(&what, e)
                });
            }
        };
        static READERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Ok(Box::new(HistoryConsumer {
            inner: AmqpConsumer {
                bus: self.clone(),
                id: u64::MAX - READERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                channel,
                stream: deliveries,
                queue: stream.to_string(),
            },
            pattern: Pattern::new(pattern),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_position_is_read_and_a_bad_one_named() {
        assert_eq!(
            "first".parse::<StreamOffset>().unwrap(),
            StreamOffset::First
        );
        assert_eq!("last".parse::<StreamOffset>().unwrap(), StreamOffset::Last);
        assert_eq!(
            "42".parse::<StreamOffset>().unwrap(),
            StreamOffset::Offset(42)
        );
        let at = "2026-12-02T19:30:00+01:00".parse::<StreamOffset>().unwrap();
        let StreamOffset::Timestamp(time) = at else {
            panic!("{at:?}")
        };
        assert_eq!(time.to_rfc3339(), "2026-12-02T18:30:00+00:00");
        assert_eq!(
            at.argument(),
            AMQPValue::Timestamp(u64::try_from(time.timestamp()).unwrap())
        );
        assert_eq!(
            StreamOffset::Offset(7).argument(),
            AMQPValue::LongLongInt(7)
        );
        for bad in ["-1", "yesterday", "2026-12-02", ""] {
            let error = bad.parse::<StreamOffset>().unwrap_err().to_string();
            assert!(
                error.contains(&format!("{bad:?}")) && error.contains("RFC 3339"),
                "{error}"
            );
        }
    }

    #[test]
    fn retention_ages_are_checked_as_rabbitmq_reads_them() {
        assert_eq!(parse_max_age("30D").unwrap(), "30D");
        assert_eq!(parse_max_age(" 12h ").unwrap(), "12h");
        for bad in ["", "D", "0D", "7d", "7 days", "-1D", "1.5h"] {
            let error = parse_max_age(bad).unwrap_err().to_string();
            assert!(error.contains("Y, M, D, h, m, s"), "{bad}: {error}");
        }
        let arguments = HistoryConfig::default().arguments();
        let keys: Vec<String> = arguments.inner().keys().map(|k| k.to_string()).collect();
        assert_eq!(keys, ["x-max-age", "x-max-length-bytes", "x-queue-type"]);
    }
}
