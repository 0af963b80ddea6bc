//! The read model the pages read, and the one live-update mechanism every page shares.
//!
//! [`Live`] holds the projections as of the last durable event and a version number that moves
//! whenever an event changed one of them. A page's live stream ([`stream`]) is a server-sent
//! events response: one task per client renders the page's view (a pure function of the
//! projections) when the version moves, and sends it only if it differs from the last one sent.
//! Views are coalesced (a client gets the latest view, never a queue of stale ones) and rendered
//! at most every [`LiveLimits::min_interval`], so 1,000 events a second cost each client at most
//! that many renders. Clients of the same page share its render ([`stream_shared`], keyed by the
//! page): one view built and serialized per page and version, however many follow it. A client holds at most [`LiveLimits::buffer`] frames; one that leaves them
//! unread for [`LiveLimits::stall`] is dropped with a log line. Every stream ends when the
//! process stops (`stop`, the runtime's shutdown signal).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
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
    /// The latest render of each page followed live, by page key.
    renders: Arc<Mutex<HashMap<String, Rendered>>>,
}

/// A page's view serialized, as of a version (`None`: the page shows nothing).
#[derive(Debug, Clone)]
struct Rendered {
    version: u64,
    text: Option<Arc<str>>,
}

/// Pages whose render is kept for the next client (beyond this, older renders are dropped).
pub const MAX_RENDERS: usize = 1_024;

impl Default for Live {
    fn default() -> Self {
        Live {
            state: Arc::new(RwLock::new(Projections::default())),
            version: Arc::new(watch::channel(0).0),
            resumed: Arc::new(watch::channel(false).0),
            renders: Arc::default(),
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

    /// The view serialized as JSON; with a page `key`, the render of the current version is
    /// shared by every client of that page. The version is read before the projections, so a
    /// render is never older than the version it is kept under.
    pub fn render(&self, key: Option<&str>, view: &View) -> Option<Arc<str>> {
        let version = *self.version.borrow();
        let renders = || self.renders.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(key) = key
            && let Some(kept) = renders().get(key)
            && kept.version == version
        {
            return kept.text.clone();
        }
        let text = self
            .read(|p| view(p))
            .map(|v| Arc::from(serde_json::to_string(&v).unwrap_or_else(|_| "null".into())));
        if let Some(key) = key {
            let mut renders = renders();
            if renders.len() >= MAX_RENDERS && !renders.contains_key(key) {
                renders.retain(|_, r| r.version == version);
                if renders.len() >= MAX_RENDERS {
                    renders.clear();
                }
            }
            let newer = renders.get(key).is_some_and(|r| r.version > version);
            if !newer {
                renders.insert(
                    key.to_string(),
                    Rendered {
                        version,
                        text: text.clone(),
                    },
                );
            }
        }
        text
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
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    stream_shared(live, None, view, now_ms, limits, stop)
}

/// [`stream`], sharing each render with the other clients of the page `key` (the same key must
/// always mean the same view).
pub fn stream_shared(
    live: Live,
    key: Option<String>,
    view: View,
    now_ms: impl Fn() -> u64 + Send + 'static,
    limits: LiveLimits,
    stop: CancellationToken,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let (tx, rx) = mpsc::channel::<Event>(limits.buffer.max(1));
    tokio::spawn(async move {
        let mut changes = live.changes();
        // Nothing is sent while the page shows nothing (`None`), as before its first view.
        let mut last: Option<Option<Arc<str>>> = Some(None);
        loop {
            changes.borrow_and_update();
            let text = live.render(key.as_deref(), &view);
            if last.as_ref() != Some(&text) {
                // The frame of `frame()`, written around the shared text.
                let data = format!(
                    "{{\"nowMs\":{},\"view\":{}}}",
                    now_ms(),
                    text.as_deref().unwrap_or("null")
                );
                let event = Event::default().event("update").data(data);
                tokio::select! {
                    sent = tokio::time::timeout(limits.stall, tx.send(event)) => match sent {
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
                last = Some(text);
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { return },
                () = stop.cancelled() => return,
                () = tx.closed() => return,
            }
            // Coalesce a burst of events into one render.
            tokio::select! {
                () = tokio::time::sleep(limits.min_interval) => {}
                () = stop.cancelled() => return,
            }
        }
    });
    let events = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|event| (Ok(event), rx))
    });
    Sse::new(events).keep_alive(KeepAlive::default())
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

    #[test]
    fn clients_of_one_page_share_its_render_until_the_version_moves() {
        let live = Live::default();
        let view: View = Arc::new(|p: &Projections| Some(json!({ "events": p.events() })));
        let first = live.render(Some("/race"), &view).unwrap();
        let again = live.render(Some("/race"), &view).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the same version: one render");
        assert!(
            !Arc::ptr_eq(&first, &live.render(None, &view).unwrap()),
            "no key: a render of its own"
        );
        live.apply(&observed(1));
        let moved = live.render(Some("/race"), &view).unwrap();
        assert_eq!(&*moved, r#"{"events":1}"#);
        assert_eq!(&*first, r#"{"events":0}"#);
        // Many pages: the kept renders stay bounded.
        for n in 0..(MAX_RENDERS + 10) {
            live.render(Some(&format!("/race/duels/{n}")), &view);
        }
        assert!(live.renders.lock().unwrap().len() <= MAX_RENDERS);
    }
}
