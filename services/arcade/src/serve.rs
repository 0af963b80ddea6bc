//! Serving the admin endpoint and the console with bounds on what a client costs: at most
//! [`ServeLimits::max_connections`] connections (beyond, new ones wait in the listen backlog
//! until one closes, so the process never reaches its fd limit), at most the guard's
//! connections per client address (beyond, a new one is answered 429 with `Retry-After` and
//! closed: [`arcade_runtime::guard`], whose layer wraps the router), request headers within
//! [`ServeLimits::header_timeout`] (slowloris), a connection with no request in flight and no
//! traffic for [`ServeLimits::idle_timeout`] closed, and a response the client does not read
//! for [`ServeLimits::write_stall`] abandoned. Shutdown stops accepting, lets connections end
//! their requests, and drops those still open after a grace period (streams).

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use arcade_runtime::guard::{self, Clients, OverLimit, Peer};
use axum::Router;
use axum::body::Body;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

mod fds;
pub use fds::within_fd_limit;

/// How long open connections get to finish at shutdown.
const GRACE: Duration = arcade_runtime::shutdown::GRACE;

/// Over-limit connections being answered at once (the others are closed unanswered).
const REFUSING: usize = 128;

/// What connections may cost.
#[derive(Debug, Clone, Copy)]
pub struct ServeLimits {
    /// Connections served at once.
    pub max_connections: usize,
    /// Time a request's headers may take to arrive.
    pub header_timeout: Duration,
    /// Time a connection may stay open with no request in flight and no traffic.
    pub idle_timeout: Duration,
    /// Time a response may wait for the client to take its bytes.
    pub write_stall: Duration,
}

impl Default for ServeLimits {
    fn default() -> Self {
        ServeLimits {
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            write_stall: Duration::from_secs(60),
        }
    }
}

/// What the watchdog of one connection sees.
#[derive(Debug)]
struct Activity {
    start: Instant,
    /// Milliseconds since `start` of the last byte read or written.
    last: AtomicU64,
    /// Milliseconds since `start` (plus one) since a write has waited; 0 when none waits.
    blocked_since: AtomicU64,
    /// Requests whose response is not finished.
    in_flight: AtomicUsize,
}

impl Activity {
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn touch(&self) {
        self.last.store(self.now(), Ordering::Relaxed);
    }

    /// Why the connection should be closed now, if it should.
    fn expired(&self, limits: &ServeLimits) -> Option<&'static str> {
        let now = self.now();
        let blocked = self.blocked_since.load(Ordering::Relaxed);
        if blocked > 0 && now.saturating_sub(blocked - 1) > millis(limits.write_stall) {
            return Some("the client does not read its response");
        }
        let idle = now.saturating_sub(self.last.load(Ordering::Relaxed));
        if self.in_flight.load(Ordering::Relaxed) == 0 && idle > millis(limits.idle_timeout) {
            return Some("idle");
        }
        None
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A socket that records its traffic in [`Activity`].
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        poll
    }
}

impl Watched {
    fn note_write<T>(&self, poll: &Poll<T>) {
        match poll {
            Poll::Pending => {
                let _ = self.activity.blocked_since.compare_exchange(
                    0,
                    self.activity.now() + 1,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            Poll::Ready(_) => {
                self.activity.blocked_since.store(0, Ordering::Relaxed);
                self.activity.touch();
            }
        }
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.note_write(&poll);
        poll
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.note_write(&poll);
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Counts a request in flight until its response body is done (or dropped).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn new(activity: &Arc<Activity>) -> InFlight {
        activity.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// A response body that holds its request's [`InFlight`].
struct Guarded {
    body: Body,
    _in_flight: InFlight,
}

impl http_body::Body for Guarded {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Listens on `addr`; the error names `setting`, the flag or variable that gave it.
pub async fn bind(addr: SocketAddr, setting: &str) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("{setting} {addr}: cannot listen: {e}"))
}

/// Serves `router` on `listener` until `shutdown`, behind the guard of `clients`.
pub fn serve_on(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: ServeLimits,
    clients: Arc<Clients>,
    shutdown: CancellationToken,
) -> tokio::task::JoinHandle<()> {
    let router = guard::layer(router, clients.clone());
    tokio::spawn(accept_loop(listener, router, limits, clients, shutdown))
}

/// Answers a connection over its client's limit 429 with `Retry-After`, then closes it once the
/// client has sent what it sends (so that the answer is read, not reset), within a second.
async fn refuse(mut stream: TcpStream, over: OverLimit) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = serde_json::json!({ "error": over.why }).to_string();
    let answer = format!(
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        over.retry_after_secs(),
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<_, std::io::Error>(())
    })
    .await;
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: ServeLimits,
    clients: Arc<Clients>,
    shutdown: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let refusals = Arc::new(Semaphore::new(REFUSING));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = shutdown.cancelled() => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, or a connection reset before it was taken.
                    tracing::warn!(%error, "admin endpoint: cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        while connections.try_join_next().is_some() {}
        let slot = match clients.connect(peer.ip()) {
            Ok(slot) => slot,
            Err(over) => {
                // A refusal holds no slot of the served: a few answered at a time, the rest
                // closed at once.
                drop(permit);
                tracing::debug!(%peer, reason = %over.why, "connection refused");
                if let Ok(refusing) = refusals.clone().try_acquire_owned() {
                    connections.spawn(async move {
                        let _refusing = refusing;
                        refuse(stream, over).await;
                    });
                }
                continue;
            }
        };
        let router = router.clone();
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let _permit = permit;
            let _slot = slot;
            connection(stream, peer, router, limits, shutdown).await;
        });
    }
    drop(listener);
    let drained = tokio::time::timeout(GRACE, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        connections.abort_all();
    }
}

async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    limits: ServeLimits,
    shutdown: CancellationToken,
) {
    let activity = Arc::new(Activity {
        start: Instant::now(),
        last: AtomicU64::new(0),
        blocked_since: AtomicU64::new(0),
        in_flight: AtomicUsize::new(0),
    });
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let watched = activity.clone();
    let service =
        hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
            let in_flight = InFlight::new(&watched);
            request.extensions_mut().insert(Peer(peer));
            let router = router.clone();
            async move {
                let response = router.oneshot(request.map(Body::new)).await?;
                Ok::<_, std::convert::Infallible>(response.map(|body| {
                    Body::new(Guarded {
                        body,
                        _in_flight: in_flight,
                    })
                }))
            }
        });
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let conn = builder.serve_connection_with_upgrades(io, service);
    tokio::pin!(conn);
    let mut tick = tokio::time::interval(Duration::from_millis(250).min(limits.idle_timeout));
    let mut closing = false;
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, "admin connection ended");
                }
                return;
            }
            _ = tick.tick() => {
                if let Some(why) = activity.expired(&limits) {
                    tracing::debug!(reason = why, "admin connection closed");
                    return;
                }
            }
            () = shutdown.cancelled(), if !closing => {
                closing = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}
