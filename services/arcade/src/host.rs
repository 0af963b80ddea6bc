//! `arcade run`: opens the transport, starts the services, serves the admin endpoint, and stops
//! cleanly on Ctrl-C or SIGTERM (finishing the batch in hand, flushing every log).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{Bus, Running, Runtime};
use tokio_util::sync::CancellationToken;
use tracing::{error, info};

use crate::admin::{self, AdminState};
use crate::cli::RunArgs;

/// How long the relays get, at shutdown, to publish what the logs still hold.
const DRAIN: Duration = Duration::from_secs(5);

/// Connects to RabbitMQ.
pub async fn connect_amqp(url: &str) -> anyhow::Result<Arc<dyn Bus>> {
    anyhow::bail!("--amqp {url}: this build has no RabbitMQ transport yet")
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
        Some(url) => (connect_amqp(url).await?, None),
        None => {
            let bus = EmbeddedBus::open(&args.data.join("bus")).map_err(|e| {
                anyhow::anyhow!("{}: cannot open the embedded bus: {e}", args.data.display())
            })?;
            (Arc::new(bus.clone()), Some(bus))
        }
    };
    let runtime = Runtime::new(bus).with_data_dir(&args.data);
    let services = crate::services::start(&runtime, &args.services, &args.settings)?;
    let names: Vec<String> = services.iter().map(|s| s.name().to_string()).collect();
    let shutdown = CancellationToken::new();
    let router = admin::router(AdminState {
        runtime: runtime.clone(),
        services: names.clone(),
    })
    .merge(crate::services::routes(&runtime));
    let (addr, admin_task) = admin::serve(args.connection.admin, router, shutdown.clone()).await?;
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
    if let Some(bus) = embedded {
        bus.close().await?;
    }
    info!("stopped");
    Ok(match (failure, clean) {
        (None, true) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}
