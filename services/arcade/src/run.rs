//! `arcade run`: opens the transport, starts the services, serves the admin endpoint, and stops
//! cleanly on Ctrl-C or SIGTERM (ending open streams, finishing the batch in hand, flushing
//! every log) within 2 s whatever clients are connected.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use arcade_runtime::Runtime;
use arcade_runtime::app::{App, prepare_data_dir};
use tracing::{info, warn};

use crate::admin::{self, AdminState, Limits};
use crate::auth::{Auth, OperatorToken};
use crate::cli::RunArgs;
use crate::exit::Failure;
use crate::serve::ServeLimits;
use arcade_runtime::guard::Clients;

pub async fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    // Listening from the start: a SIGTERM while the services start stops them cleanly too.
    let stop_signal = arcade_runtime::shutdown::signal();
    let partition = args.partition()?;
    prepare_data_dir(&args.data.dir)?;
    let transport = args
        .connection
        .broker
        .transport(&args.data.dir, "arcade run", |config| {
            config.history = Some(args.history.config());
            config.prefetch_bytes = args.consumer_memory_mib * 1024 * 1024;
        });
    let bus = transport.open().await?;
    let admin_addr = args.connection.admin();
    if !admin_addr.ip().is_loopback() && args.connection.token.is_none() {
        anyhow::bail!(
            "--admin / ARCADE_ADMIN_ADDR {admin_addr} is not a loopback address: set ARCADE_ADMIN_TOKEN (or --token) to the operator's token to serve the admin endpoint there"
        );
    }
    let operator = OperatorToken::resolve(args.connection.token.as_deref(), &args.data.dir)?;
    // On the embedded transport only this process publishes: what it sends itself is the
    // operator's (the admin endpoint stamps each request's own principal).
    let runtime = if bus.is_embedded() {
        Runtime::new(bus.bus()).with_sender(arcade_contracts::principal::OPERATOR)
    } else {
        Runtime::new(bus.bus())
    }
    .with_data_dir(&args.data.dir);
    let runtime = args.host.apply(runtime);
    let runtime = match partition {
        Some(partition) => runtime.with_partition(partition),
        None => runtime,
    };
    let mut app = App::new(runtime.clone(), bus);
    let started = crate::hosted::start(&runtime, &args.services, &args.settings)?;
    app.host(started.running);
    // A start that fails from here (an address in use) stops the services already started,
    // cleanly, and says what failed: never a service cut off mid-flush.
    let (addr, console) = match serve(&mut app, &args, &runtime, &operator, started.hosted).await {
        Ok(bound) => bound,
        Err(error) => {
            let _ = app.run(std::future::ready(())).await;
            return Err(error);
        }
    };
    // Ready means every queue is bound: an event published before would reach no queue. With
    // a broker that is away, the services keep running and bind when it comes back; /health
    // answers meanwhile, and /ready says what it waits for.
    let subscribed = app.subscribed(Duration::from_secs(10));
    let ready = Ready {
        admin: addr,
        console,
        data: args.data.dir.display().to_string(),
        token: operator.source.clone(),
        transport: runtime.bus().name(),
        services: app.names(),
    };
    let shutdown = async move {
        tokio::pin!(stop_signal);
        tokio::select! {
            () = &mut stop_signal => return,
            subscribed = subscribed => ready.announce(subscribed),
        }
        stop_signal.await;
    };
    // Streams end and hosts stop consuming first, the endpoints stop accepting; then each
    // service finishes its batch, flushes and drains; nothing waits on a client.
    let stopped = app.run(shutdown).await?;
    Ok(if stopped.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Serves the admin endpoint, the console (when hosted) and the probes for `app`; the
/// addresses bound (admin, console). A failure names what could not be served, and where.
async fn serve(
    app: &mut App,
    args: &RunArgs,
    runtime: &Runtime,
    operator: &OperatorToken,
    hosted: crate::hosted::Hosted,
) -> anyhow::Result<(std::net::SocketAddr, Option<std::net::SocketAddr>)> {
    let admin_addr = args.connection.admin();
    let listener = crate::serve::bind(admin_addr, "the admin endpoint (--admin)")
        .await
        .map_err(|e| Failure::invalid(format_args!("{e:#}")))?;
    let addr = listener.local_addr()?;
    let auth = Arc::new(Auth::open(
        operator,
        Some(args.data.dir.join(crate::auth::PRINCIPALS_FILE)),
        addr,
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
        .merge(crate::hosted::routes(&state, &hosted))
        .merge(crate::observe::routes(runtime, &args.observe));
    let idle = Duration::from_secs(args.limits.idle_timeout.max(1));
    let serve_limits = ServeLimits {
        max_connections: args.limits.max_connections,
        header_timeout: idle.min(Duration::from_secs(10)),
        idle_timeout: idle,
        write_stall: idle,
    };
    // The admin endpoint and the console count their clients apart.
    let clients = args.clients.limits();
    app.add_server(crate::serve::serve_on(
        listener,
        admin::protect(router, auth.clone()),
        serve_limits,
        Clients::new(clients.clone()),
        app.serving_token(),
    ));
    let console = match hosted.console {
        Some(live) => {
            let console_args = &args.settings.console;
            let listener = crate::serve::bind(console_args.addr, "the console (--console)")
                .await
                .map_err(|e| Failure::invalid(format_args!("{e:#}")))?;
            let bound = listener.local_addr()?;
            let router = crate::hosted::console::router(
                runtime,
                live,
                auth.clone(),
                &operator.source,
                bound,
                console_args,
            );
            let console_limits = ServeLimits {
                max_connections: crate::serve::within_fd_limit(
                    console_args.max_connections,
                    serve_limits.max_connections,
                    "--console-max-connections",
                ),
                ..serve_limits
            };
            app.add_server(crate::serve::serve_on(
                listener,
                router,
                console_limits,
                Clients::new(clients),
                app.serving_token(),
            ));
            info!(console = %bound, "serving the console");
            Some(bound)
        }
        _ => None,
    };
    if let Some(metrics_addr) = args.observe.serve(app).await.map_err(Failure::invalid)? {
        info!(metrics = %metrics_addr, "serving /health, /ready and /metrics");
    }
    Ok((addr, console))
}

/// What `arcade run` says once it is ready.
struct Ready {
    admin: std::net::SocketAddr,
    console: Option<std::net::SocketAddr>,
    data: String,
    /// Where the operator's token is (never the token).
    token: String,
    transport: &'static str,
    services: Vec<String>,
}

impl Ready {
    /// Says the process is ready, and whether every service is subscribed yet.
    fn announce(self, subscribed: bool) {
        if !subscribed {
            warn!(
                "not every service is subscribed yet (is the broker reachable?); they will be when it is"
            );
        }
        info!(
            admin = %self.admin,
            console = %self.console.map_or_else(|| "-".to_string(), |bound| format!("http://{bound}/")),
            token = %self.token,
            data = %self.data,
            transport = self.transport,
            services = ?self.services,
            "arcade ready"
        );
    }
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
