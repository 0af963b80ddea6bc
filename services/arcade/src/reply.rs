//! A service's answer to one command: the events it published because of it (their
//! `causation_id` is the command's message id), read from a subscription opened before the
//! command is sent — the admin endpoint's `GET /stream` on the embedded transport, a
//! temporary queue bound to the events on RabbitMQ.

use std::time::Duration;

use arcade_contracts::Envelope;
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Bus, SubscriptionSpec};

use crate::connection::Connection;
use crate::exit::Failure;

/// Events read as they are published, from before a command is sent.
pub enum Replies {
    /// The admin endpoint's stream of JSON lines.
    Stream {
        /// The streaming answer.
        response: reqwest::Response,
        /// Bytes read past the last whole line.
        pending: Vec<u8>,
    },
    /// A temporary queue on RabbitMQ.
    Queue(Box<dyn Consumer>),
}

impl Replies {
    /// Subscribes to the events whose type matches `pattern`, on `bus` when there is one, else
    /// through the admin endpoint of `connection`.
    pub async fn open(
        connection: &Connection,
        bus: Option<&AmqpBus>,
        pattern: &str,
    ) -> anyhow::Result<Replies> {
        if let Some(bus) = bus {
            let spec = SubscriptionSpec::temporary(
                format!("reply.{}", uuid::Uuid::new_v4().simple()),
                vec![pattern.to_string()],
            );
            let consumer = bus.subscribe(&spec).await.map_err(Failure::undelivered)?;
            return Ok(Replies::Queue(consumer));
        }
        let request = crate::auth::http_client(connection.token.as_deref())
            .get(format!("http://{}/stream", connection.admin()))
            .query(&[("pattern", pattern)]);
        let admin = connection.admin();
        let response = connection
            .answer(request, |status| format!("{admin}: {status}"), "refused")
            .await?;
        Ok(Replies::Stream {
            response,
            pending: Vec::new(),
        })
    }

    async fn next(&mut self) -> anyhow::Result<Envelope> {
        match self {
            Replies::Queue(consumer) => {
                let delivery = consumer.next().await?;
                let envelope = lossy_envelope(&delivery.message);
                delivery.ack().await?;
                Ok(envelope)
            }
            Replies::Stream { response, pending } => loop {
                if let Some(end) = pending.iter().position(|b| *b == b'\n') {
                    let line: Vec<u8> = pending.drain(..=end).collect();
                    return Ok(serde_json::from_slice(&line)?);
                }
                match response.chunk().await? {
                    Some(chunk) => pending.extend_from_slice(&chunk),
                    None => anyhow::bail!("the admin endpoint closed the stream of events"),
                }
            },
        }
    }

    /// The first event caused by the message `id` whose type `answers` accepts, within
    /// `timeout`; else a [`Failure::undelivered`] saying the command may still apply.
    pub async fn answer(
        &mut self,
        id: &str,
        answers: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> anyhow::Result<Envelope> {
        let wait = async {
            loop {
                let envelope = self.next().await?;
                if envelope.causation_id.as_deref() == Some(id) && answers(&envelope.message_type) {
                    return Ok::<_, anyhow::Error>(envelope);
                }
            }
        };
        tokio::time::timeout(timeout, wait).await.map_err(|_| {
            Failure::undelivered(format_args!(
                "no answer to {id} within {}s: it may still apply (run the command again with --id {id}: it is applied once)",
                timeout.as_secs_f64()
            ))
        })?
    }
}
