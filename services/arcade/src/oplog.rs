//! `arcade log`: a service's event log, read from a stopped `arcade run`'s data dir
//! (`DATA/<service>`, the service's own sled database): its entries as JSON lines, a check of
//! every log chunk and snapshot (`--verify`), or its figures (`--stats`).

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arcade_runtime::store::{Inspect, LogRecord, StoreError};
use clap::Args;
use serde_json::json;

/// `arcade log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// The service whose log to read: its store's directory under --data (e.g.
    /// `puzzle-telemetry`, `bingo`, `race-master`, `referee`).
    #[arg(value_name = "SERVICE")]
    pub service: String,
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

pub async fn run(args: LogArgs) -> anyhow::Result<ExitCode> {
    let dir = args.data.dir.join(&args.service);
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
