//! The relay: publishes a service's log to the bus in order, in batches, and advances a
//! persisted cursor as each batch is confirmed. It publishes only the durable part of the
//! log, so nothing a crash could take back is ever out in the world. When the bus is away it
//! waits (capped, jittered backoff) and resumes from its cursor: an edge referee's whole game
//! goes out, in order, when the connection comes back.
//!
//! Each message published is a producer span `publish <exchange>` (child of the handling that
//! produced it, ended when the bus confirms it), whose context the message carries.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use arcade_contracts::Envelope;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::backoff::Backoff;
use crate::bus::{Bus, BusError, Confirms, Destination, Publication, Published, SubscriptionSpec};
use crate::counters::Counters;
use crate::decider::Publishes;
use crate::store::{LogRecord, Store, StoreError};
use crate::telemetry;
use crate::wire::WireMessage;

pub use crate::store::RELAY_CURSOR;

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

/// The queue an event of the log needs before it goes out ([`crate::Service::queue_before`]).
pub type QueueBefore = Arc<dyn Fn(&Envelope) -> Option<SubscriptionSpec> + Send + Sync>;

/// Where the relay publishes: the bus, and the queues some events need first.
pub struct Outlet {
    /// The bus.
    pub bus: Arc<dyn Bus>,
    /// The queue an event needs declared before it goes out.
    pub queue_before: QueueBefore,
    /// Which events of the log go out (all, for most services).
    pub publishes: Publishes,
}

impl std::fmt::Debug for Outlet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outlet")
            .field("bus", &self.bus.name())
            .finish_non_exhaustive()
    }
}

/// Declares the queues `records` need that this relay has not declared yet.
async fn declare_queues(
    bus: &dyn Bus,
    queue_before: &QueueBefore,
    declared: &mut HashSet<String>,
    records: &[(u64, Arc<LogRecord>)],
) -> Result<(), BusError> {
    for (_, record) in records {
        if let Some(spec) = queue_before(&record.envelope)
            && !declared.contains(&spec.queue)
        {
            bus.declare(&spec).await?;
            declared.insert(spec.queue);
        }
    }
    Ok(())
}

/// The wire form of a log record and its producer span: the message carries the span's
/// context instead of its cause's when the span is recorded.
fn traced_publication(
    record: &LogRecord,
    service: &str,
    bus: &dyn Bus,
) -> (Publication, tracing::Span) {
    let mut publication = publication(record);
    let (destination, routing_key) = match &publication.destination {
        Destination::Topic => (bus.events_exchange(), record.envelope.message_type.as_str()),
        Destination::Queue(queue) => (bus.commands_exchange(), queue.as_str()),
    };
    let (span, traceparent) = telemetry::publish_span(&telemetry::Message {
        system: telemetry::spans::messaging_system(bus.name()),
        destination,
        routing_key,
        message_id: &record.envelope.message_id,
        correlation_id: &record.envelope.correlation_id,
        service,
        parent: record.traceparent.as_deref(),
    });
    if traceparent.is_some() {
        publication.message.traceparent = traceparent;
    }
    (publication, span)
}

/// A publication started and not yet confirmed.
struct InFlight {
    /// One past its last record: the cursor once it is confirmed.
    end: u64,
    count: u64,
    /// What each message is and where it went, to name the commands nobody took.
    sent: Vec<(String, Destination)>,
    confirms: Confirms,
    /// Its messages' producer spans, ended with it.
    _spans: Vec<tracing::Span>,
}

/// What the relay waits for when it has nothing to start.
enum Wake {
    Confirmed(Result<Published, BusError>),
    More,
    Closed,
    Stop,
}

/// Runs until `stop` is cancelled and everything durable is published (or the task is
/// aborted). `durable_end` is one past the last flushed log entry. The queues an event needs
/// (`queue_before`) are declared before the batch holding it is published.
///
/// Up to the bus's [`Bus::publish_window`] batches are out unconfirmed at once; the cursor
/// advances over each in order as its confirms come. Should any fail, all those in flight are
/// given up and published again from the cursor (consumers deduplicate).
pub async fn run(
    name: String,
    store: Arc<Store>,
    outlet: Outlet,
    counters: Arc<Counters>,
    mut durable_end: watch::Receiver<u64>,
    batch: usize,
    stop: CancellationToken,
) -> Result<(), StoreError> {
    let Outlet {
        bus,
        queue_before,
        publishes,
    } = outlet;
    let mut declared = HashSet::new();
    // Retention never prunes what is not published; a log starting later still starts there.
    let mut cursor = store.cursor(RELAY_CURSOR)?.max(store.first()?);
    counters.relay_cursor.store(cursor, Ordering::Relaxed);
    let window = bus.publish_window().max(1);
    let mut in_flight: VecDeque<InFlight> = VecDeque::new();
    let mut open = true;
    let mut backoff = Backoff::default();
    let mut failing = false;
    loop {
        let end = *durable_end.borrow_and_update();
        let next = in_flight.back().map_or(cursor, |f| f.end);
        let failure = if next < end && in_flight.len() < window {
            let limit = usize::try_from(end - next)
                .unwrap_or(usize::MAX)
                .min(batch.max(1));
            let records = store.read_shared(next, limit)?;
            let Some(&(last, _)) = records.last() else {
                break;
            };
            let mut records = records;
            records.retain(|(_, r)| publishes.includes(&r.envelope.message_type));
            if records.is_empty() {
                // Nothing of this stretch goes out: the cursor passes it once those before it
                // are confirmed, in order.
                in_flight.push_back(InFlight {
                    end: last + 1,
                    count: 0,
                    sent: Vec::new(),
                    confirms: Box::pin(std::future::ready(Ok(Published::default()))),
                    _spans: Vec::new(),
                });
                continue;
            }
            let (publications, spans): (Vec<Publication>, Vec<tracing::Span>) = records
                .iter()
                .map(|(_, r)| traced_publication(r, &name, bus.as_ref()))
                .unzip();
            match declare_queues(bus.as_ref(), &queue_before, &mut declared, &records).await {
                Err(error) => error,
                Ok(()) => match bus.start_publish(&publications).await {
                    Ok(confirms) => {
                        let sent = publications
                            .iter()
                            .map(|p| (p.message.routing_key().to_string(), p.destination.clone()))
                            .collect();
                        in_flight.push_back(InFlight {
                            end: last + 1,
                            count: publications.len() as u64,
                            sent,
                            confirms,
                            _spans: spans,
                        });
                        continue;
                    }
                    Err(error) => error,
                },
            }
        } else if !in_flight.is_empty() {
            let more = open && next >= end && in_flight.len() < window;
            let oldest = in_flight.front_mut().expect("a publication in flight");
            let wake = tokio::select! {
                biased;
                confirmed = &mut oldest.confirms => Wake::Confirmed(confirmed),
                changed = durable_end.changed(), if more => {
                    if changed.is_ok() { Wake::More } else { Wake::Closed }
                }
            };
            match wake {
                Wake::Confirmed(Ok(published)) => {
                    let done = in_flight.pop_front().expect("the oldest publication");
                    for &position in &published.unroutable {
                        if let Some((message_type, Destination::Queue(queue))) =
                            done.sent.get(position)
                        {
                            // Kept in the dead letters: nothing is lost, and nothing to retry.
                            warn!(service = %name, %message_type, %queue, "no such queue: nobody consumes this command; it is in the dead letters (unroutable)");
                        }
                    }
                    cursor = done.end;
                    store.set_cursor(RELAY_CURSOR, cursor)?;
                    counters.relay_cursor.store(cursor, Ordering::Relaxed);
                    counters.published.fetch_add(done.count, Ordering::Relaxed);
                    backoff.reset();
                    if failing {
                        info!(service = %name, cursor, "bus is back; relay resumed");
                        failing = false;
                    }
                    continue;
                }
                Wake::Confirmed(Err(error)) => error,
                Wake::Closed => {
                    open = false;
                    continue;
                }
                Wake::More | Wake::Stop => continue,
            }
        } else {
            if stop.is_cancelled() || !open {
                break;
            }
            let wake = tokio::select! {
                changed = durable_end.changed() => {
                    if changed.is_ok() { Wake::More } else { Wake::Closed }
                }
                () = stop.cancelled() => Wake::Stop,
            };
            if let Wake::Closed = wake {
                open = false;
            }
            continue;
        };
        // A publication failed: nothing from the cursor on is taken as sent.
        debug!(
            service = %name,
            error = %failure,
            cursor,
            in_flight = in_flight.len(),
            ends = ?in_flight.iter().map(|f| f.end).collect::<Vec<_>>(),
            "publication failed; publishing again from the cursor"
        );
        in_flight.clear();
        if !failing {
            warn!(service = %name, error = %failure, cursor, "cannot publish; events wait in the log");
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
    store.set_cursor(RELAY_CURSOR, cursor)?;
    Ok(())
}
