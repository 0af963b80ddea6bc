//! A queue of the embedded bus: its messages in publish order (ready), the ones handed to a
//! consumer and not yet settled (unacked), and how they lie in sled.
//!
//! On disk a durable queue is one sled tree. Each publication writes its messages (postcard)
//! as a few **chunks** ([`crate::chunk`]), one entry each, keyed by a chunk id; a chunk
//! is removed once every message in it is settled. Acks are not written one by one: after a
//! crash, the acked messages of a chunk that was only partly settled are delivered again, and
//! consumers deduplicate them (a durable RabbitMQ queue redelivers acks it had not yet written
//! the same way); a clean close writes them. A settled message of a live chunk is a **marker**
//! on disk (chunk id + index). A message moved to the dead letters gets its marker in the same
//! transaction as its copy in the dead letters, so it is never delivered again nor lost between
//! the two queues.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

use super::super::BusError;
use crate::chunk;
use crate::wire::WireMessage;

/// Where a message is: its chunk and its index in it. Orders messages as they were published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Pos {
    pub chunk: u64,
    pub index: u32,
}

impl Pos {
    fn marker_key(self) -> [u8; 12] {
        let mut key = [0u8; 12];
        key[..8].copy_from_slice(&self.chunk.to_be_bytes());
        key[8..].copy_from_slice(&self.index.to_be_bytes());
        key
    }
}

#[derive(Clone)]
pub(super) struct Entry {
    pub message: Arc<WireMessage>,
    pub redelivered: bool,
}

pub(super) struct Queue {
    pub name: String,
    pub tree: Option<sled::Tree>,
    pub state: Mutex<QueueState>,
    pub notify: Notify,
    pub consumers: AtomicUsize,
}

#[derive(Default)]
pub(super) struct QueueState {
    pub ready: BTreeMap<Pos, Entry>,
    /// Handed out: the consumer's id and the entry.
    pub unacked: HashMap<Pos, (u64, Entry)>,
    /// Per chunk, how many of its messages are not settled yet.
    live: HashMap<u64, u32>,
    /// Per chunk, the indexes marked on disk as settled.
    markers: HashMap<u64, Vec<u32>>,
    /// Per chunk, the indexes acked since its markers were written.
    acked: HashMap<u64, Vec<u32>>,
}

/// A chunk every message of which is settled: what to remove from disk.
pub(super) struct Emptied {
    chunk: u64,
    markers: Vec<u32>,
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these locks cannot leave the data half-changed (every
    // critical section is a few map operations), so a poisoned lock is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn storage(queue: &str, what: impl std::fmt::Display) -> BusError {
    BusError::Storage(format!("queue {queue}: {what}"))
}

/// A chunk's bytes on disk and the messages in it.
pub(super) type Chunk = (Vec<u8>, Vec<Arc<WireMessage>>);

/// Encodes messages as chunks of at most `max_bytes` before compression (a message larger
/// than that gets a chunk of its own).
pub(super) fn encode_chunks(
    messages: &[Arc<WireMessage>],
    max_bytes: usize,
) -> Result<Vec<Chunk>, BusError> {
    // postcard's `to_io` writes a byte at a time through `io::Write`; its `Vec` flavour, then
    // one copy, is cheaper.
    let chunks = chunk::split(messages, max_bytes, |message, out| {
        out.extend_from_slice(&postcard::to_allocvec(message.as_ref())?);
        Ok::<_, postcard::Error>(())
    })
    .map_err(|(_, e)| BusError::Storage(format!("cannot encode a message: {e}")))?;
    let mut rest = messages;
    Ok(chunks
        .into_iter()
        .map(|(count, bytes)| {
            let (members, tail) = rest.split_at(count);
            rest = tail;
            (bytes, members.to_vec())
        })
        .collect())
}

fn decode_chunk(queue: &str, chunk: u64, value: &[u8]) -> Result<Vec<WireMessage>, BusError> {
    let bad = |what: String| storage(queue, format!("chunk {chunk}: {what}"));
    let raw = match value.first() {
        // An entry written before chunks: one postcard message, whose first byte (the tag of
        // its optional type) is 0 or 1.
        Some(0 | 1) => {
            return Ok(vec![
                postcard::from_bytes(value).map_err(|e| bad(e.to_string()))?,
            ]);
        }
        Some(&chunk::FORMAT_LZ4) => chunk::decompress(value).map_err(|e| bad(e.to_string()))?,
        Some(other) => return Err(bad(format!("unknown format (first byte {other:#04x})"))),
        None => return Err(bad("empty".into())),
    };
    chunk::frames(&raw)
        .map(|frame| {
            let bytes = frame.map_err(|e| bad(e.to_string()))?;
            postcard::from_bytes(bytes).map_err(|e| bad(e.to_string()))
        })
        .collect()
}

impl Queue {
    pub fn new(name: &str, tree: Option<sled::Tree>, state: QueueState) -> Self {
        Queue {
            name: name.to_string(),
            tree,
            state: Mutex::new(state),
            notify: Notify::new(),
            consumers: AtomicUsize::new(0),
        }
    }

    /// Reloads a durable queue: every message of every chunk not marked dead-lettered is ready
    /// again, flagged redelivered. Chunks left fully settled by a crash are removed.
    pub fn load(name: &str, tree: sled::Tree) -> Result<Self, BusError> {
        let mut chunks: BTreeMap<u64, Vec<WireMessage>> = BTreeMap::new();
        let mut markers: HashMap<u64, Vec<u32>> = HashMap::new();
        for item in tree.iter() {
            let (key, value) = item?;
            match key.len() {
                8 => {
                    let chunk = u64::from_be_bytes(key.as_ref().try_into().expect("8 bytes"));
                    chunks.insert(chunk, decode_chunk(name, chunk, &value)?);
                }
                12 => {
                    let chunk = u64::from_be_bytes(key[..8].try_into().expect("8 bytes"));
                    let index = u32::from_be_bytes(key[8..].try_into().expect("4 bytes"));
                    markers.entry(chunk).or_default().push(index);
                }
                n => return Err(storage(name, format!("a key of {n} bytes"))),
            }
        }
        let mut state = QueueState::default();
        let mut emptied = Vec::new();
        for (chunk, messages) in chunks {
            let marked = markers.remove(&chunk).unwrap_or_default();
            let mut live = 0;
            for (index, message) in messages.into_iter().enumerate() {
                let index = u32::try_from(index).map_err(|_| storage(name, "a huge chunk"))?;
                if marked.contains(&index) {
                    continue;
                }
                live += 1;
                let entry = Entry {
                    message: Arc::new(message),
                    redelivered: true,
                };
                state.ready.insert(Pos { chunk, index }, entry);
            }
            if live == 0 {
                emptied.push(Emptied {
                    chunk,
                    markers: marked,
                });
            } else {
                state.live.insert(chunk, live);
                if !marked.is_empty() {
                    state.markers.insert(chunk, marked);
                }
            }
        }
        // Markers whose chunk is gone: a crash between removing the two.
        for (chunk, marked) in markers {
            emptied.push(Emptied {
                chunk,
                markers: marked,
            });
        }
        let queue = Queue::new(name, Some(tree), state);
        for chunk in emptied {
            queue.remove(chunk)?;
        }
        Ok(queue)
    }

    /// Makes published messages ready, in order, and wakes the consumers. Each chunk is given
    /// with its id (already on disk for a durable queue).
    pub fn enqueue(&self, chunk: u64, messages: Vec<Arc<WireMessage>>) {
        let mut state = lock(&self.state);
        let count = u32::try_from(messages.len()).unwrap_or(u32::MAX);
        for (index, message) in messages.into_iter().enumerate() {
            let pos = Pos {
                chunk,
                index: u32::try_from(index).unwrap_or(u32::MAX),
            };
            let entry = Entry {
                message,
                redelivered: false,
            };
            state.ready.insert(pos, entry);
        }
        *state.live.entry(chunk).or_default() += count;
        drop(state);
        self.notify.notify_waiters();
    }

    /// Writes a marker for every message acked in a chunk that is not settled yet, so that a
    /// clean stop delivers none of them again. Durable with the next flush.
    pub fn write_acks(&self) -> Result<(), BusError> {
        let Some(tree) = &self.tree else {
            return Ok(());
        };
        let mut state = lock(&self.state);
        let mut batch = sled::Batch::default();
        let acked: Vec<(u64, Vec<u32>)> = state.acked.drain().collect();
        for (chunk, indexes) in acked {
            for &index in &indexes {
                batch.insert(&Pos { chunk, index }.marker_key(), &[]);
            }
            state.markers.entry(chunk).or_default().extend(indexes);
        }
        tree.apply_batch(batch)?;
        Ok(())
    }

    /// Removes a settled chunk (and its markers) from disk.
    pub fn remove(&self, emptied: Emptied) -> Result<(), BusError> {
        let Some(tree) = &self.tree else {
            return Ok(());
        };
        let mut batch = sled::Batch::default();
        batch.remove(&emptied.chunk.to_be_bytes());
        for index in emptied.markers {
            batch.remove(
                &Pos {
                    chunk: emptied.chunk,
                    index,
                }
                .marker_key(),
            );
        }
        tree.apply_batch(batch)?;
        Ok(())
    }

    /// Moves an unacked message to `dead` (a durable queue) under `dead_chunk`, in one
    /// transaction with this queue's marker for it (or the removal of its chunk, when it was
    /// the chunk's last unsettled message). `None` when its consumer already went away.
    pub fn dead_letter(
        &self,
        pos: Pos,
        dead: &Queue,
        dead_chunk: u64,
        make_dead: impl FnOnce(&WireMessage) -> Result<(Vec<u8>, Arc<WireMessage>), BusError>,
    ) -> Result<Option<Arc<WireMessage>>, BusError> {
        use sled::Transactional;
        let dead_tree = dead
            .tree
            .as_ref()
            .ok_or_else(|| storage(&dead.name, "the dead letters are not durable"))?;
        let mut state = lock(&self.state);
        let Some((_, entry)) = state.unacked.get(&pos) else {
            return Ok(None);
        };
        let (bytes, dead_message) = make_dead(&entry.message)?;
        let last = state.live.get(&pos.chunk).copied().unwrap_or(0) <= 1;
        let marked = state.markers.get(&pos.chunk).cloned().unwrap_or_default();
        match &self.tree {
            Some(tree) => (tree, dead_tree)
                .transaction(|(queue, dead_letters)| {
                    if last {
                        queue.remove(&pos.chunk.to_be_bytes())?;
                        for index in &marked {
                            let key = Pos {
                                chunk: pos.chunk,
                                index: *index,
                            };
                            queue.remove(&key.marker_key())?;
                        }
                    } else {
                        queue.insert(&pos.marker_key(), &[])?;
                    }
                    dead_letters.insert(&dead_chunk.to_be_bytes(), bytes.as_slice())?;
                    Ok(())
                })
                .map_err(|e: sled::transaction::TransactionError<()>| {
                    storage(&self.name, format!("{e:?}"))
                })?,
            None => {
                dead_tree.insert(dead_chunk.to_be_bytes(), bytes)?;
            }
        }
        state.unacked.remove(&pos);
        if last {
            state.live.remove(&pos.chunk);
            state.markers.remove(&pos.chunk);
            state.acked.remove(&pos.chunk);
        } else {
            if let Some(live) = state.live.get_mut(&pos.chunk) {
                *live -= 1;
            }
            if self.tree.is_some() {
                state.markers.entry(pos.chunk).or_default().push(pos.index);
            }
        }
        drop(state);
        self.notify.notify_waiters();
        Ok(Some(dead_message))
    }
}

impl QueueState {
    /// Takes a handed-out message back (to settle or requeue it); `None` if its consumer
    /// already went away (it was requeued and will be delivered again).
    pub fn take_unacked(&mut self, pos: Pos) -> Option<Entry> {
        self.unacked.remove(&pos).map(|(_, entry)| entry)
    }

    /// Counts an acked message of `pos`'s chunk as settled; returns the chunk when it was its
    /// last.
    pub fn acked(&mut self, pos: Pos) -> Option<Emptied> {
        let live = self.live.get_mut(&pos.chunk)?;
        *live = live.saturating_sub(1);
        if *live > 0 {
            self.acked.entry(pos.chunk).or_default().push(pos.index);
            return None;
        }
        self.live.remove(&pos.chunk);
        self.acked.remove(&pos.chunk);
        Some(Emptied {
            chunk: pos.chunk,
            markers: self.markers.remove(&pos.chunk).unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests;
