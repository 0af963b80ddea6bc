//! One broker user trying one thing, each on a fresh channel, and the broker's verdict: allowed,
//! or refused with its `ACCESS_REFUSED` reason. Any other failure is an error of the test.

use std::time::Duration;

use futures::StreamExt;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicPublishOptions, ConfirmSelectOptions,
    ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions,
};
use lapin::protocol::{AMQPErrorKind, AMQPSoftError};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{BasicProperties, Channel, Connection, ErrorKind, ExchangeKind};

use crate::OpsError;

/// How long a probe waits for a delivery that must come.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);

/// The broker's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict<T = ()> {
    /// The broker did it (for a consume: the body of the message received).
    Allowed(T),
    /// The broker refused with `ACCESS_REFUSED`; its reason text.
    Refused(String),
}

impl<T> Verdict<T> {
    /// Whether the broker refused.
    pub fn is_refused(&self) -> bool {
        matches!(self, Verdict::Refused(_))
    }
}

/// A connection of one user.
#[derive(Debug)]
pub struct Probe {
    connection: Connection,
    user: String,
}

impl Probe {
    /// Wraps a connection of `user` (for messages).
    pub fn new(connection: Connection, user: &str) -> Self {
        Probe {
            connection,
            user: user.to_string(),
        }
    }

    /// Publishes `body` with routing key `routing_key` on `exchange` (`""`: the default
    /// exchange) with publisher confirms, and waits for the broker's answer.
    pub async fn publish(
        &self,
        exchange: &str,
        routing_key: &str,
        body: &[u8],
    ) -> Result<Verdict, OpsError> {
        let properties = BasicProperties::default().with_type(routing_key.into());
        self.publish_with(exchange, routing_key, body, properties)
            .await
    }

    /// [`Probe::publish`] with the given properties (headers, `user_id`, …), persistent.
    pub async fn publish_with(
        &self,
        exchange: &str,
        routing_key: &str,
        body: &[u8],
        properties: BasicProperties,
    ) -> Result<Verdict, OpsError> {
        let what = format!("{} publishing {routing_key:?} to {exchange:?}", self.user);
        let channel = self.channel(&what).await?;
        let properties = properties.with_delivery_mode(2);
        let sent = channel
            .basic_publish(
                exchange.into(),
                routing_key.into(),
                BasicPublishOptions::default(),
                body,
                properties,
            )
            .await;
        let confirm = match verdict(&what, sent)? {
            Verdict::Allowed(confirm) => confirm,
            Verdict::Refused(reason) => return Ok(Verdict::Refused(reason)),
        };
        match verdict(&what, confirm.await)? {
            Verdict::Allowed(confirmation) if confirmation.is_nack() => Err(OpsError::Timeout(
                format!("{what}: the broker nacked it instead of refusing or confirming"),
            )),
            Verdict::Allowed(_) => close(channel).await,
            Verdict::Refused(reason) => Ok(Verdict::Refused(reason)),
        }
    }

    /// Whether the broker lets this user consume `queue` (consume-ok or refused); takes nothing.
    pub async fn may_consume(&self, queue: &str) -> Result<Verdict, OpsError> {
        let what = format!("{} consuming {queue:?}", self.user);
        let channel = self.channel(&what).await?;
        let consumer = channel
            .basic_consume(
                queue.into(),
                "".into(),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await
            .map(|_| ());
        settle(channel, verdict(&what, consumer)?).await
    }

    /// Starts consuming `queue` and takes (and acks) one message.
    pub async fn consume_one(&self, queue: &str) -> Result<Verdict<Vec<u8>>, OpsError> {
        let what = format!("{} consuming {queue:?}", self.user);
        let channel = self.channel(&what).await?;
        let consumer = channel
            .basic_consume(
                queue.into(),
                "".into(),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await;
        let mut consumer = match verdict(&what, consumer)? {
            Verdict::Allowed(consumer) => consumer,
            Verdict::Refused(reason) => return Ok(Verdict::Refused(reason)),
        };
        let delivery = tokio::time::timeout(DELIVERY_TIMEOUT, consumer.next())
            .await
            .map_err(|_| OpsError::Timeout(format!("{what}: no message in {DELIVERY_TIMEOUT:?}")))?
            .ok_or_else(|| OpsError::Timeout(format!("{what}: the consumer ended")))?
            .map_err(|source| OpsError::Amqp {
                what: what.clone(),
                source,
            })?;
        delivery
            .ack(BasicAckOptions::default())
            .await
            .map_err(|source| OpsError::Amqp {
                what: what.clone(),
                source,
            })?;
        let body = delivery.data.clone();
        close(channel).await?;
        Ok(Verdict::Allowed(body))
    }

    /// Declares a durable exchange of `kind`, as the transport does at start.
    pub async fn declare_exchange(
        &self,
        exchange: &str,
        kind: ExchangeKind,
    ) -> Result<Verdict, OpsError> {
        let what = format!("{} declaring exchange {exchange:?}", self.user);
        let channel = self.channel(&what).await?;
        let options = ExchangeDeclareOptions {
            durable: true,
            ..ExchangeDeclareOptions::default()
        };
        let declared = channel
            .exchange_declare(exchange.into(), kind, options, FieldTable::default())
            .await;
        settle(channel, verdict(&what, declared)?).await
    }

    /// Declares a durable queue as Arcade does (a quorum queue); a service queue dead-letters to
    /// `dead_letter_exchange`.
    pub async fn declare_queue(
        &self,
        queue: &str,
        dead_letter_exchange: Option<&str>,
    ) -> Result<Verdict, OpsError> {
        let what = format!("{} declaring queue {queue:?}", self.user);
        let channel = self.channel(&what).await?;
        // Arcade's quorum arguments (services/runtime/src/bus/amqp/topology.rs), as in
        // ops/rabbitmq/definitions.json: the type, and a single active consumer on a queue that
        // dead-letters (its dead-letter exchange, delivery limit and overflow come from the
        // policy `arcade-queues`).
        let mut arguments = FieldTable::default();
        arguments.insert(
            "x-queue-type".into(),
            AMQPValue::LongString("quorum".into()),
        );
        if dead_letter_exchange.is_some() {
            arguments.insert("x-single-active-consumer".into(), AMQPValue::Boolean(true));
        }
        let options = QueueDeclareOptions {
            durable: true,
            ..QueueDeclareOptions::default()
        };
        let declared = channel
            .queue_declare(queue.into(), options, arguments)
            .await
            .map(|_| ());
        settle(channel, verdict(&what, declared)?).await
    }

    /// Binds `queue` to `exchange` with `binding_key`.
    pub async fn bind(
        &self,
        queue: &str,
        exchange: &str,
        binding_key: &str,
    ) -> Result<Verdict, OpsError> {
        let what = format!(
            "{} binding {queue:?} to {exchange:?} with {binding_key:?}",
            self.user
        );
        let channel = self.channel(&what).await?;
        let bound = channel
            .queue_bind(
                queue.into(),
                exchange.into(),
                binding_key.into(),
                QueueBindOptions::default(),
                FieldTable::default(),
            )
            .await;
        settle(channel, verdict(&what, bound)?).await
    }

    /// Messages ready in `queue` (a passive declare, which changes nothing).
    pub async fn message_count(&self, queue: &str) -> Result<u32, OpsError> {
        let what = format!("{} counting the messages of {queue:?}", self.user);
        let channel = self.channel(&what).await?;
        let options = QueueDeclareOptions {
            passive: true,
            ..QueueDeclareOptions::default()
        };
        let declared = channel
            .queue_declare(queue.into(), options, FieldTable::default())
            .await
            .map_err(|source| OpsError::Amqp {
                what: what.clone(),
                source,
            })?;
        close(channel).await?;
        Ok(declared.message_count())
    }

    async fn channel(&self, what: &str) -> Result<Channel, OpsError> {
        let channel = self
            .connection
            .create_channel()
            .await
            .map_err(|source| OpsError::Amqp {
                what: format!("{what}: opening a channel"),
                source,
            })?;
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await
            .map_err(|source| OpsError::Amqp {
                what: format!("{what}: enabling confirms"),
                source,
            })?;
        Ok(channel)
    }
}

/// Sorts a client result: success, the broker's `ACCESS_REFUSED`, or another failure.
fn verdict<T>(what: &str, result: lapin::Result<T>) -> Result<Verdict<T>, OpsError> {
    match result {
        Ok(value) => Ok(Verdict::Allowed(value)),
        Err(error) => match error.kind() {
            ErrorKind::ProtocolError(amqp)
                if *amqp.kind() == AMQPErrorKind::Soft(AMQPSoftError::ACCESSREFUSED) =>
            {
                Ok(Verdict::Refused(amqp.get_message().to_string()))
            }
            _ => Err(OpsError::Amqp {
                what: what.to_string(),
                source: error,
            }),
        },
    }
}

async fn settle(channel: Channel, verdict: Verdict) -> Result<Verdict, OpsError> {
    match verdict {
        Verdict::Allowed(()) => close(channel).await,
        refused => Ok(refused),
    }
}

async fn close(channel: Channel) -> Result<Verdict, OpsError> {
    channel
        .close(200, "probe done".into())
        .await
        .map_err(|source| OpsError::Amqp {
            what: "closing a probe channel".into(),
            source,
        })?;
    Ok(Verdict::Allowed(()))
}
