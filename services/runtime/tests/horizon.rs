//! The deduplication window: a key older than the window is pruned (memory and disk) and a
//! redelivery of it is then applied again; a key within the window is still deduplicated,
//! across a restart. Time is moved (tokio's clock, which the runtime's `Clock` follows), not
//! slept.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use arcade_contracts::Message;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit::{self, ItemEmitted, Tally};
use arcade_runtime::{Bus, Clock, Destination, HostHandle, Publication, Runtime};
use arcade_runtime::{Store, WireMessage};

const WINDOW: Duration = Duration::from_secs(60);

async fn deliver(bus: &EmbeddedBus, n: u64) {
    let body = serde_json::to_vec(&ItemEmitted {
        producer: "a".into(),
        n,
        note: String::new(),
    })
    .unwrap();
    let message = WireMessage {
        message_type: Some(ItemEmitted::TYPE.into()),
        message_id: Some(format!("a-{n}")),
        body,
        ..Default::default()
    };
    bus.publish(&[Publication {
        destination: Destination::Queue("tally".into()),
        message,
    }])
    .await
    .unwrap();
}

/// Polls `condition` (real time, generous deadline: CI is loaded), failing with `what`.
async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Moves tokio's clock (and so the runtime's) forward by `by`, at once.
async fn advance(by: Duration) {
    tokio::time::pause();
    tokio::time::advance(by).await;
    tokio::time::resume();
}

fn applied(tally: &Arc<Store>, n: u64) -> usize {
    tally
        .read_from(1, usize::MAX)
        .unwrap()
        .iter()
        .filter(|(_, record)| {
            record.envelope.payload["n"] == n && record.envelope.payload["producer"] == "a"
        })
        .count()
}

fn deduplicated(runtime: &Runtime) -> u64 {
    runtime
        .metrics()
        .service("tally")
        .deduplicated
        .load(Ordering::Relaxed)
}

async fn start(runtime: &Runtime) -> HostHandle<Tally> {
    runtime
        .start(Tally {
            name: "tally".into(),
        })
        .unwrap()
}

#[tokio::test]
async fn a_key_older_than_the_window_applies_again_and_a_younger_one_is_deduplicated_across_a_restart()
 {
    let dir = tempfile::tempdir().unwrap();
    let clock = Clock::starting_at(1_800_000_000_000);
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), dir.path())
        .with_clock(clock)
        .with_dedupe_window(WINDOW)
        .with_config(testkit::batches(16, 32));
    let tally = start(&runtime).await;

    deliver(&bus, 1).await; // "old", at t0
    tally.wait_for_events(1).await;
    advance(Duration::from_secs(40)).await;
    deliver(&bus, 2).await; // "young", at t0 + 40 s
    tally.wait_for_events(2).await;
    assert_eq!(tally.store().inbox_len(), 2);

    // t0 + 65 s: the first key is older than the window, the second is not.
    advance(Duration::from_secs(25)).await;
    until("the background pruning of the first key", || {
        tally.store().inbox_len() == 1
    })
    .await;
    deliver(&bus, 1).await;
    deliver(&bus, 2).await;
    tally.wait_for_events(3).await;
    until("the young key's redelivery to be deduplicated", || {
        deduplicated(&runtime) == 1
    })
    .await;
    assert_eq!(applied(tally.store(), 1), 2, "an expired key applies again");
    assert_eq!(
        applied(tally.store(), 2),
        1,
        "a key within the window does not"
    );
    tally.stop(Duration::from_secs(5)).await.unwrap();
    drop(runtime);
    bus.close().await.unwrap();
    drop(bus);

    // A restart, still within the young key's window (t0 + 65 s).
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), dir.path())
        .with_clock(clock)
        .with_dedupe_window(WINDOW)
        .with_config(testkit::batches(16, 32));
    let tally = start(&runtime).await;
    assert_eq!(
        tally.store().inbox_len(),
        2,
        "a-2 and the a-1 applied again"
    );
    deliver(&bus, 2).await;
    until("the young key's redelivery after the restart", || {
        deduplicated(&runtime) == 1
    })
    .await;
    assert_eq!(applied(tally.store(), 2), 1);

    // Past its window too: pruned at start of the next interval, then applied again.
    advance(Duration::from_secs(40)).await;
    until("the second key's pruning", || {
        tally.store().inbox_len() == 1
    })
    .await;
    deliver(&bus, 2).await;
    tally.wait_for_events(4).await;
    assert_eq!(applied(tally.store(), 2), 2);
    tally.stop(Duration::from_secs(5)).await.unwrap();
    bus.close().await.unwrap();
}
