//! How the log lies in sled: a **chunk** of consecutive records per entry, keyed by the sequence
//! number of its first record. sled 0.34 pays per entry (every insert copies and relogs the
//! leaf it lands in), so a batch of events written as a few chunks costs a fraction of the same
//! events written one entry each.
//!
//! A chunk is a version byte followed by length-prefixed JSON records. Logs written before
//! chunks hold one JSON record per entry (its first byte is `{`); they are still read.

use super::{LogRecord, StoreError};

/// First byte of a chunk of format version 1.
const CHUNK_V1: u8 = 0x01;

/// A chunk's key (its first sequence number) and bytes.
pub(super) type Chunk = ([u8; 8], Vec<u8>);

/// Splits `records`, numbered from `first`, into chunks of at most `max_bytes` each (a record
/// larger than that gets a chunk of its own).
pub(super) fn encode(
    first: u64,
    records: &[LogRecord],
    max_bytes: usize,
) -> Result<Vec<Chunk>, StoreError> {
    let mut chunks = Vec::new();
    let mut current: Option<Chunk> = None;
    for (offset, record) in records.iter().enumerate() {
        let seq = first + offset as u64;
        let json = serde_json::to_vec(record).map_err(|e| StoreError::Corrupt {
            seq,
            reason: format!("cannot encode the record: {e}"),
        })?;
        let len = u32::try_from(json.len()).map_err(|_| StoreError::Corrupt {
            seq,
            reason: format!("a record of {} bytes is too large", json.len()),
        })?;
        if let Some((_, bytes)) = &current
            && bytes.len() + 4 + json.len() > max_bytes
        {
            chunks.extend(current.take());
        }
        let (_, bytes) = current.get_or_insert_with(|| (seq.to_be_bytes(), vec![CHUNK_V1]));
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&json);
    }
    chunks.extend(current);
    Ok(chunks)
}

/// The records of one log entry, with their sequence numbers.
pub(super) fn decode(key: &[u8], value: &[u8]) -> Result<Vec<(u64, LogRecord)>, StoreError> {
    let first = super::seq_of(key)?;
    let corrupt = |seq: u64, reason: String| StoreError::Corrupt { seq, reason };
    match value.first() {
        Some(b'{') => {
            let record =
                serde_json::from_slice(value).map_err(|e| corrupt(first, e.to_string()))?;
            Ok(vec![(first, record)])
        }
        Some(&CHUNK_V1) => {
            let mut records = Vec::new();
            let mut rest = &value[1..];
            while !rest.is_empty() {
                let seq = first + records.len() as u64;
                let (len, tail) = rest
                    .split_first_chunk::<4>()
                    .ok_or_else(|| corrupt(seq, "a chunk ends inside a length".into()))?;
                let len = u32::from_le_bytes(*len) as usize;
                if tail.len() < len {
                    return Err(corrupt(seq, "a chunk ends inside a record".into()));
                }
                let (json, tail) = tail.split_at(len);
                let record =
                    serde_json::from_slice(json).map_err(|e| corrupt(seq, e.to_string()))?;
                records.push((seq, record));
                rest = tail;
            }
            if records.is_empty() {
                return Err(corrupt(first, "an empty chunk".into()));
            }
            Ok(records)
        }
        Some(other) => Err(corrupt(
            first,
            format!("unknown log entry format (first byte {other:#04x})"),
        )),
        None => Err(corrupt(first, "an empty log entry".into())),
    }
}
