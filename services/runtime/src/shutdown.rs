//! Shutdown that always finishes: one signal ([`Runtime::stopping`](crate::Runtime::stopping))
//! every long-running task of a process listens to — the hosts' consumers, the admin
//! endpoint's streams (`/stream`, a race team's stream), any long-poll — and the pieces a
//! process needs to stop within a bound whatever its clients do:
//!
//! - [`signal`]: resolves on SIGTERM or Ctrl-C;
//! - [`GRACE`]: how long an HTTP server (`crate::http::serve`) finishes the requests in hand
//!   once told to stop before it drops its connections (a client that keeps a request
//!   half-sent cannot hold the process);
//! - [`DRAIN`]: how long a stopping relay publishes what its log still holds.
//!
//! The order a process stops in: [`Runtime::begin_shutdown`](crate::Runtime::begin_shutdown)
//! (streams end, hosts stop consuming and finish the batch in hand), the servers' own tokens,
//! then each service's `stop` (flush, ack, a bounded relay drain), then the servers' tasks
//! (each done within [`GRACE`]), then the bus. Nothing waits on a client.

use std::future::Future;
use std::time::Duration;

/// How long an HTTP server gets, once told to stop, to finish the requests in hand.
pub const GRACE: Duration = Duration::from_millis(500);

/// How long a stopping service's relay gets to publish what its log still holds (the rest is
/// durable and goes out at the next start): short enough that a process stops within 2 s.
pub const DRAIN: Duration = Duration::from_secs(1);

/// Resolves on SIGTERM or Ctrl-C (SIGINT); on other platforms on Ctrl-C. The handlers are
/// installed when this is called, not when it is first polled: call it at start, so that a
/// signal that comes while the process is still starting is not lost (nor kills it outright).
pub fn signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate());
        let interrupt = signal(SignalKind::interrupt());
        async move {
            match (term, interrupt) {
                (Ok(mut term), Ok(mut interrupt)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = interrupt.recv() => {}
                    }
                }
                (term, interrupt) => {
                    if let Some(error) = term.err().or(interrupt.err()) {
                        tracing::warn!(%error, "cannot listen for SIGTERM/SIGINT; falling back to Ctrl-C");
                    }
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
