//! The [`Bus`] trait on the embedded bus: publish (routed, written, flushed, then ready),
//! declare and subscribe.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;

use super::EmbeddedBus;
use super::consumer::EmbeddedConsumer;
use super::queue::{Queue, encode_chunks, lock};
use crate::bus::dead_letter_of;
use crate::bus::{
    Bus, BusError, Consumer, DEAD_LETTERS, Destination, Publication, Published, SubscriptionSpec,
};
use crate::dead_letter::Dead;
use crate::wire::WireMessage;

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
                            message = Arc::new(dead_letter_of(
                                &publication.message,
                                name,
                                Dead::unroutable(
                                    &publication.message,
                                    publication.message.user_id.as_deref(),
                                ),
                            ));
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
        self.declare_subscription(spec).map(|_| true)
    }

    async fn subscribe(&self, spec: &SubscriptionSpec) -> Result<Box<dyn Consumer>, BusError> {
        let queue = self.declare_subscription(spec)?;
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
        self.declare_bound(&spec.queue, &spec.bindings, spec.durable)
            .map(drop)
    }

    async fn bind(&self, queue: &str, patterns: &[String]) -> Result<(), BusError> {
        self.declare_bound(queue, patterns, true).map(drop)
    }

    fn name(&self) -> &'static str {
        "embedded"
    }

    fn queue_depth(&self, queue: &str) -> Option<u64> {
        Some(self.depth(queue) as u64)
    }
}
