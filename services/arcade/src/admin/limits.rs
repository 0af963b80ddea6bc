//! What a client of the admin endpoint may cost it.

use std::time::Duration;

/// What a client may cost the endpoint.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest request body, refused (413) before it is buffered: by default the payload limit
    /// every consumer enforces ([`arcade_runtime::inbound::MAX_PAYLOAD_BYTES`]), so that what
    /// would be dead-lettered is refused here instead.
    pub max_body: usize,
    /// Time a request's body may take to arrive.
    pub body_timeout: Duration,
    /// Time a stream's reader may leave a line unread before it is dropped.
    pub stream_stall: Duration,
    /// Lines a stream holds for its reader (beyond the socket's buffers).
    pub stream_buffer: usize,
    /// Bytes of lines a stream holds for its reader: with [`STREAM_PREFETCH`] deliveries of at
    /// most the broker's message size, what one reader that does not read may cost.
    pub stream_buffer_bytes: usize,
}

/// The unacked deliveries a stream's consumer may hold (a service queue's consumer takes more).
pub const STREAM_PREFETCH: u16 = 16;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: arcade_runtime::inbound::MAX_PAYLOAD_BYTES,
            body_timeout: Duration::from_secs(10),
            stream_stall: Duration::from_secs(30),
            stream_buffer: 64,
            stream_buffer_bytes: 4 * 1024 * 1024,
        }
    }
}
