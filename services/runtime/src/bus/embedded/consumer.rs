//! Consuming from the embedded bus: a consumer takes ready messages up to its prefetch, and
//! its acker settles one (ack, requeue, dead letter).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;

use super::EmbeddedBus;
use super::queue::{Pos, Queue, encode_chunks, lock};
use crate::bus::{Acker, BusError, Consumer, DEAD_LETTERS, Delivery, dead_letter_of};
use crate::dead_letter::Dead;

pub(super) struct EmbeddedConsumer {
    pub(super) bus: EmbeddedBus,
    pub(super) queue: Arc<Queue>,
    pub(super) id: u64,
    pub(super) prefetch: usize,
    pub(super) in_flight: Arc<AtomicUsize>,
    pub(super) temporary: bool,
}

impl EmbeddedConsumer {
    fn take(&self) -> Option<Delivery> {
        if self.in_flight.load(Ordering::SeqCst) >= self.prefetch {
            return None;
        }
        let mut state = lock(&self.queue.state);
        let (pos, entry) = state.ready.pop_first()?;
        state.unacked.insert(pos, (self.id, entry.clone()));
        drop(state);
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let acker = EmbeddedAcker {
            bus: self.bus.clone(),
            queue: self.queue.clone(),
            pos,
            in_flight: self.in_flight.clone(),
        };
        Some(Delivery::new(
            entry.message.clone(),
            entry.redelivered,
            self.queue.name.clone(),
            Box::new(acker),
        ))
    }
}

#[async_trait]
impl Consumer for EmbeddedConsumer {
    async fn next(&mut self) -> Result<Delivery, BusError> {
        loop {
            let notified = self.queue.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.bus.inner.closed.load(Ordering::SeqCst) {
                return Err(BusError::Closed);
            }
            if let Some(delivery) = self.take() {
                return Ok(delivery);
            }
            notified.await;
        }
    }

    fn try_next(&mut self) -> Option<Delivery> {
        if self.bus.inner.closed.load(Ordering::SeqCst) {
            return None;
        }
        self.take()
    }
}

impl Drop for EmbeddedConsumer {
    fn drop(&mut self) {
        // Like a closed AMQP channel: what this consumer had not settled goes back to the queue.
        let mut state = lock(&self.queue.state);
        let mine: Vec<Pos> = state
            .unacked
            .iter()
            .filter(|(_, (c, _))| *c == self.id)
            .map(|(s, _)| *s)
            .collect();
        for pos in mine {
            if let Some((_, mut entry)) = state.unacked.remove(&pos) {
                entry.redelivered = true;
                state.ready.insert(pos, entry);
            }
        }
        drop(state);
        self.in_flight.store(0, Ordering::SeqCst);
        let remaining = self.queue.consumers.fetch_sub(1, Ordering::SeqCst) - 1;
        if self.temporary && remaining == 0 {
            self.bus.remove_queue(&self.queue.name);
        }
        self.queue.notify.notify_waiters();
    }
}

struct EmbeddedAcker {
    bus: EmbeddedBus,
    queue: Arc<Queue>,
    pos: Pos,
    in_flight: Arc<AtomicUsize>,
}

impl EmbeddedAcker {
    /// The consumer no longer holds the message: frees its prefetch slot, wakes the others.
    fn released(&self) {
        let _ = self
            .in_flight
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        self.queue.notify.notify_waiters();
    }
}

#[async_trait]
impl Acker for EmbeddedAcker {
    async fn ack(self: Box<Self>) -> Result<(), BusError> {
        let emptied = {
            let mut state = lock(&self.queue.state);
            if state.take_unacked(self.pos).is_none() {
                // Its consumer went away: the message was requeued and comes again.
                return Err(BusError::Closed);
            }
            state.acked(self.pos)
        };
        self.released();
        match emptied {
            Some(emptied) => self.queue.remove(emptied),
            None => Ok(()),
        }
    }

    async fn requeue(self: Box<Self>) -> Result<(), BusError> {
        {
            let mut state = lock(&self.queue.state);
            let Some(mut entry) = state.take_unacked(self.pos) else {
                return Err(BusError::Closed);
            };
            entry.redelivered = true;
            state.ready.insert(self.pos, entry);
        }
        self.released();
        Ok(())
    }

    async fn dead_letter(self: Box<Self>, note: Dead<'_>) -> Result<(), BusError> {
        let dead_queue = self.bus.declare(DEAD_LETTERS, true)?;
        let dead_chunk = self.bus.next_seq()?;
        let origin = self.queue.name.clone();
        let moved = self
            .queue
            .dead_letter(self.pos, &dead_queue, dead_chunk, |message| {
                let dead = Arc::new(dead_letter_of(message, &origin, note));
                let (bytes, _) = encode_chunks(std::slice::from_ref(&dead), usize::MAX)?
                    .pop()
                    .ok_or_else(|| BusError::Storage("an empty dead letter".into()))?;
                Ok((bytes, dead))
            })?;
        let Some(dead) = moved else {
            return Err(BusError::Closed);
        };
        self.released();
        dead_queue.enqueue(dead_chunk, vec![dead]);
        Ok(())
    }
}
