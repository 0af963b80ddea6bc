//! The first run, as a new user meets it: `arcade run` in an empty directory with no `ARCADE_*`
//! variable starts every service and serves the console; the bingo secret and the admin token are
//! generated into `./data` (0600) and never shown; a second start reads them back; a bingo log
//! whose secret is gone is refused, naming where the secret must come from. `arcade demo` ends by
//! saying what to run next.
//!
//! The two addresses are the only settings given (port 0: tests run side by side), through the
//! flags, so the environment stays empty.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Generous: CI shares two cores with other work.
const PATIENCE: Duration = Duration::from_secs(90);

/// `arcade` with an empty environment (a `PATH` only), run in `dir`.
fn arcade(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .current_dir(dir);
    command
}

/// A child killed (SIGKILL) if the test fails before it stops it.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `arcade run` in `dir` and returns it with its log lines and the `arcade ready` line.
fn start(dir: &Path) -> (Guard, mpsc::Receiver<String>, String) {
    let mut child = Guard(
        arcade(dir)
            .args(["run", "--admin", "127.0.0.1:0", "--console", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stderr = child.0.stderr.take().unwrap();
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    loop {
        match received.recv_timeout(PATIENCE) {
            Ok(line) if line.contains("arcade ready") => return (child, received, line),
            Ok(line) => seen.push(line),
            Err(_) => panic!(
                "arcade run was not ready within {PATIENCE:?}:\n{}",
                seen.join("\n")
            ),
        }
    }
}

fn stop(mut child: Guard) {
    let pid = child.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = child.0.wait().unwrap();
    assert!(status.success(), "arcade run after SIGTERM: {status}");
}

/// The value of `key=` in a log line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let start = line
        .find(&format!(" {key}="))
        .unwrap_or_else(|| panic!("no {key}= in {line}"))
        + key.len()
        + 2;
    line[start..].split_whitespace().next().unwrap()
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn arcade_run_in_an_empty_directory_starts_every_service_and_serves_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let (child, log, ready) = start(dir.path());
    for service in [
        "console",
        "puzzle-telemetry",
        "bingo",
        "race-master",
        "referee.t1",
    ] {
        assert!(ready.contains(&format!("\"{service}\"")), "{ready}");
    }
    assert!(ready.contains("token=./data/admin-token"), "{ready}");
    let console = field(&ready, "console");
    let page = reqwest::blocking::get(console).unwrap();
    assert!(
        page.status().is_success(),
        "GET {console}: {}",
        page.status()
    );
    assert!(page.text().unwrap().contains("<html"));
    stop(child);

    let data = dir.path().join("data");
    let secret = std::fs::read_to_string(data.join("bingo-secret")).unwrap();
    assert!(secret.len() >= 32, "a secret of {} bytes", secret.len());
    #[cfg(unix)]
    for file in ["bingo-secret", "admin-token"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    let printed: Vec<String> = log.try_iter().collect();
    assert!(
        !printed.iter().any(|line| line.contains(secret.trim())),
        "the bingo secret was printed"
    );

    // A second start reads the same secret back.
    let (child, _, _) = start(dir.path());
    stop(child);
    assert_eq!(
        std::fs::read_to_string(data.join("bingo-secret")).unwrap(),
        secret
    );

    // The bingo log without its secret: refused, nothing generated.
    std::fs::remove_file(data.join("bingo-secret")).unwrap();
    let refused = arcade(dir.path())
        .args(["run", "--admin", "127.0.0.1:0", "--console", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(
        error.contains("ARCADE_BINGO_SECRET") && error.contains("--bingo-secret-file"),
        "{error}"
    );
    assert!(!data.join("bingo-secret").exists());
}

#[test]
fn the_demo_ends_with_what_to_run_next() {
    let dir = tempfile::tempdir().unwrap();
    let output = arcade(dir.path()).arg("demo").output().unwrap();
    assert!(output.status.success(), "arcade demo: {output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let next = text.rfind("== next").expect("no `== next` section");
    assert!(text.rfind("== summary").unwrap() < next);
    assert!(text[next..].contains("arcade run"), "{}", &text[next..]);
}
