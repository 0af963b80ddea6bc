//! A flush of a sled database to stable storage, off the async runtime.

use std::sync::Arc;

use super::stable::Stable;

/// A flush of a sled database under way: it resolves when everything written to the database
/// before it started is durable — on stable storage, as `fdatasync` defines it: sled's flush,
/// then [`Stable::sync`] (`stable.rs` says what sled leaves unsynced and what is guaranteed).
/// Every commit path of every store (a host's batch, a store's flush, a publication to the
/// embedded bus, its close) goes through [`Flush::start`].
///
/// sled 0.34's own `flush_async` runs on sled's small I/O thread pool and deadlocks when several
/// flushes are awaited at once (spacejam/sled#1241, #1308: every pool thread waits for a write
/// that needs a pool thread). Seen here with 16 concurrent `arcade send`s; so the synchronous
/// flush runs on tokio's blocking pool instead, without blocking the async runtime.
#[derive(Debug)]
pub struct Flush(tokio::task::JoinHandle<sled::Result<usize>>);

impl Flush {
    /// Starts flushing `db` and syncing it to stable storage.
    pub(crate) fn start(db: &sled::Db, stable: &Arc<Stable>) -> Self {
        let db = db.clone();
        let stable = stable.clone();
        Flush(tokio::task::spawn_blocking(move || {
            let flushed = db.flush()?;
            stable.sync()?;
            Ok(flushed)
        }))
    }
}

impl std::future::Future for Flush {
    type Output = sled::Result<()>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0)
            .poll(cx)
            .map(|joined| match joined {
                Ok(flushed) => flushed.map(|_| ()),
                // Cancelled: the process stopped before the flush ran (nothing was lost that
                // had been confirmed). Neither is a bug of sled's to report.
                Err(e) if e.is_cancelled() => Err(sled::Error::Io(std::io::Error::new(
                    std::io::ErrorKind::Interrupted,
                    "the flush did not run: the process is stopping",
                ))),
                Err(e) => Err(sled::Error::Io(std::io::Error::other(format!(
                    "the flush task panicked: {e}"
                )))),
            })
    }
}
