//! Reading and replaying the dead letters of a bus: what `arcade dead` does on a bus it opened
//! itself (RabbitMQ, or the embedded bus of a stopped `arcade run`) and what the admin endpoint
//! does for it on the bus of the running process (`GET /dead`, `POST /dead/replay`).

use std::time::Duration;

use arcade_contracts::Catalog;
use arcade_runtime::bus::Consumer;
use arcade_runtime::dead_origin::check_dead_letter_origin;
use arcade_runtime::inbound::{decode, lossy_envelope};
use arcade_runtime::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON, HEADER_DEAD_ROUTING_KEY};
use arcade_runtime::{Bus, Delivery, Destination, Publication, SubscriptionSpec, WireMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

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
    let (consumer, deliveries) = take_all(bus).await?;
    let catalog = Catalog::new();
    let lines = deliveries
        .iter()
        .map(|delivery| {
            let mut line = summary(&delivery.message);
            line["refusal"] = json!(refusal(&delivery.message, &catalog, trust));
            line
        })
        .collect();
    give_back(deliveries).await;
    drop(consumer);
    Ok(lines)
}

/// The dead letter with message id `id`, whole, if there is one.
pub async fn show(bus: &dyn Bus, trust: Option<&str>, id: &str) -> anyhow::Result<Option<Value>> {
    let _reader = READER.lock().await;
    let (consumer, deliveries) = take_all(bus).await?;
    let catalog = Catalog::new();
    let found = deliveries
        .iter()
        .find(|d| d.message.message_id.as_deref() == Some(id))
        .map(|d| {
            let mut line = whole(&d.message);
            line["refusal"] = json!(refusal(&d.message, &catalog, trust));
            line
        });
    give_back(deliveries).await;
    drop(consumer);
    Ok(found)
}

/// Validates the dead letters again (all, or the one with message id `only`) and sends each
/// back to the queue it was taken from, as it is (same sender, same id).
pub async fn replay(
    bus: &dyn Bus,
    trust: Option<&str>,
    only: Option<&str>,
) -> anyhow::Result<Replayed> {
    let _reader = READER.lock().await;
    let catalog = Catalog::new();
    let (_consumer, deliveries) = take_all(bus).await?;
    let mut done = Replayed::default();
    let mut deliveries = deliveries.into_iter();
    while let Some(delivery) = deliveries.next() {
        let message = delivery.message.clone();
        let id = message.message_id.clone();
        if only.is_some() && id.as_deref() != only {
            let _ = delivery.requeue().await;
            continue;
        }
        if let Some(reason) = refusal(&message, &catalog, trust) {
            done.refused += 1;
            done.lines
                .push(json!({"id": id, "replayed": false, "error": reason}));
            let _ = delivery.requeue().await;
            continue;
        }
        let queue = header(&message, HEADER_DEAD_QUEUE)
            .unwrap_or_default()
            .to_string();
        let mut again = (*message).clone();
        for key in [
            HEADER_DEAD_REASON,
            HEADER_DEAD_QUEUE,
            HEADER_DEAD_ROUTING_KEY,
        ] {
            again.headers.remove(key);
        }
        let sent = bus
            .publish(&[Publication {
                destination: Destination::Queue(queue.clone()),
                message: again,
            }])
            .await;
        match sent {
            Ok(published) if published.unroutable.is_empty() => {
                delivery.ack().await?;
                done.lines
                    .push(json!({"id": id, "replayed": true, "queue": queue}));
            }
            Ok(_) => {
                // Its queue is gone: it is a dead letter again (`unroutable`); this copy goes.
                delivery.ack().await?;
                done.refused += 1;
                done.lines.push(json!({"id": id, "replayed": false, "error": format!("queue {queue} does not exist: dead-lettered again as unroutable")}));
            }
            Err(e) => {
                let _ = delivery.requeue().await;
                for rest in deliveries.by_ref() {
                    let _ = rest.requeue().await;
                }
                done.error = Some(format!("replaying {id:?} to {queue}: {e}"));
            }
        }
    }
    Ok(done)
}

/// Every dead letter, unsettled (held by the consumer returned), oldest first.
async fn take_all(bus: &dyn Bus) -> anyhow::Result<(Box<dyn Consumer>, Vec<Delivery>)> {
    let queue = bus.dead_letter_queue();
    let mut spec = SubscriptionSpec::durable(queue.clone(), Vec::new());
    spec.prefetch = u16::MAX;
    let mut consumer = bus
        .subscribe(&spec)
        .await
        .map_err(|e| anyhow::anyhow!("cannot read the dead letters ({queue}): {e}"))?;
    let mut deliveries = Vec::new();
    loop {
        if let Some(delivery) = consumer.try_next() {
            deliveries.push(delivery);
            continue;
        }
        if bus.queue_depth(&queue).is_some() {
            // The embedded bus hands out everything it holds at once.
            break;
        }
        match tokio::time::timeout(IDLE, consumer.next()).await {
            Ok(Ok(delivery)) => deliveries.push(delivery),
            Ok(Err(e)) => anyhow::bail!("reading the dead letters ({queue}): {e}"),
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

/// A dead letter's summary: id, type, reason, queue, sender.
pub fn summary(message: &WireMessage) -> Value {
    json!({
        "id": message.message_id,
        "type": message.message_type,
        "reason": header(message, HEADER_DEAD_REASON),
        "queue": header(message, HEADER_DEAD_QUEUE),
        "routingKey": header(message, HEADER_DEAD_ROUTING_KEY),
        "sender": message.user_id,
        "producer": message.app_id,
        "occurredAt": message.occurred_at,
        "bytes": message.body.len(),
    })
}

fn whole(message: &WireMessage) -> Value {
    let mut line = summary(message);
    line["headers"] = json!(message.headers);
    line["envelope"] = serde_json::to_value(lossy_envelope(message)).unwrap_or(Value::Null);
    line
}

/// Why a dead letter cannot be replayed, if it cannot. `trust`: on RabbitMQ, the deployment's
/// user prefix (the dead letter must be Arcade's own); `None` on the embedded bus, whose store
/// is written by its process alone.
pub fn refusal(message: &WireMessage, catalog: &Catalog, trust: Option<&str>) -> Option<String> {
    if let Some(prefix) = trust
        && let Err(foreign) = check_dead_letter_origin(message, prefix)
    {
        return Some(foreign.to_string());
    }
    if header(message, HEADER_DEAD_QUEUE).is_none_or(str::is_empty) {
        return Some("no origin queue (x-arcade-dead-queue)".into());
    }
    decode(message, catalog, 0).err()
}
