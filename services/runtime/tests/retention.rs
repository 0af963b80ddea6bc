//! Log retention with a manual clock: once the history is past, the front of each log is
//! pruned in the background, only behind the oldest snapshot that decodes and behind the relay
//! cursor, into archive files that read back as the records they were; a restart then replays
//! nothing twice and folds the same state as the whole history; the pruned stores verify
//! clean. Time is moved (tokio's clock, which the runtime's `Clock` follows), not slept.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::counters::Counters;
use arcade_runtime::store::retention::{Retention, read_archive};
use arcade_runtime::store::{Inspect, RELAY_CURSOR};
use arcade_runtime::testkit::{self, Emit, Emitter, Tally, TallyState};
use arcade_runtime::{
    Clock, Host, HostConfig, HostError, HostHandle, LogRecord, Runtime, SnapshotPolicy, Store,
};

const DAY: Duration = Duration::from_secs(86_400);

fn config(snapshots: SnapshotPolicy) -> HostConfig {
    HostConfig {
        batch: 32,
        prefetch: 64,
        relay_batch: 32,
        snapshots,
        ..HostConfig::default()
    }
}

fn every(n: u64) -> SnapshotPolicy {
    SnapshotPolicy {
        every: n,
        interval: None,
    }
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

async fn emit(local: &tokio::sync::mpsc::Sender<Emit>, count: u64) {
    for k in 0..count {
        local
            .send(Emit {
                producer: ["a", "b", "c"][(k % 3) as usize].to_string(),
                note: "x".repeat(200),
            })
            .await
            .unwrap();
    }
}

fn all(store: &Store) -> Vec<(u64, LogRecord)> {
    store.read_from(1, usize::MAX).unwrap()
}

/// The records of `service`'s archive files under `dir`, in the files' name order.
fn archived(dir: &Path, service: &str) -> Vec<(u64, LogRecord)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{service}-")))
        })
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| read_archive(f).unwrap())
        .collect()
}

fn open_tally(store: &Arc<Store>, snapshots: SnapshotPolicy) -> Result<TallyState, HostError> {
    Host::open(
        Arc::new(Tally {
            name: "tally".into(),
        }),
        store.clone(),
        Arc::new(testkit::catalog()),
        Arc::new(Counters::default()),
        Clock::system(),
        config(snapshots),
    )
    .map(|host| host.state().clone())
}

fn retaining(bus: Arc<EmbeddedBus>, dir: &Path, clock: Clock) -> Runtime {
    testkit::runtime(bus, dir)
        .with_clock(clock)
        .with_config(config(every(50)))
        .with_log_retention(Retention {
            history: Some(DAY),
            archive: Some(dir.join("archive")),
        })
}

/// The bus of `dir` opened, and the tally and the emitter started on it under retention.
fn started(
    dir: &Path,
    clock: Clock,
) -> (
    Arc<EmbeddedBus>,
    Runtime,
    HostHandle<Tally>,
    HostHandle<Emitter>,
) {
    let bus = Arc::new(EmbeddedBus::open(&dir.join("bus")).unwrap());
    let runtime = retaining(bus.clone(), dir, clock);
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
    (bus, runtime, tally, emitter)
}

#[tokio::test]
async fn the_front_of_the_log_goes_to_the_archive_once_snapshots_the_relay_and_the_history_allow() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Clock::starting_at(1_800_000_000_000);
    let (bus, runtime, tally, emitter) = started(dir.path(), clock);
    emit(&emitter.local(), 300).await;
    tally.wait_for_events(300).await;
    // Within the history: nothing goes, however many snapshots there are.
    advance(DAY / 2).await;
    until("the emitter's relay", || {
        emitter.store().cursor(RELAY_CURSOR).unwrap() == 301
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        emitter.store().first().unwrap(),
        1,
        "younger than the history"
    );
    let emitted = all(emitter.store());
    let tallied = all(tally.store());

    // Two days on, the first 300 are older than the history: pruned up to what the older of
    // the two kept snapshots covers.
    advance(2 * DAY).await;
    emit(&emitter.local(), 100).await;
    tally.wait_for_events(400).await;
    until("the emitter's log to be pruned", || {
        emitter.store().first().unwrap() > 1
    })
    .await;
    until("the tally's log to be pruned", || {
        tally.store().first().unwrap() > 1
    })
    .await;
    for (store, before, name) in [
        (emitter.store(), &emitted, "emitter"),
        (tally.store(), &tallied, "tally"),
    ] {
        let first = store.first().unwrap();
        let oldest_snapshot = store
            .snapshots()
            .unwrap()
            .iter()
            .map(|s| s.seq)
            .min()
            .unwrap();
        assert!(
            first <= oldest_snapshot + 1,
            "{name}: {first} past {oldest_snapshot}"
        );
        assert!(
            first <= store.cursor(RELAY_CURSOR).unwrap().max(1),
            "{name}: past the relay"
        );
        assert!(first <= 301, "{name}: the young records stay ({first})");
        assert_eq!(
            all(store)[0].0,
            first,
            "{name}: the log starts at its start"
        );
        assert_eq!(
            archived(&dir.path().join("archive"), name),
            before[..(first - 1) as usize].to_vec(),
            "{name}: the archive holds every pruned record, in order"
        );
    }
    tally.stop(Duration::from_secs(5)).await.unwrap();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    drop(runtime);
    bus.close().await.unwrap();
    drop(bus);

    for name in ["emitter", "tally"] {
        let inspect = Inspect::open(&dir.path().join(name)).unwrap();
        let verified = inspect.verify().unwrap();
        assert!(verified.damage.is_empty(), "{name}: {:?}", verified.damage);
        let stats = inspect.stats().unwrap();
        assert!(
            stats.first > 1 && stats.events == stats.end - stats.first,
            "{stats:?}"
        );
    }

    // A restart restores the snapshot and replays the tail: each item exactly once, the same
    // state as the fold of the whole history (archive and log), and nothing without a snapshot.
    let store = Arc::new(Store::open(&dir.path().join("tally")).unwrap());
    let restored = open_tally(&store, every(50)).unwrap();
    assert!(restored.applied_twice().is_empty());
    assert_eq!(restored.applied.len(), 400);
    let whole = Arc::new(Store::temporary().unwrap());
    let mut pending = whole.pending();
    let mut history = archived(&dir.path().join("archive"), "tally");
    history.extend(all(&store));
    assert_eq!(
        history.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(),
        (1..store.end()).collect::<Vec<_>>()
    );
    pending.add(None, history.into_iter().map(|(_, r)| r).collect());
    whole.commit_pending(pending).unwrap();
    assert_eq!(open_tally(&whole, SnapshotPolicy::OFF).unwrap(), restored);
    let error = open_tally(&store, SnapshotPolicy::OFF).unwrap_err();
    assert!(matches!(error, HostError::Pruned { .. }), "{error}");
    drop(store);

    // And the services run on from there.
    let (_bus, _runtime, tally, emitter) = started(dir.path(), clock);
    emit(&emitter.local(), 50).await;
    tally.wait_for_events(450).await;
    tally.stop(Duration::from_secs(5)).await.unwrap();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    let store = Arc::new(Store::open(&dir.path().join("tally")).unwrap());
    let state = open_tally(&store, every(50)).unwrap();
    assert!(state.applied_twice().is_empty());
    assert_eq!(state.applied.len(), 450);
}

#[tokio::test]
async fn without_snapshots_nothing_is_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Clock::starting_at(1_800_000_000_000);
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime =
        retaining(bus.clone(), dir.path(), clock).with_config(config(SnapshotPolicy::OFF));
    let emitter = runtime
        .start(Emitter {
            name: "emitter".into(),
        })
        .unwrap();
    emit(&emitter.local(), 100).await;
    until("the relay", || {
        emitter.store().cursor(RELAY_CURSOR).unwrap() == 101
    })
    .await;
    advance(3 * DAY).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(emitter.store().first().unwrap(), 1);
    assert_eq!(all(emitter.store()).len(), 100);
    emitter.stop(Duration::from_secs(5)).await.unwrap();
}
