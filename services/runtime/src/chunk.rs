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

/// A chunk's bytes and how many items it holds.
pub(crate) type Sealed = (usize, Vec<u8>);

/// Splits `items` into chunks of at most `max_bytes` of frames before compression (an item
/// larger than that gets a chunk of its own), each item written by `write` straight into its
/// frame. Returns each chunk's bytes and how many items it holds, in order; or the position
/// of the item `write` failed on, and its error.
pub(crate) fn split<T, E>(
    items: &[T],
    max_bytes: usize,
    mut write: impl FnMut(&T, &mut Vec<u8>) -> Result<(), E>,
) -> Result<Vec<Sealed>, (usize, E)> {
    let mut chunks = Vec::new();
    // Room for a batch's frames up to a chunk, so the buffer rarely grows (each growth copies).
    let mut raw = Vec::with_capacity(items.len().saturating_mul(512).min(max_bytes) + 1024);
    let mut count = 0;
    for (position, item) in items.iter().enumerate() {
        let start = raw.len();
        raw.extend_from_slice(&[0; 4]);
        write(item, &mut raw).map_err(|e| (position, e))?;
        let len = u32::try_from(raw.len() - start - 4).expect("a record under 4 GiB");
        raw[start..start + 4].copy_from_slice(&len.to_le_bytes());
        if start > 0 && raw.len() > max_bytes {
            // It does not fit: the chunk ends before it, and it starts the next one.
            chunks.push((count, seal(&raw[..start])));
            raw.drain(..start);
            count = 0;
        }
        count += 1;
    }
    if count > 0 {
        chunks.push((count, seal(&raw)));
    }
    Ok(chunks)
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

    fn write(record: &String, out: &mut Vec<u8>) -> Result<(), ()> {
        out.extend_from_slice(record.as_bytes());
        Ok(())
    }

    /// The records of each chunk, as text.
    fn contents(chunks: &[Sealed]) -> Vec<Vec<String>> {
        chunks
            .iter()
            .map(|(count, chunk)| {
                let raw = decompress(chunk).unwrap();
                let records: Vec<String> = frames(&raw)
                    .map(|f| String::from_utf8(f.unwrap().to_vec()).unwrap())
                    .collect();
                assert_eq!(records.len(), *count);
                records
            })
            .collect()
    }

    #[test]
    fn a_record_that_does_not_fit_starts_the_next_chunk_and_a_large_one_has_its_own() {
        let record = |n: usize, len: usize| format!("{n}{}", "x".repeat(len - 1));
        // Frames of 4 + 10 bytes: three fit in 42 bytes, a fourth does not.
        let small: Vec<String> = (0..7).map(|n| record(n, 10)).collect();
        let chunks = split(&small, 42, write).unwrap();
        assert_eq!(
            contents(&chunks),
            vec![
                small[0..3].to_vec(),
                small[3..6].to_vec(),
                small[6..].to_vec()
            ]
        );
        // One over the limit alone, between two that fit.
        let mixed = vec![record(0, 10), record(1, 100), record(2, 10)];
        let chunks = split(&mixed, 42, write).unwrap();
        assert_eq!(
            contents(&chunks),
            vec![
                vec![mixed[0].clone()],
                vec![mixed[1].clone()],
                vec![mixed[2].clone()]
            ]
        );
        assert!(split(&Vec::<String>::new(), 42, write).unwrap().is_empty());
    }

    #[test]
    fn a_record_that_cannot_be_written_is_named_by_its_position() {
        let records: Vec<String> = ["a", "b", "bad", "c"].map(String::from).to_vec();
        let failed = split(&records, 1 << 10, |r: &String, out: &mut Vec<u8>| {
            if r == "bad" {
                return Err("cannot write it");
            }
            out.extend_from_slice(r.as_bytes());
            Ok(())
        });
        assert_eq!(failed, Err((2, "cannot write it")));
    }

    #[test]
    fn records_come_back_in_order_and_the_chunk_is_smaller() {
        let records: Vec<String> = (0..100)
            .map(|n| format!(r#"{{"messageId":"0193a1c2-7e4f-7000-8000-{n:012}","type":"game.session.completed.v1"}}"#))
            .collect();
        let raw_len: usize = records.iter().map(|r| 4 + r.len()).sum();
        let chunks = split(&records, 1 << 20, write).unwrap();
        assert_eq!(chunks.len(), 1);
        let (count, chunk) = &chunks[0];
        assert_eq!(*count, 100);
        assert_eq!(chunk[0], FORMAT_LZ4);
        assert!(chunk.len() * 3 < raw_len, "{} of {raw_len}", chunk.len());
        let raw = decompress(chunk).unwrap();
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
