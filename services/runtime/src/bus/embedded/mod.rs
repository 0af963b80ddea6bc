//! The embedded transport: a topic exchange and durable queues inside the process, backed by
//! one sled database, with the guarantee of a durable RabbitMQ queue — a publication returns
//! only after the messages are flushed to disk, and a message stays on disk until a consumer
//! acks it. Unacked messages go back to their queue when their consumer goes away, and every
//! message found on disk at start is delivered again (flagged redelivered). How a queue lies
//! on disk: [`queue`].

mod queue;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use self::queue::{Pos, Queue, QueueState, encode_chunks, lock};

use super::SubscriptionSpec;
use super::pattern::Pattern;
use super::{
    Acker, Bus, BusError, Consumer, DEAD_LETTERS, Delivery, Destination, Publication, Published,
    UNROUTABLE,
};
use crate::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON, HEADER_DEAD_ROUTING_KEY, WireMessage};

const QUEUE_TREE_PREFIX: &str = "queue:";
const BINDINGS_TREE: &str = "bindings";

/// The in-process bus. Cheap to clone; every clone is the same bus.
#[derive(Clone)]
pub struct EmbeddedBus {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for EmbeddedBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedBus").finish_non_exhaustive()
    }
}

struct Inner {
    db: sled::Db,
    stable: Arc<crate::store::Stable>,
    chunk_bytes: usize,
    staging: Mutex<Staging>,
    bindings: sled::Tree,
    topology: Mutex<Topology>,
    next_consumer: AtomicU64,
    closed: AtomicBool,
}

/// Chunks written to disk whose messages are not ready yet: they become ready, in chunk order,
/// once a flush covers them. Publications may run concurrently (several services' relays,
/// `arcade send`): the first flush to end readies everything written before it began, so a producer's
/// messages are never ready out of order, and concurrent publishers share flushes.
#[derive(Default)]
struct Staging {
    chunks: BTreeMap<u64, (Arc<Queue>, Vec<Arc<WireMessage>>)>,
    /// The highest chunk id written so far.
    written: u64,
}

#[derive(Default)]
struct Topology {
    queues: HashMap<String, Arc<Queue>>,
    bindings: Vec<(Pattern, String)>,
}

impl EmbeddedBus {
    /// Opens (or creates) the bus stored in `dir`, and reloads every message left in a queue.
    pub fn open(dir: &Path) -> Result<Self, BusError> {
        Self::open_with(dir, crate::store::Storage::default())
    }

    /// Opens (or creates) the bus stored in `dir` with the given sled sizing.
    pub fn open_with(dir: &Path, storage: crate::store::Storage) -> Result<Self, BusError> {
        let db = crate::store::open_db(storage.config(64 << 20).path(dir))?;
        let stable = crate::store::Stable::open(dir).map_err(sled::Error::Io)?;
        Self::with_db(db, stable, storage.chunk_bytes())
    }

    /// A bus in a temporary directory, removed when dropped (tests, `arcade demo`).
    pub fn temporary() -> Result<Self, BusError> {
        let db = sled::Config::new().temporary(true).open()?;
        Self::with_db(
            db,
            crate::store::Stable::temporary(),
            crate::store::Storage::default().chunk_bytes(),
        )
    }

    fn with_db(
        db: sled::Db,
        stable: crate::store::Stable,
        chunk_bytes: usize,
    ) -> Result<Self, BusError> {
        let bindings = db.open_tree(BINDINGS_TREE)?;
        let mut topology = Topology::default();
        for name in db.tree_names() {
            let name = String::from_utf8_lossy(&name).into_owned();
            let Some(queue_name) = name.strip_prefix(QUEUE_TREE_PREFIX) else {
                continue;
            };
            let tree = db.open_tree(&name)?;
            let queue = Queue::load(queue_name, tree)?;
            topology
                .queues
                .insert(queue_name.to_string(), Arc::new(queue));
        }
        for item in bindings.iter() {
            let (key, _) = item?;
            let key = String::from_utf8_lossy(&key).into_owned();
            if let Some((queue, pattern)) = key.split_once('\n') {
                topology
                    .bindings
                    .push((Pattern::new(pattern), queue.to_string()));
            }
        }
        let bus = EmbeddedBus {
            inner: Arc::new(Inner {
                db,
                stable: Arc::new(stable),
                chunk_bytes,
                staging: Mutex::new(Staging::default()),
                bindings,
                topology: Mutex::new(topology),
                next_consumer: AtomicU64::new(1),
                closed: AtomicBool::new(false),
            }),
        };
        bus.declare(DEAD_LETTERS, true)?;
        Ok(bus)
    }

    /// Declares a queue (idempotent) and returns it.
    fn declare(&self, name: &str, durable: bool) -> Result<Arc<Queue>, BusError> {
        let mut topology = lock(&self.inner.topology);
        if let Some(queue) = topology.queues.get(name) {
            return Ok(queue.clone());
        }
        let tree = if durable {
            Some(
                self.inner
                    .db
                    .open_tree(format!("{QUEUE_TREE_PREFIX}{name}"))?,
            )
        } else {
            None
        };
        let queue = Arc::new(Queue::new(name, tree, QueueState::default()));
        topology.queues.insert(name.to_string(), queue.clone());
        Ok(queue)
    }

    fn bind(&self, queue: &str, pattern: &str, durable: bool) -> Result<(), BusError> {
        let mut topology = lock(&self.inner.topology);
        if topology
            .bindings
            .iter()
            .any(|(p, q)| q == queue && p.as_str() == pattern)
        {
            return Ok(());
        }
        if durable {
            self.inner
                .bindings
                .insert(format!("{queue}\n{pattern}").as_bytes(), &[])?;
        }
        topology
            .bindings
            .push((Pattern::new(pattern), queue.to_string()));
        Ok(())
    }

    fn remove_queue(&self, name: &str) {
        let mut topology = lock(&self.inner.topology);
        topology.queues.remove(name);
        topology.bindings.retain(|(_, q)| q != name);
    }

    /// Messages waiting (ready or unacked) in a queue; 0 for an unknown queue.
    pub fn depth(&self, queue: &str) -> usize {
        let topology = lock(&self.inner.topology);
        topology.queues.get(queue).map_or(0, |q| {
            let state = lock(&q.state);
            state.ready.len() + state.unacked.len()
        })
    }

    /// A copy of every dead letter, oldest first (each carries its reason in a header).
    pub fn dead_letters(&self) -> Vec<WireMessage> {
        let topology = lock(&self.inner.topology);
        topology
            .queues
            .get(DEAD_LETTERS)
            .map_or_else(Vec::new, |q| {
                let state = lock(&q.state);
                let mut all: Vec<(Pos, Arc<WireMessage>)> = state
                    .ready
                    .iter()
                    .map(|(s, e)| (*s, e.message.clone()))
                    .chain(
                        state
                            .unacked
                            .iter()
                            .map(|(s, (_, e))| (*s, e.message.clone())),
                    )
                    .collect();
                all.sort_by_key(|(s, _)| *s);
                all.into_iter().map(|(_, m)| (*m).clone()).collect()
            })
    }

    /// Stops every consumer (their `next` returns `Closed`), writes what was acked in chunks
    /// not yet settled, and flushes the store.
    pub async fn close(&self) -> Result<(), BusError> {
        self.inner.closed.store(true, Ordering::SeqCst);
        let queues: Vec<Arc<Queue>> = lock(&self.inner.topology)
            .queues
            .values()
            .cloned()
            .collect();
        for queue in queues {
            queue.notify.notify_waiters();
            queue.write_acks()?;
        }
        crate::store::Flush::start(&self.inner.db, &self.inner.stable).await?;
        Ok(())
    }

    fn next_seq(&self) -> Result<u64, BusError> {
        Ok(self.inner.db.generate_id()?)
    }
}

#[async_trait]
impl Bus for EmbeddedBus {
    async fn publish(&self, messages: &[Publication]) -> Result<Published, BusError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(BusError::Closed);
        }
        let mut published = Published::default();
        // Each target queue's share of the publication, in order.
        let mut shares: Vec<(Arc<Queue>, Vec<Arc<WireMessage>>)> = Vec::new();
        for (position, publication) in messages.iter().enumerate() {
            let mut message = Arc::new(publication.message.clone());
            let targets: Vec<Arc<Queue>> = match &publication.destination {
                Destination::Topic => {
                    let key = publication.message.routing_key();
                    let topology = lock(&self.inner.topology);
                    let mut names: Vec<&String> = topology
                        .bindings
                        .iter()
                        .filter(|(pattern, _)| pattern.matches(key))
                        .map(|(_, queue)| queue)
                        .collect();
                    names.sort();
                    names.dedup();
                    names
                        .into_iter()
                        .filter_map(|n| topology.queues.get(n).cloned())
                        .collect()
                }
                Destination::Queue(name) => {
                    let queue = lock(&self.inner.topology).queues.get(name).cloned();
                    match queue {
                        Some(queue) => vec![queue],
                        // Mandatory: nobody consumes this queue, so the command is kept as a
                        // dead letter and the publisher told.
                        None => {
                            published.unroutable.push(position);
                            message = Arc::new(unroutable(&publication.message, name));
                            vec![self.declare(DEAD_LETTERS, true)?]
                        }
                    }
                }
            };
            for queue in targets {
                match shares.iter_mut().find(|(q, _)| Arc::ptr_eq(q, &queue)) {
                    Some((_, share)) => share.push(message.clone()),
                    None => shares.push((queue, vec![message.clone()])),
                }
            }
        }
        if shares.is_empty() {
            // Routed nowhere (no queue is bound to these types): nothing to keep.
            return Ok(published);
        }
        let mut encoded = Vec::new();
        for (queue, share) in shares {
            match &queue.tree {
                Some(_) => {
                    for (bytes, members) in encode_chunks(&share, self.inner.chunk_bytes)? {
                        encoded.push((queue.clone(), Some(bytes), members));
                    }
                }
                None => encoded.push((queue, None, share)),
            }
        }
        let covered = {
            let mut staging = lock(&self.inner.staging);
            for (queue, bytes, members) in encoded {
                let chunk = self.next_seq()?;
                if let (Some(tree), Some(bytes)) = (&queue.tree, bytes) {
                    tree.insert(chunk.to_be_bytes(), bytes)?;
                }
                staging.chunks.insert(chunk, (queue, members));
                staging.written = chunk;
            }
            staging.written
        };
        crate::store::Flush::start(&self.inner.db, &self.inner.stable).await?;
        // Everything written up to `covered` is durable: make it ready, in order (another
        // publication's flush may have done it already).
        let mut staging = lock(&self.inner.staging);
        while let Some(entry) = staging.chunks.first_entry() {
            if *entry.key() > covered {
                break;
            }
            let (chunk, (queue, members)) = entry.remove_entry();
            queue.enqueue(chunk, members);
        }
        Ok(published)
    }

    fn declare_now(&self, spec: &SubscriptionSpec) -> Result<bool, BusError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(BusError::Closed);
        }
        if spec.partition.is_some() {
            return Err(BusError::Refused(format!(
                "queue {}: partitions need RabbitMQ (--amqp): the embedded bus has no consistent-hash exchange",
                spec.queue
            )));
        }
        self.declare(&spec.queue, spec.durable)?;
        for pattern in &spec.bindings {
            self.bind(&spec.queue, pattern, spec.durable)?;
        }
        Ok(true)
    }

    async fn subscribe(&self, spec: &SubscriptionSpec) -> Result<Box<dyn Consumer>, BusError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(BusError::Closed);
        }
        if spec.partition.is_some() {
            return Err(BusError::Refused(format!(
                "queue {}: partitions need RabbitMQ (--amqp): the embedded bus has no consistent-hash exchange",
                spec.queue
            )));
        }
        let queue = self.declare(&spec.queue, spec.durable)?;
        for pattern in &spec.bindings {
            self.bind(&spec.queue, pattern, spec.durable)?;
        }
        queue.consumers.fetch_add(1, Ordering::SeqCst);
        Ok(Box::new(EmbeddedConsumer {
            bus: self.clone(),
            queue,
            id: self.inner.next_consumer.fetch_add(1, Ordering::SeqCst),
            prefetch: usize::from(spec.prefetch.max(1)),
            in_flight: Arc::new(AtomicUsize::new(0)),
            temporary: !spec.durable,
        }))
    }

    async fn declare(&self, spec: &SubscriptionSpec) -> Result<(), BusError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(BusError::Closed);
        }
        self.declare(&spec.queue, spec.durable)?;
        for pattern in &spec.bindings {
            self.bind(&spec.queue, pattern, spec.durable)?;
        }
        Ok(())
    }

    fn name(&self) -> &'static str {
        "embedded"
    }

    fn queue_depth(&self, queue: &str) -> Option<u64> {
        Some(self.depth(queue) as u64)
    }
}

/// The dead letter of a command sent to `queue`, which does not exist.
fn unroutable(message: &WireMessage, queue: &str) -> WireMessage {
    let mut dead = message.clone();
    dead.headers
        .insert(HEADER_DEAD_REASON.into(), UNROUTABLE.to_string());
    dead.headers
        .insert(HEADER_DEAD_QUEUE.into(), queue.to_string());
    dead.headers.insert(
        HEADER_DEAD_ROUTING_KEY.into(),
        message.routing_key().to_string(),
    );
    dead
}

struct EmbeddedConsumer {
    bus: EmbeddedBus,
    queue: Arc<Queue>,
    id: u64,
    prefetch: usize,
    in_flight: Arc<AtomicUsize>,
    temporary: bool,
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

    async fn dead_letter(self: Box<Self>, reason: &str) -> Result<(), BusError> {
        let dead_queue = self.bus.declare(DEAD_LETTERS, true)?;
        let dead_chunk = self.bus.next_seq()?;
        let origin = self.queue.name.clone();
        let moved = self
            .queue
            .dead_letter(self.pos, &dead_queue, dead_chunk, |message| {
                let mut dead = message.clone();
                dead.headers
                    .insert(HEADER_DEAD_REASON.into(), reason.to_string());
                dead.headers.insert(HEADER_DEAD_QUEUE.into(), origin);
                dead.headers.insert(
                    HEADER_DEAD_ROUTING_KEY.into(),
                    message.routing_key().to_string(),
                );
                let dead = Arc::new(dead);
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
