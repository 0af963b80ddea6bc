//! `arcade run`: opens the transport, starts the services, serves the admin endpoint, and stops
//! cleanly on Ctrl-C or SIGTERM (ending open streams, finishing the batch in hand, flushing
//! every log) within 2 s whatever clients are connected.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use arcade_runtime::bus::amqp::AmqpConfig;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{Bus, Running, Runtime};
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use crate::admin::{self, AdminState, Limits};
use crate::auth::{Auth, OperatorToken};
use crate::cli::RunArgs;
use crate::connection::connect_bus;
use crate::serve::ServeLimits;

/// How long the relays get, at shutdown, to publish what the logs still hold (the rest is
/// durable and goes out at the next start).
const DRAIN: Duration = arcade_runtime::shutdown::DRAIN;

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

pub async fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    // Listening from the start: a SIGTERM while the services start stops them cleanly too.
    let stop_signal = arcade_runtime::shutdown::signal();
    tokio::pin!(stop_signal);
    let partition = args.partition()?;
    prepare_data_dir(&args.data)?;
    let (bus, embedded): (Arc<dyn Bus>, Option<EmbeddedBus>) = match &args.connection.amqp {
        Some(url) => {
            let mut config = AmqpConfig::new(url);
            config.connection_name = "arcade run".to_string();
            config.queue_type = args.connection.queue_type;
            config.ca_file = args.connection.amqp_ca.clone();
            config.history = Some(args.history.config());
            config.prefetch_bytes = args.consumer_memory_mib * 1024 * 1024;
            let bus = connect_bus(config, false).await?;
            (Arc::new(bus), None)
        }
        None => {
            let bus = EmbeddedBus::open(&args.data.join("bus")).map_err(|e| {
                anyhow::anyhow!("{}: cannot open the embedded bus: {e}", args.data.display())
            })?;
            (Arc::new(bus.clone()), Some(bus))
        }
    };
    let admin_addr = args.connection.admin;
    if !admin_addr.ip().is_loopback() && args.connection.token.is_none() {
        anyhow::bail!(
            "--admin / ARCADE_ADMIN_ADDR {admin_addr} is not a loopback address: set ARCADE_ADMIN_TOKEN (or --token) to the operator's token to serve the admin endpoint there"
        );
    }
    let operator = OperatorToken::resolve(args.connection.token.as_deref(), &args.data)?;
    // On the embedded transport only this process publishes: what it sends itself is the
    // operator's (the admin endpoint stamps each request's own principal).
    let runtime = if embedded.is_some() {
        Runtime::new(bus).with_sender(arcade_contracts::principal::OPERATOR)
    } else {
        Runtime::new(bus)
    }
    .with_data_dir(&args.data)
    .with_dedupe_window(args.dedupe_window)
    .with_config(arcade_runtime::HostConfig {
        snapshots: args.snapshots.policy(),
        ..arcade_runtime::HostConfig::default()
    });
    let runtime = match partition {
        Some(partition) => runtime.with_partition(partition),
        None => runtime,
    };
    let services = crate::services::start(&runtime, &args.services, &args.settings)?;
    let names: Vec<String> = services.iter().map(|s| s.name().to_string()).collect();
    let shutdown = CancellationToken::new();
    let listener = crate::serve::bind(admin_addr, "--admin").await?;
    let bound = listener.local_addr()?;
    let auth = Arc::new(Auth::open(
        &operator,
        Some(args.data.join(crate::auth::PRINCIPALS_FILE)),
        bound,
        &args.limits.hosts,
    )?);
    let limits = Limits {
        stream_stall: Duration::from_secs(args.limits.stream_stall.max(1)),
        ..Limits::default()
    };
    let state = AdminState {
        runtime: runtime.clone(),
        auth: auth.clone(),
        limits,
    };
    let router = admin::router(state.clone())
        .merge(crate::services::routes(&state))
        .merge(crate::observe::routes(&runtime, &args.observe));
    let idle = Duration::from_secs(args.limits.idle_timeout.max(1));
    let serve_limits = ServeLimits {
        max_connections: args.limits.max_connections,
        header_timeout: idle.min(Duration::from_secs(10)),
        idle_timeout: idle,
        write_stall: idle,
    };
    let addr = bound;
    let admin_task = crate::serve::serve_on(
        listener,
        admin::protect(router, auth.clone()),
        serve_limits,
        shutdown.clone(),
    );
    let console = match crate::services::console::hosted() {
        Some(live) => {
            let console_args = &args.settings.console;
            let listener = crate::serve::bind(console_args.addr, "--console").await?;
            let bound = listener.local_addr()?;
            let router = crate::services::console::router(
                &runtime,
                live,
                auth.clone(),
                &operator.source,
                bound,
                console_args,
            );
            let task = crate::serve::serve_on(listener, router, serve_limits, shutdown.clone());
            info!(console = %bound, "serving the console");
            Some((bound, task))
        }
        _ => None,
    };
    let metrics = crate::observe::serve(&runtime, &args.observe, shutdown.clone()).await?;
    if let Some((metrics_addr, _)) = &metrics {
        info!(metrics = %metrics_addr, "serving /health, /ready and /metrics");
    }
    // Ready means every queue is bound: an event published before would reach no queue. With
    // a broker that is away, the services keep running and bind when it comes back; /health
    // answers meanwhile, and /ready says what it waits for.
    let failure = tokio::select! {
        () = &mut stop_signal => None,
        subscribed = wait_subscribed(&services, Duration::from_secs(10)) => {
            if !subscribed {
                warn!(
                    "not every service is subscribed yet (is the broker reachable?); they will be when it is"
                );
            }
            info!(
                admin = %addr,
                console = %console.as_ref().map_or_else(|| "-".to_string(), |(bound, _)| bound.to_string()),
                data = %args.data.display(),
                transport = runtime.bus().name(),
                services = ?names,
                "arcade ready"
            );
            tokio::select! {
                () = &mut stop_signal => None,
                reason = runtime.failure() => Some(reason),
            }
        }
    };
    info!("stopping");
    // Streams end and hosts stop consuming first, the endpoints stop accepting; then each
    // service finishes its batch, flushes and drains; nothing waits on a client.
    runtime.begin_shutdown();
    shutdown.cancel();
    let clean = stop_all(services).await;
    let _ = admin_task.await;
    if let Some((_, task)) = console {
        let _ = task.await;
    }
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
