//! The read model the pages read, and the one live-update mechanism every page shares.
//!
//! [`Live`] holds the projections as of the last durable event and a version number that moves
//! whenever an event changed one of them. A page's live stream ([`stream`]) is a server-sent
//! events response fed by the page's *feed*: one task per page (by key, [`stream_shared`])
//! renders its view (a pure function of the projections) when the version moves, at most every
//! [`LiveLimits::min_interval`], and only when the view differs from the last one builds the
//! frame's bytes once; every client of the page sends those same bytes (shared, never copied).
//! So 1,000 events a second cost a page at most one render per interval however many follow
//! it, and a client gets the latest frame, never a queue of stale ones. A client holds at most
//! [`LiveLimits::buffer`] frames; one that leaves them unread for [`LiveLimits::stall`] is
//! dropped with a log line. A feed ends with its last client; every stream ends when the
//! process stops (`stop`, the runtime's shutdown signal).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::observed::Observed;
use crate::projection::Projections;

/// The projections as of the last durable event, shared by the service and the pages.
#[derive(Debug, Clone)]
pub struct Live {
    state: Arc<RwLock<Projections>>,
    version: Arc<watch::Sender<u64>>,
    /// Set once the state rebuilt at start is in (`reset`).
    resumed: Arc<watch::Sender<bool>>,
    /// The feeds of the pages followed live, by page key.
    feeds: Arc<Mutex<HashMap<String, Feed>>>,
}

/// A page's latest frame, as its clients send it (`None` before the page showed anything).
type Feed = watch::Sender<Option<Bytes>>;

/// Time between two keep-alive comments on a live stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

impl Default for Live {
    fn default() -> Self {
        Live {
            state: Arc::new(RwLock::new(Projections::default())),
            version: Arc::new(watch::channel(0).0),
            resumed: Arc::new(watch::channel(false).0),
            feeds: Arc::default(),
        }
    }
}

impl Live {
    /// Reads the projections.
    pub fn read<T>(&self, read: impl FnOnce(&Projections) -> T) -> T {
        // `apply` cannot leave a projection half-folded in a way a reader could misread more
        // than the state before; the last state is the best answer.
        read(&self.state.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Folds a durable event (the service's `effect`).
    pub fn apply(&self, event: &Observed) {
        let changed = self
            .state
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .apply(event);
        if changed {
            self.version.send_modify(|v| *v += 1);
        }
    }

    /// Replaces the projections (the state rebuilt at start).
    pub fn reset(&self, state: Projections) {
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = state;
        self.version.send_modify(|v| *v += 1);
        self.resumed.send_replace(true);
    }

    /// Resolves once the state rebuilt at start is in: before, the projections are empty, and
    /// a page would show nothing of what the log holds.
    pub async fn resumed(&self) {
        let mut resumed = self.resumed.subscribe();
        // The sender lives as long as `self`: `wait_for` cannot fail while we hold it.
        let _ = resumed.wait_for(|done| *done).await;
    }

    /// Moves whenever a projection changed.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// Pages followed live now (their feeds).
    pub fn feeds(&self) -> usize {
        self.feeds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// The frames of page `key` (a new feed when nobody follows it yet; with no key, a feed of
    /// the caller's own).
    fn subscribe(
        &self,
        key: Option<String>,
        view: View,
        now_ms: Box<dyn Fn() -> u64 + Send>,
        limits: LiveLimits,
        stop: CancellationToken,
    ) -> watch::Receiver<Option<Bytes>> {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(feed) = key.as_ref().and_then(|k| feeds.get(k)) {
            return feed.subscribe();
        }
        let (feed, frames) = watch::channel(None);
        if let Some(key) = &key {
            feeds.insert(key.clone(), feed.clone());
        }
        tokio::spawn(run_feed(
            self.clone(),
            key,
            feed,
            view,
            now_ms,
            limits,
            stop,
        ));
        frames
    }

    /// Whether the feed of `key` has no client left; if so it is forgotten (under the lock
    /// new clients subscribe under, so none joins a feed that ends).
    fn retire(&self, key: Option<&str>, feed: &Feed) -> bool {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if feed.receiver_count() > 0 {
            return false;
        }
        if let Some(key) = key {
            feeds.remove(key);
        }
        true
    }
}

/// A page's feed: renders its view when the version moves (at most every `min_interval`) and
/// publishes the frame's bytes when the view changed, until its last client goes or `stop`.
async fn run_feed(
    live: Live,
    key: Option<String>,
    feed: Feed,
    view: View,
    now_ms: Box<dyn Fn() -> u64 + Send>,
    limits: LiveLimits,
    stop: CancellationToken,
) {
    let mut changes = live.changes();
    // The view last published; nothing is sent while the page shows nothing (`None`), as
    // before its first view; once it showed something, `None` is sent as `null`.
    let mut last: Option<String> = None;
    loop {
        changes.borrow_and_update();
        let text = live
            .read(|p| view(p))
            .map(|v| serde_json::to_string(&v).unwrap_or_else(|_| "null".into()))
            .or_else(|| last.as_ref().map(|_| "null".to_string()));
        if let Some(text) = text
            && last.as_ref() != Some(&text)
        {
            // The frame of `frame()`, written around the view's text, as an SSE `update`.
            let event = format!(
                "event: update\ndata: {{\"nowMs\":{},\"view\":{text}}}\n\n",
                now_ms()
            );
            feed.send_replace(Some(Bytes::from(event)));
            last = Some(text);
        }
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            () = stop.cancelled() => return,
            () = feed.closed() => if live.retire(key.as_deref(), &feed) { return } else { continue },
        }
        // Coalesce a burst of events into one render.
        tokio::select! {
            () = tokio::time::sleep(limits.min_interval) => {}
            () = stop.cancelled() => return,
        }
    }
}

/// What one live client may cost.
#[derive(Debug, Clone, Copy)]
pub struct LiveLimits {
    /// Frames held for a client beyond the socket's buffers.
    pub buffer: usize,
    /// Time a client may leave a frame unread before it is dropped.
    pub stall: Duration,
    /// Shortest time between two renders of one client's view.
    pub min_interval: Duration,
}

impl Default for LiveLimits {
    fn default() -> Self {
        LiveLimits {
            buffer: 4,
            stall: Duration::from_secs(30),
            min_interval: Duration::from_millis(100),
        }
    }
}

/// A page's view: its JSON from the projections, `None` when what it shows does not exist
/// (a table nobody saw).
pub type View = Arc<dyn Fn(&Projections) -> Option<Value> + Send + Sync>;

/// The frame a page receives: its view and the server's time (for clocks that tick in the
/// browser). `nowMs` is not compared: only a changed view is sent again.
pub fn frame(view: &Value, now_ms: u64) -> Value {
    json!({ "nowMs": now_ms, "view": view })
}

/// The server-sent events response of a page: an `update` event with the [`frame`] at once
/// and whenever the view changes, until the client goes, stalls, or `stop` fires.
pub fn stream(
    live: Live,
    view: View,
    now_ms: impl Fn() -> u64 + Send + 'static,
    limits: LiveLimits,
    stop: CancellationToken,
) -> Response {
    stream_shared(live, None, view, now_ms, limits, stop)
}

/// [`stream`], fed by the feed of page `key`, shared with the page's other clients (the same
/// key must always mean the same view); its frames' `nowMs` is the time they were built.
pub fn stream_shared(
    live: Live,
    key: Option<String>,
    view: View,
    now_ms: impl Fn() -> u64 + Send + 'static,
    limits: LiveLimits,
    stop: CancellationToken,
) -> Response {
    let mut frames = live.subscribe(key, view, Box::new(now_ms), limits, stop.clone());
    let (tx, rx) = mpsc::channel::<Bytes>(limits.buffer.max(1));
    tokio::spawn(async move {
        let mut pending = frames.borrow_and_update().clone();
        let start = tokio::time::Instant::now() + KEEP_ALIVE;
        let mut keep_alive = tokio::time::interval_at(start, KEEP_ALIVE);
        keep_alive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            if let Some(bytes) = pending.take() {
                tokio::select! {
                    sent = tokio::time::timeout(limits.stall, tx.send(bytes)) => match sent {
                        Ok(Ok(())) => {}
                        // The client went away.
                        Ok(Err(_)) => return,
                        Err(_) => {
                            tracing::warn!(stall = ?limits.stall, "console: a live client left its updates unread; dropped");
                            return;
                        }
                    },
                    () = stop.cancelled() => return,
                }
            }
            tokio::select! {
                // The feed ended (the process stops).
                changed = frames.changed() => match changed {
                    Ok(()) => pending = frames.borrow_and_update().clone(),
                    Err(_) => return,
                },
                () = stop.cancelled() => return,
                () = tx.closed() => return,
                _ = keep_alive.tick() => pending = Some(Bytes::from_static(b":\n\n")),
            }
        }
    });
    let events = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|bytes| (Ok::<_, std::convert::Infallible>(bytes), rx))
    });
    let mut response = Response::new(Body::from_stream(events));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed(n: u64) -> Observed {
        Observed {
            message_id: format!("m-{n}"),
            message_type: "race.turn.started.v1".into(),
            producer: "race-master".into(),
            occurred_at: String::new(),
            seen_at_ms: n,
            payload: json!({"turn": n, "atMs": n, "joining": []}),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn clients_of_one_page_share_its_feed_and_its_bytes_and_it_ends_with_them() {
        let live = Live::default();
        let view: View = Arc::new(|p: &Projections| Some(json!({ "events": p.events() })));
        let (limits, stop) = (LiveLimits::default(), CancellationToken::new());
        let follow = |key: &str| {
            live.subscribe(
                Some(key.into()),
                view.clone(),
                Box::new(|| 5),
                limits,
                stop.clone(),
            )
        };
        let (mut a, mut b) = (follow("/race"), follow("/race"));
        assert_eq!(live.feeds(), 1, "one feed for one page");
        let first = a.wait_for(Option::is_some).await.unwrap().clone().unwrap();
        let same = b.wait_for(Option::is_some).await.unwrap().clone().unwrap();
        assert_eq!(first.as_ptr(), same.as_ptr(), "the same bytes, not a copy");
        assert_eq!(
            &first[..],
            b"event: update\ndata: {\"nowMs\":5,\"view\":{\"events\":0}}\n\n"
        );
        live.apply(&observed(1));
        a.changed().await.unwrap();
        let moved = a.borrow_and_update().clone().unwrap();
        assert!(String::from_utf8_lossy(&moved).contains(r#""view":{"events":1}"#));
        let c = follow("/race/turns/1");
        assert_eq!(live.feeds(), 2, "another page, another feed");
        drop((a, b, c));
        tokio::time::timeout(Duration::from_secs(10), async {
            while live.feeds() > 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("a feed ends with its last client");
    }
}
