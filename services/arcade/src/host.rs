//! `arcade run`: opens the transport, starts the services, serves the admin endpoint, and stops
//! cleanly on Ctrl-C or SIGTERM (finishing the batch in hand, flushing every log).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{Bus, Running, Runtime};
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use crate::admin::{self, AdminState};
use crate::cli::RunArgs;

/// How long the relays get, at shutdown, to publish what the logs still hold.
const DRAIN: Duration = Duration::from_secs(5);

/// The RabbitMQ bus at `url` (standard topology), connecting at once. With `must_connect` an
/// unreachable broker is an error (`arcade tap`, `arcade send`); without it (`arcade run`) the
/// services start anyway, events wait in their logs, and the bus connects when the broker
/// appears.
pub async fn connect_amqp(
    url: &str,
    name: &str,
    must_connect: bool,
) -> anyhow::Result<Arc<dyn Bus>> {
    let mut config = AmqpConfig::new(url);
    config.connection_name = name.to_string();
    let bus = AmqpBus::new(config).map_err(|e| anyhow::anyhow!("--amqp / ARCADE_AMQP_URL: {e}"))?;
    if let Err(e) = bus.connect_now().await {
        if must_connect {
            anyhow::bail!("--amqp / ARCADE_AMQP_URL: {e}");
        }
        warn!(error = %e, "RabbitMQ not reachable yet; services run and connect when it appears");
    }
    Ok(Arc::new(bus))
}

/// Opens the data directory, creating it; the error names the setting.
pub fn prepare_data_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        anyhow::anyhow!(
            "--data / ARCADE_DATA_DIR {}: cannot create it: {e}",
            dir.display()
        )
    })?;
    let probe = dir.join(".arcade-write-test");
    std::fs::write(&probe, b"")
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|e| {
            anyhow::anyhow!(
                "--data / ARCADE_DATA_DIR {}: not writable: {e}",
                dir.display()
            )
        })?;
    Ok(())
}

/// Stops every service, the bus and the admin endpoint.
pub async fn stop_all(services: Vec<Box<dyn Running>>) -> bool {
    let mut clean = true;
    for service in services {
        let name = service.name().to_string();
        if let Err(e) = service.stop_boxed(DRAIN).await {
            error!(service = %name, error = %e, "did not stop cleanly");
            clean = false;
        }
    }
    clean
}

async fn terminated() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => return std::future::pending().await,
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

pub async fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    prepare_data_dir(&args.data)?;
    let (bus, embedded): (Arc<dyn Bus>, Option<EmbeddedBus>) = match &args.connection.amqp {
        Some(url) => (connect_amqp(url, "arcade run", false).await?, None),
        None => {
            let bus = EmbeddedBus::open(&args.data.join("bus")).map_err(|e| {
                anyhow::anyhow!("{}: cannot open the embedded bus: {e}", args.data.display())
            })?;
            (Arc::new(bus.clone()), Some(bus))
        }
    };
    let runtime =
        Runtime::new(bus)
            .with_data_dir(&args.data)
            .with_config(arcade_runtime::HostConfig {
                snapshots: args.snapshots.policy(),
                ..arcade_runtime::HostConfig::default()
            });
    let services = crate::services::start(&runtime, &args.services, &args.settings)?;
    let names: Vec<String> = services.iter().map(|s| s.name().to_string()).collect();
    let shutdown = CancellationToken::new();
    let router = admin::router(AdminState {
        runtime: runtime.clone(),
    })
    .merge(crate::services::routes(&runtime))
    .merge(crate::observe::routes(&runtime, &args.observe));
    let (addr, admin_task) = admin::serve(args.connection.admin, router, shutdown.clone()).await?;
    let metrics = crate::observe::serve(&runtime, &args.observe, shutdown.clone()).await?;
    if let Some((metrics_addr, _)) = &metrics {
        info!(metrics = %metrics_addr, "serving /health, /ready and /metrics");
    }
    // Ready means every queue is bound: an event published before would reach no queue. With
    // a broker that is away, the services keep running and bind when it comes back; /health
    // answers meanwhile, and /ready says what it waits for.
    if !wait_subscribed(&services, Duration::from_secs(10)).await {
        warn!(
            "not every service is subscribed yet (is the broker reachable?); they will be when it is"
        );
    }
    info!(
        admin = %addr,
        data = %args.data.display(),
        transport = runtime.bus().name(),
        services = ?names,
        "arcade ready"
    );
    let failure = tokio::select! {
        () = terminated() => None,
        reason = runtime.failure() => Some(reason),
    };
    info!("stopping");
    let clean = stop_all(services).await;
    shutdown.cancel();
    let _ = admin_task.await;
    if let Some((_, task)) = metrics {
        let _ = task.await;
    }
    if let Some(bus) = embedded {
        bus.close().await?;
    }
    info!("stopped");
    Ok(match (failure, clean) {
        (None, true) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

/// The `service.name` of an `arcade run` process: the hosted service's when it hosts one
/// (`referee`, `bingo`, `race-master`, `puzzle-telemetry`), else `arcade`.
pub fn process_name(args: &RunArgs) -> String {
    match args.services.as_slice() {
        [one] => clap::ValueEnum::to_possible_value(one).map_or_else(
            || "arcade".to_string(),
            |value| value.get_name().to_string(),
        ),
        _ => "arcade".to_string(),
    }
}

/// Waits until every service's queue is declared and bound, at most `patience`. Returns whether
/// they all are.
pub async fn wait_subscribed(services: &[Box<dyn Running>], patience: Duration) -> bool {
    let all = futures::future::join_all(services.iter().map(|service| {
        let mut subscribed = service.subscribed();
        async move { subscribed.wait_for(|bound| *bound).await.is_ok() }
    }));
    matches!(tokio::time::timeout(patience, all).await, Ok(bound) if bound.iter().all(|b| *b))
}
