//! A running service's handle: its name, its local inputs, its store and durable end, whether
//! it is subscribed, and its clean stop (finish the batch in hand, flush, ack, drain the relay).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::decider::Service;
use crate::host::{Host, HostError};
use crate::store::{Store, StoreError};

/// A running service of any type, for a process that hosts several.
#[async_trait::async_trait]
pub trait Running: Send {
    /// The service's name.
    fn name(&self) -> &str;
    /// Stops it cleanly (see [`HostHandle::stop`]).
    async fn stop_boxed(self: Box<Self>, drain: Duration) -> Result<(), HostError>;
    /// Becomes `true` once its queue is declared and bound on the bus (see
    /// [`HostHandle::subscribed`]).
    fn subscribed(&self) -> watch::Receiver<bool>;
}

#[async_trait::async_trait]
impl<S: Service> Running for HostHandle<S> {
    fn name(&self) -> &str {
        &self.name
    }

    async fn stop_boxed(self: Box<Self>, drain: Duration) -> Result<(), HostError> {
        self.stop(drain).await.map(|_| ())
    }

    fn subscribed(&self) -> watch::Receiver<bool> {
        self.subscribed.clone()
    }
}

/// A running service.
pub struct HostHandle<S: Service> {
    pub(super) name: String,
    pub(super) local: mpsc::Sender<S::Input>,
    pub(super) cancel: CancellationToken,
    pub(super) relay_stop: CancellationToken,
    pub(super) receive: JoinHandle<()>,
    pub(super) host: JoinHandle<Result<Host<S>, HostError>>,
    pub(super) relay: JoinHandle<Result<(), StoreError>>,
    pub(super) prune: JoinHandle<()>,
    pub(super) store: Arc<Store>,
    pub(super) durable: watch::Receiver<u64>,
    pub(super) subscribed: watch::Receiver<bool>,
}

impl<S: Service> std::fmt::Debug for HostHandle<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHandle")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<S: Service> HostHandle<S> {
    /// The service's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A sender of local inputs (a table's goal sensors, a timer of the shell).
    pub fn local(&self) -> mpsc::Sender<S::Input> {
        self.local.clone()
    }

    /// The service's store.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// One past the last durable (flushed) entry of the service's log, as it changes.
    pub fn durable_end(&self) -> watch::Receiver<u64> {
        self.durable.clone()
    }

    /// Becomes `true` once the service's queue is declared and bound on the bus. Events
    /// published on the topic before that reach no queue (AMQP semantics), so a process that
    /// announces itself ready waits for this first; with no broker it may never come.
    pub fn subscribed(&self) -> watch::Receiver<bool> {
        self.subscribed.clone()
    }

    /// Waits until the service's log holds `count` durable events.
    pub async fn wait_for_events(&self, count: u64) {
        let mut durable = self.durable.clone();
        let _ = durable.wait_for(|end| end.saturating_sub(1) >= count).await;
    }

    /// Stops cleanly: finishes the batch in hand, flushes, acks, lets the relay publish what it
    /// can within `drain`, and returns the host (its state).
    pub async fn stop(self, drain: Duration) -> Result<Host<S>, HostError> {
        self.cancel.cancel();
        let host = match self.host.await {
            Ok(result) => result?,
            Err(join) => {
                return Err(HostError::Task {
                    service: self.name,
                    reason: join.to_string(),
                });
            }
        };
        let _ = self.receive.await;
        let _ = self.prune.await;
        self.relay_stop.cancel();
        let mut relay = self.relay;
        match tokio::time::timeout(drain, &mut relay).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(source))) => {
                return Err(HostError::Store {
                    service: self.name,
                    source,
                });
            }
            Ok(Err(join)) => warn!(service = %self.name, %join, "relay task failed"),
            Err(_) => {
                relay.abort();
                warn!(service = %self.name, "relay could not drain in time; the rest goes out at next start");
            }
        }
        self.store
            .flush()
            .await
            .map_err(|source| HostError::Store {
                service: self.name.clone(),
                source,
            })?;
        info!(service = %self.name, "service stopped");
        Ok(host)
    }
}
