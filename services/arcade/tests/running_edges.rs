//! Edges of a running `arcade run`: a start that fails says what failed and where (an address
//! in use), and `arcade dead list|show|replay` work on the data dir it holds, through its admin
//! endpoint, or say what they cannot do.

#[path = "support/process.rs"]
mod process;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use process::{Killed, free_port};
use serde_json::Value;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `arcade` with no operator token in the environment: `run` generates DATA/admin-token, and
/// `dead` reads it there.
fn arcade() -> Command {
    let mut command = process::arcade("");
    command.env_remove("ARCADE_ADMIN_TOKEN");
    command
}

#[test]
fn a_start_that_cannot_listen_names_the_address_and_stops_cleanly() {
    let data = tempfile::tempdir().unwrap();
    for (flag, what) in [
        ("--admin", "the admin endpoint (--admin)"),
        ("--console", "the console (--console)"),
    ] {
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap().to_string();
        let free = format!("127.0.0.1:{}", free_port());
        let mut run = arcade();
        run.arg("run").arg("--data").arg(data.path());
        if flag == "--admin" {
            run.args(["--admin", &addr]);
        } else {
            run.args(["--admin", &free, "--console", &addr]);
        }
        let output = run.output().unwrap();
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag}: {stderr}");
        assert!(
            stderr.contains(&format!("error: {what} {addr}: cannot listen")),
            "{flag}: {stderr}"
        );
        for bug in ["PLEASE REPORT", "Unexpected bug", "was cancelled", "ERROR"] {
            assert!(!stderr.contains(bug), "{flag}: {bug:?} in {stderr}");
        }
        drop(taken);
    }
}

fn dead(data: &Path, admin: &str, args: &[&str]) -> Output {
    arcade()
        .arg("dead")
        .args(args)
        .arg("--data")
        .arg(data)
        .args(["--admin", admin])
        .output()
        .unwrap()
}

fn lines(output: &Output) -> Vec<Value> {
    text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn dead_letters_are_read_and_replayed_while_the_services_run() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut child = arcade()
        .args(["run", "referee", "--table", "t1", "--data"])
        .arg(data.path())
        .args(["--admin", &admin])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut logs = BufReader::new(child.stderr.take().unwrap()).lines();
    let run = Killed(child);
    while !logs.next().unwrap().unwrap().contains("arcade ready") {}
    std::thread::spawn(move || logs.for_each(drop));

    // A command nobody consumes here (no race master): a dead letter, "unroutable".
    let payload = data.path().join("grant.json");
    std::fs::write(&payload, r#"{"team":"red","amount":5}"#).unwrap();
    let sent = arcade()
        .args(["send", "race.budget.grant.v1"])
        .arg(&payload)
        .args(["--admin", &admin])
        .env("ARCADE_DATA_DIR", data.path())
        .output()
        .unwrap();
    assert_eq!(sent.status.code(), Some(3), "{}", text(&sent.stderr));

    let listed = dead(data.path(), &admin, &["list"]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let letters = lines(&listed);
    assert_eq!(letters.len(), 1, "{letters:?}");
    assert_eq!(letters[0]["type"], "race.budget.grant.v1");
    assert_eq!(letters[0]["reason"], "unroutable");
    let id = letters[0]["id"].as_str().unwrap().to_string();

    let shown = dead(data.path(), &admin, &["show", &id]);
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    assert_eq!(lines(&shown)[0]["envelope"]["payload"]["amount"], 5);
    let missing = dead(data.path(), &admin, &["show", "no-such-id"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("no dead letter has the message id"));

    // Replayed as before: its queue still does not exist, so it is refused (exit 1) and is a
    // dead letter again.
    let replayed = dead(data.path(), &admin, &["replay", "--id", &id]);
    assert_eq!(
        replayed.status.code(),
        Some(1),
        "{}",
        text(&replayed.stderr)
    );
    let outcome = lines(&replayed);
    assert_eq!(outcome[0]["replayed"], false, "{outcome:?}");
    assert!(
        outcome[0]["error"]
            .as_str()
            .unwrap()
            .contains("queue race-master does not exist"),
        "{outcome:?}"
    );

    // Neither the data dir nor an admin endpoint: what cannot be done, and why; no raw sled.
    let nowhere = format!("127.0.0.1:{}", free_port());
    let lost = dead(data.path(), &nowhere, &["list"]);
    let stderr = text(&lost.stderr);
    assert_eq!(lost.status.code(), Some(3), "{stderr}");
    for said in [
        "cannot read the dead letters",
        "is in use by another process",
        &nowhere,
        "pass --admin ADDR",
    ] {
        assert!(stderr.contains(said), "{said:?} in {stderr}");
    }
    for raw in ["could not acquire lock", "WouldBlock", "os error 11"] {
        assert!(!stderr.contains(raw), "{raw:?} in {stderr}");
    }

    // Stopped: read from the data dir itself, the dead letter still there.
    drop(run);
    let after = dead(data.path(), &nowhere, &["list"]);
    assert!(after.status.success(), "{}", text(&after.stderr));
    assert_eq!(lines(&after).len(), 1);
}
