//! Reading and replaying the dead letters of a bus: what `arcade dead` does on a bus it opened
//! itself (RabbitMQ, or the embedded bus of a stopped `arcade run`) and what the admin endpoint
//! does for it on the bus of the running process (`GET /dead`, `POST /dead/replay`).
//!
//! A replay sends a dead letter back as its recorded sender ([`arcade_runtime::dead_letter`]),
//! never as the operator who asks: its consumer checks it as that sender again. A dead letter
//! its consumer refused is not replayed (checked as the same sender it would be refused
//! again), nor one whose sender is unknown (format 1 on RabbitMQ). Every replay is recorded
//! ([`super::records`]).

use std::time::Duration;

use arcade_contracts::Catalog;
use arcade_runtime::bus::Consumer;
use arcade_runtime::dead_letter::{
    DeadKind, HEADER_DEAD_FORMAT, HEADER_DEAD_KIND, HEADER_DEAD_SENDER, HEADER_REPLAY_SENDER,
    Recorded, Sender, Transport,
};
use arcade_runtime::dead_origin::check_dead_letter_origin;
use arcade_runtime::inbound::{decode, lossy_envelope};
use arcade_runtime::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON, HEADER_DEAD_ROUTING_KEY};
use arcade_runtime::{Bus, Delivery, Destination, Publication, SubscriptionSpec, WireMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::records::{self, Replayer};

/// How long RabbitMQ may stay silent before every dead letter is taken to be read.
const IDLE: Duration = Duration::from_secs(2);

/// One reader of the dead letters at a time in this process: two consumers of the one queue
/// would each see only part of it.
static READER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// What a replay did: one line per dead letter considered, how many were not replayed, and
/// the error that stopped it early, if one did.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Replayed {
    /// `{"id", "replayed", "queue"|"error"}`, one per dead letter.
    pub lines: Vec<Value>,
    /// Dead letters refused (not replayed).
    pub refused: u32,
    /// What stopped the replay before the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One summary line per dead letter, oldest first, each marked with its `refusal`. `trust`:
/// on RabbitMQ, the deployment's user prefix; `None` on the embedded bus (see [`refusal`]).
pub async fn list(bus: &dyn Bus, trust: Option<&str>) -> anyhow::Result<Vec<Value>> {
    let _reader = READER.lock().await;
    let (consumer, deliveries) = take_all(bus, &bus.dead_letter_queue()).await?;
    let catalog = Catalog::new();
    let lines = deliveries
        .iter()
        .map(|delivery| {
            let mut line = summary(&delivery.message, transport(trust));
            line["refusal"] = json!(refusal(&delivery.message, &catalog, trust));
            line
        })
        .collect();
    give_back(deliveries).await;
    drop(consumer);
    Ok(lines)
}

/// The dead letter with message id `id`, whole, with the records of its replays (`replays`);
/// when it is a dead letter no more but was replayed, `{"id", "replays"}`; `None` when
/// neither.
pub async fn show(bus: &dyn Bus, trust: Option<&str>, id: &str) -> anyhow::Result<Option<Value>> {
    let _reader = READER.lock().await;
    let (consumer, deliveries) = take_all(bus, &bus.dead_letter_queue()).await?;
    let catalog = Catalog::new();
    let found = deliveries
        .iter()
        .find(|d| d.message.message_id.as_deref() == Some(id))
        .map(|d| {
            let mut line = whole(&d.message, transport(trust));
            line["refusal"] = json!(refusal(&d.message, &catalog, trust));
            line
        });
    give_back(deliveries).await;
    drop(consumer);
    let replays = replays_of(bus, id).await?;
    Ok(match found {
        Some(mut line) => {
            line["replays"] = json!(replays);
            Some(line)
        }
        None if !replays.is_empty() => {
            Some(json!({"id": id, "deadLetter": false, "replays": replays}))
        }
        None => None,
    })
}

/// The records of the replays of dead letter `id`, oldest first.
async fn replays_of(bus: &dyn Bus, id: &str) -> anyhow::Result<Vec<Value>> {
    let queue = records::queue(bus);
    let (consumer, deliveries) = take_all(bus, &queue).await?;
    let messages: Vec<&WireMessage> = deliveries.iter().map(|d| d.message.as_ref()).collect();
    let found = records::of(&messages, id);
    give_back(deliveries).await;
    drop(consumer);
    Ok(found)
}

/// Validates the dead letters again (all, or the one with message id `only`) and sends each
/// back to the queue it was taken from as its recorded sender, unless [`refusal`] says why
/// not; records each one considered, for `replayer` ([`records`]).
pub async fn replay(
    bus: &dyn Bus,
    trust: Option<&str>,
    only: Option<&str>,
    replayer: &Replayer,
) -> anyhow::Result<Replayed> {
    let _reader = READER.lock().await;
    let catalog = Catalog::new();
    let (_consumer, deliveries) = take_all(bus, &bus.dead_letter_queue()).await?;
    let mut done = Replayed::default();
    let mut kept = Vec::new();
    let mut deliveries = deliveries.into_iter();
    while let Some(delivery) = deliveries.next() {
        let message = delivery.message.clone();
        let id = message.message_id.clone();
        if only.is_some() && id.as_deref() != only {
            let _ = delivery.requeue().await;
            continue;
        }
        let sender = Recorded::read(&message, transport(trust))
            .ok()
            .and_then(|recorded| recorded.sender.shown().map(str::to_string));
        let line = if let Some(reason) = refusal(&message, &catalog, trust) {
            done.refused += 1;
            let _ = delivery.requeue().await;
            json!({"id": id, "replayed": false, "error": reason})
        } else {
            let queue = header(&message, HEADER_DEAD_QUEUE)
                .unwrap_or_default()
                .to_string();
            let again = as_sender(&message, sender.as_deref().unwrap_or(""), trust.is_some());
            let sent = bus
                .publish(&[Publication {
                    destination: Destination::Queue(queue.clone()),
                    message: again,
                }])
                .await;
            match sent {
                Ok(published) if published.unroutable.is_empty() => {
                    delivery.ack().await?;
                    json!({"id": id, "replayed": true, "queue": queue, "sender": sender})
                }
                Ok(_) => {
                    // Its queue is gone: it is a dead letter again (`unroutable`); this copy
                    // goes.
                    delivery.ack().await?;
                    done.refused += 1;
                    json!({"id": id, "replayed": false, "error": format!("queue {queue} does not exist: dead-lettered again as unroutable")})
                }
                Err(e) => {
                    let _ = delivery.requeue().await;
                    for rest in deliveries.by_ref() {
                        let _ = rest.requeue().await;
                    }
                    let error = format!("replaying {id:?} to {queue}: {e}");
                    done.error = Some(error.clone());
                    json!({"id": id, "replayed": false, "error": error})
                }
            }
        };
        kept.push(records::record(
            replayer,
            id.as_deref(),
            sender.as_deref(),
            &line,
        ));
        if done.error.is_none() {
            done.lines.push(line);
        }
    }
    if let Err(e) = records::keep(bus, &kept).await {
        let error = format!("{e:#}");
        done.error = Some(match done.error.take() {
            Some(first) => format!("{first}; {error}"),
            None => error,
        });
    }
    Ok(done)
}

/// The message of a dead letter as it is replayed for `sender` (`""`: none proven): its
/// dead-letter headers left out; on the embedded bus with `sender` as its `user_id`; on
/// RabbitMQ, which stamps the replaying user as `user_id`, with `sender` in the replay header,
/// which its consumer honours from the operator's user only.
pub fn as_sender(message: &WireMessage, sender: &str, broker: bool) -> WireMessage {
    let mut again = message.clone();
    for key in [
        HEADER_DEAD_REASON,
        HEADER_DEAD_QUEUE,
        HEADER_DEAD_ROUTING_KEY,
        HEADER_DEAD_FORMAT,
        HEADER_DEAD_SENDER,
        HEADER_DEAD_KIND,
    ] {
        again.headers.remove(key);
    }
    if broker {
        again
            .headers
            .insert(HEADER_REPLAY_SENDER.into(), sender.to_string());
    } else {
        again.headers.remove(HEADER_REPLAY_SENDER);
        again.user_id = Some(sender.to_string()).filter(|s| !s.is_empty());
    }
    again
}

/// How the dead letters of `trust`'s transport recorded their sender in format 1.
fn transport(trust: Option<&str>) -> Transport {
    if trust.is_some() {
        Transport::Broker
    } else {
        Transport::Embedded
    }
}

/// Every message of `queue` (the dead letters, the replay records), unsettled (held by the
/// consumer returned), oldest first.
async fn take_all(
    bus: &dyn Bus,
    queue: &str,
) -> anyhow::Result<(Box<dyn Consumer>, Vec<Delivery>)> {
    let mut spec = SubscriptionSpec::durable(queue, Vec::new());
    spec.prefetch = u16::MAX;
    let mut consumer = bus
        .subscribe(&spec)
        .await
        .map_err(|e| anyhow::anyhow!("cannot read {queue}: {e}"))?;
    let mut deliveries = Vec::new();
    loop {
        if let Some(delivery) = consumer.try_next() {
            deliveries.push(delivery);
            continue;
        }
        if bus.queue_depth(queue).is_some() {
            // The embedded bus hands out everything it holds at once.
            break;
        }
        match tokio::time::timeout(IDLE, consumer.next()).await {
            Ok(Ok(delivery)) => deliveries.push(delivery),
            Ok(Err(e)) => anyhow::bail!("reading {queue}: {e}"),
            Err(_) => break,
        }
    }
    Ok((consumer, deliveries))
}

/// Puts back what was only looked at.
async fn give_back(deliveries: Vec<Delivery>) {
    for delivery in deliveries {
        let _ = delivery.requeue().await;
    }
}

fn header<'a>(message: &'a WireMessage, key: &str) -> Option<&'a str> {
    message.headers.get(key).map(String::as_str)
}

/// A dead letter's summary: id, type, reason, kind, queue, sender (the recorded one: `""`
/// for none proven, `null` when unknown), the `user_id` it came to the dead letters with
/// (on RabbitMQ, whoever dead-lettered it) and its format.
pub fn summary(message: &WireMessage, transport: Transport) -> Value {
    let recorded = Recorded::read(message, transport);
    let (sender, kind, format) = match &recorded {
        Ok(r) => (r.sender.shown(), Some(r.kind.as_str()), Some(r.format)),
        Err(_) => (None, None, None),
    };
    json!({
        "id": message.message_id,
        "type": message.message_type,
        "reason": header(message, HEADER_DEAD_REASON),
        "kind": kind,
        "queue": header(message, HEADER_DEAD_QUEUE),
        "routingKey": header(message, HEADER_DEAD_ROUTING_KEY),
        "sender": sender,
        "userId": message.user_id,
        "producer": message.app_id,
        "occurredAt": message.occurred_at,
        "bytes": message.body.len(),
        "format": format,
    })
}

fn whole(message: &WireMessage, transport: Transport) -> Value {
    let mut line = summary(message, transport);
    line["headers"] = json!(message.headers);
    line["envelope"] = serde_json::to_value(lossy_envelope(message)).unwrap_or(Value::Null);
    line
}

/// Why a dead letter cannot be replayed, if it cannot. `trust`: on RabbitMQ, the deployment's
/// user prefix (the dead letter must be Arcade's own); `None` on the embedded bus, whose store
/// is written by its process alone. Not replayed either: one its consumer refused (checked as
/// its sender again, it would be refused again), one whose sender is unknown.
pub fn refusal(message: &WireMessage, catalog: &Catalog, trust: Option<&str>) -> Option<String> {
    if let Some(prefix) = trust
        && let Err(foreign) = check_dead_letter_origin(message, prefix)
    {
        return Some(foreign.to_string());
    }
    if header(message, HEADER_DEAD_QUEUE).is_none_or(str::is_empty) {
        return Some("no origin queue (x-arcade-dead-queue)".into());
    }
    let recorded = match Recorded::read(message, transport(trust)) {
        Ok(recorded) => recorded,
        Err(why) => return Some(why),
    };
    let sender = match &recorded.sender {
        Sender::Unknown(why) => {
            return Some(format!(
                "its sender is unknown ({why}): a replay would have no sender to be checked as; send it again as its sender"
            ));
        }
        Sender::Proven(name) => name.as_str(),
        Sender::Anonymous => "(none proven)",
    };
    if recorded.kind == DeadKind::Refused {
        return Some(format!(
            "its consumer refused it from its sender {sender} ({}): a replay is checked as that sender and cannot turn the refusal into an acceptance; not replayed",
            header(message, HEADER_DEAD_REASON).unwrap_or("")
        ));
    }
    // Decodable at all (type, schema), whoever sends it: its consumer checks its sender (and
    // its signature, if signed) when it comes.
    decode(&as_sender(message, "", false), catalog, 0, None).err()
}
