//! `arcade-referee`: the referee of one table alone in its process — the edge build that runs
//! on the BeagleBone next to the table (`cargo build --profile edge -p arcade-referee --bin
//! arcade-referee [--features i2c]`). Same settings as `arcade run referee`; the events wait in
//! its log while the broker is away and go out in order when it is back.
//!
//! With `--play RULES.json` the table starts a game by itself (a table with no server): the
//! process sends `table.game.start.v1` to its own queue, and with `--exit-after-game` stops once
//! that game is finished (footprint measurements, bar nights without a server).
//!
//! With `--check-hardware` it reads every goal sensor and sets every ball lock once, and exits
//! 0 or 1 (`arcade_referee::check`).
//!
//! With `--metrics-addr ADDR` it serves `/health`, `/ready` and `/metrics` (Prometheus) there.

use std::path::PathBuf;
use std::process::ExitCode;

use arcade_contracts::table::{self, TableGameFinished, TableGameStart};
use arcade_contracts::{Catalog, Message};
use arcade_referee::settings::{self, TableSettings};
use arcade_runtime::app::args::{BrokerArgs, HostArgs, LogArgs, ObserveArgs};
use arcade_runtime::app::{App, Ending, prepare_data_dir};
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Runtime, Storage, SubscriptionSpec};
use clap::Parser;
use serde_json::{Value, json};
use tracing::info;

/// The referee of one foosball table.
#[derive(Debug, Parser)]
#[command(name = "arcade-referee", version)]
struct Cli {
    /// The table and its hardware.
    #[command(flatten)]
    table: TableSettings,
    /// Where the data is.
    #[command(flatten)]
    data: arcade_runtime::app::args::DataArgs,
    /// The broker; absent: the embedded bus in the data dir.
    #[command(flatten)]
    broker: BrokerArgs,
    /// Starts a game with these rules at start-up (sent to the table's own queue).
    #[arg(long = "play", value_name = "RULES.json")]
    play: Option<PathBuf>,
    /// With --play: stop once that game is finished.
    #[arg(long = "exit-after-game", requires = "play")]
    exit_after_game: bool,
    /// Reads every goal sensor once (printing each line's or pin's level), locks then releases
    /// each ball lock once, and exits: 0 when every part answered, 1 naming what failed.
    #[arg(long = "check-hardware", conflicts_with = "play")]
    check_hardware: bool,
    /// /health, /ready and /metrics.
    #[command(flatten)]
    observe: ObserveArgs,
    /// Deduplication and snapshots of the referee's log.
    #[command(flatten)]
    host: HostArgs,
    /// Text or JSON log lines (JSON needs the log-json feature).
    #[command(flatten)]
    logs: LogArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.check_hardware {
        return check_hardware(&cli.table);
    }
    arcade_runtime::app::block_on(&mut tokio::runtime::Builder::new_current_thread(), run(cli))
}

async fn run(cli: Cli) -> Result<ExitCode, String> {
    // Listening from the start: a SIGTERM while the referee starts stops it cleanly too.
    let stop_signal = arcade_runtime::shutdown::signal();
    let config = arcade_runtime::telemetry::TelemetryConfig::from_env("referee")
        .map_err(|e| e.to_string())?;
    let _telemetry =
        arcade_runtime::telemetry::init_with(cli.logs.apply(config)).map_err(|e| e.to_string())?;
    prepare_data_dir(&cli.data.dir).map_err(|e| e.to_string())?;
    let rules = match &cli.play {
        Some(path) => Some(settings::read_rules("--play", path)?),
        None => None,
    };
    let table_id = cli.table.table_id.clone();
    // RabbitMQ: an unreachable broker is not an error: the referee referees, its events wait
    // in its log, and the bus connects when the broker appears.
    let transport = cli
        .broker
        .transport(
            &cli.data.dir,
            &format!("arcade-referee {table_id}"),
            |config| {
                config.frame_max = Some(EDGE_FRAME_MAX);
            },
        )
        .with_storage(Storage::Compact);
    let bus = transport.open().await.map_err(|e| e.to_string())?;
    // A BeagleBone has 512 MB of RAM shared with the OS: small sled segments, a small cache bound,
    // and the table's schemas only (the other domains' are neither compiled nor linked in).
    let runtime = cli.host.apply(
        Runtime::new_with_catalog(bus.bus(), Catalog::from_types(table::types()))
            .with_data_dir(&cli.data.dir)
            .with_storage(Storage::Compact),
    );
    let referee = settings::launch(&runtime, &cli.table).map_err(|e| e.to_string())?;
    let mut subscribed = referee.subscribed();
    let mut app = App::new(runtime.clone(), bus);
    app.host([referee]);
    if let Some(bound) = cli.observe.serve(&mut app).await? {
        info!(metrics = %bound, "serving /health, /ready and /metrics");
    }
    info!(table = %table_id, transport = runtime.bus().name(), "referee ready");
    let exit_after_game = cli.exit_after_game;
    let shutdown = async move {
        tokio::pin!(stop_signal);
        let Some(rules) = rules else {
            stop_signal.await;
            return Ok(());
        };
        // The game is a command to the table's own queue: sent once the queue exists, or it
        // would be unroutable (on RabbitMQ the queue is declared when the referee subscribes).
        tokio::select! {
            _ = subscribed.wait_for(|bound| *bound) => {}
            () = &mut stop_signal => return Ok(()),
        }
        let game = play(&runtime, &table_id, rules).await?;
        tokio::select! {
            () = &mut stop_signal => {}
            () = finished(Some(game)), if exit_after_game => {}
        }
        Ok::<(), String>(())
    };
    // Consumers and endpoints first, then the referee's batch, flush and drain.
    let stopped = app.run(shutdown).await.map_err(|e| e.to_string())?;
    if let Ending::Shutdown(Err(error)) = &stopped.ending {
        return Err(error.clone());
    }
    Ok(if stopped.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn check_hardware(table: &TableSettings) -> ExitCode {
    match arcade_referee::check::check_hardware(table, &mut std::io::stdout().lock()) {
        Ok(failed) if failed.is_empty() => ExitCode::SUCCESS,
        Ok(failed) => {
            for failure in failed {
                eprintln!("error: {failure}");
            }
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The AMQP frame size the referee proposes when its URL sets no `frame_max`. lapin keeps a
/// receive and a send buffer of 32 frames each, zero-filled, so RabbitMQ's default frames
/// (128 KiB) cost 8 MiB resident for messages of a few hundred bytes; 16 KiB frames cost 1 MiB.
/// A larger message (a long rules document) is split across frames as AMQP does anyway.
const EDGE_FRAME_MAX: u32 = 16 * 1024;
// AMQP 0-9-1 frames are at least `frame-min-size`, 4096 bytes.
const _: () = assert!(EDGE_FRAME_MAX >= 4096);

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
