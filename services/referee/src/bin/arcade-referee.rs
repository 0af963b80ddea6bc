//! `arcade-referee`: the referee of one table alone in its process — the edge build that runs
//! on the BeagleBone next to the table (`cargo build --profile edge -p arcade-referee --bin
//! arcade-referee [--features i2c]`). Same settings as `arcade run referee`; the events wait in
//! its log while the broker is away and go out in order when it is back.
//!
//! With `--play RULES.json` the table starts a game by itself (a table with no server): the
//! process sends `table.game.start.v1` to its own queue, and with `--exit-after-game` stops once
//! that game is finished (footprint measurements, bar nights without a server).
//!
//! With `--metrics-addr ADDR` it serves `/health`, `/ready` and `/metrics` (Prometheus) there.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::table::{self, TableGameFinished, TableGameStart};
use arcade_contracts::{Catalog, Message};
use arcade_referee::settings::{self, TableSettings};
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig, QueueType};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Bus, Runtime, Storage, SubscriptionSpec};
use clap::Parser;
use serde_json::{Value, json};
use tracing::{error, info, warn};

/// The referee of one foosball table.
#[derive(Debug, Parser)]
#[command(name = "arcade-referee", version)]
struct Cli {
    /// The table and its hardware.
    #[command(flatten)]
    table: TableSettings,
    /// Directory of the referee's log and of the embedded bus.
    #[arg(
        long = "data",
        env = "ARCADE_DATA_DIR",
        default_value = "./data",
        value_name = "DIR"
    )]
    data: PathBuf,
    /// RabbitMQ URL (amqp:// or amqps://). Absent: the embedded bus in the data dir.
    #[arg(
        long = "amqp",
        env = "ARCADE_AMQP_URL",
        value_name = "URL",
        hide_env_values = true
    )]
    amqp: Option<String>,
    /// PEM file of the CA certificates an amqps:// broker's certificate must chain to, besides
    /// the system's roots (a broker whose certificate neither signed is refused).
    #[arg(long = "amqp-ca", env = "ARCADE_AMQP_CA", value_name = "PEM")]
    amqp_ca: Option<PathBuf>,
    /// Type of the table's queue on RabbitMQ: quorum (replicated; the default) or classic. An
    /// existing queue keeps its type: see ops/RUNBOOK.md to move one.
    #[arg(
        long = "queue-type",
        env = "ARCADE_QUEUE_TYPE",
        default_value = "quorum",
        value_name = "TYPE"
    )]
    queue_type: QueueType,
    /// Starts a game with these rules at start-up (sent to the table's own queue).
    #[arg(long = "play", value_name = "RULES.json")]
    play: Option<PathBuf>,
    /// With --play: stop once that game is finished.
    #[arg(long = "exit-after-game", requires = "play")]
    exit_after_game: bool,
    /// Serve /health, /ready and /metrics (Prometheus) on this address, e.g. 0.0.0.0:9464
    /// (absent or empty: not served).
    #[arg(
        long = "metrics-addr",
        env = "ARCADE_METRICS_ADDR",
        value_name = "ADDR"
    )]
    metrics_addr: Option<arcade_runtime::http::ListenAddr>,
    /// /ready answers 503 while this many events or more wait in the log to be published.
    #[arg(
        long = "ready-max-backlog",
        env = "ARCADE_READY_MAX_BACKLOG",
        default_value_t = arcade_runtime::health::DEFAULT_MAX_BACKLOG,
        value_name = "EVENTS"
    )]
    ready_max_backlog: u64,
    /// How long the referee remembers a processed message id to deduplicate redeliveries,
    /// e.g. `7d`, `12h` (units ms, s, m, h, d). A redelivery older than this is applied again.
    #[arg(
        long = "dedupe-window",
        env = "ARCADE_DEDUPE_WINDOW",
        default_value = "7d",
        value_parser = arcade_runtime::store::parse_dedupe_window,
        value_name = "DURATION"
    )]
    dedupe_window: Duration,
    /// Snapshot the referee's state after this many new log entries (0: not by count; with an
    /// interval of `off` too, no snapshots: a restart replays the whole log).
    #[arg(
        long = "snapshot-every",
        env = "ARCADE_SNAPSHOT_EVERY",
        default_value_t = 10_000,
        value_name = "N"
    )]
    snapshot_every: u64,
    /// Snapshot the referee's state at least this often while entries come, e.g. `60s`, `5m`
    /// (units ms, s, m, h, d; `off`: not by time).
    #[arg(
        long = "snapshot-interval",
        env = "ARCADE_SNAPSHOT_INTERVAL",
        default_value = "60s",
        value_parser = arcade_runtime::snapshot::parse_interval,
        value_name = "DURATION"
    )]
    snapshot_interval: Duration,
}

/// How long the relay gets, at shutdown, to publish what the log still holds (the rest is
/// durable and goes out at the next start).
const DRAIN: Duration = arcade_runtime::shutdown::DRAIN;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        match run(cli).await {
            Ok(code) => code,
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::FAILURE
            }
        }
    })
}

async fn run(cli: Cli) -> Result<ExitCode, String> {
    // Listening from the start: a SIGTERM while the referee starts stops it cleanly too.
    let stop_signal = arcade_runtime::shutdown::signal();
    tokio::pin!(stop_signal);
    let _telemetry = arcade_runtime::telemetry::init("referee").map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&cli.data).map_err(|e| {
        format!(
            "--data / ARCADE_DATA_DIR {}: cannot create it: {e}",
            cli.data.display()
        )
    })?;
    let rules = match &cli.play {
        Some(path) => Some(read_rules(path)?),
        None => None,
    };
    let (bus, embedded): (Arc<dyn Bus>, Option<EmbeddedBus>) = match &cli.amqp {
        Some(url) => (
            connect_amqp(
                url,
                cli.amqp_ca.clone(),
                cli.queue_type,
                &cli.table.table_id,
            )
            .await?,
            None,
        ),
        None => {
            let bus =
                EmbeddedBus::open_with(&cli.data.join("bus"), Storage::Compact).map_err(|e| {
                    format!("{}: cannot open the embedded bus: {e}", cli.data.display())
                })?;
            (Arc::new(bus.clone()), Some(bus))
        }
    };
    // A BeagleBone has 512 MB of RAM shared with the OS: small sled segments, a small cache bound,
    // and the table's schemas only (the other domains' are neither compiled nor linked in).
    let runtime = Runtime::new_with_catalog(bus, Catalog::from_types(table::types()))
        .with_data_dir(&cli.data)
        .with_storage(Storage::Compact)
        .with_dedupe_window(cli.dedupe_window)
        .with_config(arcade_runtime::HostConfig {
            snapshots: arcade_runtime::SnapshotPolicy::from_settings(
                cli.snapshot_every,
                cli.snapshot_interval,
            ),
            ..arcade_runtime::HostConfig::default()
        });
    let referee = settings::launch(&runtime, &cli.table).map_err(|e| e.to_string())?;
    let table_id = cli.table.table_id.clone();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let observed = match cli.metrics_addr.and_then(|a| a.0) {
        Some(addr) => {
            let router = arcade_runtime::http::router(runtime.clone(), cli.ready_max_backlog);
            let (bound, task) = arcade_runtime::http::serve(
                addr,
                "--metrics-addr / ARCADE_METRICS_ADDR",
                router,
                shutdown.clone(),
            )
            .await?;
            info!(metrics = %bound, "serving /health, /ready and /metrics");
            Some(task)
        }
        None => None,
    };
    info!(table = %table_id, transport = runtime.bus().name(), "referee ready");

    let game = match rules {
        Some(rules) => {
            // The game is a command to the table's own queue: sent once the queue exists, or it
            // would be unroutable (on RabbitMQ the queue is declared when the referee
            // subscribes).
            let mut subscribed = referee.subscribed();
            tokio::select! {
                _ = subscribed.wait_for(|bound| *bound) => {}
                () = &mut stop_signal => {
                    runtime.begin_shutdown();
                    shutdown.cancel();
                    let clean = referee.stop_boxed(DRAIN).await.is_ok();
                    if let Some(task) = observed {
                        let _ = task.await;
                    }
                    if let Some(bus) = embedded {
                        bus.close().await.map_err(|e| e.to_string())?;
                    }
                    return Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE });
                }
            }
            Some(play(&runtime, &table_id, rules).await?)
        }
        None => None,
    };
    let failure = tokio::select! {
        () = &mut stop_signal => None,
        reason = runtime.failure() => Some(reason),
        () = finished(game), if cli.exit_after_game => None,
    };
    if let Some(reason) = &failure {
        error!(%reason, "the referee stopped on an error");
    }
    // Consumers and endpoints first, then the referee's batch, flush and drain.
    runtime.begin_shutdown();
    shutdown.cancel();
    let clean = referee.stop_boxed(DRAIN).await.is_ok();
    if let Some(task) = observed {
        let _ = task.await;
    }
    if let Some(bus) = embedded {
        bus.close().await.map_err(|e| e.to_string())?;
    }
    Ok(if failure.is_none() && clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The AMQP frame size the referee proposes when its URL sets no `frame_max`. lapin keeps a
/// receive and a send buffer of 32 frames each, zero-filled, so RabbitMQ's default frames
/// (128 KiB) cost 8 MiB resident for messages of a few hundred bytes; 16 KiB frames cost 1 MiB.
/// A larger message (a long rules document) is split across frames as AMQP does anyway.
const EDGE_FRAME_MAX: u32 = 16 * 1024;
// AMQP 0-9-1 frames are at least `frame-min-size`, 4096 bytes.
const _: () = assert!(EDGE_FRAME_MAX >= 4096);

/// RabbitMQ; an unreachable broker is not an error: the referee referees, its events wait in
/// its log, and the bus connects when the broker appears.
async fn connect_amqp(
    url: &str,
    ca_file: Option<PathBuf>,
    queue_type: QueueType,
    table_id: &str,
) -> Result<Arc<dyn Bus>, String> {
    let mut config = AmqpConfig::new(url);
    config.queue_type = queue_type;
    config.frame_max = Some(EDGE_FRAME_MAX);
    config.ca_file = ca_file;
    config.connection_name = format!("arcade-referee {table_id}");
    let bus = AmqpBus::new(config).map_err(|e| format!("--amqp / ARCADE_AMQP_URL: {e}"))?;
    if let Err(e) = bus.connect_now().await {
        warn!(error = %e, "RabbitMQ not reachable yet; refereeing offline until it is");
    }
    Ok(Arc::new(bus))
}

fn read_rules(path: &std::path::Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--play {}: cannot read it: {e}", path.display()))?;
    let rules: Value = serde_json::from_str(&text)
        .map_err(|e| format!("--play {}: not JSON: {e}", path.display()))?;
    arcade_referee::Rules::parse(&rules)
        .map_err(|e| format!("--play {}: invalid rules: {e}", path.display()))?;
    Ok(rules)
}

/// A game this table starts by itself: its id, and a subscription that sees its end.
struct LocalGame {
    id: String,
    finished: Box<dyn arcade_runtime::bus::Consumer>,
}

async fn play(runtime: &Runtime, table_id: &str, rules: Value) -> Result<LocalGame, String> {
    let id = format!("{table_id}-{}", runtime.clock().now_ms());
    let finished = runtime
        .bus()
        .subscribe(&SubscriptionSpec::temporary(
            format!("arcade-referee.{id}.finished"),
            vec![TableGameFinished::TYPE.to_string()],
        ))
        .await
        .map_err(|e| format!("cannot watch the game: {e}"))?;
    runtime
        .send(
            TableGameStart::TYPE,
            json!({"tableId": table_id, "gameId": id, "rules": rules}),
            "arcade-referee",
        )
        .await
        .map_err(|e| format!("cannot start the game: {e}"))?;
    info!(game = %id, "game started");
    Ok(LocalGame { id, finished })
}

async fn finished(game: Option<LocalGame>) {
    let Some(mut game) = game else {
        return std::future::pending().await;
    };
    while let Ok(delivery) = game.finished.next().await {
        let envelope = lossy_envelope(&delivery.message);
        let _ = delivery.ack().await;
        if envelope.payload["gameId"] == game.id.as_str() {
            info!(game = %game.id, winner = %envelope.payload["winner"], "game finished");
            return;
        }
    }
    std::future::pending().await
}
