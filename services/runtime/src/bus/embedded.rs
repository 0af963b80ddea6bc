//! The embedded transport: a topic exchange and durable queues inside the process, backed by
//! one sled database, with the guarantee of a durable RabbitMQ queue — a publication returns
//! only after the messages are flushed to disk, and a message stays on disk until a consumer
//! acks it. Unacked messages go back to their queue when their consumer goes away, and every
//! message found on disk at start is delivered again (flagged redelivered). How a queue lies
//! on disk: [`queue`].

mod consumer;
mod queue;
mod transport;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use self::queue::{Pos, Queue, QueueState, lock};

use super::pattern::Pattern;
use super::{BusError, DEAD_LETTERS, SubscriptionSpec};
use crate::wire::WireMessage;

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
        let db = crate::store::open_db(storage.config(64 << 20).path(dir)).map_err(|e| {
            if crate::store::lock_held(&e) {
                BusError::Storage(format!(
                    "{} is in use by another process (a running `arcade run` holds it)",
                    dir.display()
                ))
            } else {
                e.into()
            }
        })?;
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

    /// Declares `queue` (idempotent) and binds `patterns` to it, unless the bus is closed.
    fn declare_bound(
        &self,
        queue: &str,
        patterns: &[String],
        durable: bool,
    ) -> Result<Arc<Queue>, BusError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(BusError::Closed);
        }
        let declared = self.declare(queue, durable)?;
        for pattern in patterns {
            self.bind_pattern(queue, pattern, durable)?;
        }
        Ok(declared)
    }

    /// [`EmbeddedBus::declare_bound`] for a subscription, which cannot be partitioned here.
    fn declare_subscription(&self, spec: &SubscriptionSpec) -> Result<Arc<Queue>, BusError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(BusError::Closed);
        }
        if spec.partition.is_some() {
            return Err(BusError::Refused(format!(
                "queue {}: partitions need RabbitMQ (--amqp): the embedded bus has no consistent-hash exchange",
                spec.queue
            )));
        }
        self.declare_bound(&spec.queue, &spec.bindings, spec.durable)
    }

    fn bind_pattern(&self, queue: &str, pattern: &str, durable: bool) -> Result<(), BusError> {
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
