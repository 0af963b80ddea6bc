//! Consumer lag on RabbitMQ: the broker knows how many messages wait in a queue, and says it in
//! the answer to a passive `queue.declare` (which creates nothing). A background watcher asks it
//! for every durable queue the process consumes, every [`AmqpConfig::lag_interval`], on a
//! channel of its own, and keeps the answers for [`Bus::queue_depth`] (the
//! `arcade_consumer_lag_messages` gauge), which must answer without waiting on the network.
//!
//! The figure is the queue's ready messages: published, not yet delivered to a consumer
//! (RabbitMQ's `messages_ready`). While the broker is away, or the queue cannot be asked, the
//! figure is unknown and the gauge absent, rather than a stale value that looks live.
//!
//! [`AmqpConfig::lag_interval`]: super::AmqpConfig::lag_interval
//! [`Bus::queue_depth`]: crate::bus::Bus::queue_depth

use std::sync::Arc;
use std::sync::Weak;
use std::sync::atomic::Ordering;

use lapin::options::QueueDeclareOptions;
use lapin::types::FieldTable;

use super::link::Inner;
use super::{AmqpBus, short};

/// Watches `queue` from now on; the first call starts the watcher task.
pub(super) fn watch(bus: &AmqpBus, queue: &str) {
    let depths = &bus.inner.depths;
    if let Ok(mut queues) = depths.queues.lock() {
        queues.entry(queue.to_string()).or_insert(None);
    }
    if !depths.watching.swap(true, Ordering::AcqRel) {
        tokio::spawn(watcher(Arc::downgrade(&bus.inner)));
    }
}

/// Reads every watched queue's depth each interval, until the bus is closed or dropped (it
/// holds the bus only while it reads, so it never keeps a dropped bus alive).
async fn watcher(inner: Weak<Inner>) {
    loop {
        let (interval, closed) = match inner.upgrade() {
            Some(inner) => (inner.config.lag_interval, inner.closed.clone()),
            None => return,
        };
        tokio::select! {
            () = closed.cancelled() => return,
            () = tokio::time::sleep(interval) => {}
        }
        let Some(inner) = inner.upgrade() else { return };
        read_depths(&AmqpBus { inner }).await;
    }
}

/// One round: a passive declare per watched queue on a fresh channel of the current
/// connection. It never connects (the services' own calls do that, with their backoff).
async fn read_depths(bus: &AmqpBus) {
    let depths = &bus.inner.depths;
    let connection = bus
        .inner
        .current
        .lock()
        .ok()
        .and_then(|current| current.clone())
        .filter(|connection| connection.status().connected());
    let Some(connection) = connection else {
        depths.forget_all();
        return;
    };
    let mut channel = None;
    for queue in depths.queues() {
        if channel.is_none() {
            channel = connection.create_channel().await.ok();
        }
        let Some(open) = &channel else {
            depths.set(&queue, None);
            continue;
        };
        let passive = QueueDeclareOptions {
            passive: true,
            ..QueueDeclareOptions::default()
        };
        match open
            .queue_declare(short(&queue), passive, FieldTable::default())
            .await
        {
            Ok(found) => depths.set(&queue, Some(u64::from(found.message_count()))),
            Err(error) => {
                tracing::debug!(%queue, %error, "queue depth unknown");
                depths.set(&queue, None);
                // A failed passive declare closes the channel: the next queue gets a new one.
                channel = None;
            }
        }
    }
    if let Some(open) = channel {
        let _ = open.close(200, short("depths read")).await;
    }
}
