//! `arcade log` through the binary, on the data dir of an `arcade run` stopped with SIGTERM:
//! the log as JSON lines with increasing seqs, `--from`, `--stats`, `--follow` ending on
//! SIGTERM, `--verify` clean then naming the seq of a damaged snapshot and of a damaged log
//! entry; `arcade log archive` then `arcade log --archive`; and the in-use error while
//! `arcade run` holds the data dir.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "arcade-test-operator-token";
const PATIENCE: Duration = Duration::from_secs(120);

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    // The console on a port of its own: tests run `arcade run` side by side.
    command.env("ARCADE_CONSOLE_ADDR", "127.0.0.1:0");
    command
        .env_remove("ARCADE_AMQP_URL")
        .env_remove("ARCADE_DATA_DIR")
        .env_remove("RUST_LOG")
        .env("ARCADE_ADMIN_TOKEN", TOKEN);
    command
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child killed if the test fails before it is stopped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run(data: &Path, admin: &str) -> Guard {
    let mut child = arcade()
        .args(["run", "puzzle-telemetry", "--data"])
        .arg(data)
        .args(["--admin", admin, "--snapshot-every", "5"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("arcade ready") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(PATIENCE)
        .expect("arcade run logs that it is ready");
    Guard(child)
}

fn terminate(child: &mut Guard) {
    let status = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            assert!(status.success(), "arcade run stopped with {status}");
            return;
        }
        assert!(Instant::now() < deadline, "still running after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn log(data: &Path, extra: &[&str]) -> Output {
    arcade()
        .args(["log", "puzzle-telemetry", "--data"])
        .arg(data)
        .args(extra)
        .output()
        .unwrap()
}

fn lines(output: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn simulate(admin: &str, sessions: u32, seed: u32) {
    let simulated = arcade()
        .args(["puzzle", "simulate", "--admin", admin, "--contract", "v2"])
        .args([
            "--sessions",
            &sessions.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .output()
        .unwrap();
    assert!(
        simulated.status.success(),
        "{}",
        String::from_utf8_lossy(&simulated.stderr)
    );
}

fn wait_consumed(admin: &str, n: u64) {
    let deadline = Instant::now() + PATIENCE;
    while consumed(admin) < n {
        assert!(Instant::now() < deadline, "{n} sessions not consumed");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn consumed(admin: &str) -> u64 {
    let client = reqwest::blocking::Client::new();
    client
        .get(format!("http://{admin}/counters"))
        .bearer_auth(TOKEN)
        .send()
        .ok()
        .and_then(|r| r.json::<serde_json::Value>().ok())
        .and_then(|c| c["puzzle-telemetry"]["consumed"].as_u64())
        .unwrap_or(0)
}

#[test]
fn the_log_of_a_stopped_run_prints_counts_follows_and_verifies_and_damage_names_its_seq() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut child = run(data.path(), &admin);
    let simulated = arcade()
        .args(["puzzle", "simulate", "--admin", &admin, "--contract", "v2"])
        .args(["--sessions", "20", "--seed", "5"])
        .output()
        .unwrap();
    assert!(
        simulated.status.success(),
        "{}",
        String::from_utf8_lossy(&simulated.stderr)
    );
    let deadline = Instant::now() + PATIENCE;
    while consumed(&admin) < 20 {
        assert!(Instant::now() < deadline, "20 sessions not consumed");
        std::thread::sleep(Duration::from_millis(100));
    }
    terminate(&mut child);

    let all = log(data.path(), &[]);
    assert!(
        all.status.success(),
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );
    let entries = lines(&all);
    assert!(
        entries.len() >= 20,
        "one entry or more per session: {}",
        entries.len()
    );
    let seqs: Vec<u64> = entries.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=entries.len() as u64).collect::<Vec<_>>());
    let recorded = entries
        .iter()
        .filter(|e| e["envelope"]["type"] == "puzzle.session.recorded.v1")
        .count();
    assert_eq!(recorded, 20, "{}", entries[0]);
    assert!(
        entries[0]["envelope"]["payload"].is_object(),
        "{}",
        entries[0]
    );

    let from = lines(&log(data.path(), &["--from", "5"]));
    assert_eq!(from.len(), entries.len() - 4);
    assert_eq!(from[0], entries[4]);

    let stats = log(data.path(), &["--stats"]);
    assert!(stats.status.success());
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["events"], entries.len() as u64, "{stats}");
    assert!(stats["inbox_keys"].as_u64().unwrap() >= 20, "{stats}");
    assert!(stats["bytes_on_disk"].as_u64().unwrap() > 0, "{stats}");
    let snapshot_seq = stats["snapshot"]["seq"]
        .as_u64()
        .expect("a snapshot was taken");
    assert!(
        snapshot_seq >= 5 && snapshot_seq <= entries.len() as u64,
        "{stats}"
    );
    let end = entries.len() as u64 + 1;
    assert_eq!(
        stats["backlog"].as_u64().unwrap(),
        end - stats["relay_cursor"].as_u64().unwrap().max(1),
        "{stats}"
    );

    // --follow prints what is there, then waits; SIGTERM ends it cleanly.
    let mut follow = Guard(
        arcade()
            .args(["log", "puzzle-telemetry", "--follow", "--data"])
            .arg(data.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(follow.0.stdout.take().unwrap());
    for expected in &entries {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(
            &serde_json::from_str::<serde_json::Value>(&line).unwrap(),
            expected
        );
    }
    terminate(&mut follow);

    let clean = log(data.path(), &["--verify"]);
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stdout)
    );

    // Damage: a byte of the newest snapshot, then the format byte of the first log chunk.
    {
        let db = sled::open(data.path().join("puzzle-telemetry")).unwrap();
        let snapshots = db.open_tree("snapshots").unwrap();
        let key = snapshot_seq.to_be_bytes();
        let mut bytes = snapshots.get(key).unwrap().unwrap().to_vec();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x20;
        snapshots.insert(key, bytes).unwrap();
        db.flush().unwrap();
    }
    let damaged = log(data.path(), &["--verify"]);
    assert_eq!(damaged.status.code(), Some(1));
    let report = lines(&damaged);
    assert_eq!(report[0]["damaged"], "snapshot", "{report:?}");
    assert_eq!(report[0]["seq"], snapshot_seq, "{report:?}");
    assert_eq!(report.last().unwrap()["damaged"], 1, "{report:?}");
    {
        let db = sled::open(data.path().join("puzzle-telemetry")).unwrap();
        let log = db.open_tree("log").unwrap();
        let (key, value) = log.iter().next().unwrap().unwrap();
        let mut bytes = value.to_vec();
        bytes[0] ^= 0x40;
        log.insert(key, bytes).unwrap();
        db.flush().unwrap();
    }
    let report = lines(&log(data.path(), &["--verify"]));
    assert_eq!(
        (&report[0]["damaged"], &report[0]["seq"]),
        (&"log".into(), &1.into()),
        "{report:?}"
    );
}

#[test]
fn follow_prints_what_a_later_run_appended_and_ends_on_sigterm() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut child = run(data.path(), &admin);
    simulate(&admin, 3, 8);
    wait_consumed(&admin, 3);
    terminate(&mut child);
    let before = lines(&log(data.path(), &[])).len();

    let mut follow = Guard(
        arcade()
            .args(["log", "puzzle-telemetry", "--follow", "--data"])
            .arg(data.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdout = follow.0.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(serde_json::from_str::<serde_json::Value>(&line).unwrap());
        }
    });
    let mut seen = Vec::new();
    for _ in 0..before {
        seen.push(rx.recv_timeout(PATIENCE).expect("the existing entries"));
    }
    // A run started while the follower looks now and then: it gets the store (it waits for the
    // lock), appends, and once it stops the follower prints what it appended.
    let mut child = run(data.path(), &admin);
    simulate(&admin, 4, 9);
    wait_consumed(&admin, 4);
    terminate(&mut child);
    // The follower opens the store now and then: a read that meets it there is told the data
    // dir is in use, and reads again.
    let after = {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let read = log(data.path(), &[]);
            if read.status.success() {
                break lines(&read);
            }
            let error = String::from_utf8_lossy(&read.stderr).into_owned();
            assert!(
                error.contains("in use") && Instant::now() < deadline,
                "arcade log: {error}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    assert!(after.len() >= before + 4, "{} then {}", before, after.len());
    while seen.len() < after.len() {
        seen.push(
            rx.recv_timeout(PATIENCE)
                .expect("the new entries, once the run stopped"),
        );
    }
    assert_eq!(seen, after);
    terminate(&mut follow);
}

#[test]
fn archive_prunes_a_stopped_log_into_a_file_that_reads_back() {
    let data = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut child = run(data.path(), &admin);
    simulate(&admin, 20, 7);
    wait_consumed(&admin, 20);
    terminate(&mut child);
    let entries = lines(&log(data.path(), &[]));

    // Young records: the history keeps them all.
    let kept = arcade()
        .args(["log", "archive", "puzzle-telemetry", "--data"])
        .arg(data.path())
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        kept.status.success(),
        "{}",
        String::from_utf8_lossy(&kept.stderr)
    );
    assert_eq!(lines(&kept).last().unwrap()["archived"], 0);

    // Before the end: up to what the older snapshot covers.
    let end = (entries.len() + 1).to_string();
    let archived = arcade()
        .args(["log", "archive", "puzzle-telemetry", "--data"])
        .arg(data.path())
        .arg("--out")
        .arg(out.path())
        .args(["--before", &end])
        .output()
        .unwrap();
    assert!(
        archived.status.success(),
        "{}",
        String::from_utf8_lossy(&archived.stderr)
    );
    let report = lines(&archived);
    let start = report.last().unwrap()["log_start"].as_u64().unwrap();
    assert!(start > 1, "{report:?}");
    let file = report[0]["archive"].as_str().unwrap().to_string();
    let read = arcade().args(["log", "--archive", &file]).output().unwrap();
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    assert_eq!(lines(&read), entries[..(start - 1) as usize].to_vec());
    let rest = lines(&log(data.path(), &[]));
    assert_eq!(rest, entries[(start - 1) as usize..].to_vec());
    let verify = log(data.path(), &["--verify"]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    let stats: serde_json::Value =
        serde_json::from_slice(&log(data.path(), &["--stats"]).stdout).unwrap();
    assert_eq!(stats["first"], start, "{stats}");

    // The service starts again on its pruned log, from its snapshot.
    let admin = format!("127.0.0.1:{}", free_port());
    let mut child = run(data.path(), &admin);
    terminate(&mut child);
}

#[test]
fn while_arcade_run_holds_the_data_dir_the_log_says_it_is_in_use() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let _child = run(data.path(), &admin);
    for flag in [&[][..], &["--stats"][..], &["--verify"][..]] {
        let output = log(data.path(), flag);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{flag:?}: {stderr}");
        assert!(
            stderr.contains("is in use by a running process (stop it first"),
            "{flag:?}: {stderr}"
        );
        assert!(
            !stderr.contains("sled") && !stderr.contains("WouldBlock"),
            "{stderr}"
        );
    }
    let archive = arcade()
        .args([
            "log",
            "archive",
            "puzzle-telemetry",
            "--out",
            "/nonexistent",
            "--data",
        ])
        .arg(data.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&archive.stderr);
    assert!(!archive.status.success(), "{stderr}");
    assert!(stderr.contains("prunes its own log"), "{stderr}");
}
