//! The embedded transport: a topic exchange and durable queues inside the process, backed by
//! one sled database, with the guarantee of a durable RabbitMQ queue — a publication returns
//! only after the messages are flushed to disk, and a message stays on disk until a consumer
//! acks it. Unacked messages go back to their queue when their consumer goes away, and every
//! message found on disk at start is delivered again (flagged redelivered).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use sled::Transactional;
use tokio::sync::Notify;

use super::SubscriptionSpec;
use super::pattern::Pattern;
use super::{Acker, Bus, BusError, Consumer, DEAD_LETTERS, Delivery, Destination, Publication};
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
    bindings: sled::Tree,
    topology: Mutex<Topology>,
    next_consumer: AtomicU64,
    closed: AtomicBool,
}

#[derive(Default)]
struct Topology {
    queues: HashMap<String, Arc<Queue>>,
    bindings: Vec<(Pattern, String)>,
}

struct Queue {
    name: String,
    tree: Option<sled::Tree>,
    state: Mutex<QueueState>,
    notify: Notify,
    consumers: AtomicUsize,
}

#[derive(Default)]
struct QueueState {
    ready: BTreeMap<u64, Entry>,
    unacked: HashMap<u64, (u64, Entry)>,
}

#[derive(Clone)]
struct Entry {
    message: Arc<WireMessage>,
    redelivered: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these locks cannot leave the data half-changed (every
    // critical section is a few map operations), so a poisoned lock is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn encode(message: &WireMessage) -> Result<Vec<u8>, BusError> {
    postcard::to_allocvec(message).map_err(|e| BusError::Storage(e.to_string()))
}

impl EmbeddedBus {
    /// Opens (or creates) the bus stored in `dir`, and reloads every message left in a queue.
    pub fn open(dir: &Path) -> Result<Self, BusError> {
        Self::open_with(dir, crate::store::Storage::default())
    }

    /// Opens (or creates) the bus stored in `dir` with the given sled sizing.
    pub fn open_with(dir: &Path, storage: crate::store::Storage) -> Result<Self, BusError> {
        let db = crate::store::open_db(storage.config(64 << 20).path(dir))?;
        Self::with_db(db)
    }

    /// A bus in a temporary directory, removed when dropped (tests, `arcade demo`).
    pub fn temporary() -> Result<Self, BusError> {
        let db = sled::Config::new().temporary(true).open()?;
        Self::with_db(db)
    }

    fn with_db(db: sled::Db) -> Result<Self, BusError> {
        let bindings = db.open_tree(BINDINGS_TREE)?;
        let mut topology = Topology::default();
        for name in db.tree_names() {
            let name = String::from_utf8_lossy(&name).into_owned();
            let Some(queue_name) = name.strip_prefix(QUEUE_TREE_PREFIX) else {
                continue;
            };
            let tree = db.open_tree(&name)?;
            let mut state = QueueState::default();
            for item in tree.iter() {
                let (key, value) = item?;
                let seq = u64::from_be_bytes(key.as_ref().try_into().map_err(|_| {
                    BusError::Storage(format!(
                        "queue {queue_name}: a key is not a sequence number"
                    ))
                })?);
                let message: WireMessage = postcard::from_bytes(&value).map_err(|e| {
                    BusError::Storage(format!("queue {queue_name}, message {seq}: {e}"))
                })?;
                state.ready.insert(
                    seq,
                    Entry {
                        message: Arc::new(message),
                        redelivered: true,
                    },
                );
            }
            topology.queues.insert(
                queue_name.to_string(),
                Arc::new(Queue::new(queue_name, Some(tree), state)),
            );
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
                let mut all: Vec<(u64, Arc<WireMessage>)> = state
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

    /// Stops every consumer: their `next` returns `Closed`. Flushes the store.
    pub async fn close(&self) -> Result<(), BusError> {
        self.inner.closed.store(true, Ordering::SeqCst);
        let queues: Vec<Arc<Queue>> = lock(&self.inner.topology)
            .queues
            .values()
            .cloned()
            .collect();
        for queue in queues {
            queue.notify.notify_waiters();
        }
        crate::store::flush_db(&self.inner.db).await?;
        Ok(())
    }

    fn next_seq(&self) -> Result<u64, BusError> {
        Ok(self.inner.db.generate_id()?)
    }
}

impl Queue {
    fn new(name: &str, tree: Option<sled::Tree>, state: QueueState) -> Self {
        Queue {
            name: name.to_string(),
            tree,
            state: Mutex::new(state),
            notify: Notify::new(),
            consumers: AtomicUsize::new(0),
        }
    }
}

#[async_trait]
impl Bus for EmbeddedBus {
    async fn publish(&self, messages: &[Publication]) -> Result<(), BusError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(BusError::Closed);
        }
        let mut staged: Vec<(Arc<Queue>, u64, Arc<WireMessage>)> = Vec::new();
        let mut durable = false;
        for publication in messages {
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
                Destination::Queue(name) => vec![self.declare(name, true)?],
            };
            let message = Arc::new(publication.message.clone());
            for queue in targets {
                let seq = self.next_seq()?;
                if let Some(tree) = &queue.tree {
                    tree.insert(seq.to_be_bytes(), encode(&message)?)?;
                    durable = true;
                }
                staged.push((queue, seq, message.clone()));
            }
        }
        if durable {
            crate::store::flush_db(&self.inner.db).await?;
        }
        for (queue, seq, message) in staged {
            lock(&queue.state).ready.insert(
                seq,
                Entry {
                    message,
                    redelivered: false,
                },
            );
            queue.notify.notify_waiters();
        }
        Ok(())
    }

    async fn subscribe(&self, spec: &SubscriptionSpec) -> Result<Box<dyn Consumer>, BusError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(BusError::Closed);
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

    fn name(&self) -> &'static str {
        "embedded"
    }
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
        let (seq, entry) = state.ready.pop_first()?;
        state.unacked.insert(seq, (self.id, entry.clone()));
        drop(state);
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let acker = EmbeddedAcker {
            bus: self.bus.clone(),
            queue: self.queue.clone(),
            seq,
            in_flight: self.in_flight.clone(),
        };
        Some(Delivery::new(
            (*entry.message).clone(),
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
        let mine: Vec<u64> = state
            .unacked
            .iter()
            .filter(|(_, (c, _))| *c == self.id)
            .map(|(s, _)| *s)
            .collect();
        for seq in mine {
            if let Some((_, mut entry)) = state.unacked.remove(&seq) {
                entry.redelivered = true;
                state.ready.insert(seq, entry);
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
    seq: u64,
    in_flight: Arc<AtomicUsize>,
}

impl EmbeddedAcker {
    /// Takes the message out of the unacked set; `None` if its consumer already went away (the
    /// message was requeued and will be delivered again, as with a closed AMQP channel).
    fn settle(&self) -> Option<Entry> {
        let entry = lock(&self.queue.state)
            .unacked
            .remove(&self.seq)
            .map(|(_, e)| e);
        if entry.is_some() {
            let _ = self
                .in_flight
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
        self.queue.notify.notify_waiters();
        entry
    }
}

#[async_trait]
impl Acker for EmbeddedAcker {
    async fn ack(self: Box<Self>) -> Result<(), BusError> {
        if self.settle().is_none() {
            return Err(BusError::Closed);
        }
        if let Some(tree) = &self.queue.tree {
            tree.remove(self.seq.to_be_bytes())?;
        }
        Ok(())
    }

    async fn requeue(self: Box<Self>) -> Result<(), BusError> {
        let Some(mut entry) = self.settle() else {
            return Err(BusError::Closed);
        };
        entry.redelivered = true;
        lock(&self.queue.state).ready.insert(self.seq, entry);
        self.queue.notify.notify_waiters();
        Ok(())
    }

    async fn dead_letter(self: Box<Self>, reason: &str) -> Result<(), BusError> {
        let Some(entry) = self.settle() else {
            return Err(BusError::Closed);
        };
        let mut dead = (*entry.message).clone();
        dead.headers
            .insert(HEADER_DEAD_REASON.into(), reason.to_string());
        dead.headers
            .insert(HEADER_DEAD_QUEUE.into(), self.queue.name.clone());
        dead.headers.insert(
            HEADER_DEAD_ROUTING_KEY.into(),
            entry.message.routing_key().to_string(),
        );
        let dead_queue = self.bus.declare(DEAD_LETTERS, true)?;
        let dead_tree = dead_queue.tree.clone().ok_or(BusError::Closed)?;
        let seq = self.bus.next_seq()?;
        let bytes = encode(&dead)?;
        let key = self.seq.to_be_bytes();
        match &self.queue.tree {
            // Moving the message is one transaction: after a crash it is either still in its
            // queue (and will be dead-lettered again) or in the dead letters, never both/neither.
            Some(tree) => (tree, &dead_tree)
                .transaction(|(queue, dead_letters)| {
                    queue.remove(&key)?;
                    dead_letters.insert(&seq.to_be_bytes(), bytes.as_slice())?;
                    Ok(())
                })
                .map_err(|e: sled::transaction::TransactionError<()>| {
                    BusError::Storage(format!("{e:?}"))
                })?,
            None => {
                dead_tree.insert(seq.to_be_bytes(), bytes)?;
            }
        }
        lock(&dead_queue.state).ready.insert(
            seq,
            Entry {
                message: Arc::new(dead),
                redelivered: false,
            },
        );
        dead_queue.notify.notify_waiters();
        Ok(())
    }
}
