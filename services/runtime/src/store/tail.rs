//! The newest records of the log, kept decoded for the relay.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;

use super::LogRecord;

/// The newest records, kept decoded for the relay, which reads right behind the host: most
/// reads then cost no sled lookup and no JSON. Bounded by a number of records and by the
/// memory they take ([`weight`]): a few large events (a batch of 1,000 printed bingo cards is
/// ~1.5 MB decoded) must not keep hundreds of MB alive. Older reads go to sled.
#[derive(Debug)]
pub(super) struct Tail {
    /// Sequence number of `records[0]`.
    first: u64,
    records: VecDeque<(Arc<LogRecord>, usize)>,
    capacity: usize,
    /// Bytes the records may take, by [`weight`].
    max_bytes: usize,
    bytes: usize,
}

impl Tail {
    pub(super) fn new(end: u64, capacity: usize, max_bytes: usize) -> Self {
        Tail {
            first: end,
            records: VecDeque::new(),
            capacity,
            max_bytes,
            bytes: 0,
        }
    }

    pub(super) fn append(&mut self, records: Vec<LogRecord>) {
        for record in records {
            let weight = record_weight(&record);
            self.bytes += weight;
            self.records.push_back((Arc::new(record), weight));
        }
        while self.records.len() > self.capacity || self.bytes > self.max_bytes {
            let Some((_, weight)) = self.records.pop_front() else {
                break;
            };
            self.bytes -= weight;
            self.first += 1;
        }
    }

    /// Up to `limit` records from `from`, if the tail holds `from`.
    pub(super) fn read(&self, from: u64, limit: usize) -> Option<Vec<(u64, Arc<LogRecord>)>> {
        let skip = usize::try_from(from.checked_sub(self.first)?).ok()?;
        if skip >= self.records.len() {
            return None;
        }
        Some(
            self.records
                .iter()
                .skip(skip)
                .take(limit)
                .enumerate()
                .map(|(i, (r, _))| (from + i as u64, r.clone()))
                .collect(),
        )
    }
}

/// What a record takes in memory, roughly: its payload's [`weight`] and its strings.
fn record_weight(record: &LogRecord) -> usize {
    let envelope = &record.envelope;
    std::mem::size_of::<LogRecord>()
        + weight(&envelope.payload)
        + envelope.message_type.len()
        + envelope.message_id.len()
        + record.queue.as_ref().map_or(0, String::len)
        + record.traceparent.as_ref().map_or(0, String::len)
}

/// What a decoded JSON value takes in memory, roughly: one `Value` per node, the bytes of its
/// strings, and a map entry's key.
fn weight(value: &Value) -> usize {
    let node = std::mem::size_of::<Value>();
    node + match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(weight).sum(),
        Value::Object(map) => map
            .iter()
            .map(|(key, item)| std::mem::size_of::<String>() + key.len() + weight(item))
            .sum(),
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(payload: Value) -> LogRecord {
        LogRecord {
            envelope: arcade_contracts::Envelope {
                message_id: "m".into(),
                message_type: "bingo.cards.printed.v1".into(),
                correlation_id: "c".into(),
                causation_id: None,
                producer: "bingo".into(),
                sender: None,
                occurred_at: "2026-12-07T00:00:00Z".into(),
                payload,
            },
            queue: None,
            traceparent: None,
        }
    }

    /// A batch of printed cards as large as the service sends one: 1,000 cards of 25 cells.
    fn printed() -> Value {
        let card = serde_json::json!({"serial": 1, "label": "X7K2-PQ", "cells": (0..25).collect::<Vec<u32>>()});
        Value::Array(vec![card; 1_000])
    }

    #[test]
    fn large_records_are_bounded_by_the_memory_they_take_not_only_their_number() {
        let mut tail = Tail::new(0, 4096, 16 << 20);
        for _ in 0..300 {
            tail.append(vec![record(printed())]);
        }
        assert!(tail.bytes <= 16 << 20, "{}", tail.bytes);
        let kept = tail.records.len();
        assert!((1..300).contains(&kept), "{kept} of 300 kept");
        // The newest are the ones kept, and read where they are.
        assert_eq!(tail.first, 300 - kept as u64);
        assert!(
            tail.read(299, 10)
                .is_some_and(|r| r.len() == 1 && r[0].0 == 299)
        );
        assert!(tail.read(0, 10).is_none(), "the oldest are read from sled");
        // Small records still fill it up to its number.
        let mut small = Tail::new(0, 4096, 16 << 20);
        for i in 0..5_000 {
            small.append(vec![record(serde_json::json!({"n": i}))]);
        }
        assert_eq!(small.records.len(), 4096);
        assert_eq!(small.first, 5_000 - 4096);
    }
}
