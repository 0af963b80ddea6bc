//! `arcade dead list|show|replay`: the dead letters, on RabbitMQ (`--amqp`, the operator's
//! user: nobody else may read them) or in the embedded bus's store of a stopped `arcade run`
//! (`--data`). One JSON line per dead letter. Replay validates each message again (type,
//! schema) and sends it to the queue it was taken from; on RabbitMQ it replays only a dead
//! letter whose `user_id` (vouched for by the broker) is the operator's or that of the service
//! consuming the queue it names ([`check_dead_letter_origin`]), so one planted by anyone else,
//! a service included, is never delivered. `list` and `show` mark such a dead letter
//! (`"refusal"`).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Catalog;
use arcade_runtime::app::args::BrokerArgs;
use arcade_runtime::bus::Consumer;
use arcade_runtime::dead_origin::check_dead_letter_origin;
use arcade_runtime::inbound::{decode, lossy_envelope};
use arcade_runtime::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON, HEADER_DEAD_ROUTING_KEY};
use arcade_runtime::{Bus, Delivery, Destination, Publication, SubscriptionSpec, WireMessage};
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::connection::tool_bus;

/// How long RabbitMQ may stay silent before every dead letter is taken to be read.
const IDLE: Duration = Duration::from_secs(2);

/// `arcade dead`.
#[derive(Debug, Subcommand)]
pub enum DeadCommand {
    /// One JSON line per dead letter: id, type, reason, queue, sender.
    List(DeadArgs),
    /// The dead letter with this message id, whole (headers and payload).
    Show(ShowArgs),
    /// Validate the dead letters again and send each back to its queue (all, or `--id`).
    Replay(ReplayArgs),
}

/// Where the dead letters are.
#[derive(Debug, Args)]
pub struct DeadArgs {
    /// The broker (as the operator's user: nobody else may read the dead letters). Absent:
    /// the embedded bus under --data.
    #[command(flatten)]
    pub broker: BrokerArgs,
    /// Where the data is.
    #[command(flatten)]
    pub data: arcade_runtime::app::args::DataArgs,
    /// The deployment's broker user prefix (`render-definitions.py --user-prefix`): a dead
    /// letter is trusted when its `user_id` is PREFIX + `arcade-admin`, or PREFIX + the service
    /// consuming its origin queue. RabbitMQ only.
    #[arg(long = "user-prefix", default_value = "", value_name = "PREFIX")]
    pub user_prefix: String,
}

/// `arcade dead show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The dead letter's message id.
    #[arg(value_name = "ID")]
    pub id: String,
    #[command(flatten)]
    pub source: DeadArgs,
}

/// `arcade dead replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Replay only the dead letter with this message id.
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    #[command(flatten)]
    pub source: DeadArgs,
}

pub async fn run(command: DeadCommand) -> anyhow::Result<ExitCode> {
    match command {
        DeadCommand::List(source) => {
            let (bus, deliveries) = read(&source).await?;
            let trust = trust_of(&source);
            let catalog = Catalog::new();
            for delivery in &deliveries {
                let mut line = summary(&delivery.message);
                line["refusal"] = json!(refusal(&delivery.message, &catalog, trust));
                println!("{line}");
            }
            give_back(deliveries).await;
            drop(bus);
            Ok(ExitCode::SUCCESS)
        }
        DeadCommand::Show(args) => {
            let (bus, deliveries) = read(&args.source).await?;
            let trust = trust_of(&args.source);
            let catalog = Catalog::new();
            let found = deliveries
                .iter()
                .find(|d| d.message.message_id.as_deref() == Some(args.id.as_str()))
                .map(|d| {
                    let mut line = whole(&d.message);
                    line["refusal"] = json!(refusal(&d.message, &catalog, trust));
                    line
                });
            give_back(deliveries).await;
            drop(bus);
            match found {
                Some(line) => {
                    println!("{line}");
                    Ok(ExitCode::SUCCESS)
                }
                None => {
                    eprintln!("error: no dead letter has the message id {:?}", args.id);
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        DeadCommand::Replay(args) => replay(args).await,
    }
}

/// The user prefix whose principals vouch for a dead letter: RabbitMQ only (the embedded bus's
/// store is written by the process alone, no endpoint can put a message in it).
fn trust_of(source: &DeadArgs) -> Option<&str> {
    source
        .broker
        .amqp
        .is_some()
        .then_some(source.user_prefix.as_str())
}

/// The bus holding the dead letters, and whether it is RabbitMQ.
async fn open(source: &DeadArgs) -> anyhow::Result<(Arc<dyn Bus>, bool)> {
    if let Some(bus) = tool_bus(&source.broker, "arcade dead").await? {
        return Ok((Arc::new(bus), true));
    }
    let dir = source.data.dir.join("bus");
    if !dir.exists() {
        anyhow::bail!(
            "{}: no embedded bus here (pass --data DIR of `arcade run`, or --amqp URL)",
            dir.display()
        );
    }
    let bus = arcade_runtime::bus::embedded::EmbeddedBus::open(&dir).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot open the embedded bus ({e}); if `arcade run` is using it, stop it first",
            dir.display()
        )
    })?;
    Ok((Arc::new(bus), false))
}

/// The consumer holding the dead letters it handed out (they are settled while it lives).
type Holder = (Arc<dyn Bus>, Box<dyn Consumer>);

/// Every dead letter, unsettled (held by the consumer), oldest first.
async fn read(source: &DeadArgs) -> anyhow::Result<(Holder, Vec<Delivery>)> {
    let (bus, _) = open(source).await?;
    let (consumer, deliveries) = take_all(bus.as_ref()).await?;
    Ok(((bus, consumer), deliveries))
}

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

fn summary(message: &WireMessage) -> Value {
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
/// user prefix (the dead letter must be Arcade's own); `None` on the embedded bus.
fn refusal(message: &WireMessage, catalog: &Catalog, trust: Option<&str>) -> Option<String> {
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

async fn replay(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let (bus, _) = open(&args.source).await?;
    let trust = trust_of(&args.source);
    let catalog = Catalog::new();
    let (_consumer, deliveries) = take_all(bus.as_ref()).await?;
    let mut refused = 0u32;
    for delivery in deliveries {
        let message = delivery.message.clone();
        let id = message.message_id.clone();
        if args.id.is_some() && id != args.id {
            let _ = delivery.requeue().await;
            continue;
        }
        if let Some(reason) = refusal(&message, &catalog, trust) {
            refused += 1;
            println!("{}", json!({"id": id, "replayed": false, "error": reason}));
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
                println!("{}", json!({"id": id, "replayed": true, "queue": queue}));
            }
            Ok(_) => {
                // Its queue is gone: it is a dead letter again (`unroutable`); this copy goes.
                delivery.ack().await?;
                refused += 1;
                println!(
                    "{}",
                    json!({"id": id, "replayed": false, "error": format!("queue {queue} does not exist: dead-lettered again as unroutable")})
                );
            }
            Err(e) => {
                let _ = delivery.requeue().await;
                anyhow::bail!("replaying {id:?} to {queue}: {e}");
            }
        }
    }
    Ok(if refused == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dead(sender: Option<&str>, body: &[u8]) -> WireMessage {
        let mut message = WireMessage {
            message_type: Some("game.session.completed.v1".into()),
            message_id: Some("m-1".into()),
            user_id: sender.map(Into::into),
            body: body.to_vec(),
            ..WireMessage::default()
        };
        message
            .headers
            .insert(HEADER_DEAD_REASON.into(), "bingo: store busy".into());
        message
            .headers
            .insert(HEADER_DEAD_QUEUE.into(), "puzzle-telemetry".into());
        message
    }

    const GOOD: &[u8] =
        br#"{"gameId":"g","seed":1,"stage":2,"outcome":"won","turns":3,"durationMs":10}"#;

    #[test]
    fn only_arcade_s_own_valid_dead_letters_are_replayed() {
        let catalog = Catalog::new();
        let ok = |m: &WireMessage| refusal(m, &catalog, Some(""));
        assert_eq!(ok(&dead(Some("puzzle-telemetry"), GOOD)), None);
        assert_eq!(ok(&dead(Some("arcade-admin"), GOOD)), None);
        let planted = ok(&dead(Some("race-team-red"), GOOD)).unwrap();
        assert!(planted.contains("not dead-lettered by Arcade"), "{planted}");
        // The fake dead letter of a service user, who may write the dead letters (it
        // dead-letters): its forged reason names a queue it does not consume.
        let forged = ok(&dead(Some("bingo"), GOOD)).unwrap();
        assert!(forged.contains("not dead-lettered by Arcade"), "{forged}");
        assert!(
            forged.contains("\"bingo\""),
            "the sender is named: {forged}"
        );
        let mut table = dead(Some("referee-t1"), GOOD);
        table
            .headers
            .insert(HEADER_DEAD_QUEUE.into(), "referee.t2".into());
        assert!(ok(&table).is_some(), "a table's referee for another table");
        assert!(ok(&dead(None, GOOD)).is_some(), "no sender, no trust");
        let still_poison = ok(&dead(Some("puzzle-telemetry"), b"{\"gameId\":")).unwrap();
        assert!(still_poison.contains("not JSON"), "{still_poison}");
        let mut nowhere = dead(Some("puzzle-telemetry"), GOOD);
        nowhere.headers.remove(HEADER_DEAD_QUEUE);
        assert!(ok(&nowhere).unwrap().contains("no origin queue"));
        // A deployment with a user prefix trusts its prefixed principals only.
        let prefixed = |m: &WireMessage| refusal(m, &catalog, Some("p1-"));
        assert_eq!(prefixed(&dead(Some("p1-puzzle-telemetry"), GOOD)), None);
        assert!(prefixed(&dead(Some("puzzle-telemetry"), GOOD)).is_some());
        // The embedded bus's store is written by the process alone: no sender check.
        assert_eq!(refusal(&dead(None, GOOD), &catalog, None), None);
        let mut nowhere = dead(None, GOOD);
        nowhere.headers.remove(HEADER_DEAD_QUEUE);
        assert!(
            refusal(&nowhere, &catalog, None)
                .unwrap()
                .contains("no origin queue")
        );
        let line = summary(&dead(Some("bingo"), GOOD));
        assert_eq!(line["reason"], "bingo: store busy");
        assert_eq!(line["queue"], "puzzle-telemetry");
        assert_eq!(line["sender"], "bingo");
    }
}
