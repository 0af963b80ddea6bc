//! What the host holds of a service's snapshot format, apart from the service: the codec as
//! values ([`Codec`], built by `Codec::of` in `snapshot.rs`) and why a snapshot cannot be used
//! ([`SnapshotError`]). Both [`crate::decider`] and [`crate::snapshot`] use it.

/// Why a snapshot could not be used. The host then falls back to an older snapshot or to the
/// whole log: a snapshot is never a reason to stop, nor to start with a wrong state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// The frame's checksum, magic or lengths do not hold: the bytes were damaged.
    #[error("snapshot at log entry {seq} is damaged: {reason}")]
    Damaged {
        /// The entry it covers (its key).
        seq: u64,
        /// What is wrong.
        reason: String,
    },
    /// Written by a format this build does not read (a newer, or a retired, version).
    #[error(
        "snapshot at log entry {seq} has format version {found}; this build reads version {expected}"
    )]
    UnknownVersion {
        /// The entry it covers.
        seq: u64,
        /// The version in the snapshot.
        found: u32,
        /// The version the service's codec reads.
        expected: u32,
    },
    /// It claims to cover entries beyond the end of the log.
    #[error("snapshot at log entry {seq} is ahead of the log, which ends at {end}")]
    AheadOfLog {
        /// The entry it covers.
        seq: u64,
        /// One past the log's last entry.
        end: u64,
    },
    /// It was folded under other settings than the service's ([`Codec::fitting`]).
    #[error("snapshot at log entry {seq} was taken under other settings: {reason}")]
    OtherSettings {
        /// The entry it covers.
        seq: u64,
        /// Which setting differs.
        reason: String,
    },
    /// The service's codec refused the payload (its checksum held).
    #[error("snapshot payload: {0}")]
    Payload(String),
}

/// A service's snapshot codec as values, for the host (see [`crate::Service::snapshots`]).
pub struct Codec<St> {
    /// [`crate::Snapshot::VERSION`].
    pub version: u32,
    /// [`crate::Snapshot::encode`].
    pub encode: fn(&St) -> Vec<u8>,
    /// [`crate::Snapshot::decode`].
    pub decode: fn(&[u8]) -> Result<St, SnapshotError>,
    /// [`crate::Snapshot::decode_older`].
    pub decode_older: DecodeOlder<St>,
    /// Whether a restored state fits the service's settings (`None`: any state does).
    pub fits: Option<Fits<St>>,
}

/// Reads a snapshot of an older format version, `None` for one it does not read
/// ([`crate::Snapshot::decode_older`]).
pub type DecodeOlder<St> = fn(u32, &[u8]) -> Option<Result<St, SnapshotError>>;

/// Whether a restored state fits a service's settings: `Err(why)` when it does not.
pub type Fits<St> = std::sync::Arc<dyn Fn(&St) -> Result<(), String> + Send + Sync>;

impl<St> Codec<St> {
    /// The state of the snapshot at `seq`, whose payload `bytes` has format `version`: this
    /// codec's own, or an older one it still reads; any other is [`SnapshotError::UnknownVersion`].
    pub fn read(&self, seq: u64, version: u32, bytes: &[u8]) -> Result<St, SnapshotError> {
        if version == self.version {
            return (self.decode)(bytes);
        }
        (self.decode_older)(version, bytes).unwrap_or(Err(SnapshotError::UnknownVersion {
            seq,
            found: version,
            expected: self.version,
        }))
    }

    /// Whether `state`, restored from the snapshot at `seq`, fits the service's settings.
    pub fn check_fits(&self, seq: u64, state: &St) -> Result<(), SnapshotError> {
        match &self.fits {
            Some(fits) => {
                fits(state).map_err(|reason| SnapshotError::OtherSettings { seq, reason })
            }
            None => Ok(()),
        }
    }
}

impl<St> Clone for Codec<St> {
    fn clone(&self) -> Self {
        Codec {
            version: self.version,
            encode: self.encode,
            decode: self.decode,
            decode_older: self.decode_older,
            fits: self.fits.clone(),
        }
    }
}

impl<St> std::fmt::Debug for Codec<St> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Codec")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}
