//! A flush of a store to stable storage, off the async runtime.

/// A flush of a store (a service's, or the embedded bus's) under way: it resolves when
/// everything written to it before it started is durable — on stable storage, as `fdatasync`
/// defines it: its journal synced (`journal.rs`), and, at a checkpoint, sled's flush then
/// [`super::Stable::sync`] (`stable.rs` says what sled leaves unsynced). Every commit path of
/// every store (a host's batch, a store's flush, a publication to the embedded bus, its close)
/// goes through [`Flush::spawn`].
///
/// sled 0.34's own `flush_async` runs on sled's small I/O thread pool and deadlocks when several
/// flushes are awaited at once (spacejam/sled#1241, #1308: every pool thread waits for a write
/// that needs a pool thread). Seen here with 16 concurrent `arcade send`s; so the synchronous
/// flush runs on tokio's blocking pool instead, without blocking the async runtime.
#[derive(Debug)]
pub struct Flush(tokio::task::JoinHandle<sled::Result<()>>);

impl Flush {
    /// Starts `sync` (a store's journal sync) off the async runtime.
    pub(crate) fn spawn(sync: impl FnOnce() -> std::io::Result<()> + Send + 'static) -> Self {
        Flush(tokio::task::spawn_blocking(move || Ok(sync()?)))
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
                Ok(flushed) => flushed,
                Err(e) => Err(sled::Error::ReportableBug(format!(
                    "the flush task failed: {e}"
                ))),
            })
    }
}
