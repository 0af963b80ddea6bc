//! The unit of storage of the event log and of the embedded queues: a **chunk** of many
//! records in one sled entry. sled 0.34 pays per entry and, through its leaf copies and splits,
//! many times per byte; so records are framed by length and compressed together with LZ4
//! (repeated field names, types and id prefixes shrink several times), then stored as one
//! value: `[FORMAT_LZ4][raw length: u32 LE][LZ4 block of the frames]`, a frame being
//! `[length: u32 LE][bytes]`.

/// First byte of a compressed chunk.
pub(crate) const FORMAT_LZ4: u8 = 0x03;

/// The largest raw (uncompressed) chunk accepted when reading: a length above it is damage.
const MAX_RAW: usize = 64 << 20;

/// Why a chunk cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ChunkError {
    /// It ends inside a length or a record.
    #[error("the chunk ends inside {0}")]
    Truncated(&'static str),
    /// Its stated raw length is impossible.
    #[error("the chunk claims {0} bytes uncompressed")]
    TooLarge(usize),
    /// LZ4 refused it.
    #[error("the chunk does not decompress: {0}")]
    Decompress(String),
}

/// Collects records into a chunk.
#[derive(Debug, Default)]
pub(crate) struct ChunkWriter {
    raw: Vec<u8>,
}

impl ChunkWriter {
    /// Raw bytes so far, to bound a chunk's size.
    pub fn raw_len(&self) -> usize {
        self.raw.len()
    }

    /// Adds a record. A record is at most 4 GiB (its length is a u32).
    pub fn push(&mut self, record: &[u8]) {
        let len = u32::try_from(record.len()).expect("a record under 4 GiB");
        self.raw.extend_from_slice(&len.to_le_bytes());
        self.raw.extend_from_slice(record);
    }

    /// The chunk's bytes.
    pub fn finish(self) -> Vec<u8> {
        seal(&self.raw)
    }
}

/// Compresses raw frames into a chunk's bytes (tests use it to store damaged frames).
pub(crate) fn seal(raw: &[u8]) -> Vec<u8> {
    let raw_len = u32::try_from(raw.len()).expect("a chunk under 4 GiB");
    let compressed = lz4_flex::block::compress(raw);
    let mut out = Vec::with_capacity(5 + compressed.len());
    out.push(FORMAT_LZ4);
    out.extend_from_slice(&raw_len.to_le_bytes());
    out.extend_from_slice(&compressed);
    out
}

/// The raw frames of a compressed chunk (`value` starts with [`FORMAT_LZ4`]).
pub(crate) fn decompress(value: &[u8]) -> Result<Vec<u8>, ChunkError> {
    let body = value.get(1..).unwrap_or_default();
    let (len, compressed) = body
        .split_first_chunk::<4>()
        .ok_or(ChunkError::Truncated("its length"))?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > MAX_RAW {
        return Err(ChunkError::TooLarge(len));
    }
    lz4_flex::block::decompress(compressed, len).map_err(|e| ChunkError::Decompress(e.to_string()))
}

/// The records of raw frames, in order.
pub(crate) fn frames(mut raw: &[u8]) -> impl Iterator<Item = Result<&[u8], ChunkError>> {
    std::iter::from_fn(move || {
        if raw.is_empty() {
            return None;
        }
        let Some((len, tail)) = raw.split_first_chunk::<4>() else {
            raw = &[];
            return Some(Err(ChunkError::Truncated("a length")));
        };
        let len = u32::from_le_bytes(*len) as usize;
        if tail.len() < len {
            raw = &[];
            return Some(Err(ChunkError::Truncated("a record")));
        }
        let (record, rest) = tail.split_at(len);
        raw = rest;
        Some(Ok(record))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_in_order_and_the_chunk_is_smaller() {
        let mut writer = ChunkWriter::default();
        let records: Vec<String> = (0..100)
            .map(|n| format!(r#"{{"messageId":"0193a1c2-7e4f-7000-8000-{n:012}","type":"game.session.completed.v1"}}"#))
            .collect();
        for record in &records {
            writer.push(record.as_bytes());
        }
        let raw_len = writer.raw_len();
        let chunk = writer.finish();
        assert_eq!(chunk[0], FORMAT_LZ4);
        assert!(chunk.len() * 3 < raw_len, "{} of {raw_len}", chunk.len());
        let raw = decompress(&chunk).unwrap();
        let back: Vec<&[u8]> = frames(&raw).map(Result::unwrap).collect();
        assert_eq!(
            back,
            records.iter().map(|r| r.as_bytes()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn damage_is_named_not_panicked_on() {
        assert_eq!(
            decompress(&[FORMAT_LZ4, 1]),
            Err(ChunkError::Truncated("its length"))
        );
        assert_eq!(
            decompress(&[FORMAT_LZ4, 0xff, 0xff, 0xff, 0xff]),
            Err(ChunkError::TooLarge(u32::MAX as usize))
        );
        assert!(matches!(
            decompress(&[FORMAT_LZ4, 10, 0, 0, 0, 0xff, 1, 2]),
            Err(ChunkError::Decompress(_))
        ));
        let cut_record: Vec<_> = frames(&[5, 0, 0, 0, b'a']).collect();
        assert_eq!(cut_record, vec![Err(ChunkError::Truncated("a record"))]);
        let cut_length: Vec<_> = frames(&[1, 0, 0, 0, b'a', 9]).collect();
        assert_eq!(
            cut_length,
            vec![Ok(&b"a"[..]), Err(ChunkError::Truncated("a length"))]
        );
    }
}
