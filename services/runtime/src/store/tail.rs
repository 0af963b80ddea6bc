//! The newest records of the log, kept decoded for the relay.

use std::collections::VecDeque;
use std::sync::Arc;

use super::LogRecord;

/// The newest records, kept decoded for the relay, which reads right behind the host: most
/// reads then cost no sled lookup and no JSON. Bounded; older reads go to sled.
#[derive(Debug)]
pub(super) struct Tail {
    /// Sequence number of `records[0]`.
    first: u64,
    records: VecDeque<Arc<LogRecord>>,
    capacity: usize,
}

impl Tail {
    pub(super) fn new(end: u64, capacity: usize) -> Self {
        Tail {
            first: end,
            records: VecDeque::new(),
            capacity,
        }
    }

    pub(super) fn append(&mut self, records: Vec<LogRecord>) {
        self.records.extend(records.into_iter().map(Arc::new));
        let over = self.records.len().saturating_sub(self.capacity);
        self.records.drain(..over);
        self.first += over as u64;
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
                .map(|(i, r)| (from + i as u64, r.clone()))
                .collect(),
        )
    }
}
