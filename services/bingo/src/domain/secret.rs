//! The server secret and what is derived from it: a card's layout and a printed card's label.
//!
//! - Card seed: HMAC-SHA256 under the secret of `"arcade-bingo layout v1" 0x00`, the game id's
//!   length (u32, big endian) and bytes, and the serial (u32, big endian).
//! - Layout: a partial Fisher–Yates shuffle of the pool indices, drawing `draws` squares with
//!   uniform numbers read from the stream SHA-256(seed ‖ block number) (u32 big endian words,
//!   rejection sampling, so no draw is biased).
//! - Label: the first 8 bytes of HMAC-SHA256 of `"arcade-bingo label v1" 0x00`, game and serial
//!   the same way, as 16 hex digits in groups of 4 (`3f2a-9c01-77be-4d10`); checked in constant
//!   time.
//!
//! Printed cards depend on these exact bytes: changing them makes every printed card invalid,
//! which `tests/dealing.rs` pins with known values.
//!
//! The secret never leaves this module: [`Secret`] and [`Keys`] print as `<redacted>`.

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use super::limits::MIN_SECRET_BYTES;

type HmacSha256 = Hmac<Sha256>;

const LAYOUT_PURPOSE: &[u8] = b"arcade-bingo layout v1";
const LABEL_PURPOSE: &[u8] = b"arcade-bingo label v1";
/// Bytes of the HMAC a label keeps.
const LABEL_BYTES: usize = 8;

/// The server secret cards are derived from. Comes from configuration, never from a message;
/// never printed.
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Why a secret is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// No secret at all.
    #[error("the bingo secret is empty")]
    Empty,
    /// A secret too short to resist guessing.
    #[error("the bingo secret is {0} bytes; it must be at least {MIN_SECRET_BYTES} bytes")]
    TooShort(usize),
}

impl Secret {
    /// A secret of at least 16 bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<Secret, SecretError> {
        let bytes = bytes.into();
        match bytes.len() {
            0 => Err(SecretError::Empty),
            n if n < MIN_SECRET_BYTES => Err(SecretError::TooShort(n)),
            _ => Ok(Secret(bytes)),
        }
    }

    /// A secret read from a file: one trailing line break (`\n` or `\r\n`) is not part of it.
    pub fn from_file_contents(mut bytes: Vec<u8>) -> Result<Secret, SecretError> {
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        Secret::new(bytes)
    }
}

/// The keyed HMAC, ready to derive layouts and labels (cloning it skips re-keying).
#[derive(Clone)]
pub struct Keys {
    mac: HmacSha256,
}

impl fmt::Debug for Keys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Keys(<redacted>)")
    }
}

/// A stream of uniform numbers from a card seed.
struct Stream {
    seed: [u8; 32],
    block: [u8; 32],
    next_block: u32,
    pos: usize,
}

impl Stream {
    fn new(seed: [u8; 32]) -> Stream {
        Stream {
            seed,
            block: [0; 32],
            next_block: 0,
            pos: 32,
        }
    }

    fn next_u32(&mut self) -> u32 {
        if self.pos + 4 > self.block.len() {
            let mut hasher = Sha256::new();
            hasher.update(self.seed);
            hasher.update(self.next_block.to_be_bytes());
            self.block = hasher.finalize().into();
            self.next_block = self.next_block.wrapping_add(1);
            self.pos = 0;
        }
        let word = [
            self.block[self.pos],
            self.block[self.pos + 1],
            self.block[self.pos + 2],
            self.block[self.pos + 3],
        ];
        self.pos += 4;
        u32::from_be_bytes(word)
    }

    /// Uniform in `0..n` (`n > 0`): words of the incomplete top range are drawn again.
    fn below(&mut self, n: u32) -> u32 {
        let n64 = u64::from(n);
        let accepted = (1u64 << 32) - (1u64 << 32) % n64;
        loop {
            let word = u64::from(self.next_u32());
            if word < accepted {
                return (word % n64) as u32;
            }
        }
    }
}

impl Keys {
    /// Keys the HMAC with the secret.
    pub fn new(secret: &Secret) -> Keys {
        let mac = <HmacSha256 as Mac>::new_from_slice(&secret.0)
            .expect("HMAC accepts a key of any length");
        Keys { mac }
    }

    fn keyed(&self, purpose: &[u8], game: &str, serial: u32) -> HmacSha256 {
        let mut mac = self.mac.clone();
        mac.update(purpose);
        mac.update(&[0]);
        // A game id is at most 200 bytes; the length prefix keeps (game, serial) unambiguous.
        mac.update(&(game.len() as u32).to_be_bytes());
        mac.update(game.as_bytes());
        mac.update(&serial.to_be_bytes());
        mac
    }

    /// The layout of a card: the pool index of the square in each drawn cell, in cell order
    /// (around the free centre). `draws` must not exceed `pool_len` (a checked game ensures it);
    /// both are at most 500.
    pub fn layout(&self, game: &str, serial: u32, pool_len: usize, draws: usize) -> Box<[u16]> {
        let seed: [u8; 32] = self
            .keyed(LAYOUT_PURPOSE, game, serial)
            .finalize()
            .into_bytes()
            .into();
        let mut stream = Stream::new(seed);
        let mut indices: Vec<u16> = (0..pool_len).map(|i| i as u16).collect();
        let draws = draws.min(pool_len);
        for i in 0..draws {
            let j = i + stream.below((pool_len - i) as u32) as usize;
            indices.swap(i, j);
        }
        indices.truncate(draws);
        indices.into_boxed_slice()
    }

    /// The label printed on a card.
    pub fn label(&self, game: &str, serial: u32) -> String {
        let tag = self
            .keyed(LABEL_PURPOSE, game, serial)
            .finalize()
            .into_bytes();
        let digits = hex::encode(&tag[..LABEL_BYTES]);
        let groups: Vec<&str> = (0..digits.len())
            .step_by(4)
            .map(|i| &digits[i..i + 4])
            .collect();
        groups.join("-")
    }

    /// Whether a label (any case, dashes and spaces ignored) is the one of that card.
    pub fn label_matches(&self, game: &str, serial: u32, label: &str) -> bool {
        let digits: String = label
            .chars()
            .filter(|c| *c != '-' && !c.is_whitespace())
            .collect();
        if digits.len() != 2 * LABEL_BYTES {
            return false;
        }
        match hex::decode(digits.to_ascii_lowercase()) {
            Ok(bytes) => self
                .keyed(LABEL_PURPOSE, game, serial)
                .verify_truncated_left(&bytes)
                .is_ok(),
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Keys {
        Keys::new(&Secret::new(*b"0123456789abcdef").unwrap())
    }

    #[test]
    fn secrets_shorter_than_sixteen_bytes_are_refused() {
        assert_eq!(Secret::new(Vec::new()).unwrap_err(), SecretError::Empty);
        assert_eq!(
            Secret::new(*b"0123456789abcde").unwrap_err(),
            SecretError::TooShort(15)
        );
        assert!(Secret::new(*b"0123456789abcdef").is_ok());
    }

    #[test]
    fn a_file_secret_loses_one_trailing_line_break() {
        let a = Secret::from_file_contents(b"0123456789abcdef\r\n".to_vec()).unwrap();
        let b = Secret::from_file_contents(b"0123456789abcdef\n".to_vec()).unwrap();
        let c = Secret::new(*b"0123456789abcdef").unwrap();
        let layout = |s: &Secret| Keys::new(s).layout("g", 1, 75, 24);
        assert_eq!(layout(&a), layout(&c));
        assert_eq!(layout(&b), layout(&c));
        assert_eq!(
            Secret::from_file_contents(b"\n".to_vec()).unwrap_err(),
            SecretError::Empty
        );
    }

    #[test]
    fn the_secret_is_never_printed() {
        let secret = Secret::new(*b"do-not-print-me-ever").unwrap();
        assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
        assert_eq!(format!("{:?}", Keys::new(&secret)), "Keys(<redacted>)");
    }

    #[test]
    fn a_layout_draws_distinct_squares_of_the_pool() {
        let layout = keys().layout("g", 7, 75, 24);
        assert_eq!(layout.len(), 24);
        let mut sorted = layout.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 24);
        assert!(layout.iter().all(|&i| i < 75));
        // A pool exactly as large as the draws is a permutation of it.
        let mut all = keys().layout("g", 7, 24, 24).to_vec();
        all.sort_unstable();
        assert_eq!(all, (0..24).collect::<Vec<u16>>());
    }

    #[test]
    fn game_and_serial_cannot_be_confused() {
        // "g1" serial 23 and "g12" serial 3 would collide under plain concatenation.
        assert_ne!(
            keys().layout("g1", 23, 75, 24),
            keys().layout("g12", 3, 75, 24)
        );
    }

    #[test]
    fn labels_verify_in_any_case_with_or_without_dashes() {
        let k = keys();
        let label = k.label("quiz", 3);
        assert_eq!(label.len(), 19);
        assert_eq!(label.matches('-').count(), 3);
        assert!(k.label_matches("quiz", 3, &label));
        assert!(k.label_matches("quiz", 3, &label.to_uppercase()));
        assert!(k.label_matches("quiz", 3, &label.replace('-', " ")));
        assert!(!k.label_matches("quiz", 4, &label));
        assert!(!k.label_matches("quiz2", 3, &label));
        assert!(!k.label_matches("quiz", 3, &label[..18]));
        assert!(!k.label_matches("quiz", 3, "zzzz-zzzz-zzzz-zzzz"));
    }
}
