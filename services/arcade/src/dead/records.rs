//! The record of every replay: who asked, when, which dead letter, as which sender, and what
//! came of it. Each is a message in the durable queue `<dead letters>.replays` (`arcade.dead.
//! replays`) of the same bus, so `arcade dead show` finds them wherever the dead letters are,
//! after the dead letter itself is gone. The queue is the operator's bookkeeping, read by
//! `arcade dead` alone: its messages are no contract type.

use arcade_runtime::clock::rfc3339_ms;
use arcade_runtime::{Bus, Destination, Publication, SubscriptionSpec, WireMessage};
use serde_json::{Value, json};

/// The `type` of a replay record.
const RECORD_TYPE: &str = "arcade.dead.replay";

/// Who replays: the principal that asked (the admin endpoint's, the broker user's) and how.
#[derive(Debug, Clone)]
pub struct Replayer {
    /// The principal that asked.
    pub by: String,
    /// Through what: `admin endpoint`, `data dir`, `RabbitMQ`.
    pub via: &'static str,
}

/// The queue of replay records of `bus`.
pub fn queue(bus: &dyn Bus) -> String {
    format!("{}.replays", bus.dead_letter_queue())
}

/// One replay's record.
pub fn record(
    replayer: &Replayer,
    id: Option<&str>,
    sender: Option<&str>,
    outcome: &Value,
) -> Value {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    json!({
        "deadLetter": id,
        "by": replayer.by,
        "via": replayer.via,
        "at": rfc3339_ms(now),
        "sender": sender,
        "outcome": outcome,
    })
}

/// Keeps `records` (confirmed durable) in the replay records of `bus`.
pub async fn keep(bus: &dyn Bus, records: &[Value]) -> anyhow::Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    let queue = queue(bus);
    bus.declare(&SubscriptionSpec::durable(queue.clone(), Vec::new()))
        .await
        .map_err(|e| anyhow::anyhow!("cannot declare the replay records ({queue}): {e}"))?;
    let publications: Vec<Publication> = records
        .iter()
        .map(|record| Publication {
            destination: Destination::Queue(queue.clone()),
            message: WireMessage {
                message_type: Some(RECORD_TYPE.into()),
                message_id: Some(uuid::Uuid::new_v4().to_string()),
                body: serde_json::to_vec(record).unwrap_or_default(),
                ..WireMessage::default()
            },
        })
        .collect();
    bus.publish(&publications)
        .await
        .map_err(|e| anyhow::anyhow!("cannot keep the replay records ({queue}): {e}"))?;
    Ok(())
}

/// The records among `messages` of the replays of dead letter `id`, oldest first.
pub fn of(messages: &[&WireMessage], id: &str) -> Vec<Value> {
    messages
        .iter()
        .filter(|m| m.message_type.as_deref() == Some(RECORD_TYPE))
        .filter_map(|m| serde_json::from_slice::<Value>(&m.body).ok())
        .filter(|record| record["deadLetter"].as_str() == Some(id))
        .collect()
}
