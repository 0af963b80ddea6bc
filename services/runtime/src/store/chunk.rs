//! How the log lies in sled: a chunk of consecutive records per entry ([`crate::chunk`]),
//! keyed by the sequence number of its first record; each record is the JSON of a
//! [`LogRecord`].
//!
//! Logs written before chunks are still read: one JSON record per entry (its first byte is
//! `{`).

use super::{LogRecord, StoreError};
use crate::chunk::{self, ChunkWriter};

/// A chunk's key (its first sequence number) and bytes.
pub(super) type Chunk = ([u8; 8], Vec<u8>);

/// Splits `records`, numbered from `first`, into chunks of at most `max_bytes` of JSON each
/// before compression (a record larger than that gets a chunk of its own).
pub(super) fn encode(
    first: u64,
    records: &[LogRecord],
    max_bytes: usize,
) -> Result<Vec<Chunk>, StoreError> {
    let mut chunks = Vec::new();
    let mut current: Option<(u64, ChunkWriter)> = None;
    for (offset, record) in records.iter().enumerate() {
        let seq = first + offset as u64;
        let json = serde_json::to_vec(record).map_err(|e| StoreError::Corrupt {
            seq,
            reason: format!("cannot encode the record: {e}"),
        })?;
        if let Some((_, writer)) = &current
            && writer.raw_len() + 4 + json.len() > max_bytes
        {
            chunks.extend(current.take().map(finish));
        }
        let (_, writer) = current.get_or_insert_with(|| (seq, ChunkWriter::default()));
        writer.push(&json);
    }
    chunks.extend(current.map(finish));
    Ok(chunks)
}

fn finish((first, writer): (u64, ChunkWriter)) -> Chunk {
    (first.to_be_bytes(), writer.finish())
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
