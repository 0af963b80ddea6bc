//! One exit code per cause across the command line: 1 a refusal or a missing/wrong token, 2
//! bad usage or input, 3 not delivered or no answer within `--timeout` — and `--help` says so.

#[path = "support/process.rs"]
mod process;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use process::{Killed, free_port};

const TOKEN: &str = "arcade-test-operator-token";

fn arcade() -> Command {
    process::arcade(TOKEN)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

#[test]
fn help_names_every_exit_code() {
    let help = arcade().arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    for cause in [
        "1 refused",
        "missing or wrong token",
        "2 bad usage or input",
        "3 not delivered, or no answer within --timeout",
        "same --id",
    ] {
        assert!(text.contains(cause), "{cause:?} in {text}");
    }
}

#[test]
fn each_cause_exits_with_its_code() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let mut run = arcade()
        .args(["run", "referee", "--table", "t1", "--data"])
        .arg(data.path())
        .args(["--admin", &admin])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut logs = BufReader::new(run.stderr.take().unwrap()).lines();
    let _run = Killed(run);
    while !logs.next().unwrap().unwrap().contains("arcade ready") {}
    std::thread::spawn(move || logs.for_each(drop));
    let referee = |args: &[&str]| {
        arcade()
            .arg("referee")
            .args(args)
            .args(["--admin", &admin])
            .output()
            .unwrap()
    };
    let goal = ["goal", "--table", "t1", "--side", "hinge", "--kind", "goal"];

    // 1: the referee refuses (no game yet), with its reason.
    let refused = referee(&goal);
    assert_eq!(code(&refused), Some(1), "{refused:?}");
    assert!(
        stderr(&refused).contains("no game has been started on this table"),
        "{refused:?}"
    );
    // 1: a wrong token, and no token, alike in `arcade referee` and `arcade bingo`.
    let wrong = referee(&[&goal[..], &["--token", "not-the-token"]].concat());
    assert_eq!(code(&wrong), Some(1), "{wrong:?}");
    let shown = arcade()
        .args(["bingo", "show", "--game", "quiz", "--admin", &admin])
        .env("ARCADE_ADMIN_TOKEN", "not-the-token")
        .output()
        .unwrap();
    assert_eq!(code(&shown), Some(1), "{shown:?}");
    // No token at all (none given, none in the environment, no DATA/admin-token).
    let bare = data.path().join("no-token-here");
    std::fs::create_dir_all(&bare).unwrap();
    let tokenless = |args: &[&str]| {
        arcade()
            .args(args)
            .args(["--admin", &admin])
            .env_remove("ARCADE_ADMIN_TOKEN")
            .env("ARCADE_DATA_DIR", &bare)
            .output()
            .unwrap()
    };
    let no_token = tokenless(&[&["referee"][..], &goal[..]].concat());
    assert_eq!(code(&no_token), Some(1), "{no_token:?}");
    let no_token = tokenless(&["bingo", "show", "--game", "quiz"]);
    assert_eq!(code(&no_token), Some(1), "{no_token:?}");

    // 2: bad usage, bad input.
    assert_eq!(
        code(&referee(&["goal", "--table", "t1", "--side", "middle"])),
        Some(2)
    );
    let bad = data.path().join("bad.json");
    std::fs::write(&bad, "{\"conditions\": 3}").unwrap();
    let rules = referee(&[
        "start",
        "--table",
        "t1",
        "--game",
        "g1",
        "--rules",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code(&rules), Some(2), "{rules:?}");
    let timeout = referee(&[&goal[..], &["--timeout", "-1"]].concat());
    assert_eq!(code(&timeout), Some(2), "{timeout:?}");

    // 3: nothing answers at the address; no referee takes the table's commands.
    let nowhere = arcade()
        .args(["referee"])
        .args(goal)
        .args(["--admin", &format!("127.0.0.1:{}", free_port())])
        .output()
        .unwrap();
    assert_eq!(code(&nowhere), Some(3), "{nowhere:?}");
    let nobody = referee(&[
        "goal", "--table", "t404", "--side", "lock", "--kind", "goal",
    ]);
    assert_eq!(code(&nobody), Some(3), "{nobody:?}");

    // 3: no answer in time. A command applied once already gets none when sent again with its
    // id: the referee takes it as the duplicate it is.
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../referee/examples/bar.rules.json");
    let start = [
        "start",
        "--table",
        "t1",
        "--game",
        "g1",
        "--rules",
        rules.to_str().unwrap(),
        "--id",
        "start-g1",
    ];
    assert_eq!(code(&referee(&start)), Some(0));
    let first = referee(&[&goal[..], &["--id", "goal-1"]].concat());
    assert_eq!(code(&first), Some(0), "{first:?}");
    let again = referee(&[&goal[..], &["--id", "goal-1", "--timeout", "1"]].concat());
    assert_eq!(code(&again), Some(3), "{again:?}");
    assert!(stderr(&again).contains("--id goal-1"), "{again:?}");
    // It applied once: the next goal makes 2–0.
    let next = referee(&goal);
    assert_eq!(code(&next), Some(0), "{next:?}");
    let next: serde_json::Value = serde_json::from_slice(&next.stdout).unwrap();
    assert_eq!(
        next["payload"]["score"],
        serde_json::json!({"hinge": 2, "lock": 0})
    );
}
