//! `arcade log`: a service's event log, read from a stopped `arcade run`'s data dir
//! (`DATA/<service>`, the service's own sled database): its entries as JSON lines, a check of
//! every log chunk and snapshot (`--verify`), or its figures (`--stats`); the entries of an
//! archive file retention wrote (`--archive FILE`); and `arcade log archive`, which archives
//! and prunes on a stopped data dir what the retention allows now.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arcade_runtime::store::retention::{parse_history, read_archive};
use arcade_runtime::store::snapshot::Frame;
use arcade_runtime::store::{Inspect, LogRecord, Store, StoreError};
use arcade_runtime::{Codec, Snapshot};
use clap::{Args, Subcommand};
use serde_json::json;

/// `arcade log`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct LogArgs {
    /// Archive and prune a stopped service's log.
    #[command(subcommand)]
    pub command: Option<LogCommand>,
    /// The service whose log to read: its store's directory under --data (e.g.
    /// `puzzle-telemetry`, `bingo`, `race-master`, `referee`, `console`).
    #[arg(value_name = "SERVICE", required_unless_present = "archive")]
    pub service: Option<String>,
    /// Print the entries of this archive file (written by --log-archive or `arcade log
    /// archive`) instead of a service's log, from --from on.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["follow", "verify", "stats", "service"])]
    pub archive: Option<PathBuf>,
    /// Where the data is.
    #[command(flatten)]
    pub data: arcade_runtime::app::args::DataArgs,
    /// Print entries from this sequence number on.
    #[arg(long = "from", default_value_t = 1, value_name = "SEQ")]
    pub from: u64,
    /// Keep printing entries as they are appended, until SIGTERM, Ctrl-C or a closed stdout.
    /// The store is read between runs: while `arcade run` holds it, nothing new can be read.
    #[arg(long, conflicts_with_all = ["verify", "stats"])]
    pub follow: bool,
    /// Read every log chunk and snapshot and report each damage with its seq (exit 1 if any).
    #[arg(long, conflicts_with = "stats")]
    pub verify: bool,
    /// Print the log's figures as JSON: events, bytes on disk, newest snapshot, inbox keys,
    /// relay cursor and backlog.
    #[arg(long)]
    pub stats: bool,
}

/// How often `--follow` looks for new entries.
const POLL: Duration = Duration::from_millis(500);
/// Entries read at a time.
const PAGE: usize = 1_000;

/// `arcade log`'s commands.
#[derive(Debug, Subcommand)]
pub enum LogCommand {
    /// Archive, then prune, the front of a stopped service's log that the retention allows now
    /// (records older than --log-history, covered by the snapshots, published), or every such
    /// record before --before: one gzip'd JSON-lines file per run in --out, read back with
    /// `arcade log --archive FILE`. A running `arcade run` prunes its own logs (--log-history,
    /// --log-archive): stop it first to archive by hand.
    Archive(ArchiveArgs),
}

/// `arcade log archive`.
#[derive(Debug, Args)]
pub struct ArchiveArgs {
    /// The service whose log to archive (its store's directory under --data).
    #[arg(value_name = "SERVICE")]
    pub service: String,
    /// Where the data is.
    #[command(flatten)]
    pub data: arcade_runtime::app::args::DataArgs,
    /// Directory to write the archive file into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// History kept: records younger than this stay, e.g. `120d`, `36h` (as `arcade run
    /// --log-history`; `off`: nothing goes by age).
    #[arg(
        long = "log-history",
        env = "ARCADE_LOG_HISTORY",
        default_value = "120d",
        value_parser = parse_kept,
        value_name = "DURATION"
    )]
    pub history: Kept,
    /// Archive the records before this point instead, whatever their age: a sequence number
    /// (the records before it) or an RFC 3339 time (those that occurred before it). Still never
    /// past what the snapshots cover and the relay published.
    #[arg(long, value_name = "SEQ|TIME", value_parser = parse_before)]
    pub before: Option<Before>,
}

/// A `--log-history` value: the history kept, `None` for `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept(pub Option<Duration>);

fn parse_kept(text: &str) -> Result<Kept, String> {
    parse_history(text).map(Kept)
}

/// Where `arcade log archive --before` stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Before {
    /// Records before this sequence number.
    Seq(u64),
    /// Records that occurred before this time (ms since the epoch).
    Time(u64),
}

fn parse_before(text: &str) -> Result<Before, String> {
    if let Ok(seq) = text.trim().parse::<u64>() {
        return Ok(Before::Seq(seq));
    }
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .and_then(|t| u64::try_from(t.timestamp_millis()).ok())
        .map(Before::Time)
        .ok_or_else(|| {
            format!(
                "\"{text}\" is neither a sequence number nor an RFC 3339 time (e.g. 2026-09-01T00:00:00Z)"
            )
        })
}

pub async fn run(args: LogArgs) -> anyhow::Result<ExitCode> {
    if let Some(LogCommand::Archive(archive)) = args.command {
        return archive_log(archive).await;
    }
    if let Some(file) = &args.archive {
        return print_archive(file, args.from);
    }
    let Some(service) = &args.service else {
        anyhow::bail!("name a SERVICE, or an archive file with --archive FILE");
    };
    let dir = args.data.dir.join(service);
    if args.verify {
        return verify(&open(&dir)?);
    }
    if args.stats {
        return stats(&open(&dir)?);
    }
    // With --follow, SIGTERM/Ctrl-C is listened for before anything is printed: a signal sent
    // once the existing entries are out must end the follower cleanly, not kill it.
    let stop = args.follow.then(arcade_runtime::shutdown::signal);
    let mut next = args.from.max(1);
    next = print_from(&open(&dir)?, next)?;
    let Some(stop) = stop else {
        return Ok(ExitCode::SUCCESS);
    };
    tokio::pin!(stop);
    let mut said_in_use = false;
    loop {
        tokio::select! {
            () = &mut stop => return Ok(ExitCode::SUCCESS),
            () = tokio::time::sleep(POLL) => {}
        }
        // Opened for each look and closed again, so that a service starting meanwhile gets
        // its store (it waits for the lock a few seconds).
        match Inspect::open(&dir) {
            Ok(inspect) => {
                said_in_use = false;
                next = print_from(&inspect, next)?;
            }
            Err(StoreError::InUse { .. }) => {
                if !said_in_use {
                    eprintln!(
                        "arcade log: {} is in use by a running process; following resumes when it stops",
                        dir.display()
                    );
                    said_in_use = true;
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
}

fn open(dir: &std::path::Path) -> anyhow::Result<Inspect> {
    Inspect::open(dir).map_err(|e| match e {
        StoreError::NotAStore { .. } => anyhow::anyhow!(
            "{e}: is the service name right, and --data the data dir of `arcade run`?"
        ),
        other => other.into(),
    })
}

/// Prints every entry from `from` on; returns the seq after the last printed.
fn print_from(inspect: &Inspect, mut from: u64) -> anyhow::Result<u64> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    loop {
        let page = inspect.read_from(from, PAGE)?;
        let Some(&(last, _)) = page.last() else { break };
        for (seq, record) in &page {
            serde_json::to_writer(&mut out, &line(*seq, record))?;
            out.write_all(b"\n")?;
        }
        from = last + 1;
        if page.len() < PAGE {
            break;
        }
    }
    out.flush()?;
    Ok(from)
}

fn line(seq: u64, record: &LogRecord) -> serde_json::Value {
    let mut line = json!({ "seq": seq, "envelope": record.envelope });
    if let Some(queue) = &record.queue {
        line["queue"] = json!(queue);
    }
    line
}

fn verify(inspect: &Inspect) -> anyhow::Result<ExitCode> {
    let verified = inspect.verify()?;
    let mut out = std::io::stdout().lock();
    for damage in &verified.damage {
        writeln!(
            out,
            "{}",
            json!({ "damaged": damage.kind, "seq": damage.seq, "reason": damage.reason })
        )?;
    }
    writeln!(
        out,
        "{}",
        json!({
            "chunks": verified.chunks,
            "records": verified.records,
            "snapshots": verified.snapshots,
            "damaged": verified.damage.len(),
        })
    )?;
    Ok(if verified.damage.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn stats(inspect: &Inspect) -> anyhow::Result<ExitCode> {
    let stats = inspect.stats()?;
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let snapshot = stats.snapshot.map(|(seq, taken_ms)| {
        json!({ "seq": seq, "age_s": now_ms.saturating_sub(taken_ms) as f64 / 1_000.0 })
    });
    println!(
        "{}",
        json!({
            "events": stats.events,
            "first": stats.first,
            "end": stats.end,
            "bytes_on_disk": stats.bytes_on_disk,
            "snapshot": snapshot,
            "inbox_keys": stats.inbox_keys,
            "relay_cursor": stats.relay_cursor,
            "backlog": stats.backlog,
        })
    );
    Ok(ExitCode::SUCCESS)
}

/// Prints the entries of an archive file from `from` on, as `arcade log` prints a log's.
fn print_archive(file: &Path, from: u64) -> anyhow::Result<ExitCode> {
    let records = read_archive(file)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (seq, record) in records.iter().filter(|(seq, _)| *seq >= from) {
        serde_json::to_writer(&mut out, &line(*seq, record))?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Whether a snapshot's state decodes with service `S`'s codec.
fn decodes_as<S: Snapshot>(frame: &Frame) -> bool {
    Codec::of::<S>()
        .read(frame.seq, frame.version, &frame.state)
        .is_ok()
}

/// The check that a snapshot of the service stored under `name` (`bingo`, `bingo.p1`, …)
/// decodes with this build: retention never prunes past a snapshot that does not.
fn snapshot_check(name: &str) -> anyhow::Result<fn(&Frame) -> bool> {
    let base = name.split('.').next().unwrap_or(name);
    Ok(match base {
        "referee" => {
            decodes_as::<
                arcade_referee::service::RefereeService<arcade_referee::table::SimulatedTable>,
            >
        }
        "bingo" => decodes_as::<arcade_bingo::service::BingoService>,
        "race-master" => decodes_as::<arcade_race_master::service::RaceService>,
        "puzzle-telemetry" => decodes_as::<arcade_puzzle_telemetry::service::TelemetryService>,
        "console" => decodes_as::<arcade_console::ConsoleService>,
        other => anyhow::bail!(
            "{other} is not a service of this build (referee, bingo, race-master, puzzle-telemetry, console): its snapshots cannot be checked, so its log is not pruned"
        ),
    })
}

async fn archive_log(args: ArchiveArgs) -> anyhow::Result<ExitCode> {
    let decodes = snapshot_check(&args.service)?;
    let dir = args.data.dir.join(&args.service);
    match Inspect::open(&dir) {
        Ok(inspect) => drop(inspect),
        Err(StoreError::InUse { .. }) => anyhow::bail!(
            "{} is in use by a running `arcade run`, which prunes its own log as its --log-history and --log-archive say; stop it to archive by hand",
            dir.display()
        ),
        Err(_) => {
            open(&dir)?;
        }
    }
    let store = Store::open_existing(&dir)?;
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let (before_ms, cap) = match args.before {
        Some(Before::Seq(seq)) => (u64::MAX, Some(seq)),
        Some(Before::Time(ms)) => (ms, None),
        None => match args.history.0 {
            Some(history) => (
                now_ms.saturating_sub(u64::try_from(history.as_millis()).unwrap_or(u64::MAX)),
                None,
            ),
            None => (0, None),
        },
    };
    let done = store.apply_retention(&args.service, before_ms, cap, Some(&args.out), decodes)?;
    store.flush().await?;
    let mut out = std::io::stdout().lock();
    for pruned in &done {
        writeln!(
            out,
            "{}",
            json!({
                "archive": pruned.archive.as_ref().map(|p| p.display().to_string()),
                "first": pruned.first,
                "end": pruned.end,
            })
        )?;
    }
    writeln!(
        out,
        "{}",
        json!({ "archived": done.iter().map(|p| p.end - p.first).sum::<u64>(), "log_start": store.first()? })
    )?;
    Ok(ExitCode::SUCCESS)
}
