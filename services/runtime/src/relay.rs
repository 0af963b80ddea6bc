//! The relay: publishes a service's log to the bus in order, one confirmed batch at a time, and
//! advances a persisted cursor after each confirm. It publishes only the durable part of the
//! log, so nothing a crash could take back is ever out in the world. When the bus is away it
//! waits (capped, jittered backoff) and resumes from its cursor: an edge referee's whole game
//! goes out, in order, when the connection comes back.

use std::sync::Arc;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::backoff::Backoff;
use crate::bus::{Bus, Destination, Publication};
use crate::counters::Counters;
use crate::store::{LogRecord, Store, StoreError};
use crate::wire::WireMessage;

/// Name of the relay's cursor in the store.
pub const RELAY_CURSOR: &str = "relay";

/// The wire form of a log record.
pub fn publication(record: &LogRecord) -> Publication {
    Publication {
        destination: match &record.queue {
            Some(queue) => Destination::Queue(queue.clone()),
            None => Destination::Topic,
        },
        message: WireMessage::from_envelope(&record.envelope, record.traceparent.clone()),
    }
}

/// Runs until `stop` is cancelled and everything durable is published (or the task is
/// aborted). `durable_end` is one past the last flushed log entry.
pub async fn run(
    name: String,
    store: Arc<Store>,
    bus: Arc<dyn Bus>,
    counters: Arc<Counters>,
    mut durable_end: watch::Receiver<u64>,
    batch: usize,
    stop: CancellationToken,
) -> Result<(), StoreError> {
    let mut cursor = store.cursor(RELAY_CURSOR)?.max(1);
    let mut backoff = Backoff::default();
    let mut failing = false;
    loop {
        let end = *durable_end.borrow_and_update();
        if cursor >= end {
            if stop.is_cancelled() {
                break;
            }
            tokio::select! {
                changed = durable_end.changed() => if changed.is_err() { break },
                () = stop.cancelled() => {}
            }
            continue;
        }
        let limit = usize::try_from(end - cursor)
            .unwrap_or(usize::MAX)
            .min(batch.max(1));
        let records = store.read_shared(cursor, limit)?;
        let Some(&(last, _)) = records.last() else {
            break;
        };
        let publications: Vec<Publication> = records.iter().map(|(_, r)| publication(r)).collect();
        match bus.publish(&publications).await {
            Ok(()) => {
                cursor = last + 1;
                store.set_cursor(RELAY_CURSOR, cursor)?;
                counters.published.fetch_add(
                    publications.len() as u64,
                    std::sync::atomic::Ordering::Relaxed,
                );
                backoff.reset();
                if failing {
                    info!(service = %name, cursor, "bus is back; relay resumed");
                    failing = false;
                }
            }
            Err(error) => {
                if !failing {
                    warn!(service = %name, %error, cursor, "cannot publish; events wait in the log");
                    failing = true;
                }
                if stop.is_cancelled() {
                    break;
                }
                tokio::select! {
                    () = tokio::time::sleep(backoff.next_delay()) => {}
                    () = stop.cancelled() => {}
                }
            }
        }
    }
    store.set_cursor(RELAY_CURSOR, cursor)?;
    Ok(())
}
