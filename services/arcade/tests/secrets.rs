//! No secret anywhere after a full demo: `arcade demo` at `RUST_LOG=trace`, with every secret
//! setting also in its environment, then a search for each secret's value (and its hex and
//! base64 forms) in its stdout and stderr, in the `--help` of every subcommand, in every
//! service's events (`arcade log`), in the dead letters (`arcade dead list`) and in every file
//! of its data dir: raw bytes, and every sled value, decompressed when it is an LZ4 chunk (the
//! logs and the embedded queues store their records compressed, so a raw grep alone would find
//! nothing even if a secret were there).
//!
//! The secrets:
//! - the demo's bingo server secret and race seed (fixed in `src/demo/bingo.rs` and
//!   `src/demo/race.rs`); the race seed is secret until the race ends: `race.finished.v1`
//!   reveals it (that is the commitment's point, `race.started.v1` shows its SHA-256), so it may
//!   appear in that event and in the demo's story after the race is over, nowhere else;
//! - values in the environment, which `--help` once printed: a password in `ARCADE_AMQP_URL`,
//!   `ARCADE_ADMIN_TOKEN`, `ARCADE_BINGO_SECRET`, `ARCADE_RACE_SEED`.
//!
//! The demo serves no admin endpoint, so there is no `arcade tap` to run beside it and no
//! token file in its data dir (the first test asserts that none was written); the second test
//! covers those: `arcade run` with its generated operator token and race seed, a signed
//! producer's key (`ARCADE_SIGNING_KEYS`), a tap, a player's and a team's secrets, a claim sent
//! with the player's token.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The demo's bingo secret (`src/demo/bingo.rs`).
const DEMO_BINGO_SECRET: &[u8] = b"arcade-demo-bingo-secret";
/// The demo's race seed (`src/demo/race.rs`).
const DEMO_RACE_SEED: u64 = 9_046_201_173_350_218_411;

/// Secrets given in the environment only (the demo does not use them: they must show nowhere).
const AMQP_PASSWORD: &str = "amqp-pw-Zq81LeakCheck";
const ADMIN_TOKEN: &str = "arc_env-admin-token-7f3e91c0d2b4";
const ENV_BINGO_SECRET: &str = "env-bingo-secret-4b1d0e9a77c2";
const ENV_RACE_SEED: u64 = 8_317_665_900_412_775_031;

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command
        .env(
            "ARCADE_AMQP_URL",
            format!("amqp://leaky:{AMQP_PASSWORD}@127.0.0.1:1/%2f"),
        )
        .env("ARCADE_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("ARCADE_BINGO_SECRET", ENV_BINGO_SECRET)
        .env("ARCADE_RACE_SEED", ENV_RACE_SEED.to_string())
        // The console on a port of its own: tests run `arcade run` side by side.
        .env("ARCADE_CONSOLE_ADDR", "127.0.0.1:0")
        .env_remove("ARCADE_DATA_DIR")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
    command
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// A secret and the forms it could be written in.
struct Secret {
    name: &'static str,
    forms: Vec<Vec<u8>>,
}

impl Secret {
    fn bytes(name: &'static str, value: &[u8]) -> Secret {
        let hex: String = value.iter().map(|b| format!("{b:02x}")).collect();
        // A base64 form depends on the alignment; the first 15 bytes (aligned) are enough.
        let head = &value[..value.len().min(15)];
        Secret {
            name,
            forms: vec![
                value.to_vec(),
                hex.clone().into_bytes(),
                hex.to_uppercase().into_bytes(),
                base64(head).into_bytes(),
            ],
        }
    }

    fn seed(name: &'static str, seed: u64) -> Secret {
        let hex = |bytes: [u8; 8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        Secret {
            name,
            forms: vec![
                seed.to_string().into_bytes(),
                format!("{seed:x}").into_bytes(),
                hex(seed.to_le_bytes()).into_bytes(),
                base64(&seed.to_le_bytes()).into_bytes(),
                base64(&seed.to_be_bytes()).into_bytes(),
            ],
        }
    }

    /// The first form found in `haystack`, if any.
    fn found_in(&self, haystack: &[u8]) -> Option<String> {
        self.forms
            .iter()
            .find(|form| haystack.windows(form.len()).any(|w| w == form.as_slice()))
            .map(|form| String::from_utf8_lossy(form).into_owned())
    }
}

fn secrets() -> (Vec<Secret>, Secret) {
    let always = vec![
        Secret::bytes("the demo's bingo secret", DEMO_BINGO_SECRET),
        Secret::bytes("the AMQP password", AMQP_PASSWORD.as_bytes()),
        Secret::bytes("the admin token", ADMIN_TOKEN.as_bytes()),
        Secret::bytes("ARCADE_BINGO_SECRET", ENV_BINGO_SECRET.as_bytes()),
        Secret::seed("ARCADE_RACE_SEED", ENV_RACE_SEED),
    ];
    (always, Secret::seed("the demo's race seed", DEMO_RACE_SEED))
}

/// The path of every subcommand, from `arcade --help` down.
fn subcommands(path: Vec<String>, out: &mut Vec<Vec<String>>) {
    let help = arcade().args(&path).arg("--help").output().unwrap();
    assert!(help.status.success(), "arcade {path:?} --help failed");
    let text = String::from_utf8(help.stdout).unwrap();
    out.push(path.clone());
    let Some((_, commands)) = text.split_once("Commands:\n") else {
        return;
    };
    for line in commands.lines().take_while(|l| !l.trim().is_empty()) {
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        if name != "help" {
            let mut sub = path.clone();
            sub.push(name.to_string());
            subcommands(sub, out);
        }
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every key and value of the sled database at `dir`, each value decompressed into its
/// records when it is an LZ4 chunk (`[0x03][raw length u32 LE][LZ4 block of frames]`, a frame
/// being `[length u32 LE][bytes]`).
fn sled_records(dir: &Path) -> Vec<Vec<u8>> {
    let db = sled::Config::new().path(dir).open().unwrap();
    let mut records = Vec::new();
    for name in db.tree_names() {
        let tree = db.open_tree(&name).unwrap();
        for item in tree.iter() {
            let (key, value) = item.unwrap();
            records.push(key.to_vec());
            if value.first() == Some(&0x03) && value.len() >= 5 {
                let len = u32::from_le_bytes(value[1..5].try_into().unwrap()) as usize;
                let raw = lz4_flex::block::decompress(&value[5..], len)
                    .unwrap_or_else(|e| panic!("{}: a chunk that is no LZ4: {e}", dir.display()));
                let mut rest = raw.as_slice();
                while let Some((len, tail)) = rest.split_first_chunk::<4>() {
                    let len = (u32::from_le_bytes(*len) as usize).min(tail.len());
                    records.push(tail[..len].to_vec());
                    rest = &tail[len..];
                }
            } else {
                records.push(value.to_vec());
            }
        }
    }
    records
}

#[test]
fn no_secret_in_logs_help_events_or_data_after_a_full_demo() {
    let (always, race_seed) = secrets();
    let check = |what: &str, haystack: &[u8]| {
        for secret in &always {
            if let Some(form) = secret.found_in(haystack) {
                panic!("{what} shows {} ({form})", secret.name);
            }
        }
    };

    // The help of every subcommand, with every secret in the environment.
    let mut paths = Vec::new();
    subcommands(Vec::new(), &mut paths);
    assert!(paths.len() > 25, "{paths:?}");
    for path in &paths {
        let help = arcade().args(path).arg("--help").output().unwrap();
        let what = format!("arcade {} --help", path.join(" "));
        check(&what, &help.stdout);
        check(&what, &help.stderr);
        assert!(race_seed.found_in(&help.stdout).is_none(), "{what}");
    }

    // The demo at trace level.
    let data = tempfile::tempdir().unwrap();
    let demo = arcade()
        .args(["demo", "--data"])
        .arg(data.path())
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&demo.stdout).into_owned();
    assert!(demo.status.success(), "the demo failed: {stdout}");
    check("the demo's stdout", &demo.stdout);
    check("the demo's trace log", &demo.stderr);
    // sled's own logs stay at warnings unless RUST_LOG names it (they are noise, and logging
    // from its destructors at exit aborted the process); Arcade's debug spans show the level.
    assert!(
        String::from_utf8_lossy(&demo.stderr).contains(" DEBUG "),
        "the log is not at trace level: {} bytes",
        demo.stderr.len()
    );
    // The race seed: in the story only once the race is over, which reveals it.
    let over = stdout
        .lines()
        .position(|l| l.contains("race over after turn"))
        .expect("the race ends");
    for (n, line) in stdout.lines().enumerate() {
        if race_seed.found_in(line.as_bytes()).is_some() {
            assert!(
                n >= over,
                "the demo shows the race seed before the end: {line}"
            );
        }
    }
    assert!(
        stdout
            .lines()
            .nth(over)
            .unwrap()
            .contains(&DEMO_RACE_SEED.to_string()),
        "the end of the race reveals its seed"
    );
    let stderr = String::from_utf8_lossy(&demo.stderr);
    let finished = stderr.lines().position(|l| l.contains("race.finished.v1"));
    for (n, line) in stderr.lines().enumerate() {
        if race_seed.found_in(line.as_bytes()).is_some() {
            assert!(
                finished.is_some_and(|f| n >= f),
                "the trace log shows the race seed before the race finished: {line}"
            );
        }
    }

    // No token or seed file: the demo got its secrets in code.
    for file in ["admin-token", "race-seed", "principals.json"] {
        assert!(!data.path().join(file).exists(), "{file}");
    }

    // Every service's events; the race seed only in `race.finished.v1`.
    let mut services = Vec::new();
    for entry in std::fs::read_dir(data.path()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().join("db").exists() && name != "bus" {
            services.push(name);
        }
    }
    services.sort();
    assert_eq!(
        services,
        [
            "bingo",
            "puzzle-telemetry",
            "race-master",
            "referee.demo-table"
        ]
    );
    let mut revealed = 0;
    for service in &services {
        // `arcade log` names a referee's store `referee --table …`; read every store as a
        // service of its own directory name.
        let log = arcade()
            .args(["log", service, "--data"])
            .arg(data.path())
            .output()
            .unwrap();
        let what = format!("arcade log {service}");
        assert!(
            log.status.success() && !log.stdout.is_empty(),
            "{what}: {}",
            String::from_utf8_lossy(&log.stderr)
        );
        check(&what, &log.stdout);
        check(&what, &log.stderr);
        for line in String::from_utf8_lossy(&log.stdout).lines() {
            if race_seed.found_in(line.as_bytes()).is_some() {
                assert!(
                    line.contains("\"race.finished.v1\""),
                    "{what}: the race seed outside race.finished.v1: {line}"
                );
                revealed += 1;
            }
        }
    }
    assert_eq!(revealed, 1, "race.finished.v1 reveals the seed, once");
    let dead = arcade()
        .args(["dead", "list", "--data"])
        .arg(data.path())
        .env_remove("ARCADE_AMQP_URL")
        .output()
        .unwrap();
    assert!(
        dead.status.success(),
        "{}",
        String::from_utf8_lossy(&dead.stderr)
    );
    check("arcade dead list", &dead.stdout);
    assert!(race_seed.found_in(&dead.stdout).is_none());

    // Every file, raw; every sled record, decompressed. The race seed only in a record of
    // `race.finished.v1` (the race master's log, the bus's queues that carried it).
    let mut all = Vec::new();
    files(data.path(), &mut all);
    assert!(all.len() > 10, "{all:?}");
    for file in &all {
        let bytes = std::fs::read(file).unwrap();
        check(&file.display().to_string(), &bytes);
    }
    let mut records = 0;
    let mut finished_records = 0;
    for dir in services.iter().map(String::as_str).chain(["bus"]) {
        for record in sled_records(&data.path().join(dir)) {
            records += 1;
            let what = format!("a record of {dir}");
            check(&what, &record);
            if race_seed.found_in(&record).is_some() {
                assert!(
                    record
                        .windows(b"race.finished.v1".len())
                        .any(|w| w == b"race.finished.v1"),
                    "{what} holds the race seed outside race.finished.v1: {}",
                    String::from_utf8_lossy(&record)
                );
                finished_records += 1;
            }
        }
    }
    assert!(records > 1_000, "{records} records read");
    // The decoding reads what is stored: the revealing event is found in the records.
    assert!(
        finished_records >= 1,
        "race.finished.v1 not found in the stores"
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child killed at the end of the test if it is still running.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The tokens, a generated race seed and the bingo secret of a running `arcade run` (trace
/// logs) that generated its operator token, with `arcade tap '#'` beside it, a player and a
/// team given their secrets, a game opened and a player's claim sent with the player's
/// token, a race started with the team's car (registered with the team's token), every
/// service snapshotting after each entry (`--snapshot-every 1`): none shows in its log, the tap's output, the clients' output (but the one that
/// prints a principal's new secret: that is its purpose), the events or the data dir, except
/// the files made to hold them, each readable by its owner only:
/// - `DATA/admin-token`: the operator's generated token (the clients read it there);
/// - `DATA/race-seed`: the race seed drawn at the first start (a restart reads it);
/// - `DATA/principals.json` holds only the SHA-256 of each principal's token: no exception.
#[test]
fn no_token_or_seed_in_a_running_arcade_its_tap_or_its_data() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    const BINGO_SECRET: &str = "run-bingo-secret-93c0aa71e4f2";
    const SIGNING_KEY: &str = "run-signing-key-5d2e81c4a09b77";
    let data = tempfile::tempdir().unwrap();
    // A signed producer's key, in a file outside the data dir (which is searched).
    let keys = tempfile::tempdir().unwrap();
    let keys_file = keys.path().join("signing-keys.json");
    std::fs::write(
        &keys_file,
        format!(r#"{{"producers": {{"shop": ["{SIGNING_KEY}"]}}}}"#),
    )
    .unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let client = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
        command
            .env_remove("ARCADE_AMQP_URL")
            .env_remove("ARCADE_ADMIN_TOKEN")
            .env_remove("ARCADE_RACE_SEED")
            .env_remove("ARCADE_DATA_DIR")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("RUST_LOG");
        command
    };
    let mut run = Child(
        client()
            .args(["run", "--data"])
            .arg(data.path())
            .args(["--admin", &admin, "--snapshot-every", "1"])
            .env("ARCADE_BINGO_SECRET", BINGO_SECRET)
            .env("ARCADE_SIGNING_KEYS", &keys_file)
            .env("RUST_LOG", "trace")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stderr = run.0.stderr.take().unwrap();
    let (ready_tx, ready) = std::sync::mpsc::channel();
    let logger = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut lines = BufReader::new(stderr);
        let mut line = Vec::new();
        while lines.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
            if line.windows(12).any(|w| w == b"arcade ready") {
                let _ = ready_tx.send(());
            }
            all.append(&mut line);
        }
        all
    });
    ready
        .recv_timeout(Duration::from_secs(120))
        .expect("arcade run is ready within 120 s");

    let token_file = data.path().join("admin-token");
    let seed_file = data.path().join("race-seed");
    let operator = std::fs::read_to_string(&token_file)
        .unwrap()
        .trim()
        .to_string();
    let race_seed: u64 = std::fs::read_to_string(&seed_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(mode(&token_file), 0o600);
    assert_eq!(mode(&seed_file), 0o600);
    let sub = |args: &[&str], token: &str| {
        let mut command = client();
        command
            .args(args)
            .args(["--admin", &admin])
            .env("ARCADE_ADMIN_TOKEN", token);
        command.output().unwrap()
    };

    let tap_file = data.path().with_extension("tap.jsonl");
    let mut tap = Child(
        client()
            .args(["tap", "#", "--admin", &admin])
            .env("ARCADE_ADMIN_TOKEN", &operator)
            .stdout(std::fs::File::create(&tap_file).unwrap())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );

    // Principals and their secrets (printed on stdout once: kept out of the search).
    let mut outputs: Vec<(String, Vec<u8>)> = Vec::new();
    let mut issue = |args: &[&str]| {
        let out = sub(args, &operator);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        outputs.push((format!("arcade {} (stderr)", args.join(" ")), out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let alice = issue(&["bingo", "player", "add", "alice"]);
    let red = issue(&["race", "team", "add", "red"]);
    assert!(alice.starts_with("arc_") && red.starts_with("arc_"));
    assert_eq!(mode(&data.path().join("principals.json")), 0o600);

    // A called game, alice's card, every square called, alice's claim with her token.
    let squares = data.path().with_extension("squares.txt");
    std::fs::write(&squares, "A\nB\nC\nD\nE\nF\nG\nH\n").unwrap();
    let mut step = |args: Vec<String>, token: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = sub(&args, token);
        assert!(
            out.status.success(),
            "arcade {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        outputs.push((format!("arcade {}", args.join(" ")), out.stdout));
        outputs.push((format!("arcade {} (stderr)", args.join(" ")), out.stderr));
    };
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    step(
        s(&[
            "bingo",
            "open",
            "--game",
            "g",
            "--grid",
            "3",
            "--squares",
            squares.to_str().unwrap(),
            "--patterns",
            "line",
        ]),
        &operator,
    );
    let payload = |name: &str, json: &str| {
        let path = data.path().with_extension(name);
        std::fs::write(&path, json).unwrap();
        path.to_str().unwrap().to_string()
    };
    // A race started, red's car registered with red's token: the race master's state holds
    // the seed's SHA-256 and questions to red, and is snapshotted after every entry.
    let register = payload(
        "register.json",
        r#"{"team":"red","car":"red-1","modules":{"pilots":1,"engines":2,"weapons":1}}"#,
    );
    step(s(&["send", "race.car.register.v1", &register]), &red);
    let start = payload("start.json", r#"{"turns":50}"#);
    step(s(&["send", "race.start.v1", &start]), &operator);
    let deal = payload(
        "deal.json",
        r#"{"requestId":"deal","gameId":"g","player":"alice"}"#,
    );
    step(s(&["send", "bingo.card.deal.v1", &deal]), &operator);
    for square in 1..=8 {
        let call = payload(
            &format!("call-{square}.json"),
            &format!(r#"{{"requestId":"call-{square}","gameId":"g","squareId":{square}}}"#),
        );
        step(s(&["send", "bingo.square.call.v1", &call]), &operator);
    }
    let claim = payload(
        "claim.json",
        r#"{"requestId":"claim","gameId":"g","serial":1,"player":"alice"}"#,
    );
    step(s(&["send", "bingo.card.claim.v1", &claim]), &alice);

    // The tap sees the win; then everything stops (SIGTERM: a clean stop).
    let deadline = Instant::now() + Duration::from_secs(120);
    while !std::fs::read_to_string(&tap_file)
        .unwrap_or_default()
        .contains("bingo.card.won.v1")
    {
        assert!(Instant::now() < deadline, "the tap never saw the win");
        std::thread::sleep(Duration::from_millis(100));
    }
    for pid in [tap.0.id(), run.0.id()] {
        let killed = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
    }
    tap.0.wait().unwrap();
    // A clean stop at trace level: sled's destructors logging from thread-local destructors
    // at exit once aborted it ("thread local panicked on drop"); its logs are now kept to
    // warnings unless RUST_LOG names it.
    let status = run.0.wait().unwrap();
    let log = logger.join().unwrap();
    assert!(status.success(), "arcade run stopped with {status}");
    assert!(
        String::from_utf8_lossy(&log).contains(" DEBUG "),
        "the log is not at trace level: {} bytes",
        log.len()
    );

    let secrets = [
        Secret::bytes("the operator's token", operator.as_bytes()),
        Secret::bytes("alice's token", alice.as_bytes()),
        Secret::bytes("red's token", red.as_bytes()),
        Secret::bytes("the bingo secret", BINGO_SECRET.as_bytes()),
        Secret::bytes("the signing key", SIGNING_KEY.as_bytes()),
        Secret::seed("the race seed", race_seed),
    ];
    let check = |what: &str, haystack: &[u8]| {
        for secret in &secrets {
            if let Some(form) = secret.found_in(haystack) {
                panic!("{what} shows {} ({form})", secret.name);
            }
        }
    };
    check("the trace log of arcade run", &log);
    let tapped = std::fs::read(&tap_file).unwrap();
    assert!(tapped.len() > 1_000);
    check("arcade tap '#'", &tapped);
    for (what, bytes) in &outputs {
        check(what, bytes);
    }
    // The race master's snapshots cover its start (so the search below reads one that holds
    // the race's settings and questions).
    let stats = client()
        .args(["log", "race-master", "--stats", "--data"])
        .arg(data.path())
        .output()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let started = String::from_utf8(
        client()
            .args(["log", "race-master", "--data"])
            .arg(data.path())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .lines()
    .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
    .find(|entry| entry["envelope"]["type"] == "race.started.v1")
    .map(|entry| entry["seq"].as_u64().unwrap())
    .expect("the race started");
    assert!(
        stats["snapshot"]["seq"].as_u64().unwrap() >= started,
        "race.started.v1 at {started}: {stats}"
    );
    for service in ["bingo", "race-master", "puzzle-telemetry"] {
        let events = client()
            .args(["log", service, "--data"])
            .arg(data.path())
            .output()
            .unwrap();
        assert!(
            events.status.success(),
            "{}",
            String::from_utf8_lossy(&events.stderr)
        );
        check(&format!("arcade log {service}"), &events.stdout);
    }
    let exceptions = [token_file.clone(), seed_file.clone()];
    let mut all = Vec::new();
    files(data.path(), &mut all);
    for file in &all {
        if exceptions.contains(file) {
            continue;
        }
        check(&file.display().to_string(), &std::fs::read(file).unwrap());
    }
    for entry in std::fs::read_dir(data.path()).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("db").exists() {
            for record in sled_records(&dir) {
                check(&format!("a record of {}", dir.display()), &record);
            }
        }
    }
}
