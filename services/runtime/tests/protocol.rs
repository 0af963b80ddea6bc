//! The nothing-lost, nothing-twice protocol, proven on the embedded transport: a host process
//! killed with SIGKILL at 100 points of a 10,000-message stream (this test binary run again as
//! the ignored test `child_embedded_host`), duplicate deliveries, malformed messages, messages with
//! no id, and replay equal to live handling.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit::{self, Emit, Emitter, ItemEmitted, Tally, TallyState};
use arcade_runtime::wire::HEADER_DEAD_REASON;
use arcade_runtime::{Bus, Destination, HostConfig, Publication, WireMessage};
use rand::{Rng, SeedableRng};

const PRODUCERS: [&str; 3] = ["a", "b", "c"];

fn item(producer: &str, n: u64) -> WireMessage {
    let body = serde_json::to_vec(&ItemEmitted {
        producer: producer.into(),
        n,
        note: String::new(),
    })
    .unwrap();
    WireMessage {
        message_type: Some(ItemEmitted::TYPE.into()),
        message_id: Some(format!("{producer}-{n}")),
        body,
        ..Default::default()
    }
}

fn to_tally(message: WireMessage) -> Publication {
    Publication {
        destination: Destination::Queue("tally".into()),
        message,
    }
}

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(120), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

fn assert_exactly_once(state: &TallyState, expected: &BTreeMap<String, u64>) {
    assert!(
        state.applied_twice().is_empty(),
        "applied twice: {:?}",
        state.applied_twice()
    );
    assert_eq!(state.out_of_order, 0, "items came out of order");
    let total: u64 = expected.values().sum();
    assert_eq!(state.applied.len() as u64, total, "items lost");
    assert_eq!(&state.last, expected);
}

const CHILD_DIR: &str = "ARCADE_CRASH_CHILD_DIR";
const TOTAL: u64 = 10_000;

/// Not a test on its own: the process `sigkill_at_100_points_loses_nothing_and_applies_nothing_twice`
/// kills. It hosts an emitter and a tally on the embedded bus in `ARCADE_CRASH_CHILD_DIR`,
/// feeds the emitter up to `TOTAL` items (resuming where its log ends), and prints `ready N`
/// once started, then `tally N` each time the tally's log holds N durable events, and
/// `drained` once the whole stream is applied and nothing is left to deliver. On SIGTERM it
/// stops cleanly and prints `settled DEPTH DEAD` (the tally queue's depth, the dead letters).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by sigkill_at_100_points_loses_nothing_and_applies_nothing_twice as its child"]
async fn child_embedded_host() {
    use std::io::Write;
    let dir = std::path::PathBuf::from(std::env::var(CHILD_DIR).expect("the child's data dir"));
    let stop = arcade_runtime::shutdown::signal();
    let bus = Arc::new(EmbeddedBus::open(&dir.join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), &dir).with_config(testkit::batches(64, 128));
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
    let say = |line: String| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    let mut durable = tally.durable_end();
    say(format!("ready {}", durable.borrow().saturating_sub(1)));
    let emitted = emitter.store().end() - 1;
    let local = emitter.local();
    let feeder = tokio::spawn(async move {
        for k in emitted..TOTAL {
            let producer = PRODUCERS[(k % 3) as usize].to_string();
            let emit = Emit {
                producer,
                note: "x".repeat(64),
            };
            if local.send(emit).await.is_err() {
                break;
            }
        }
    });
    let progress = async {
        while durable.changed().await.is_ok() {
            let events = durable.borrow_and_update().saturating_sub(1);
            say(format!("tally {events}"));
            if events >= TOTAL {
                break;
            }
        }
        // The whole stream is applied; redeliveries and republishes may still be on their way
        // (absorbed by the inbox). Settled: the emitter's relay has published its whole log and
        // the tally's queue is empty.
        let emitter = runtime.metrics().service("emitter");
        while emitter.relay_backlog() > 0 || bus.depth("tally") > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        say("drained".into());
        std::future::pending::<()>().await;
    };
    tokio::select! {
        () = stop => {}
        () = progress => {}
    }
    feeder.abort();
    runtime.begin_shutdown();
    tally.stop(Duration::from_secs(5)).await.unwrap();
    emitter.stop(Duration::from_secs(5)).await.unwrap();
    say(format!(
        "settled {} {}",
        bus.depth("tally"),
        bus.dead_letters().len()
    ));
    bus.close().await.unwrap();
}

/// The child process on `dir`, and its stdout lines (read by a thread, so that a child that
/// stops making progress fails the test at a deadline instead of hanging it).
fn spawn_child(dir: &std::path::Path) -> (std::process::Child, mpsc::Receiver<String>) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "child_embedded_host",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, dir)
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the test binary runs again as the host process");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// The next line of the child that starts with `prefix`, without it; `None` once the child's
/// stdout is closed. Fails after two minutes without one (a stream that stopped progressing).
fn next_line(lines: &mpsc::Receiver<String>, prefix: &str) -> Option<String> {
    loop {
        match lines.recv_timeout(Duration::from_secs(120)) {
            Ok(line) => {
                if let Some(rest) = line.strip_prefix(prefix) {
                    return Some(rest.trim().to_string());
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("the host process printed no {prefix:?} line in 120 s")
            }
        }
    }
}

/// The next progress line (`ready N` or `tally N`) of the child: N.
fn progress(lines: &mpsc::Receiver<String>) -> Option<u64> {
    loop {
        let line = next_line(lines, "")?;
        if let Some(n) = line
            .strip_prefix("ready ")
            .or_else(|| line.strip_prefix("tally "))
        {
            return n.parse().ok();
        }
    }
}

/// A real crash, 100 times: the host process is killed with SIGKILL (no flush, no ack, sled's
/// threads gone with it) at 100 points over a 10,000-message stream — some while it is still
/// replaying — and its data directory is opened by a new process each time. At the end every
/// item was applied exactly once, in order per producer, every delivery was acked and nothing
/// was dead-lettered.
#[test]
fn sigkill_at_100_points_loses_nothing_and_applies_nothing_twice() {
    const CRASHES: usize = 100;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(20261202);
    let mut points: Vec<u64> = (0..CRASHES).map(|_| rng.random_range(0..TOTAL)).collect();
    points.sort_unstable();
    let mut killed_at = Vec::new();
    for point in points {
        let (mut child, lines) = spawn_child(dir.path());
        let mut seen = 0;
        while seen < point {
            seen = progress(&lines).unwrap_or_else(|| {
                let status = child.wait();
                panic!("the host process ended before {point} events: {status:?}")
            });
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        killed_at.push(seen);
    }
    assert_eq!(killed_at.len(), CRASHES);

    // The last run: to the end of the stream, then a clean stop.
    let (mut child, lines) = spawn_child(dir.path());
    while progress(&lines).expect("the host process runs to the end") < TOTAL {}
    next_line(&lines, "drained").expect("the host process drains its queue");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let settled = next_line(&lines, "settled ").expect("the host process says how it settled");
    assert!(child.wait().unwrap().success(), "a clean stop");
    assert_eq!(
        settled, "0 0",
        "tally queue depth and dead letters at the end"
    );

    // A third process (this one) reads the tally's log: each item once, in order, none lost.
    let store = Arc::new(arcade_runtime::Store::open(&dir.path().join("tally")).unwrap());
    let host = arcade_runtime::Host::open(
        Arc::new(Tally {
            name: "tally".into(),
        }),
        store,
        Arc::new(testkit::catalog()),
        Default::default(),
        arcade_runtime::Clock::system(),
        HostConfig::default(),
    )
    .unwrap();
    let expected: BTreeMap<String, u64> = PRODUCERS
        .iter()
        .enumerate()
        .map(|(i, p)| (p.to_string(), (TOTAL + 2 - i as u64) / 3))
        .collect();
    assert_exactly_once(host.state(), &expected);
    eprintln!("killed at {killed_at:?}");
}

#[tokio::test]
async fn duplicate_deliveries_are_absorbed() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), dir.path()).with_config(testkit::batches(64, 128));
    let tally = runtime
        .start(Tally {
            name: "tally".into(),
        })
        .unwrap();
    let mut publications = Vec::new();
    for n in 1..=100 {
        publications.push(to_tally(item("a", n)));
        if n % 3 == 0 {
            publications.push(to_tally(item("a", n)));
        }
    }
    bus.publish(&publications).await.unwrap();
    // The same messages once more, later: already processed, they change nothing.
    bus.publish(&publications[..50]).await.unwrap();
    bus.publish(&[to_tally(item("a", 101))]).await.unwrap();
    within("101 items", tally.wait_for_events(101)).await;
    let host = tally.stop(Duration::from_secs(1)).await.unwrap();
    assert_exactly_once(host.state(), &BTreeMap::from([("a".to_string(), 101)]));
    let counters = runtime.metrics().snapshot()["tally"];
    assert_eq!(counters.deduplicated, 33 + 50);
    assert_eq!(counters.consumed, 101 + 33 + 50);
}

#[tokio::test]
async fn a_message_without_id_is_deduplicated_on_its_type_and_body() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), dir.path()).with_config(testkit::batches(64, 128));
    let tally = runtime
        .start(Tally {
            name: "tally".into(),
        })
        .unwrap();
    let mut bare = item("symfony", 1);
    bare.message_id = None;
    bus.publish(&[to_tally(bare.clone()), to_tally(bare)])
        .await
        .unwrap();
    let mut second = item("symfony", 2);
    second.message_id = None;
    bus.publish(&[to_tally(second)]).await.unwrap();
    within("2 items", tally.wait_for_events(2)).await;
    let host = tally.stop(Duration::from_secs(1)).await.unwrap();
    assert_exactly_once(host.state(), &BTreeMap::from([("symfony".to_string(), 2)]));
    assert_eq!(runtime.metrics().snapshot()["tally"].deduplicated, 1);
}

fn malformed(rng: &mut impl Rng, k: usize) -> (WireMessage, &'static str) {
    let typed = |body: Vec<u8>| WireMessage {
        message_type: Some(ItemEmitted::TYPE.into()),
        message_id: Some(format!("bad-{k}")),
        body,
        ..Default::default()
    };
    match k % 7 {
        0 => {
            let len = rng.random_range(0..200);
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            bytes.insert(0, b'#');
            (typed(bytes), "body is not JSON")
        }
        1 => {
            let full = serde_json::to_vec(&ItemEmitted {
                producer: "z".into(),
                n: 5,
                note: String::new(),
            })
            .unwrap();
            let cut = rng.random_range(1..full.len() - 1);
            (typed(full[..cut].to_vec()), "body is not JSON")
        }
        2 => (
            typed(br#"{"producer":5,"n":"seven"}"#.to_vec()),
            "/producer",
        ),
        3 => {
            let mut m = typed(b"{}".to_vec());
            m.message_type = Some(format!("test.item.vanished.v{k}"));
            (m, "unknown message type")
        }
        4 => (typed(vec![b'7'; 1 << 20]), "exceeds the limit"),
        5 => {
            let mut m = typed(br#"{"producer":"z","n":1}"#.to_vec());
            m.message_type = None;
            (m, "no message type")
        }
        _ => (typed(br#"{"producer":"z","n":0}"#.to_vec()), "/n"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_go_to_the_dead_letters_and_good_ones_all_pass() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = testkit::runtime(bus.clone(), dir.path()).with_config(testkit::batches(64, 128));
    let tally = runtime
        .start(Tally {
            name: "tally".into(),
        })
        .unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut expected_reasons = Vec::new();
    let mut publications = Vec::new();
    for k in 0..1000 {
        let (bad, reason) = malformed(&mut rng, k);
        expected_reasons.push(reason);
        publications.push(to_tally(bad));
        publications.push(to_tally(item("good", k as u64 + 1)));
    }
    for chunk in publications.chunks(100) {
        bus.publish(chunk).await.unwrap();
    }
    within("1000 good items", tally.wait_for_events(1000)).await;
    let host = tally.stop(Duration::from_secs(1)).await.unwrap();
    assert_exactly_once(host.state(), &BTreeMap::from([("good".to_string(), 1000)]));
    let dead = bus.dead_letters();
    assert_eq!(dead.len(), 1000);
    for (letter, expected) in dead.iter().zip(&expected_reasons) {
        let reason = letter.headers.get(HEADER_DEAD_REASON).expect("a reason");
        assert!(
            reason.contains(expected),
            "{reason:?} should say {expected:?}"
        );
    }
    assert_eq!(runtime.metrics().snapshot()["tally"].dead_lettered, 1000);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn replaying_the_log_rebuilds_the_live_state(
        stream in proptest::collection::vec((0usize..3, 1u64..40, proptest::bool::ANY), 1..120)
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let dir = tempfile::tempdir().unwrap();
            let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
            let runtime = testkit::runtime(bus.clone(), dir.path()).with_config(testkit::batches(64, 128));
            let tally = runtime.start(Tally { name: "tally".into() }).unwrap();
            // Arbitrary items (out of order, repeated ids, repeated bodies under new ids).
            let publications: Vec<Publication> = stream
                .iter()
                .enumerate()
                .map(|(k, (p, n, fresh_id))| {
                    let mut m = item(PRODUCERS[*p], *n);
                    if *fresh_id { m.message_id = Some(format!("fresh-{k}")); }
                    to_tally(m)
                })
                .collect();
            bus.publish(&publications).await.unwrap();
            let mut distinct: Vec<&Option<String>> = publications.iter().map(|p| &p.message.message_id).collect();
            distinct.sort();
            distinct.dedup();
            within("the stream", tally.wait_for_events(distinct.len() as u64)).await;
            let live = tally.stop(Duration::from_secs(1)).await.unwrap().state().clone();
            drop(runtime);
            let reopened = testkit::runtime(bus.clone(), dir.path()).with_config(testkit::batches(64, 128));
            let again = reopened.start(Tally { name: "tally".into() }).unwrap();
            let replayed = again.stop(Duration::from_secs(1)).await.unwrap().state().clone();
            assert_eq!(live, replayed);
            assert_eq!(live.applied.values().map(|c| u64::from(*c)).sum::<u64>(), distinct.len() as u64);
        });
    }
}
