//! The transport contract, written once against the `Bus` trait.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use arcade_runtime::dead_letter::Dead;
use arcade_runtime::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON};
use arcade_runtime::{Bus, Delivery, Destination, Publication, SubscriptionSpec, WireMessage};

/// A transport under test. `bus` gives a fresh, isolated bus, or `None` when the backend is not
/// available here (the test then says it was skipped).
pub trait Backend {
    async fn bus(&self) -> Option<Arc<dyn Bus>>;
}

/// A unique name, so tests sharing a broker never see each other's queues.
pub fn unique(name: &str) -> String {
    format!("{name}.{}", uuid::Uuid::new_v4().simple())
}

pub fn durable_spec(queue: &str, bindings: &[&str]) -> SubscriptionSpec {
    let mut spec =
        SubscriptionSpec::durable(queue, bindings.iter().map(|b| b.to_string()).collect());
    spec.prefetch = 16;
    spec
}

/// `count` events of each type, numbered per producer in the body.
pub fn events(types: &[&str], producer: &str, count: u64) -> Vec<Publication> {
    let mut out = Vec::new();
    for n in 1..=count {
        for t in types {
            out.push(Publication {
                destination: Destination::Topic,
                message: WireMessage {
                    message_type: Some(t.to_string()),
                    message_id: Some(format!("{producer}-{t}-{n}")),
                    app_id: Some(producer.to_string()),
                    body: format!(r#"{{"producer":"{producer}","n":{n}}}"#).into_bytes(),
                    ..Default::default()
                },
            });
        }
    }
    out
}

pub fn seq_of(delivery: &Delivery) -> u64 {
    let body: serde_json::Value = serde_json::from_slice(&delivery.message.body).unwrap();
    body["n"].as_u64().unwrap()
}

async fn next(consumer: &mut Box<dyn arcade_runtime::bus::Consumer>) -> Delivery {
    tokio::time::timeout(Duration::from_secs(10), consumer.next())
        .await
        .expect("a delivery within 10 s")
        .expect("the consumer is open")
}

/// Takes every message that arrives until `quiet` passes with nothing, acking each.
async fn drain(
    consumer: &mut Box<dyn arcade_runtime::bus::Consumer>,
    quiet: Duration,
) -> Vec<String> {
    let mut types = Vec::new();
    while let Ok(Ok(d)) = tokio::time::timeout(quiet, consumer.next()).await {
        types.push(d.message.message_type.clone().unwrap_or_default());
        d.ack().await.unwrap();
    }
    types
}

macro_rules! bus_or_skip {
    ($backend:expr) => {
        match $backend.bus().await {
            Some(bus) => bus,
            None => {
                eprintln!("skipped: this backend is not available (set ARCADE_AMQP_URL)");
                return;
            }
        }
    };
}

pub async fn routes_by_topic_with_wildcards(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let games = unique("games");
    let scored = unique("scored");
    let all = unique("all");
    let mut game_consumer = bus
        .subscribe(&durable_spec(&games, &["game.#"]))
        .await
        .unwrap();
    let mut scored_consumer = bus
        .subscribe(&durable_spec(
            &scored,
            &["table.*.scored.v1", "bingo.card.won.v1"],
        ))
        .await
        .unwrap();
    let mut all_consumer = bus.subscribe(&durable_spec(&all, &["#"])).await.unwrap();
    let types = [
        "game.session.completed.v1",
        "table.goal.scored.v1",
        "table.goal.scored.v2",
        "bingo.card.won.v1",
        "race.turn.started.v1",
    ];
    bus.publish(&events(&types, "p", 1)).await.unwrap();
    let quiet = Duration::from_millis(300);
    assert_eq!(
        drain(&mut game_consumer, quiet).await,
        vec!["game.session.completed.v1"]
    );
    assert_eq!(
        drain(&mut scored_consumer, quiet).await,
        vec!["table.goal.scored.v1", "bingo.card.won.v1"]
    );
    assert_eq!(drain(&mut all_consumer, quiet).await, types.to_vec());
}

pub async fn competing_consumers_share_a_queue(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let queue = unique("workers");
    let spec = durable_spec(&queue, &["work.item.done.v1"]);
    let mut a = bus.subscribe(&spec).await.unwrap();
    let mut b = bus.subscribe(&spec).await.unwrap();
    bus.publish(&events(&["work.item.done.v1"], "p", 30))
        .await
        .unwrap();
    let mut seen: BTreeMap<u64, u32> = BTreeMap::new();
    let (mut by_a, mut by_b) = (0, 0);
    // Hold every delivery unacked until all 30 are out: each consumer can hold at most its
    // prefetch (16), so both must have taken a share (and 30 fit in the two prefetches).
    let mut held = Vec::new();
    while held.len() < 30 {
        tokio::select! {
            d = next(&mut a) => { by_a += 1; held.push(d) }
            d = next(&mut b) => { by_b += 1; held.push(d) }
        }
    }
    for d in held {
        *seen.entry(seq_of(&d)).or_default() += 1;
        d.ack().await.unwrap();
    }
    assert_eq!(seen.len(), 30, "every message delivered");
    assert!(
        seen.values().all(|c| *c == 1),
        "no message delivered to both"
    );
    assert!(
        by_a > 0 && by_b > 0,
        "both consumers got work: a {by_a}, b {by_b}"
    );
}

/// A queue of one active consumer (RabbitMQ's quorum service queues): a second consumer
/// stands by, and when the first goes away it takes over with what the first held, in order.
pub async fn a_second_consumer_stands_by_and_takes_over_in_order(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let queue = unique("standby");
    let spec = durable_spec(&queue, &["work.item.done.v1"]);
    let mut first = bus.subscribe(&spec).await.unwrap();
    let mut second = bus.subscribe(&spec).await.unwrap();
    bus.publish(&events(&["work.item.done.v1"], "p", 30))
        .await
        .unwrap();
    // The first holds its prefetch (16); the standby gets nothing meanwhile.
    let mut held = Vec::new();
    for n in 1..=16 {
        let d = next(&mut first).await;
        assert_eq!(seq_of(&d), n);
        held.push(d);
    }
    let standby = tokio::time::timeout(Duration::from_millis(500), second.next()).await;
    assert!(standby.is_err(), "the standby got a delivery: {standby:?}");
    for d in held.drain(..4) {
        d.ack().await.unwrap();
    }
    // Gone with 5..=16 in hand: they come to the standby first, then the rest.
    drop(held);
    drop(first);
    for n in 5..=30 {
        let d = next(&mut second).await;
        assert_eq!(seq_of(&d), n, "taken over in order");
        // 17..=20 may have gone to the first too, when the four acks gave it room.
        if n <= 16 {
            assert!(d.redelivered, "what the first held comes again ({n})");
        } else if n > 20 {
            assert!(!d.redelivered, "{n} was never delivered before");
        }
        d.ack().await.unwrap();
    }
}

pub async fn unacked_messages_are_redelivered(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let queue = unique("redelivery");
    let spec = durable_spec(&queue, &["work.item.done.v1"]);
    let mut first = bus.subscribe(&spec).await.unwrap();
    bus.publish(&events(&["work.item.done.v1"], "p", 3))
        .await
        .unwrap();
    let one = next(&mut first).await;
    let two = next(&mut first).await;
    assert_eq!((seq_of(&one), seq_of(&two)), (1, 2));
    assert!(!one.redelivered);
    one.ack().await.unwrap();
    two.requeue().await.unwrap();
    // 3 may already be on its way to this consumer (a broker pushes up to the prefetch), so 2
    // comes back next or right after it.
    let mut in_hand = Vec::new();
    let again = loop {
        let d = next(&mut first).await;
        if seq_of(&d) == 2 {
            break d;
        }
        assert_eq!(seq_of(&d), 3, "only 3 may come before the requeued 2");
        assert!(in_hand.is_empty(), "2 came back after 3");
        in_hand.push(d);
    };
    assert!(
        again.redelivered,
        "a requeued message is flagged redelivered"
    );
    // A consumer that goes away with messages in hand gives them back.
    drop(again);
    drop(in_hand);
    drop(first);
    let mut second = bus.subscribe(&spec).await.unwrap();
    let mut got = vec![next(&mut second).await, next(&mut second).await];
    got.sort_by_key(seq_of);
    assert_eq!(got.iter().map(seq_of).collect::<Vec<_>>(), vec![2, 3]);
    assert!(got[0].redelivered);
    for d in got {
        d.ack().await.unwrap();
    }
}

pub async fn a_batch_ack_settles_exactly_its_deliveries(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let queue = unique("batch-ack");
    let spec = durable_spec(&queue, &["work.item.done.v1"]);
    let mut first = bus.subscribe(&spec).await.unwrap();
    bus.publish(&events(&["work.item.done.v1"], "p", 10))
        .await
        .unwrap();
    let mut batch = Vec::new();
    let mut in_hand = Vec::new();
    for n in 1..=8 {
        let d = next(&mut first).await;
        assert_eq!(seq_of(&d), n);
        match n {
            // Settled on its own before the batch's ack (as the host dead-letters poison).
            3 => d
                .dead_letter(Dead::failed("poison in the middle of a batch", None))
                .await
                .unwrap(),
            1 | 2 | 4 | 5 => batch.push(d.into_parts().1),
            // Delivered after the batch and not settled: must not be taken by its ack.
            _ => in_hand.push(d),
        }
    }
    let lost = arcade_runtime::bus::ack_all(batch).await;
    assert!(lost.is_empty(), "acks lost: {lost:?}");
    drop(in_hand);
    drop(first);
    let mut second = bus.subscribe(&spec).await.unwrap();
    let mut got = Vec::new();
    for _ in 0..5 {
        got.push(next(&mut second).await);
    }
    got.sort_by_key(seq_of);
    assert_eq!(
        got.iter().map(seq_of).collect::<Vec<_>>(),
        vec![6, 7, 8, 9, 10],
        "exactly the deliveries outside the batch come again"
    );
    for d in got {
        d.ack().await.unwrap();
    }
    assert!(
        tokio::time::timeout(Duration::from_millis(300), second.next())
            .await
            .is_err(),
        "nothing else is left in the queue"
    );
}

pub async fn poison_goes_to_the_dead_letters_with_its_reason(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let queue = unique("poisoned");
    let mut consumer = bus
        .subscribe(&durable_spec(&queue, &["work.item.done.v1"]))
        .await
        .unwrap();
    let mut dead = bus
        .subscribe(&durable_spec(&bus.dead_letter_queue(), &[]))
        .await
        .unwrap();
    let marker = unique("poison");
    let mut poison = events(&["work.item.done.v1"], &marker, 1);
    poison[0].message.body = b"not json".to_vec();
    bus.publish(&poison).await.unwrap();
    let d = next(&mut consumer).await;
    d.dead_letter(Dead::failed(
        "body is not JSON: expected value at line 1 column 1",
        None,
    ))
    .await
    .unwrap();
    // The dead-letter queue is shared: find ours among others' letters.
    loop {
        let letter = next(&mut dead).await;
        let ours =
            letter.message.message_id.as_deref() == Some(&format!("{marker}-work.item.done.v1-1"));
        if ours {
            assert_eq!(letter.message.body, b"not json");
            assert_eq!(
                letter
                    .message
                    .headers
                    .get(HEADER_DEAD_REASON)
                    .map(String::as_str),
                Some("body is not JSON: expected value at line 1 column 1")
            );
            letter.ack().await.unwrap();
            break;
        }
        letter.requeue().await.unwrap();
    }
    assert!(
        tokio::time::timeout(Duration::from_millis(300), consumer.next())
            .await
            .is_err(),
        "the poison is gone from its queue"
    );
}

pub async fn order_per_producer_is_kept(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let queue = unique("ordered");
    let mut consumer = bus
        .subscribe(&durable_spec(&queue, &["work.#"]))
        .await
        .unwrap();
    let a = events(&["work.item.done.v1"], "a", 200);
    let b = events(&["work.item.done.v1"], "b", 200);
    let (bus_a, bus_b) = (bus.clone(), bus.clone());
    // Producer a keeps up to three publications unconfirmed at once, as the relay does.
    let pa = tokio::spawn(async move {
        let mut in_flight = std::collections::VecDeque::new();
        for chunk in a.chunks(7) {
            if in_flight.len() == 3 {
                let confirms: arcade_runtime::bus::Confirms = in_flight.pop_front().unwrap();
                confirms.await.unwrap();
            }
            in_flight.push_back(bus_a.start_publish(chunk).await.unwrap());
        }
        for confirms in in_flight {
            confirms.await.unwrap();
        }
    });
    let pb = tokio::spawn(async move {
        for chunk in b.chunks(11) {
            bus_b.publish(chunk).await.unwrap();
        }
    });
    let mut last: BTreeMap<String, u64> = BTreeMap::new();
    for _ in 0..400 {
        let d = next(&mut consumer).await;
        let producer = d.message.app_id.clone().unwrap();
        let n = seq_of(&d);
        let previous = last.insert(producer.clone(), n).unwrap_or(0);
        assert_eq!(n, previous + 1, "{producer}: {n} came after {previous}");
        d.ack().await.unwrap();
    }
    pa.await.unwrap();
    pb.await.unwrap();
}

pub async fn commands_reach_their_queue_only(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let table_3 = unique("referee.table-3");
    let table_4 = unique("referee.table-4");
    let mut three = bus.subscribe(&durable_spec(&table_3, &[])).await.unwrap();
    let mut four = bus.subscribe(&durable_spec(&table_4, &[])).await.unwrap();
    let mut command = events(&["table.game.start.v1"], "p", 1).remove(0);
    command.destination = Destination::Queue(table_3.clone());
    bus.publish(&[command]).await.unwrap();
    let quiet = Duration::from_millis(300);
    assert_eq!(drain(&mut three, quiet).await, vec!["table.game.start.v1"]);
    assert!(drain(&mut four, quiet).await.is_empty());
}

/// A queue declared (without a consumer) keeps what is published on its bindings from then on,
/// for a consumer that comes later; declaring it again changes nothing.
pub async fn a_declared_queue_keeps_what_comes_before_its_consumer(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let queue = unique("race.team.late");
    let spec = durable_spec(&queue, &["test.race.#"]);
    bus.declare(&spec).await.unwrap();
    bus.declare(&spec).await.unwrap();
    bus.publish(&events(&["test.race.car.v1", "test.other.v1"], "p", 1))
        .await
        .unwrap();
    let mut consumer = bus.subscribe(&spec).await.unwrap();
    let quiet = Duration::from_millis(300);
    assert_eq!(
        drain(&mut consumer, quiet).await,
        vec!["test.race.car.v1"],
        "what was published after the declaration, on its bindings only"
    );
}

pub async fn a_bound_queue_keeps_its_new_patterns_without_a_consumer(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let queue = unique("bingo.mapped");
    bus.declare(&durable_spec(&queue, &["test.goal.#"]))
        .await
        .unwrap();
    let more = vec!["test.card.won.v1".to_string()];
    bus.bind(&queue, &more).await.unwrap();
    bus.bind(&queue, &more).await.unwrap();
    let fresh = unique("bingo.fresh");
    bus.bind(&fresh, &more).await.unwrap();
    let types = ["test.goal.scored.v1", "test.card.won.v1", "test.other.v1"];
    bus.publish(&events(&types, "p", 1)).await.unwrap();
    let quiet = Duration::from_millis(300);
    let mut consumer = bus.subscribe(&durable_spec(&queue, &[])).await.unwrap();
    assert_eq!(
        drain(&mut consumer, quiet).await,
        vec!["test.goal.scored.v1", "test.card.won.v1"],
        "its first binding and the bound one, once each, kept while nobody consumed"
    );
    let mut consumer = bus.subscribe(&durable_spec(&fresh, &[])).await.unwrap();
    assert_eq!(
        drain(&mut consumer, quiet).await,
        vec!["test.card.won.v1"],
        "a queue bound before it existed is declared"
    );
}

pub async fn a_command_no_queue_takes_is_dead_lettered_as_unroutable(backend: &impl Backend) {
    let bus = bus_or_skip!(backend);
    let mut dead = bus
        .subscribe(&durable_spec(&bus.dead_letter_queue(), &[]))
        .await
        .unwrap();
    let nowhere = unique("referee.nowhere");
    let marker = unique("unheard");
    // An event nobody listens to is fine; a command to a queue that does not exist is not.
    let event = events(&["nobody.listens.v1"], &marker, 1).remove(0);
    let mut command = events(&["table.goal.report.v1"], &marker, 1).remove(0);
    command.destination = Destination::Queue(nowhere.clone());
    let published = bus.publish(&[event, command.clone()]).await.unwrap();
    assert_eq!(published.unroutable, vec![1], "the command, not the event");
    loop {
        let letter = next(&mut dead).await;
        if letter.message.app_id.as_deref() != Some(marker.as_str()) {
            letter.requeue().await.unwrap();
            continue;
        }
        assert_eq!(
            letter.message.message_type.as_deref(),
            Some("table.goal.report.v1"),
            "only the command is a dead letter"
        );
        assert_eq!(letter.message.body, command.message.body);
        let header = |name: &str| letter.message.headers.get(name).cloned();
        assert_eq!(header(HEADER_DEAD_REASON).as_deref(), Some("unroutable"));
        assert_eq!(header(HEADER_DEAD_QUEUE), Some(nowhere.clone()));
        letter.ack().await.unwrap();
        break;
    }
    // Once its consumer has declared the queue, the same command is routed there.
    let mut consumer = bus.subscribe(&durable_spec(&nowhere, &[])).await.unwrap();
    let published = bus.publish(&[command]).await.unwrap();
    assert!(published.unroutable.is_empty());
    let quiet = Duration::from_millis(300);
    assert_eq!(
        drain(&mut consumer, quiet).await,
        vec!["table.goal.report.v1"]
    );
}
