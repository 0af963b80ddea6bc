//! Consuming: one channel per consumer, bounded prefetch, manual acks; a consumer that goes
//! away closes its channel, so what it held goes back to the queue. A dead letter is confirmed
//! in the dead letters before the original is acked.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::{FutureExt, StreamExt};
use lapin::Channel;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicNackOptions, BasicQosOptions, QueueDeclareOptions,
};
use lapin::types::FieldTable;
use tracing::debug;

use super::{AmqpBus, lag, properties, short, topology, unavailable};
use crate::bus::dead_letter_of;
use crate::bus::{Acker, BusError, Consumer, Delivery, SubscriptionSpec};
use crate::dead_letter::Dead;
use crate::wire::WireMessage;

impl AmqpBus {
    /// Declares what `spec` needs and consumes its queue.
    pub(super) async fn consume(
        &self,
        spec: &SubscriptionSpec,
    ) -> Result<Box<dyn Consumer>, BusError> {
        let (connection, channel) = self.open_channel().await?;
        let setup = async {
            channel
                .basic_qos(self.prefetch(spec.prefetch), BasicQosOptions::default())
                .await?;
            if spec.durable {
                self.declare_service_queue(
                    &connection,
                    &channel,
                    &spec.queue,
                    spec.partition.as_ref(),
                )
                .await?;
            } else {
                channel
                    .queue_declare(
                        short(&spec.queue),
                        QueueDeclareOptions {
                            exclusive: true,
                            auto_delete: true,
                            ..QueueDeclareOptions::default()
                        },
                        FieldTable::default(),
                    )
                    .await?;
            }
            self.bind_events(&channel, &spec.queue, &spec.bindings)
                .await?;
            let tag = format!(
                "{}.{}",
                self.inner.config.connection_name,
                uuid::Uuid::new_v4().simple()
            );
            channel
                .basic_consume(
                    short(&spec.queue),
                    short(&tag),
                    BasicConsumeOptions::default(),
                    FieldTable::default(),
                )
                .await
        };
        let stream = match setup.await {
            Ok(stream) => stream,
            Err(e) => {
                let _ = channel.close(200, short("subscription failed")).await;
                if let Some(partitioned) = &spec.partition
                    && super::declare::missing_plugin(&e)
                {
                    return Err(BusError::Misconfigured(
                        self.partitions_error(partitioned, &e),
                    ));
                }
                return Err(if connection.status().connected() {
                    BusError::Refused(if topology::inequivalent(&e.to_string()) {
                        self.declare_error(&connection, &spec.queue, &e).await
                    } else if let Some(partitioned) = &spec.partition {
                        self.partitions_error(partitioned, &e)
                    } else {
                        format!("cannot consume queue {}: {e}", spec.queue)
                    })
                } else {
                    unavailable(&format!("cannot consume queue {}", spec.queue), e)
                });
            }
        };
        debug!(queue = %spec.queue, prefetch = spec.prefetch, "consuming");
        if spec.durable {
            lag::watch(self, &spec.queue);
        }
        static CONSUMERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Ok(Box::new(AmqpConsumer {
            bus: self.clone(),
            id: CONSUMERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            channel,
            stream,
            queue: spec.queue.clone(),
        }))
    }

    /// The prefetch count of a consumer asking for `count`: bounded in bytes too.
    fn prefetch(&self, count: u16) -> u16 {
        let config = &self.inner.config;
        let by_bytes = config.prefetch_bytes / config.max_message_bytes.max(1);
        count
            .min(u16::try_from(by_bytes).unwrap_or(u16::MAX))
            .max(1)
    }
}

pub(super) struct AmqpConsumer {
    pub(super) bus: AmqpBus,
    /// Unique among the process's consumers (channel ids are reused), for [`crate::bus::ack_all`].
    pub(super) id: u64,
    pub(super) channel: Channel,
    pub(super) stream: lapin::Consumer,
    pub(super) queue: String,
}

impl AmqpConsumer {
    fn delivery(&self, delivery: lapin::message::Delivery) -> Delivery {
        if delivery.delivery_tag == 1 {
            // After a failover, what the lost consumer held comes first (redelivered), before
            // anything newer: see `topology` (single active consumer).
            debug!(queue = %self.queue, consumer = self.id, redelivered = delivery.redelivered, "first delivery of a consumer");
        }
        // Published on the events exchange: the routing key is what the broker's topic
        // permissions checked, and the host refuses a type that differs from it.
        let topic_key = (delivery.exchange.as_str() == self.bus.inner.config.events_exchange)
            .then(|| delivery.routing_key.to_string());
        let message = Arc::new(properties::from_properties(
            &delivery.properties,
            delivery.data,
        ));
        let acker = AmqpAcker {
            bus: self.bus.clone(),
            channel: self.channel.clone(),
            consumer: self.id,
            tag: delivery.delivery_tag,
            acker: delivery.acker,
            queue: self.queue.clone(),
            message: message.clone(),
        };
        let delivery = Delivery::new(
            message,
            delivery.redelivered,
            self.queue.clone(),
            Box::new(acker),
        );
        match topic_key {
            Some(key) => delivery.with_topic_routing_key(key),
            None => delivery,
        }
    }

    fn settle_item(
        &self,
        item: Option<lapin::Result<lapin::message::Delivery>>,
    ) -> Result<Delivery, BusError> {
        match item {
            Some(Ok(delivery)) => Ok(self.delivery(delivery)),
            Some(Err(e)) => Err(unavailable(&format!("consuming {}", self.queue), e)),
            None if self.bus.inner.closed.is_cancelled() => Err(BusError::Closed),
            None => Err(BusError::Unavailable(format!(
                "the consumer of {} was cancelled",
                self.queue
            ))),
        }
    }
}

#[async_trait]
impl Consumer for AmqpConsumer {
    async fn next(&mut self) -> Result<Delivery, BusError> {
        let closed = self.bus.inner.closed.clone();
        let item = tokio::select! {
            () = closed.cancelled() => return Err(BusError::Closed),
            item = self.stream.next() => item,
        };
        self.settle_item(item)
    }

    fn try_next(&mut self) -> Option<Delivery> {
        let item = self.stream.next().now_or_never()?;
        self.settle_item(item).ok()
    }
}

impl Drop for AmqpConsumer {
    fn drop(&mut self) {
        // Closing the channel gives back to the queue whatever this consumer had not settled.
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let channel = self.channel.clone();
            handle.spawn(async move {
                let _ = channel.close(200, short("consumer closed")).await;
            });
        }
    }
}

struct AmqpAcker {
    bus: AmqpBus,
    channel: Channel,
    consumer: u64,
    tag: u64,
    acker: lapin::Acker,
    queue: String,
    message: Arc<WireMessage>,
}

/// How long an ack may take to be handed to the connection before the channel is taken for
/// lost (an ack on a connection that just died may otherwise never settle).
const ACK_TIMEOUT: Duration = Duration::from_secs(5);

impl AmqpAcker {
    /// Sends an ack or nack. One on a channel that has gone away is not one: the broker has
    /// requeued the message, and it comes again (to be deduplicated).
    async fn settle(
        &self,
        what: &str,
        send: impl std::future::Future<Output = lapin::Result<bool>>,
    ) -> Result<(), BusError> {
        let gone = || {
            BusError::Unavailable(format!(
                "{what}: the channel is gone; the message will be delivered again"
            ))
        };
        if !self.channel.status().connected() || self.acker.poisoned() {
            return Err(gone());
        }
        match tokio::time::timeout(ACK_TIMEOUT, send).await {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) | Err(_) => Err(gone()),
            Ok(Err(e)) => Err(unavailable(what, e)),
        }
    }
}

#[async_trait]
impl Acker for AmqpAcker {
    async fn ack(self: Box<Self>) -> Result<(), BusError> {
        self.settle("ack", self.acker.ack(BasicAckOptions::default()))
            .await
    }

    async fn requeue(self: Box<Self>) -> Result<(), BusError> {
        let options = BasicNackOptions {
            requeue: true,
            multiple: false,
        };
        self.settle("requeue", self.acker.nack(options)).await
    }

    fn position(&self) -> Option<(u64, u64)> {
        Some((self.consumer, self.tag))
    }

    async fn ack_through(self: Box<Self>) -> Result<(), BusError> {
        self.settle("ack", self.acker.ack(BasicAckOptions { multiple: true }))
            .await
    }

    async fn dead_letter(self: Box<Self>, note: Dead<'_>) -> Result<(), BusError> {
        let dead = dead_letter_of(&self.message, &self.queue, note);
        let exchange = self.bus.inner.config.dead_letters.clone();
        // Confirmed in the dead letters first; only then removed from its queue. A crash between
        // the two leaves a second copy of a dead letter, never none.
        if let Err(error) = self
            .bus
            .publish_confirmed(&exchange, self.message.routing_key(), &dead)
            .await
        {
            // Not moved: put it back now, so that a later ack of the consumer's whole run of
            // deliveries (`multiple`) cannot take it too. It comes again, to be refused again.
            let _ = self
                .settle(
                    "requeue after a failed dead-lettering",
                    self.acker.nack(BasicNackOptions {
                        requeue: true,
                        multiple: false,
                    }),
                )
                .await;
            return Err(error);
        }
        self.settle(
            "ack after dead-lettering",
            self.acker.ack(BasicAckOptions::default()),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::amqp::AmqpConfig;

    #[test]
    fn the_prefetch_is_bounded_in_bytes_too() {
        let mut config = AmqpConfig::new("amqp://127.0.0.1:5672/%2f");
        config.max_message_bytes = 20 * 1024 * 1024;
        config.prefetch_bytes = 100 * 1024 * 1024;
        let bus = AmqpBus::new(config).unwrap();
        assert_eq!(bus.prefetch(256), 5);
        assert_eq!(bus.prefetch(2), 2);
        let small = AmqpBus::new(AmqpConfig::new("amqp://127.0.0.1:5672/%2f")).unwrap();
        assert_eq!(small.prefetch(256), 256, "512 KiB messages, 128 MiB");
        assert_eq!(small.prefetch(0), 1);
    }
}
