//! `arcade tap`, `arcade send` and `arcade types`: tools that reach running services, through
//! the admin endpoint of `arcade run` (embedded transport) or through RabbitMQ directly. A
//! message sent is published in a producer span, the root of its trace ([`crate::traced`]).

use std::io::{Read, Write};
use std::process::ExitCode;

use arcade_contracts::{Catalog, Envelope};
use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::bus::amqp::history::HISTORY_STREAM;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Bus, BusError, Runtime, SendError, SubscriptionSpec};
use clap::Args;
use serde_json::Value;

use crate::connection::{Connection, tool_bus};
use crate::exit::Failure;
use crate::traced::Outgoing;
use tracing::Instrument;

/// Unacked history deliveries a tap holds at once (a stream consumer needs a prefetch).
const TAP_PREFETCH: u16 = 256;

/// `arcade tap`.
#[derive(Debug, Args)]
pub struct TapArgs {
    /// Topic pattern over message types: `*` is one word, `#` zero or more (`game.#`, `#`).
    #[arg(default_value = "#")]
    pub pattern: String,
    /// Stop after this many messages.
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Replay the history first, then follow: from `first` (the oldest event kept), `last`
    /// (the newest few), an RFC 3339 timestamp (e.g. 2026-12-02T19:30:00Z) or an offset in the
    /// history stream (an integer, 0 the first event ever). Needs RabbitMQ (--amqp /
    /// ARCADE_AMQP_URL): the history is the stream `arcade.history` that `arcade run` keeps
    /// there; the embedded bus keeps none (`arcade log` reads a service's own log). Absent:
    /// only what comes from now on.
    #[arg(long = "from", value_name = "first|last|TIMESTAMP|OFFSET")]
    pub from: Option<arcade_runtime::bus::amqp::StreamOffset>,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade send`.
#[derive(Debug, Args)]
pub struct SendArgs {
    /// Message type, e.g. `game.session.completed.v1`.
    #[arg(value_name = "TYPE")]
    pub message_type: String,
    /// File holding the JSON payload, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    pub file: String,
    /// Producer name the message carries (AMQP app_id).
    #[arg(long, default_value = "arcade-cli")]
    pub producer: String,
    /// The message id (an idempotency key: sent again, it is applied once). Absent: a fresh
    /// one. A send whose answer is lost is retried with the same id either way.
    #[arg(long = "id", value_name = "ID")]
    pub id: Option<String>,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// `arcade types`.
#[derive(Debug, Args)]
pub struct TypesArgs {
    /// Print this type's JSON Schema.
    #[arg(long, value_name = "TYPE", conflicts_with = "example")]
    pub schema: Option<String>,
    /// Print this type's example payload.
    #[arg(long, value_name = "TYPE")]
    pub example: Option<String>,
}

/// A path segment, percent-encoded.
pub fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

fn admin_url(connection: &Connection, path: &str) -> String {
    format!("http://{}{path}", connection.admin())
}

pub async fn tap(args: TapArgs) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let mut printed = 0u64;
    let limit = args.count.unwrap_or(u64::MAX);
    if let Some(bus) = tool_bus(&args.connection.broker, "arcade tap").await? {
        let mut consumer = match args.from {
            Some(from) => bus
                .replay(HISTORY_STREAM, &args.pattern, from, TAP_PREFETCH)
                .await
                .map_err(|e| {
                    let why = match e {
                        BusError::Refused(reason) => reason,
                        other => other.to_string(),
                    };
                    anyhow::anyhow!("--from {from}: {why} (`arcade run` on this broker declares the stream, and so do ops/rabbitmq/definitions.json)")
                })?,
            None => {
                let spec = SubscriptionSpec::temporary(
                    format!("tap.{}", uuid::Uuid::new_v4().simple()),
                    vec![args.pattern.clone()],
                );
                bus.subscribe(&spec).await?
            }
        };
        eprintln!("tapping {} on {}", args.pattern, bus.name());
        while printed < limit {
            let delivery = consumer.next().await?;
            serde_json::to_writer(&mut stdout, &lossy_envelope(&delivery.message))?;
            writeln!(stdout)?;
            stdout.flush()?;
            delivery.ack().await?;
            printed += 1;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.from.is_some() {
        return Err(Failure::invalid(
            "--from needs RabbitMQ (--amqp / ARCADE_AMQP_URL): the history it replays is the stream arcade.history there; the embedded bus keeps no shared history (each service's own log is readable with `arcade log`)",
        ));
    }
    let client = crate::auth::http_client(args.connection.token.as_deref());
    let admin = args.connection.admin();
    let request = client
        .get(admin_url(&args.connection, "/stream"))
        .query(&[("pattern", &args.pattern)]);
    let refused = |status| format!("{admin}: {status}");
    let mut response = args.connection.answer(request, refused, "refused").await?;
    eprintln!("tapping {} on {admin}", args.pattern);
    let mut pending = Vec::new();
    while printed < limit {
        let Some(chunk) = response.chunk().await? else {
            break;
        };
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            stdout.write_all(&line)?;
            stdout.flush()?;
            printed += 1;
            if printed >= limit {
                break;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn read_payload(file: &str) -> anyhow::Result<String> {
    let mut text = String::new();
    if file == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(file)
            .map_err(|e| Failure::invalid(format_args!("{file}: {e}")))?;
    }
    Ok(text)
}

pub async fn send(args: SendArgs) -> anyhow::Result<ExitCode> {
    let text = read_payload(&args.file)?;
    let payload: Value = serde_json::from_str(&text)
        .map_err(|e| Failure::invalid(format_args!("{}: not JSON: {e}", args.file)))?;
    publish_with_id(
        &args.connection,
        &args.message_type,
        payload,
        &args.producer,
        args.id,
    )
    .await
}

/// Attempts of a send whose outcome is unknown (the connection broke after the request went
/// out, the bus did not confirm): each with the same message id, so it is applied once.
const ATTEMPTS: u32 = 6;

/// Whether an HTTP failure leaves the outcome unknown (the request may have been applied).
fn ambiguous(error: &reqwest::Error) -> bool {
    !error.is_connect() && !error.is_builder()
}

/// Validates `payload` and publishes it with the message id `id` (a fresh one when `None`),
/// through the broker or the admin endpoint; prints the envelope. Exit codes
/// (`crate::exit`): 2 for a payload its schema refuses, 1 for a missing or wrong token, 3 when
/// it could not be delivered (a command no queue takes; no broker or `arcade run` answering).
pub async fn publish_with_id(
    connection: &Connection,
    message_type: &str,
    payload: Value,
    producer: &str,
    id: Option<String>,
) -> anyhow::Result<ExitCode> {
    let bus = tool_bus(&connection.broker, "arcade send").await?;
    let envelope = deliver(
        connection,
        bus.as_ref(),
        message_type,
        payload,
        producer,
        id,
    )
    .await?;
    println!("{}", serde_json::to_string(&envelope)?);
    Ok(ExitCode::SUCCESS)
}

/// Validates `payload` and publishes it with the message id `id` (a fresh one when `None`),
/// on `bus` when there is one, else through the admin endpoint; the envelope sent. A send
/// whose outcome is unknown is retried with that same id, up to [`ATTEMPTS`] times. Errors
/// carry their exit code (`crate::exit::Failure`).
pub async fn deliver(
    connection: &Connection,
    bus: Option<&AmqpBus>,
    message_type: &str,
    payload: Value,
    producer: &str,
    id: Option<String>,
) -> anyhow::Result<Envelope> {
    // Refuse locally first: nothing invalid is ever published.
    if let Err(e) = crate::traced::catalog().validate(message_type, &payload) {
        return Err(Failure::invalid(e));
    }
    let id = id.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let pause = |attempt: u32| {
        tokio::time::sleep(std::time::Duration::from_millis(100u64 << attempt.min(6)))
    };
    if let Some(bus) = bus {
        let runtime = Runtime::new(std::sync::Arc::new(bus.clone()));
        let mut attempt = 1;
        loop {
            let options = arcade_runtime::SendOptions {
                message_id: Some(id.clone()),
                sender: None,
                traceparent: None,
            };
            match runtime
                .send_with(message_type, payload.clone(), producer, options)
                .await
            {
                Ok(envelope) => return Ok(envelope),
                Err(e @ SendError::NotConsumed { .. }) => return Err(Failure::undelivered(e)),
                Err(e @ (SendError::Invalid(_) | SendError::Unroutable { .. })) => {
                    return Err(Failure::invalid(e));
                }
                Err(SendError::Bus(e)) if attempt < ATTEMPTS => {
                    eprintln!("send {id}: {e}; retrying with the same id");
                    pause(attempt).await;
                    attempt += 1;
                }
                Err(e) => {
                    return Err(Failure::undelivered(format_args!(
                        "{e} (sent again with --id {id}, it is applied once)"
                    )));
                }
            }
        }
    }
    let client = crate::auth::http_client(connection.token.as_deref());
    let outgoing = Outgoing::new(message_type, &payload, &id, producer, None);
    let mut attempt = 1;
    let response = loop {
        let request = client
            .post(admin_url(connection, &format!("/messages/{message_type}")))
            .query(&[("producer", producer)])
            .header("Idempotency-Key", &id)
            .json(&payload);
        let sent = outgoing
            .carried(request)
            .send()
            .instrument(outgoing.span.clone())
            .await;
        match sent {
            Ok(response)
                if response.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE
                    && attempt < ATTEMPTS =>
            {
                eprintln!("send {id}: the bus did not confirm; retrying with the same id");
            }
            Ok(response) => break response,
            Err(e) if ambiguous(&e) && attempt < ATTEMPTS => {
                eprintln!("send {id}: no answer ({e}); retrying with the same id");
            }
            Err(e) => return Err(connection.unreachable(&e)),
        }
        pause(attempt).await;
        attempt += 1;
    };
    let status = response.status();
    let body: Value = response.json().await.unwrap_or_default();
    if !status.is_success() {
        let message = body["error"].as_str().unwrap_or("refused").to_string();
        // 404: no queue takes the command; 503: the bus did not confirm. Else the token (401,
        // 403) or the payload (400).
        let code = match status {
            reqwest::StatusCode::NOT_FOUND => crate::exit::UNDELIVERED,
            other => crate::exit::for_status(other),
        };
        return Err(Failure {
            code,
            message: if code == crate::exit::UNDELIVERED {
                format!("{message} (sent again with --id {id}, it is applied once)")
            } else {
                message
            },
        }
        .into());
    }
    Ok(serde_json::from_value(body)?)
}

pub fn types(args: TypesArgs) -> anyhow::Result<ExitCode> {
    let catalog = Catalog::new();
    let lookup = |name: &str| {
        catalog
            .get(name)
            .cloned()
            .ok_or_else(|| Failure::invalid(format_args!("unknown message type \"{name}\"")))
    };
    if let Some(name) = args.schema {
        println!(
            "{}",
            serde_json::to_string_pretty(&lookup(&name)?.schema())?
        );
    } else if let Some(name) = args.example {
        println!(
            "{}",
            serde_json::to_string_pretty(&lookup(&name)?.example())?
        );
    } else {
        for t in catalog.types() {
            let kind = match t.kind {
                arcade_contracts::MessageKind::Event => "event",
                arcade_contracts::MessageKind::Command => "command",
            };
            println!("{:<40} {kind}", t.name);
        }
    }
    Ok(ExitCode::SUCCESS)
}
