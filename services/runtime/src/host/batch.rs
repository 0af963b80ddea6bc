//! The host's batch pipeline: `run` gathers inputs into a batch, commits the whole batch as one
//! atomic group, and while its flush is under way decides the next one; once a batch is durable
//! the relay is told, the effects run and its inputs are acked.

use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::debug;

use super::{Host, HostError};
use crate::bus::{Acker, Delivery};
use crate::decider::Service;
use crate::store::{Flush, Pending, Store};

/// The inputs handled since the last flush: what to ack, what to commit, what to act on.
pub(super) struct Batch<E> {
    pub(super) acks: Vec<Box<dyn Acker>>,
    /// When each delivery came (when the handle latency is measured).
    pub(super) received: Vec<Instant>,
    pub(super) inputs: usize,
    pub(super) events: Vec<E>,
    pub(super) pending: Pending,
}

/// A committed batch whose flush is under way.
struct Flushing<E> {
    flush: Flush,
    then: Durable<E>,
}

/// What to do once a batch is durable.
struct Durable<E> {
    /// One past its last event.
    end: u64,
    acks: Vec<Box<dyn Acker>>,
    received: Vec<Instant>,
    events: Vec<E>,
}

impl<E> Batch<E> {
    fn new(store: &Store) -> Self {
        Batch {
            acks: Vec::new(),
            received: Vec::new(),
            inputs: 0,
            events: Vec::new(),
            pending: store.pending(),
        }
    }
}

impl<S: Service> Host<S> {
    /// Handles inputs until `cancel`: deliveries from the bus, local inputs, timers. Returns the
    /// host after its last batch is flushed and acked.
    pub async fn run(
        mut self,
        mut deliveries: mpsc::Receiver<Delivery>,
        mut local: mpsc::Receiver<S::Input>,
        cancel: CancellationToken,
    ) -> Result<Self, HostError> {
        self.service.resume(&self.state);
        let mut flushing: Option<Flushing<S::Event>> = None;
        let mut local_open = true;
        let mut deliveries_open = true;
        loop {
            let deadline = self
                .service
                .next_deadline(&self.state)
                .filter(|d| Some(*d) != self.last_fired);
            let wake = deadline.map(|d| self.clock.instant_at(d));
            let mut batch = Batch::new(&self.store);
            tokio::select! {
                biased;
                () = cancel.cancelled() => break,
                flushed = wait(&mut flushing), if flushing.is_some() => {
                    let done = flushing.take().expect("a flush under way");
                    self.durable(done.then, flushed).await?;
                    continue;
                }
                delivery = deliveries.recv(), if deliveries_open => match delivery {
                    Some(delivery) => self.on_delivery(delivery, &mut batch).await?,
                    None => deliveries_open = false,
                },
                input = local.recv(), if local_open => match input {
                    Some(input) => self.on_local(input, &mut batch),
                    None => local_open = false,
                },
                () = sleep_until(wake), if wake.is_some() => {
                    self.last_fired = deadline;
                    let now = self.clock.now_ms();
                    if let Some(input) = self.service.tick(now) {
                        self.on_local(input, &mut batch);
                    }
                }
            }
            while batch.inputs < self.config.batch {
                if let Ok(delivery) = deliveries.try_recv() {
                    self.on_delivery(delivery, &mut batch).await?;
                } else if let Ok(input) = local.try_recv() {
                    self.on_local(input, &mut batch);
                } else {
                    break;
                }
            }
            // This batch was decided while the previous one was being flushed; commit it, let
            // the previous flush end (its inputs are acked), then flush this one.
            let wrote = !batch.pending.is_empty();
            if batch.inputs > 0 {
                let inputs = batch.inputs as f64;
                self.counters.histograms.batch_size.observe(inputs);
            }
            self.commit(batch.pending)?;
            if wrote {
                self.maybe_snapshot();
            }
            if let Some(previous) = flushing.take() {
                self.finish_flush(previous).await?;
            }
            if wrote || !batch.acks.is_empty() {
                flushing = Some(Flushing {
                    flush: self.store.start_flush(),
                    then: Durable {
                        end: self.store.end(),
                        acks: batch.acks,
                        received: batch.received,
                        events: batch.events,
                    },
                });
            }
            if !deliveries_open && !local_open && deadline.is_none() {
                break;
            }
        }
        if let Some(last) = flushing.take() {
            self.finish_flush(last).await?;
        }
        self.store.flush().await.map_err(|e| self.store_error(e))?;
        self.snapshot_on_stop().await;
        Ok(self)
    }

    /// Waits for a batch's flush, then [`Host::durable`].
    async fn finish_flush(&mut self, flushing: Flushing<S::Event>) -> Result<(), HostError> {
        let flushed = flushing.flush.await;
        self.durable(flushing.then, flushed).await
    }

    /// A batch's flush ended: announce the durable end to the relay, act on the events, ack
    /// the inputs.
    async fn durable(
        &mut self,
        batch: Durable<S::Event>,
        flushed: sled::Result<()>,
    ) -> Result<(), HostError> {
        flushed.map_err(|e| self.store_error(e.into()))?;
        self.durable_end.send_replace(batch.end);
        if self
            .snapshots
            .writing
            .as_ref()
            .is_some_and(|w| w.is_finished())
        {
            self.finish_snapshot_write().await;
        }
        self.write_snapshot(batch.end).await;
        for event in &batch.events {
            self.service.effect(&self.state, event);
        }
        for error in crate::bus::ack_all(batch.acks).await {
            debug!(service = %self.spec.name, %error, "ack lost; the message will be redelivered and deduplicated");
        }
        if let Some(histogram) = &self.counters.histograms.handle_latency {
            let now = Instant::now();
            for received in batch.received {
                histogram.observe(now.duration_since(received).as_secs_f64());
            }
        }
        Ok(())
    }

    /// Commits the batch's group (its keys were checked against the inbox as it was decided).
    fn commit(&mut self, pending: Pending) -> Result<(), HostError> {
        let first = self.store.end();
        self.store
            .commit_pending(pending)
            .map_err(|e| self.store_error(e))?;
        let end = self.store.end();
        self.counters
            .appended
            .fetch_add(end - first, Ordering::Relaxed);
        self.counters.log_end.store(end, Ordering::Relaxed);
        self.counters
            .inbox_keys
            .store(self.store.inbox_len() as u64, Ordering::Relaxed);
        self.counters
            .last_commit_ms
            .store(self.clock.now_ms(), Ordering::Relaxed);
        Ok(())
    }

    /// Decides on one input and commits it now, outside `run` (tests). Not flushed.
    #[cfg(any(test, feature = "testkit"))]
    pub fn handle_local(&mut self, input: S::Input) -> Result<(), HostError> {
        let mut batch = Batch::new(&self.store);
        self.on_local(input, &mut batch);
        self.commit(batch.pending)
    }
}

/// The flush under way, if any (the branch is disabled when there is none).
async fn wait<E>(flushing: &mut Option<Flushing<E>>) -> sled::Result<()> {
    match flushing {
        Some(flushing) => (&mut flushing.flush).await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(wake: Option<tokio::time::Instant>) {
    match wake {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
