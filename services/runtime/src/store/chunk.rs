//! How the log lies in sled: a chunk of consecutive records per entry ([`crate::chunk`]),
//! keyed by the sequence number of its first record; each record is the JSON of a
//! [`LogRecord`].
//!
//! Logs written before chunks are still read: one JSON record per entry (its first byte is
//! `{`).

use super::{LogRecord, StoreError};
use crate::chunk;

/// A chunk's key (its first sequence number) and bytes.
pub(super) type Chunk = ([u8; 8], Vec<u8>);

/// Splits `records`, numbered from `first`, into chunks of at most `max_bytes` of JSON each
/// before compression (a record larger than that gets a chunk of its own).
pub(super) fn encode(
    first: u64,
    records: &[LogRecord],
    max_bytes: usize,
) -> Result<Vec<Chunk>, StoreError> {
    let chunks = chunk::split(records, max_bytes, |record, out| {
        serde_json::to_writer(out, record)
    })
    .map_err(|(position, e)| StoreError::Corrupt {
        seq: first + position as u64,
        reason: format!("cannot encode the record: {e}"),
    })?;
    let mut seq = first;
    Ok(chunks
        .into_iter()
        .map(|(count, bytes)| {
            let key = seq.to_be_bytes();
            seq += count as u64;
            (key, bytes)
        })
        .collect())
}

/// The records of one log entry, with their sequence numbers.
pub(super) fn decode(key: &[u8], value: &[u8]) -> Result<Vec<(u64, LogRecord)>, StoreError> {
    let first = super::seq_of(key)?;
    let corrupt = |seq: u64, reason: String| StoreError::Corrupt { seq, reason };
    let raw = match value.first() {
        Some(b'{') => {
            let record =
                serde_json::from_slice(value).map_err(|e| corrupt(first, e.to_string()))?;
            return Ok(vec![(first, record)]);
        }
        Some(&chunk::FORMAT_LZ4) => {
            chunk::decompress(value).map_err(|e| corrupt(first, e.to_string()))?
        }
        Some(other) => {
            return Err(corrupt(
                first,
                format!("unknown log entry format (first byte {other:#04x})"),
            ));
        }
        None => return Err(corrupt(first, "an empty log entry".into())),
    };
    let mut records = Vec::new();
    for frame in chunk::frames(&raw) {
        let seq = first + records.len() as u64;
        let json = frame.map_err(|e| corrupt(seq, e.to_string()))?;
        let record = serde_json::from_slice(json).map_err(|e| corrupt(seq, e.to_string()))?;
        records.push((seq, record));
    }
    if records.is_empty() {
        return Err(corrupt(first, "an empty chunk".into()));
    }
    Ok(records)
}
