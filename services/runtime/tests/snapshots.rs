//! Snapshots as the host takes and reads them: a restart restores the newest snapshot and
//! replays only the tail, to the state the whole log gives; a damaged snapshot or one of an
//! unknown format version is skipped with a warning for the older one or the whole log; a clean
//! stop writes the snapshot the policy wants; and a
//! process killed (SIGKILL) again and again while it writes snapshots loses nothing.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::counters::Counters;
use arcade_runtime::store::snapshot;
use arcade_runtime::testkit::{self, Emit, Emitter, Tally, TallyState};
use arcade_runtime::{Clock, Host, HostConfig, SnapshotPolicy, Store};
use rand::{Rng, SeedableRng};

const PRODUCERS: [&str; 3] = ["a", "b", "c"];

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

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(120), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// Runs an emitter and a tally in `dir` until the tally has applied `total` items (counting
/// what earlier runs applied), then stops them cleanly.
async fn run(dir: &Path, total: u64, snapshots: SnapshotPolicy) {
    let bus = Arc::new(EmbeddedBus::open(&dir.join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), dir).with_config(config(snapshots));
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
    let emitted = emitter.store().end() - 1;
    let local = emitter.local();
    let feeder = tokio::spawn(async move {
        for k in emitted..total {
            let producer = PRODUCERS[(k % 3) as usize].to_string();
            if local
                .send(Emit {
                    producer,
                    note: "x".repeat(32),
                })
                .await
                .is_err()
            {
                break;
            }
        }
    });
    within(
        "the tally to apply everything",
        tally.wait_for_events(total),
    )
    .await;
    feeder.await.unwrap();
    tally.stop(Duration::from_secs(5)).await.unwrap();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
}

/// Opens the tally's host on its store: its state and its counters (which snapshot it used).
fn open_tally(store: &Arc<Store>, snapshots: SnapshotPolicy) -> (TallyState, Arc<Counters>) {
    let counters = Arc::new(Counters::default());
    let host = Host::open(
        Arc::new(Tally {
            name: "tally".into(),
        }),
        store.clone(),
        Arc::new(testkit::catalog()),
        counters.clone(),
        Clock::system(),
        config(snapshots),
    )
    .unwrap();
    (host.state().clone(), counters)
}

fn expected(total: u64) -> BTreeMap<String, u64> {
    PRODUCERS
        .iter()
        .enumerate()
        .map(|(i, p)| (p.to_string(), (total + 2 - i as u64) / 3))
        .collect()
}

fn assert_exactly_once(state: &TallyState, total: u64) {
    assert!(
        state.applied_twice().is_empty(),
        "applied twice: {:?}",
        state.applied_twice()
    );
    assert_eq!(state.out_of_order, 0, "items came out of order");
    assert_eq!(state.applied.len() as u64, total, "items lost");
    assert_eq!(state.last, expected(total));
}

/// The log entries the newest snapshots cover, newest first.
fn snapshot_seqs(store: &Store) -> Vec<u64> {
    store.snapshots().unwrap().iter().map(|s| s.seq).collect()
}

/// Collects the WARN lines the code under test logs.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logged<T>(f: impl FnOnce() -> T) -> (T, String) {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let out = tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    (out, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_restores_the_newest_snapshot_and_replays_only_the_tail() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 1_000, every(100)).await;
    run(dir.path(), 1_450, every(100)).await;
    let store = Arc::new(Store::open(&dir.path().join("tally")).unwrap());
    let seqs = snapshot_seqs(&store);
    assert_eq!(seqs.len(), 2, "the newest two are kept: {seqs:?}");
    // The newest was taken in the second run (its first ≥ 100 new entries make one due). Which
    // of its entries it covers depends on the machine: snapshots are spaced by at least 20
    // times their encoding cost, so on a loaded machine the last batches may come too soon.
    assert!(seqs[0] > seqs[1] && seqs[0] > 1_000, "{seqs:?}");
    let (restored, counters) = open_tally(&store, every(100));
    assert_eq!(counters.snapshot_seq.load(Ordering::Relaxed), seqs[0]);
    assert!(counters.snapshot_taken_ms.load(Ordering::Relaxed) > 0);
    let (full, counters) = open_tally(&store, SnapshotPolicy::OFF);
    assert_eq!(
        counters.snapshot_seq.load(Ordering::Relaxed),
        0,
        "snapshots off: none read"
    );
    assert_eq!(restored, full);
    assert_exactly_once(&restored, 1_450);
}

/// Snapshots are spaced by 20 times their encoding cost and one is never encoded while the
/// previous is being written, so under a burst the policy's snapshot is put off; a clean stop
/// writes it: after the stop the newest snapshot covers the whole log, and a restart replays
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_stop_writes_the_snapshot_the_policy_put_off() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 600, every(1)).await;
    let store = Arc::new(Store::open(&dir.path().join("tally")).unwrap());
    let last = store.end() - 1;
    assert_eq!(
        snapshot_seqs(&store)[0],
        last,
        "the newest snapshot covers the log's end"
    );
    let (restored, counters) = open_tally(&store, every(1));
    assert_eq!(counters.snapshot_seq.load(Ordering::Relaxed), last);
    assert_exactly_once(&restored, 600);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_and_unknown_version_snapshots_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 900, every(100)).await;
    let store = Arc::new(Store::open(&dir.path().join("tally")).unwrap());
    let (full, _) = open_tally(&store, SnapshotPolicy::OFF);
    assert_exactly_once(&full, 900);
    let stored = store.snapshots().unwrap();
    let [newest, older] = stored.as_slice() else {
        panic!("two snapshots expected, got {}", stored.len())
    };

    // The newest damaged (one flipped byte in the state): the older one is used.
    let mut damaged = newest.bytes.to_vec();
    let at = damaged.len() - 5;
    damaged[at] ^= 0x01;
    store.put_snapshot_bytes(newest.seq, &damaged).unwrap();
    let ((state, counters), logs) = logged(|| open_tally(&store, every(100)));
    assert_eq!(state, full);
    assert_eq!(counters.snapshot_seq.load(Ordering::Relaxed), older.seq);
    assert!(
        logs.contains("WARN")
            && logs.contains("snapshot skipped")
            && logs.contains(&format!("snapshot at log entry {} is damaged", newest.seq)),
        "{logs}"
    );

    // The older one of a format version this build does not read: the whole log is replayed.
    let frame = snapshot::parse(older, None).unwrap();
    let future = snapshot::encode(
        frame.version + 1,
        frame.seq,
        frame.taken_ms,
        &frame.flows,
        &frame.state,
    );
    store.put_snapshot_bytes(older.seq, &future).unwrap();
    let ((state, counters), logs) = logged(|| open_tally(&store, every(100)));
    assert_eq!(state, full);
    assert_eq!(counters.snapshot_seq.load(Ordering::Relaxed), 0);
    assert!(
        logs.contains(&format!(
            "snapshot at log entry {} has format version 2; this build reads version 1",
            older.seq
        )),
        "{logs}"
    );

    // A snapshot whose checksum holds but whose payload the service refuses is skipped too.
    let garbage = snapshot::encode(1, frame.seq, frame.taken_ms, &[], &[0xff; 7]);
    store.put_snapshot_bytes(older.seq, &garbage).unwrap();
    let ((state, _), logs) = logged(|| open_tally(&store, every(100)));
    assert_eq!(state, full);
    assert!(logs.contains("snapshot payload"), "{logs}");
}

// ---- The crash test: a child process killed while it writes snapshots ----

const CHILD_DIR: &str = "ARCADE_SNAPSHOT_CHILD_DIR";
/// How many items the child emits on top of those already in the log; absent, it emits until it
/// is killed (and gives up after a minute).
const CHILD_MORE: &str = "ARCADE_SNAPSHOT_CHILD_MORE";

/// Not a test on its own: the process `a_process_killed_while_it_writes_snapshots_loses_nothing`
/// kills. Runs the emitter and the tally, snapshotting every 16 entries, printing `@total N` (the
/// items it will have emitted in all), `@snapshot N` each time the tally's newest snapshot
/// changes, `@done` at the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by a_process_killed_while_it_writes_snapshots_loses_nothing as its child"]
async fn snapshot_crash_child() {
    let dir = std::path::PathBuf::from(std::env::var(CHILD_DIR).unwrap());
    let more: Option<u64> = std::env::var(CHILD_MORE).ok().map(|n| n.parse().unwrap());
    let bus = Arc::new(EmbeddedBus::open(&dir.join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), &dir).with_config(config(every(16)));
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
    let emitted = emitter.store().end() - 1;
    // Killed rounds emit without end, so that every round meets its kill whatever the speed of
    // the machine; the last round emits a known number more.
    let total = more.map_or(u64::MAX, |more| emitted + more);
    println!("@total {total}");
    let local = emitter.local();
    tokio::spawn(async move {
        for k in emitted..total {
            let producer = PRODUCERS[(k % 3) as usize].to_string();
            let emit = Emit {
                producer,
                note: String::new(),
            };
            if local.send(emit).await.is_err() {
                break;
            }
        }
    });
    let counters = runtime.metrics().service("tally");
    let watch = tokio::spawn(async move {
        let mut last = counters.snapshot_seq.load(Ordering::Relaxed);
        loop {
            let seq = counters.snapshot_seq.load(Ordering::Relaxed);
            if seq != last {
                println!("@snapshot {seq}");
                last = seq;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    });
    if more.is_some() {
        tally.wait_for_events(total).await;
    } else {
        tokio::time::timeout(Duration::from_secs(60), tally.wait_for_events(total))
            .await
            .expect_err("an endless run ended");
        panic!("no kill came within a minute");
    }
    watch.abort();
    tally.stop(Duration::from_secs(5)).await.unwrap();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    println!("@done");
}

#[test]
fn a_process_killed_while_it_writes_snapshots_loses_nothing() {
    const LAST_ROUND: u64 = 1_000;
    const KILLS: usize = 12;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(20261202);
    let mut killed = 0;
    let mut total = None;
    for round in 0..=KILLS {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "snapshot_crash_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            .stdout(std::process::Stdio::piped());
        if round == KILLS {
            command.env(CHILD_MORE, LAST_ROUND.to_string());
        }
        let mut child = command.spawn().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        // Killed right after it reports its k-th new snapshot, while the next ones are being
        // encoded and written (one every 16 entries, without pause).
        let kill_after = rng.random_range(1..=6);
        let mut seen = 0;
        let mut done = false;
        for line in stdout.lines() {
            let line = line.unwrap();
            // libtest may print the test's name on the same line first.
            // (Read on to the end: the child's last lines must not meet a closed pipe.)
            if line.ends_with("@done") {
                done = true;
            }
            if let Some((_, n)) = line.split_once("@total ") {
                total = Some(n.trim().parse::<u64>().unwrap());
            }
            if line.contains("@snapshot ") {
                seen += 1;
                if round < KILLS && seen >= kill_after {
                    std::thread::sleep(Duration::from_micros(rng.random_range(0..3_000)));
                    child.kill().unwrap();
                    killed += 1;
                    break;
                }
            }
        }
        let status = child.wait().unwrap();
        if done {
            assert!(status.success(), "the child failed: {status}");
            break;
        }
        assert!(
            round < KILLS,
            "the last round must run to the end: {status}"
        );
    }
    assert_eq!(killed, KILLS, "every killed round met its kill");
    let total = total.unwrap();
    assert!(total > LAST_ROUND, "the killed rounds emitted items");
    let store = Arc::new(Store::open(&dir.path().join("tally")).unwrap());
    assert!(!snapshot_seqs(&store).is_empty(), "snapshots were written");
    let (restored, counters) = open_tally(&store, every(16));
    assert!(counters.snapshot_seq.load(Ordering::Relaxed) > 0);
    let (full, _) = open_tally(&store, SnapshotPolicy::OFF);
    assert_eq!(
        restored, full,
        "snapshot + tail differs from the full replay"
    );
    assert_exactly_once(&restored, total);
    assert_eq!(
        store.end() - 1,
        total,
        "one tally event per item, none twice"
    );
}
