//! Commits reach stable storage on every commit path before anything is reported durable: a
//! host's batch (before its acks), a host's stop, a publication to the embedded bus (before
//! its confirm), the bus's close; and a failed sync is never reported durable.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::store::{fail_syncs, syncs};
use arcade_runtime::testkit::{self, Emit, Emitter, ItemEmitted, Tally};
use arcade_runtime::{Bus, Destination, Publication, WireMessage};

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(120), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

fn item(n: u64) -> Publication {
    Publication {
        destination: Destination::Queue("tally".into()),
        message: WireMessage {
            message_type: Some(ItemEmitted::TYPE.into()),
            message_id: Some(format!("item-{n}")),
            body: serde_json::to_vec(&ItemEmitted {
                producer: "a".into(),
                n,
                note: String::new(),
            })
            .unwrap(),
            ..Default::default()
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_commit_path_syncs_to_stable_storage() {
    let dir = tempfile::tempdir().unwrap();
    let (bus_dir, emitter_dir, tally_dir) = (
        dir.path().join("bus"),
        dir.path().join("emitter"),
        dir.path().join("tally"),
    );
    let bus = Arc::new(EmbeddedBus::open(&bus_dir).unwrap());
    let runtime = testkit::runtime(bus.clone(), dir.path()).with_config(testkit::batches(64, 128));
    let tally = runtime
        .start(Tally {
            name: "tally".into(),
        })
        .unwrap();
    let emitter = runtime
        .start(Emitter {
            name: "emitter".into(),
        })
        .unwrap();
    let (bus_before, tally_before) = (syncs(&bus_dir), syncs(&tally_dir));
    let local = emitter.local();
    for _ in 0..500 {
        local
            .send(Emit {
                producer: "a".into(),
                note: "x".repeat(64),
            })
            .await
            .unwrap();
    }
    within("500 items tallied", tally.wait_for_events(500)).await;
    // The emitter's batches, the relay's publications to the bus, the tally's batches.
    assert!(syncs(&emitter_dir).completed >= 1);
    assert!(syncs(&bus_dir).completed > bus_before.completed);
    assert!(syncs(&tally_dir).completed > tally_before.completed);
    // Stopping a host syncs its store; closing the bus syncs the bus's.
    let (emitter_at_stop, tally_at_stop) = (syncs(&emitter_dir), syncs(&tally_dir));
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    tally.stop(Duration::from_secs(5)).await.unwrap();
    assert!(syncs(&emitter_dir).completed > emitter_at_stop.completed);
    assert!(syncs(&tally_dir).completed > tally_at_stop.completed);
    let bus_at_close = syncs(&bus_dir);
    bus.close().await.unwrap();
    assert!(syncs(&bus_dir).completed > bus_at_close.completed);
    for dir in [&bus_dir, &emitter_dir, &tally_dir] {
        assert_eq!(syncs(dir).failed, 0, "{}", dir.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_whose_sync_fails_is_not_acked_and_comes_again() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    {
        let runtime =
            testkit::runtime(bus.clone(), dir.path()).with_config(testkit::batches(64, 128));
        let tally = runtime
            .start(Tally {
                name: "tally".into(),
            })
            .unwrap();
        fail_syncs(&dir.path().join("tally"), 1);
        bus.publish(&[item(1), item(2), item(3)]).await.unwrap();
        let reason = within("the tally to fail", runtime.failure()).await;
        assert!(reason.contains("injected failure"), "{reason}");
        assert_eq!(syncs(&dir.path().join("tally")).failed, 1);
        // The failed host stops without acking anything (its store is poisoned).
        assert!(tally.stop(Duration::from_secs(1)).await.is_err());
    }
    assert_eq!(bus.depth("tally"), 3, "nothing acked after a failed sync");
    // Reopened from what is on disk, the tally takes the three items again, once each.
    let runtime = testkit::runtime(bus.clone(), dir.path()).with_config(testkit::batches(64, 128));
    let tally = runtime
        .start(Tally {
            name: "tally".into(),
        })
        .unwrap();
    within("the three items", tally.wait_for_events(3)).await;
    // The log may already hold them (written, not known to be synced): then they come again
    // from the queue and are absorbed as duplicates. Either way, all three get acked.
    within("the three deliveries acked", async {
        while bus.depth("tally") > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    assert!(host.state().applied_twice().is_empty());
    assert_eq!(host.state().applied.len(), 3);
}
