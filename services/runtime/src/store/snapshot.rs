//! Snapshots on disk: the tree `snapshots` of the service's own database, keyed by the log
//! entry each covers (8 bytes, big-endian), the newest two kept.
//!
//! A value is a frame (little-endian):
//!
//! ```text
//! magic      8  b"ARCSNAP1"
//! codec      4  the service codec's format version
//! seq        8  the last log entry it covers (the state is the fold of 1..=seq)
//! taken_ms   8  when it was taken, ms since the epoch
//! flows_len  8  length of the host's part (the flows, postcard)
//! state_len  8  length of the service's part (its own format)
//! crc32      4  CRC-32 of every byte before it and after it
//! flows      flows_len bytes
//! state      state_len bytes
//! ```
//!
//! A snapshot is inserted only once the log entries it covers are durable, as one sled write
//! with the removal of the older ones, so that a crash leaves the old pair or the new pair and
//! never a snapshot ahead of its log. A torn or flipped byte fails the CRC.

use serde::{Deserialize, Serialize};

use super::{LogRecord, Store, StoreError, chunk, inbox::LOG_END};
use crate::snapshot::SnapshotError;

const MAGIC: &[u8; 8] = b"ARCSNAP1";
const HEADER: usize = 8 + 4 + 8 + 8 + 8 + 8 + 4;
const CRC_AT: usize = HEADER - 4;
/// How many snapshots are kept: the newest, and one to fall back on.
pub const KEPT: usize = 2;
const TREE: &str = "snapshots";

/// The host's part of a snapshot: one flow (a game, a race) and how its next event links.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowEntry {
    /// The flow's key (`Service::flow_of_event`).
    pub flow: String,
    /// Its correlation id.
    pub correlation: String,
    /// Its last event's message id.
    pub last: String,
    /// The trace its last event belongs to.
    pub traceparent: Option<String>,
}

/// A snapshot read back and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The codec's format version.
    pub version: u32,
    /// The last log entry it covers.
    pub seq: u64,
    /// When it was taken, ms since the epoch.
    pub taken_ms: u64,
    /// The host's flows.
    pub flows: Vec<FlowEntry>,
    /// The service's bytes.
    pub state: Vec<u8>,
}

/// A snapshot as stored: its key and its bytes, not yet checked.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The log entry it covers (its key).
    pub seq: u64,
    /// The frame.
    pub bytes: sled::IVec,
}

/// Encodes a frame.
pub fn encode(version: u32, seq: u64, taken_ms: u64, flows: &[FlowEntry], state: &[u8]) -> Vec<u8> {
    // A Vec of plain strings always serializes.
    let flows = postcard::to_allocvec(flows).unwrap_or_default();
    let mut out = Vec::with_capacity(HEADER + flows.len() + state.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&taken_ms.to_le_bytes());
    out.extend_from_slice(&(flows.len() as u64).to_le_bytes());
    out.extend_from_slice(&(state.len() as u64).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&flows);
    out.extend_from_slice(state);
    let crc = checksum(&out);
    out[CRC_AT..HEADER].copy_from_slice(&crc.to_le_bytes());
    out
}

fn checksum(frame: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&frame[..CRC_AT]);
    hasher.update(&frame[HEADER..]);
    hasher.finalize()
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

/// Checks and reads a stored frame: its magic, lengths and checksum, its key, and that it is
/// of format `expected` (`None`: any).
pub fn parse(stored: &Stored, expected: Option<u32>) -> Result<Frame, SnapshotError> {
    let bytes = stored.bytes.as_ref();
    let damaged = |reason: String| SnapshotError::Damaged {
        seq: stored.seq,
        reason,
    };
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(damaged(format!(
            "not a snapshot frame ({} bytes, magic {:02x?})",
            bytes.len(),
            &bytes[..bytes.len().min(8)]
        )));
    }
    let flows_len = u64_at(bytes, 28);
    let state_len = u64_at(bytes, 36);
    let body = (bytes.len() - HEADER) as u64;
    if flows_len.checked_add(state_len) != Some(body) {
        return Err(damaged(format!(
            "its parts ({flows_len} + {state_len} bytes) do not fill its {body} bytes"
        )));
    }
    let crc = u32_at(bytes, CRC_AT);
    let actual = checksum(bytes);
    if crc != actual {
        return Err(damaged(format!(
            "checksum {actual:08x} where {crc:08x} was written"
        )));
    }
    let seq = u64_at(bytes, 12);
    if seq != stored.seq {
        return Err(damaged(format!("it covers entry {seq}, not its key's")));
    }
    let version = u32_at(bytes, 8);
    if let Some(expected) = expected
        && version != expected
    {
        return Err(SnapshotError::UnknownVersion {
            seq,
            found: version,
            expected,
        });
    }
    let flows_end = HEADER + flows_len as usize;
    let flows: Vec<FlowEntry> = postcard::from_bytes(&bytes[HEADER..flows_end])
        .map_err(|e| damaged(format!("its flows: {e}")))?;
    Ok(Frame {
        version,
        seq,
        taken_ms: u64_at(bytes, 20),
        flows,
        state: bytes[flows_end..].to_vec(),
    })
}

impl Store {
    fn snapshot_tree(&self) -> Result<sled::Tree, StoreError> {
        Ok(self.db.open_tree(TREE)?)
    }

    /// Stores a frame covering log entry `seq` and removes all but the newest [`KEPT`], in one
    /// write. The entries it covers must be durable; it is itself durable with the next flush.
    pub fn write_snapshot(&self, seq: u64, frame: Vec<u8>) -> Result<(), StoreError> {
        let tree = self.snapshot_tree()?;
        let mut batch = sled::Batch::default();
        let mut keep = 1;
        for item in tree.iter().rev() {
            let (key, _) = item?;
            if key.as_ref() == seq.to_be_bytes() {
                continue;
            }
            if keep < KEPT {
                keep += 1;
            } else {
                batch.remove(key);
            }
        }
        batch.insert(&seq.to_be_bytes(), frame);
        tree.apply_batch(batch)?;
        Ok(())
    }

    /// The stored snapshots, newest first, unchecked (see [`parse`]).
    pub fn snapshots(&self) -> Result<Vec<Stored>, StoreError> {
        let tree = self.snapshot_tree()?;
        let mut out = Vec::new();
        for item in tree.iter().rev() {
            let (key, bytes) = item?;
            let seq = super::seq_of(&key)?;
            out.push(Stored { seq, bytes });
        }
        Ok(out)
    }

    /// Overwrites a stored snapshot's bytes (tests and damage drills).
    #[doc(hidden)]
    pub fn put_snapshot_bytes(&self, seq: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.snapshot_tree()?.insert(seq.to_be_bytes(), bytes)?;
        Ok(())
    }

    /// Every record after entry `after`, in order: the tail a snapshot covering `after` needs.
    pub fn replay_after(
        &self,
        after: u64,
    ) -> impl Iterator<Item = Result<(u64, LogRecord), StoreError>> + '_ {
        let from = after.saturating_add(1);
        let from_key = from.to_be_bytes();
        // The chunk holding `from` starts at or before it.
        let start = match self.log.range(..=from_key).next_back() {
            Some(Ok((key, _))) => key.to_vec(),
            _ => from_key.to_vec(),
        };
        self.log
            .range(start..LOG_END.to_vec())
            .flat_map(move |item| {
                let records = item
                    .map_err(StoreError::from)
                    .and_then(|(key, value)| chunk::decode(&key, &value));
                match records {
                    Ok(records) => records
                        .into_iter()
                        .filter(|(seq, _)| *seq >= from)
                        .map(Ok)
                        .collect::<Vec<_>>(),
                    Err(e) => vec![Err(e)],
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flows() -> Vec<FlowEntry> {
        vec![FlowEntry {
            flow: "g1".into(),
            correlation: "c1".into(),
            last: "m9".into(),
            traceparent: Some("00-aa-bb-01".into()),
        }]
    }

    #[test]
    fn a_frame_reads_back_and_any_flipped_byte_is_damage() {
        let bytes = encode(3, 42, 1_700, &flows(), b"state bytes");
        let stored = Stored {
            seq: 42,
            bytes: bytes.clone().into(),
        };
        let frame = parse(&stored, Some(3)).unwrap();
        assert_eq!(
            frame,
            Frame {
                version: 3,
                seq: 42,
                taken_ms: 1_700,
                flows: flows(),
                state: b"state bytes".to_vec(),
            }
        );
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            let error = parse(
                &Stored {
                    seq: 42,
                    bytes: bad.into(),
                },
                Some(3),
            )
            .unwrap_err();
            assert!(
                matches!(error, SnapshotError::Damaged { seq: 42, .. }),
                "byte {at}: {error}"
            );
        }
        let torn = Stored {
            seq: 42,
            bytes: bytes[..bytes.len() - 3].to_vec().into(),
        };
        assert!(matches!(
            parse(&torn, Some(3)),
            Err(SnapshotError::Damaged { .. })
        ));
        assert_eq!(
            parse(&stored, Some(4)).unwrap_err(),
            SnapshotError::UnknownVersion {
                seq: 42,
                found: 3,
                expected: 4
            }
        );
        let moved = Stored {
            seq: 41,
            bytes: bytes.into(),
        };
        assert!(matches!(
            parse(&moved, None),
            Err(SnapshotError::Damaged { seq: 41, .. })
        ));
    }

    #[test]
    fn the_newest_two_are_kept() {
        let store = Store::temporary().unwrap();
        for seq in [10, 20, 30, 40] {
            store
                .write_snapshot(seq, encode(1, seq, 0, &[], b"s"))
                .unwrap();
        }
        let seqs: Vec<u64> = store.snapshots().unwrap().iter().map(|s| s.seq).collect();
        assert_eq!(seqs, vec![40, 30]);
    }
}
