//! Declaring on the broker, idempotently: a subscription's durable queue and its bindings (or
//! more bindings of a queue), the commands binding, a partitioned service's consistent-hash
//! exchange and queues, the history stream; and why a declaration failed, told so the operator
//! knows what to do.

use std::sync::Arc;

use lapin::options::{ExchangeBindOptions, ExchangeDeclareOptions};
use lapin::types::{AMQPValue, FieldTable, LongString};
use lapin::{Channel, Connection, ExchangeKind};
use tracing::warn;

use super::topology::{self, QueueType};
use super::{AmqpBus, declare_durable, queue_bind, short, unavailable};
use crate::bus::partition::{CONSISTENT_HASH, HEADER_PARTITION_KEY, Partitioned};
use crate::bus::{BusError, SubscriptionSpec};

impl AmqpBus {
    /// Declares the durable queue of `spec`, its partitions and its bindings, without consuming.
    pub(super) async fn declare_subscription(
        &self,
        spec: &SubscriptionSpec,
    ) -> Result<(), BusError> {
        self.declare_queue(&spec.queue, &spec.bindings, spec.partition.as_ref())
            .await
    }

    /// Binds `patterns` on the events exchange to the durable queue `queue`, declared first
    /// (idempotently, with its commands binding), without consuming.
    pub(super) async fn bind_queue(
        &self,
        queue: &str,
        patterns: &[String],
    ) -> Result<(), BusError> {
        self.declare_queue(queue, patterns, None).await
    }

    /// Declares the durable queue `queue`, its partitions (`partition`) and its bindings
    /// (`patterns`, and the commands binding), on a channel of its own.
    async fn declare_queue(
        &self,
        queue: &str,
        patterns: &[String],
        partition: Option<&Partitioned>,
    ) -> Result<(), BusError> {
        let (connection, channel) = self.open_channel().await?;
        let setup = async {
            self.declare_service_queue(&connection, &channel, queue, partition)
                .await?;
            self.bind_events(&channel, queue, patterns).await
        };
        let result = setup.await;
        let _ = channel.close(200, short("declared")).await;
        if let (Err(e), Some(partitioned)) = (&result, partition)
            && missing_plugin(e)
        {
            return Err(BusError::Misconfigured(
                self.partitions_error(partitioned, e),
            ));
        }
        match result {
            Ok(()) => Ok(()),
            Err(e) if connection.status().connected() => Err(BusError::Refused(match partition {
                Some(partitioned) if !topology::inequivalent(&e.to_string()) => {
                    self.partitions_error(partitioned, &e)
                }
                _ => self.declare_error(&connection, queue, &e).await,
            })),
            Err(e) => Err(unavailable(&format!("cannot declare queue {queue}"), e)),
        }
    }

    /// A channel of its own on the current connection, with that connection.
    pub(super) async fn open_channel(&self) -> Result<(Arc<Connection>, Channel), BusError> {
        let (connection, _) = self.connection().await?;
        let channel = connection
            .create_channel()
            .await
            .map_err(|e| unavailable("cannot open a channel", e))?;
        Ok((connection, channel))
    }

    /// Declares a service's durable queue `queue` on `channel`: its partitions first
    /// (`partition`), then the queue, then its commands binding (on a channel of its own).
    pub(super) async fn declare_service_queue(
        &self,
        connection: &Connection,
        channel: &Channel,
        queue: &str,
        partition: Option<&Partitioned>,
    ) -> lapin::Result<()> {
        if let Some(partitioned) = partition {
            self.declare_partitions(channel, partitioned).await?;
        }
        self.declare_durable_queue(channel, queue).await?;
        self.bind_commands(connection, queue).await;
        Ok(())
    }

    /// Binds `queue` to the events exchange with each of `patterns`.
    pub(super) async fn bind_events(
        &self,
        channel: &Channel,
        queue: &str,
        patterns: &[String],
    ) -> lapin::Result<()> {
        for pattern in patterns {
            queue_bind(channel, queue, &self.inner.config.events_exchange, pattern).await?;
        }
        Ok(())
    }

    /// Declares the history stream and binds it to every event, on a channel of its own: a
    /// stream that exists with other retention arguments is kept as it is, with a warning.
    pub(super) async fn declare_history(&self, connection: &Connection) {
        let config = &self.inner.config;
        let Some(history) = config
            .history
            .as_ref()
            .filter(|_| config.expire_after.is_none())
        else {
            return;
        };
        let declare = async {
            let channel = connection.create_channel().await?;
            declare_durable(&channel, &history.stream, history.arguments()).await?;
            queue_bind(&channel, &history.stream, &config.events_exchange, "#").await?;
            channel.close(200, short("history declared")).await
        };
        if let Err(e) = declare.await {
            warn!(
                %e,
                stream = %history.stream,
                max_bytes = history.max_bytes,
                max_age = %history.max_age,
                "cannot declare the history stream (other retention than ARCADE_HISTORY_MAX_BYTES / ARCADE_HISTORY_MAX_AGE, or no permission); relying on the broker's"
            );
        }
    }

    /// The arguments of a durable queue: every queue but the dead letters' dead-letters to them.
    pub(super) fn queue_arguments(&self, queue: &str) -> FieldTable {
        let config = &self.inner.config;
        let dead_letters = (queue != config.dead_letters).then_some(config.dead_letters.as_str());
        topology::durable_arguments(config.queue_type, dead_letters, config.expire_after)
    }

    /// Why declaring `queue` failed, told so the operator knows what to do. A queue that
    /// exists with other arguments is probed (on a channel of its own) with Arcade's arguments
    /// of the other queue type, to say which type it has.
    pub(super) async fn declare_error(
        &self,
        connection: &Connection,
        queue: &str,
        error: &lapin::Error,
    ) -> String {
        let text = error.to_string();
        if !topology::inequivalent(&text) {
            return format!("cannot declare queue {queue}: {text}");
        }
        let config = &self.inner.config;
        let other = match config.queue_type {
            QueueType::Quorum => QueueType::Classic,
            QueueType::Classic => QueueType::Quorum,
        };
        let dead_letters = (queue != config.dead_letters).then_some(config.dead_letters.as_str());
        let mut found = None;
        for arguments in [
            topology::durable_arguments(other, dead_letters, config.expire_after),
            topology::earlier_arguments(other, dead_letters, config.expire_after),
        ] {
            if declares(connection, queue, arguments).await {
                found = Some(other);
                break;
            }
        }
        topology::explain(queue, config.queue_type, found, &text)
    }

    /// Declares the durable queue `queue` with Arcade's arguments for it, or with those of an
    /// earlier release when it exists with them (kept as it is, with a warning).
    pub(super) async fn declare_durable_queue(
        &self,
        channel: &Channel,
        queue: &str,
    ) -> lapin::Result<()> {
        let arguments = self.arguments_in_place(queue).await;
        declare_durable(channel, queue, arguments).await
    }

    /// The arguments to declare `queue` with: Arcade's, unless the queue exists with those an
    /// earlier release declared (settings the policy now gives). Each is tried on a channel of
    /// its own, since a refused declaration closes its channel; when neither fits, Arcade's
    /// (the declaration then fails and [`AmqpBus::declare_error`] says why).
    async fn arguments_in_place(&self, queue: &str) -> FieldTable {
        let config = &self.inner.config;
        let arguments = self.queue_arguments(queue);
        let Ok((connection, _)) = self.connection().await else {
            return arguments;
        };
        if declares(&connection, queue, arguments.clone()).await {
            return arguments;
        }
        let dead_letters = (queue != config.dead_letters).then_some(config.dead_letters.as_str());
        let earlier =
            topology::earlier_arguments(config.queue_type, dead_letters, config.expire_after);
        if declares(&connection, queue, earlier.clone()).await {
            warn!(queue, "{}", topology::kept_with_earlier_arguments(queue));
            return earlier;
        }
        arguments
    }

    /// The topology of a partitioned service, declared idempotently by each of its instances
    /// before it consumes: the consistent-hash exchange `S.partitions` (hashing the header
    /// `x-arcade-partition-key`), bound from the events exchange with the per-game patterns and
    /// from the commands exchange with key `S` (so commands sent to queue `S` reach the
    /// partitions and are not unroutable), and every partition's queue, bound to it with weight
    /// "1".
    ///
    /// The queues are bound in lexicographic order of their names, always: the exchange numbers
    /// its hash-ring buckets in the order bindings are added, and when the broker restarts it
    /// rebuilds the ring from the stored bindings, which come back in that order
    /// (`rabbit_exchange_type_consistent_hash.erl`). Binding in the same order from the start
    /// keeps the game → partition map the same across broker restarts. Binding again what is
    /// bound changes nothing (the broker adds no second binding), so instances starting
    /// together agree.
    pub(super) async fn declare_partitions(
        &self,
        channel: &Channel,
        partitioned: &Partitioned,
    ) -> lapin::Result<()> {
        let config = &self.inner.config;
        let exchange = partitioned.exchange();
        let mut arguments = FieldTable::default();
        arguments.insert(
            short("hash-header"),
            AMQPValue::LongString(LongString::from(HEADER_PARTITION_KEY.to_string())),
        );
        channel
            .exchange_declare(
                short(&exchange),
                ExchangeKind::Custom(CONSISTENT_HASH.to_string()),
                ExchangeDeclareOptions {
                    durable: true,
                    auto_delete: config.expire_after.is_some(),
                    ..ExchangeDeclareOptions::default()
                },
                arguments,
            )
            .await?;
        let from_events = partitioned
            .keyed
            .iter()
            .map(|p| (&config.events_exchange, p));
        let from_commands = (&config.commands_exchange, &partitioned.service);
        for (source, key) in from_events.chain([from_commands]) {
            channel
                .exchange_bind(
                    short(&exchange),
                    short(source),
                    short(key),
                    ExchangeBindOptions::default(),
                    FieldTable::default(),
                )
                .await?;
        }
        for queue in partitioned.queues() {
            self.declare_durable_queue(channel, &queue).await?;
            queue_bind(channel, &queue, &exchange, "1").await?;
        }
        Ok(())
    }

    /// Why declaring a partitioned service's topology failed, told so the operator knows what
    /// to do.
    pub(super) fn partitions_error(
        &self,
        partitioned: &Partitioned,
        error: &lapin::Error,
    ) -> String {
        let text = error.to_string();
        let hint = if text.contains("x-consistent-hash") || text.contains("exchange type") {
            ": the broker lacks the plugin rabbitmq_consistent_hash_exchange; enable it with \
             `rabbitmq-plugins enable rabbitmq_consistent_hash_exchange` (or list it in \
             enabled_plugins)"
        } else {
            ""
        };
        format!(
            "cannot declare the partitions of {} (exchange {}): {text}{hint}",
            partitioned.service,
            partitioned.exchange()
        )
    }

    /// Binds a durable queue to the commands exchange under its own name, on a channel of its
    /// own: a user whose definitions hold the binding already, and who may not make it, still
    /// consumes its queue.
    pub(super) async fn bind_commands(&self, connection: &Connection, queue: &str) {
        if queue == self.inner.config.dead_letters {
            // Dead letters are taken, never sent to.
            return;
        }
        let bind = async {
            let channel = connection.create_channel().await?;
            let bound =
                queue_bind(&channel, queue, &self.inner.config.commands_exchange, queue).await;
            let _ = channel.close(200, short("commands bound")).await;
            bound
        };
        if let Err(e) = bind.await {
            warn!(
                %e,
                queue,
                commands = %self.inner.config.commands_exchange,
                "cannot bind the queue to the commands exchange; relying on the broker's definitions"
            );
        }
    }
}

/// Whether `error` says the broker lacks the consistent-hash exchange type (RabbitMQ closes the
/// connection with `COMMAND_INVALID - unknown exchange type 'x-consistent-hash'`).
pub(super) fn missing_plugin(error: &lapin::Error) -> bool {
    let text = error.to_string();
    text.contains("unknown exchange type") && text.contains(CONSISTENT_HASH)
}

/// Whether declaring the durable queue `queue` with `arguments` succeeds, on a channel of its
/// own (idempotent when the queue exists with those arguments; creates it otherwise).
async fn declares(connection: &Connection, queue: &str, arguments: FieldTable) -> bool {
    let Ok(channel) = connection.create_channel().await else {
        return false;
    };
    let declared = declare_durable(&channel, queue, arguments).await.is_ok();
    if declared {
        let _ = channel.close(200, short("probed")).await;
    }
    declared
}
