//! A service's answer to one command: the events it published because of it (their
//! `causation_id` is the command's message id), read from a subscription opened before the
//! command is sent — the admin endpoint's `GET /stream` on the embedded transport, a
//! temporary queue bound to the events on RabbitMQ. [`ask`] sends a command and waits for
//! that answer: what every organiser command (`arcade referee start`, `arcade bingo deal` …)
//! does.

use std::time::Duration;

use arcade_contracts::Envelope;
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Bus, SubscriptionSpec};
use serde_json::Value;

use crate::connection::{Connection, tool_bus};
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

/// The message id of a command, and how long to wait for the service's answer.
#[derive(Debug, Clone, clap::Args)]
pub struct AnswerArgs {
    /// The message id (an idempotency key): a command sent again with the same id is applied
    /// once. Absent: a fresh one, printed in the error when no answer comes.
    #[arg(long = "id", value_name = "ID")]
    pub id: Option<String>,
    /// Seconds to wait for the service's answer; none in time exits 3 (it may still apply).
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub timeout: f64,
}

/// A command to one service, and the events that answer it.
#[derive(Debug)]
pub struct Question<'a> {
    /// The command's message type.
    pub message_type: &'a str,
    /// Its payload (validated against its schema before anything is sent).
    pub payload: Value,
    /// The events to read, as a routing pattern (`table.#`, `bingo.#`).
    pub pattern: &'a str,
    /// The types of its answers, a refusal's among them.
    pub answers: &'a [&'a str],
    /// The producer the command carries, which is also the tool's name on the broker.
    pub producer: &'a str,
}

/// Sends `question`'s command with the message id of `answer` (a fresh one when none), through
/// RabbitMQ when `connection` names a broker, else the admin endpoint, and waits for the
/// first event caused by it whose type is one of its answers: the id sent and that event.
/// The caller says whether the answer is a refusal.
pub async fn ask(
    connection: &Connection,
    answer: &AnswerArgs,
    question: Question<'_>,
) -> anyhow::Result<(String, Envelope)> {
    let timeout = Duration::try_from_secs_f64(answer.timeout)
        .map_err(|e| Failure::invalid(format_args!("--timeout {}: {e}", answer.timeout)))?;
    let id = answer
        .id
        .clone()
        .unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let bus = tool_bus(&connection.broker, question.producer).await?;
    let mut replies = Replies::open(connection, bus.as_ref(), question.pattern).await?;
    crate::client::deliver(
        connection,
        bus.as_ref(),
        question.message_type,
        question.payload,
        question.producer,
        Some(id.clone()),
    )
    .await?;
    let answers = question.answers;
    let reply = replies
        .answer(&id, |t| answers.contains(&t), timeout)
        .await?;
    Ok((id, reply))
}
