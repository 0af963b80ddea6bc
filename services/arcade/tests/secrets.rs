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
//! token file in its data dir: the test asserts that none was written.

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
    assert!(
        demo.stderr.len() > 1_000_000,
        "the trace log is not at trace level: {} bytes",
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
