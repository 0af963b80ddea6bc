//! Signed producers: a producer without a broker user of its own proves itself by an HMAC over
//! its message, in the headers Symfony Messenger's signed transports write (`sign: true`,
//! Symfony 8.2), and the host verifies it with that producer's keys (`--signing-keys FILE`).
//!
//! The format, as `SigningSerializer` writes it (symfony/symfony,
//! `src/Symfony/Component/Messenger/Transport/Serialization/SigningSerializer.php` at commit
//! 24809fd98d669c4843af97fbed56b33921b17258: `encode()`, `getSigningKey()`,
//! `getSignedPayload()`):
//!
//! - `Body-Sign` is `v2:` and the lowercase hex HMAC of the signed payload;
//! - the signed payload is PHP's `serialize([body, headers])`, where `headers` are the message's
//!   `type`, `Sign-Trust` and `X-Message-Stamp-*` headers sorted by name (bytewise): other
//!   headers (`Content-Type`, what transports and brokers add) are not covered;
//! - the HMAC key is not the configured key but the lowercase hex HMAC of `v2:` under it, so that
//!   a signature stripped of its marker cannot pass for an older body-only one;
//! - `Sign-Algo` names the hash (`sha256` by default); `Sign-Trust: unverified` marks a message
//!   the producer relays without having verified it, and is covered by the signature.
//!
//! The format carries no key id: the producer's `app_id` names the keys to try, each of them in
//! turn (a current key and the previous ones while rotating). A message signed by the keys of
//! its `app_id` has the proven sender `signed:<app_id>` ([`signed_sender`]), a name no broker
//! user may take (the boundary refuses a `user_id` beginning with [`SIGNED_PREFIX`]). A
//! signature that does not verify is refused ([`SignatureError`] says what failed, never with
//! a key), as are the body-only signatures of Symfony 7.4 to 8.1 (commit
//! b5c19e048f4a7cf67f543f45ba0fc9e244517336: `Body-Sign` is the HMAC of the body alone), which
//! leave the type unverified. A message with no `Body-Sign` is unsigned: its sender is whatever
//! its transport proves, if anything.
//!
//! Keys are held only here: [`SigningKeys`]' `Debug` shows producer names and key counts, and
//! no error carries a key.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hmac::{Hmac, Mac};
use sha2::{Sha256, Sha384, Sha512};
use zeroize::Zeroizing;

use crate::wire::WireMessage;

/// Header carrying the signature.
pub const HEADER_BODY_SIGN: &str = "Body-Sign";
/// Header naming the signature's hash.
pub const HEADER_SIGN_ALGO: &str = "Sign-Algo";
/// Header marking a message signed without having been verified (covered by the signature).
pub const HEADER_SIGN_TRUST: &str = "Sign-Trust";
/// The prefix of the stamp headers a signature covers.
pub const STAMP_HEADER_PREFIX: &str = "X-Message-Stamp-";
/// The start of a signature that covers the headers too.
pub const MARKER: &str = "v2:";
/// The prefix of a signature-proven sender's name.
pub const SIGNED_PREFIX: &str = "signed:";

/// The shortest key accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 16;

/// The sender a valid signature proves: `signed:<producer>`.
pub fn signed_sender(producer: &str) -> String {
    format!("{SIGNED_PREFIX}{producer}")
}

/// A hash the HMAC is computed with (`Sign-Algo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// `sha256`, Symfony's default.
    Sha256,
    /// `sha384`.
    Sha384,
    /// `sha512`.
    Sha512,
}

impl Algorithm {
    const ALL: [Algorithm; 3] = [Algorithm::Sha256, Algorithm::Sha384, Algorithm::Sha512];

    /// Its name in `Sign-Algo`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha384 => "sha384",
            Algorithm::Sha512 => "sha512",
        }
    }

    /// The algorithm `Sign-Algo` names, if Arcade verifies it.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }

    fn index(self) -> usize {
        self as usize
    }

    fn tag_len(self) -> usize {
        match self {
            Algorithm::Sha256 => 32,
            Algorithm::Sha384 => 48,
            Algorithm::Sha512 => 64,
        }
    }

    fn tag(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        fn run<M: Mac + hmac::digest::KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
            let mut mac = <M as hmac::digest::KeyInit>::new_from_slice(key)
                .expect("HMAC takes a key of any length");
            mac.update(data);
            mac.finalize().into_bytes().to_vec()
        }
        match self {
            Algorithm::Sha256 => run::<Hmac<Sha256>>(key, data),
            Algorithm::Sha384 => run::<Hmac<Sha384>>(key, data),
            Algorithm::Sha512 => run::<Hmac<Sha512>>(key, data),
        }
    }

    /// Whether `tag` is the HMAC of `data` under `key`, compared in constant time.
    fn verifies(self, key: &[u8], data: &[u8], tag: &[u8]) -> bool {
        fn run<M: Mac + hmac::digest::KeyInit>(key: &[u8], data: &[u8], tag: &[u8]) -> bool {
            let mut mac = <M as hmac::digest::KeyInit>::new_from_slice(key)
                .expect("HMAC takes a key of any length");
            mac.update(data);
            mac.verify_slice(tag).is_ok()
        }
        match self {
            Algorithm::Sha256 => run::<Hmac<Sha256>>(key, data, tag),
            Algorithm::Sha384 => run::<Hmac<Sha384>>(key, data, tag),
            Algorithm::Sha512 => run::<Hmac<Sha512>>(key, data, tag),
        }
    }

    /// The key a `v2:` signature is computed with: the lowercase hex HMAC of the marker under
    /// the configured key (what PHP's `hash_hmac` returns), as bytes.
    fn derived_key(self, key: &[u8]) -> Zeroizing<Vec<u8>> {
        let tag = Zeroizing::new(self.tag(key, MARKER.as_bytes()));
        Zeroizing::new(hex::encode(tag.as_slice()).into_bytes())
    }
}

/// One key of a producer, kept as the keys a signature is computed with (one per
/// [`Algorithm`]), wiped when dropped.
#[derive(Clone, PartialEq, Eq)]
struct Key {
    derived: [Zeroizing<Vec<u8>>; 3],
}

impl Key {
    fn new(secret: &[u8]) -> Key {
        Key {
            derived: Algorithm::ALL.map(|a| a.derived_key(secret)),
        }
    }

    fn derived(&self, algorithm: Algorithm) -> &[u8] {
        &self.derived[algorithm.index()]
    }
}

/// The keys of the signed producers, by producer name (`--signing-keys`). Cheap to clone.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SigningKeys {
    producers: Arc<BTreeMap<String, Vec<Key>>>,
}

/// Shows the producers and how many keys each has, never a key.
impl fmt::Debug for SigningKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.producers
                    .iter()
                    .map(|(name, keys)| (name, format!("{} key(s)", keys.len()))),
            )
            .finish()
    }
}

/// A keys file that cannot be used: what and where, never a key.
#[derive(Debug, thiserror::Error)]
pub enum KeysError {
    /// The file cannot be read.
    #[error("cannot read the signing keys file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a valid keys file.
    #[error("signing keys file {}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where in the file.
        reason: String,
    },
}

impl SigningKeys {
    /// Reads a keys file: a JSON object `{"producers": {"<name>": ["<key>", …]}}`, each
    /// producer with one key or more (the current one and those still accepted while rotating).
    pub fn load(path: &Path) -> Result<SigningKeys, KeysError> {
        let text =
            Zeroizing::new(
                std::fs::read_to_string(path).map_err(|source| KeysError::Read {
                    path: path.to_path_buf(),
                    source,
                })?,
            );
        SigningKeys::parse(&text).map_err(|reason| KeysError::Invalid {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// Parses the text of a keys file ([`SigningKeys::load`]); the error says what is wrong
    /// and where, quoting no key.
    pub fn parse(text: &str) -> Result<SigningKeys, String> {
        // Parsed as a plain value first: serde's type errors quote the value they met.
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            format!(
                "not JSON ({:?} error at line {}, column {})",
                e.classify(),
                e.line(),
                e.column()
            )
        })?;
        let serde_json::Value::Object(mut top) = value else {
            return Err("not a JSON object: {\"producers\": {\"NAME\": [\"KEY\", …]}}".into());
        };
        let producers = top
            .remove("producers")
            .ok_or("no \"producers\" object: {\"producers\": {\"NAME\": [\"KEY\", …]}}")?;
        if !top.is_empty() {
            return Err(format!(
                "{} field(s) besides \"producers\": only \"producers\" is read",
                top.len()
            ));
        }
        let serde_json::Value::Object(producers) = producers else {
            return Err("\"producers\" is not an object of producer names".into());
        };
        if producers.is_empty() {
            return Err("\"producers\" names no producer".into());
        }
        let mut all = BTreeMap::new();
        for (name, keys) in producers {
            check_producer_name(&name)?;
            let serde_json::Value::Array(keys) = keys else {
                return Err(format!(
                    "producer {name:?}: not a list of keys (one key or more, as strings)"
                ));
            };
            if keys.is_empty() {
                return Err(format!("producer {name:?}: no key"));
            }
            let mut parsed = Vec::with_capacity(keys.len());
            for (i, key) in keys.into_iter().enumerate() {
                let serde_json::Value::String(key) = key else {
                    return Err(format!("producer {name:?}: key {} is not a string", i + 1));
                };
                let key = Zeroizing::new(key);
                if key.len() < MIN_KEY_BYTES {
                    return Err(format!(
                        "producer {name:?}: key {} is shorter than {MIN_KEY_BYTES} bytes",
                        i + 1
                    ));
                }
                parsed.push(Key::new(key.as_bytes()));
            }
            all.insert(name, parsed);
        }
        Ok(SigningKeys {
            producers: Arc::new(all),
        })
    }

    /// Keys of these producers, given as text (for tests and tools; a deployment reads a file).
    pub fn from_keys<'a>(
        producers: impl IntoIterator<Item = (&'a str, Vec<&'a str>)>,
    ) -> Result<SigningKeys, String> {
        let object: serde_json::Map<String, serde_json::Value> = producers
            .into_iter()
            .map(|(name, keys)| (name.to_string(), serde_json::json!(keys)))
            .collect();
        let text = Zeroizing::new(serde_json::json!({ "producers": object }).to_string());
        SigningKeys::parse(&text)
    }

    /// Whether no producer has keys.
    pub fn is_empty(&self) -> bool {
        self.producers.is_empty()
    }

    /// The producers that have keys.
    pub fn producers(&self) -> impl Iterator<Item = &str> {
        self.producers.keys().map(String::as_str)
    }

    /// Verifies a message's signature: `Ok(None)` when it carries none (no `Body-Sign`),
    /// `Ok(Some(producer))` when one of its producer's keys signed it, else why not.
    pub fn verify(&self, message: &WireMessage) -> Result<Option<String>, SignatureError> {
        let Some(signature) = message.headers.get(HEADER_BODY_SIGN) else {
            return Ok(None);
        };
        let producer = message
            .app_id
            .as_deref()
            .filter(|p| !p.is_empty())
            .ok_or(SignatureError::NoProducer)?;
        let keys = self
            .producers
            .get(producer)
            .ok_or_else(|| SignatureError::UnknownProducer(shown(producer)))?;
        let algorithm = match message.headers.get(HEADER_SIGN_ALGO) {
            None => Algorithm::Sha256,
            Some(name) => Algorithm::from_name(name)
                .ok_or_else(|| SignatureError::UnknownAlgorithm(shown(name)))?,
        };
        let hex_tag = signature
            .strip_prefix(MARKER)
            .ok_or(SignatureError::BodyOnly)?;
        let tag = lowercase_hex(hex_tag, algorithm.tag_len())
            .ok_or(SignatureError::Malformed(algorithm.name()))?;
        let payload = signed_payload(message);
        if !keys
            .iter()
            .any(|key| algorithm.verifies(key.derived(algorithm), &payload, &tag))
        {
            return Err(SignatureError::Mismatch(shown(producer)));
        }
        if message.headers.contains_key(HEADER_SIGN_TRUST) {
            return Err(SignatureError::Unverified(shown(producer)));
        }
        Ok(Some(producer.to_string()))
    }
}

/// Signs `message` as a Symfony producer with `key` would (the tests' producer, and a reference
/// for other languages): sets `Sign-Algo` and `Body-Sign`.
pub fn sign(message: &mut WireMessage, key: &[u8], algorithm: Algorithm) {
    message.headers.remove(HEADER_BODY_SIGN);
    let derived = algorithm.derived_key(key);
    let tag = algorithm.tag(&derived, &signed_payload(message));
    message.headers.insert(
        HEADER_BODY_SIGN.to_string(),
        format!("{MARKER}{}", hex::encode(tag)),
    );
    message
        .headers
        .insert(HEADER_SIGN_ALGO.to_string(), algorithm.name().to_string());
}

/// What a signature covers: PHP's `serialize([body, headers])` of the body and the headers
/// `type` (the message type Arcade reads, so the type it acts on is the one signed),
/// `Sign-Trust` and `X-Message-Stamp-*`, sorted by name bytewise (PHP's `ksort(SORT_STRING)`).
pub fn signed_payload(message: &WireMessage) -> Vec<u8> {
    let mut covered: Vec<(&str, &str)> = message
        .headers
        .iter()
        .filter(|(name, _)| {
            name.as_str() == HEADER_SIGN_TRUST || name.starts_with(STAMP_HEADER_PREFIX)
        })
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    if let Some(message_type) = &message.message_type {
        covered.push(("type", message_type));
    }
    covered.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out = Vec::with_capacity(message.body.len() + 64);
    out.extend_from_slice(b"a:2:{i:0;");
    php_string(&mut out, &message.body);
    out.extend_from_slice(format!("i:1;a:{}:{{", covered.len()).as_bytes());
    for (name, value) in covered {
        php_string(&mut out, name.as_bytes());
        php_string(&mut out, value.as_bytes());
    }
    out.extend_from_slice(b"}}");
    out
}

/// PHP's `serialize()` of a string: `s:<length in bytes>:"<bytes>";`.
fn php_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(format!("s:{}:\"", bytes.len()).as_bytes());
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\";");
}

/// The bytes of `len` bytes written as lowercase hex (as PHP's `hash_hmac` writes them).
fn lowercase_hex(text: &str, len: usize) -> Option<Vec<u8>> {
    let well_formed = text.len() == len * 2
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    well_formed.then(|| hex::decode(text).ok()).flatten()
}

/// A name from a message, as an error shows it: quoted, escaped, at most 64 characters.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(64).collect();
    if cut.len() < text.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

fn check_producer_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a producer with an empty name".into());
    }
    if name.len() > 255 {
        return Err(format!(
            "producer {}: longer than 255 bytes (an AMQP app_id)",
            shown(name)
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(format!(
            "producer {}: holds a control character",
            shown(name)
        ));
    }
    Ok(())
}

/// Why a signed message is refused; never shows a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// Signed, but no `app_id` names the producer whose keys would verify it.
    #[error("signed (Body-Sign) without an app_id naming the producer whose keys verify it")]
    NoProducer,
    /// Signed as a producer that has no keys here.
    #[error("signed as producer {0}, which has no signing keys here (--signing-keys)")]
    UnknownProducer(String),
    /// `Sign-Algo` names a hash Arcade does not verify.
    #[error("Sign-Algo {0} is not an algorithm Arcade verifies (sha256, sha384, sha512)")]
    UnknownAlgorithm(String),
    /// A body-only signature (no `v2:` marker): the type and stamps are not covered.
    #[error(
        "the signature covers the body only (no \"v2:\" marker, as before Symfony 8.2), not the type: the producer must sign its headers too"
    )]
    BodyOnly,
    /// `Body-Sign` is not the marker and the hex HMAC.
    #[error("Body-Sign is not \"v2:\" and the lowercase hex {0} HMAC")]
    Malformed(&'static str),
    /// No key of the producer gives this signature.
    #[error(
        "no signing key of producer {0} verifies it: its body or a signed header (type, X-Message-Stamp-*, Sign-Trust) changed, or the key that signed it is not listed"
    )]
    Mismatch(String),
    /// A valid signature on a message its producer relays unverified.
    #[error(
        "signed as unverified (Sign-Trust): producer {0} relays a message it did not verify itself"
    )]
    Unverified(String),
}

impl SignatureError {
    /// A short name of what failed (`mismatch`, `unknown-producer`, …), as test vectors name it.
    pub fn kind(&self) -> &'static str {
        match self {
            SignatureError::NoProducer => "no-producer",
            SignatureError::UnknownProducer(_) => "unknown-producer",
            SignatureError::UnknownAlgorithm(_) => "unknown-algorithm",
            SignatureError::BodyOnly => "body-only",
            SignatureError::Malformed(_) => "malformed",
            SignatureError::Mismatch(_) => "mismatch",
            SignatureError::Unverified(_) => "unverified",
        }
    }

    /// The dead-letter reason: [`crate::dead_letter::BAD_SIGNATURE`] and what failed.
    pub fn reason(&self) -> String {
        format!("{}: {self}", crate::dead_letter::BAD_SIGNATURE)
    }
}

/// The value of `--signing-keys FILE`: the keys it holds (read when the flags are parsed, so a
/// bad file stops the process at once, its error naming the flag and what is wrong).
pub fn parse_keys_file(path: &str) -> Result<SigningKeys, String> {
    SigningKeys::load(Path::new(path)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CURRENT: &str = "shop-2026-12-current-3f9a1c7e5b2d4086";
    const PREVIOUS: &str = "shop-2026-06-previous-8c41e2a97d035b16";

    fn message(body: &str) -> WireMessage {
        WireMessage {
            message_type: Some("test.item.emitted.v1".into()),
            app_id: Some("shop".into()),
            body: body.as_bytes().to_vec(),
            ..WireMessage::default()
        }
    }

    fn keys(list: Vec<&str>) -> SigningKeys {
        SigningKeys::from_keys([("shop", list)]).unwrap()
    }

    #[test]
    fn the_payload_is_phps_serialize_of_the_body_and_the_covered_headers() {
        let mut m = message(r#"{"producer":"shöp","n":3}"#);
        m.headers
            .insert("X-Message-Stamp-B".into(), r#"[{"busName":"b"}]"#.into());
        m.headers.insert("Sign-Trust".into(), "unverified".into());
        m.headers.insert("Content-Type".into(), "x".into());
        m.headers.insert("x-death".into(), "y".into());
        // Bytewise: upper case before lower case.
        let expected = concat!(
            r#"a:2:{i:0;s:26:"{"producer":"shöp","n":3}";i:1;a:3:{"#,
            r#"s:10:"Sign-Trust";s:10:"unverified";"#,
            r#"s:17:"X-Message-Stamp-B";s:17:"[{"busName":"b"}]";"#,
            r#"s:4:"type";s:20:"test.item.emitted.v1";}}"#
        );
        assert_eq!(String::from_utf8(signed_payload(&m)).unwrap(), expected);
    }

    #[test]
    fn a_signature_verifies_under_any_listed_key_and_no_other() {
        let mut m = message(r#"{"producer":"shop","n":1}"#);
        sign(&mut m, PREVIOUS.as_bytes(), Algorithm::Sha256);
        assert!(m.headers[HEADER_BODY_SIGN].starts_with("v2:"));
        assert_eq!(
            keys(vec![CURRENT, PREVIOUS]).verify(&m),
            Ok(Some("shop".into()))
        );
        let removed = keys(vec![CURRENT]).verify(&m).unwrap_err();
        assert_eq!(removed.kind(), "mismatch");
        assert!(m.app_id.take().is_some());
        assert_eq!(
            keys(vec![CURRENT, PREVIOUS]).verify(&m),
            Err(SignatureError::NoProducer)
        );
        assert_eq!(keys(vec![CURRENT]).verify(&message("{}")), Ok(None));
    }

    #[test]
    fn every_algorithm_and_malformed_signatures() {
        for algorithm in Algorithm::ALL {
            let mut m = message("{}");
            sign(&mut m, CURRENT.as_bytes(), algorithm);
            assert_eq!(m.headers[HEADER_SIGN_ALGO], algorithm.name());
            assert_eq!(keys(vec![CURRENT]).verify(&m), Ok(Some("shop".into())));
            let upper = m.headers[HEADER_BODY_SIGN]
                .to_uppercase()
                .replace("V2:", "v2:");
            m.headers.insert(HEADER_BODY_SIGN.into(), upper);
            assert_eq!(
                keys(vec![CURRENT]).verify(&m).unwrap_err().kind(),
                "malformed"
            );
        }
    }

    #[test]
    fn no_key_shows_in_debug_or_errors() {
        let keys = keys(vec![CURRENT, PREVIOUS]);
        let debug = format!("{keys:?}");
        assert_eq!(debug, r#"{"shop": "2 key(s)"}"#);
        for bad in [
            format!(r#"{{"producers": {{"shop": ["{CURRENT}", 5]}}}}"#),
            format!(r#"{{"producers": {{"shop": "{CURRENT}"}}}}"#),
            format!(r#"{{"producers": ["{CURRENT}"]}}"#),
            format!(r#"{{"producers": {{"shop": ["{CURRENT}"]}}, "{CURRENT}": 1}}"#),
            format!(r#"{{"producers": {{"shop": ["{CURRENT}"]"#),
            format!(r#"{{"producers": {{"shop": ["{CURRENT}", "short"]}}}}"#),
            format!(r#""{CURRENT}""#),
        ] {
            let error = SigningKeys::parse(&bad).unwrap_err();
            assert!(!error.contains("shop-2026"), "{error}");
            assert!(!error.contains("short\""), "{error}");
        }
        assert!(
            SigningKeys::parse(r#"{"producers": {"shop": ["0123456789abcdef", "short"]}}"#)
                .unwrap_err()
                .contains("key 2 is shorter than 16 bytes")
        );
        assert!(
            SigningKeys::parse(r#"{"producers": {"": ["0123456789abcdef"]}}"#)
                .unwrap_err()
                .contains("empty name")
        );
        assert!(
            SigningKeys::parse(r#"{"producers": {}}"#)
                .unwrap_err()
                .contains("no producer")
        );
    }

    #[test]
    fn a_file_error_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        let error = parse_keys_file(path.to_str().unwrap()).unwrap_err();
        assert!(error.contains("keys.json"), "{error}");
        std::fs::write(
            &path,
            format!(r#"{{"producers": {{"shop": "{CURRENT}"}}}}"#),
        )
        .unwrap();
        let error = parse_keys_file(path.to_str().unwrap()).unwrap_err();
        assert!(
            error.contains("keys.json") && error.contains("\"shop\""),
            "{error}"
        );
        assert!(!error.contains(CURRENT), "{error}");
    }

    #[test]
    fn names_from_messages_are_escaped_and_cut() {
        let mut m = message("{}");
        sign(&mut m, CURRENT.as_bytes(), Algorithm::Sha256);
        m.headers
            .insert(HEADER_SIGN_ALGO.into(), format!("md5\n{}", "x".repeat(100)));
        let error = keys(vec![CURRENT]).verify(&m).unwrap_err().to_string();
        assert!(
            error.contains(r#""md5\nxxx"#) && error.contains('…'),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
    }
}
