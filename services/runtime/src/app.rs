//! The application layer: a process's lifecycle, written once for every binary and tool that
//! hosts services (`arcade run`, `arcade demo`, the edge `arcade-referee`).
//!
//! - [`Transport`] (`transport`): the embedded bus in a data directory, or RabbitMQ at a URL with
//!   its options — the one place a transport is chosen; [`Transport::open`] builds the bus and
//!   its close guard ([`OpenBus`]).
//! - [`App`]: hosts a set of services on a [`Runtime`], keeps the servers the process runs (its
//!   admin endpoint, `/metrics`), and [`App::run`]s until a shutdown future passed in resolves
//!   (or a service fails), as mini-redis's `server::run(listener, shutdown)` does; then stops
//!   everything in the order [`crate::shutdown`] describes. The shutdown future is usually
//!   [`crate::shutdown::signal`] (SIGINT/SIGTERM, handled there once), possibly raced with the
//!   process's own end (a demo's script, a game played to its end). [`block_on`] runs a
//!   binary's `main` on its tokio runtime.
//! - `args` (feature `cli`): the flags of those settings, shared by every binary.

#[cfg(feature = "cli")]
pub mod args;
mod transport;

pub use transport::{
    AMQP_SETTING, DataDirError, OpenBus, Transport, TransportError, connect_amqp, prepare_data_dir,
};

use std::future::Future;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{error, info};

use crate::bus::BusError;
use crate::runtime::{Running, Runtime};
use crate::shutdown::DRAIN;

/// A process's services, servers and bus, run until told to stop.
pub struct App {
    runtime: Runtime,
    bus: OpenBus,
    services: Vec<Box<dyn Running>>,
    servers: Vec<JoinHandle<()>>,
    stop_serving: CancellationToken,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("bus", &self.bus)
            .field("services", &self.names())
            .finish_non_exhaustive()
    }
}

/// Why [`App::run`] stopped.
#[derive(Debug)]
pub enum Ending<T> {
    /// The shutdown future resolved, with this.
    Shutdown(T),
    /// A service stopped on this error first.
    Failed(String),
}

/// How an [`App`] ended.
#[derive(Debug)]
pub struct Stopped<T> {
    /// Why it stopped.
    pub ending: Ending<T>,
    /// Whether every service stopped cleanly (batch finished, log flushed).
    pub clean: bool,
}

impl<T> Stopped<T> {
    /// Told to stop, and every service stopped cleanly: the process exits with success.
    pub fn success(&self) -> bool {
        self.clean && matches!(self.ending, Ending::Shutdown(_))
    }
}

impl App {
    /// An app on `runtime`, whose bus is `bus` (the runtime is built on [`OpenBus::bus`]).
    pub fn new(runtime: Runtime, bus: OpenBus) -> Self {
        App {
            runtime,
            bus,
            services: Vec::new(),
            servers: Vec::new(),
            stop_serving: CancellationToken::new(),
        }
    }

    /// The runtime the services run on.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// The bus and its guard.
    pub fn bus(&self) -> &OpenBus {
        &self.bus
    }

    /// Hosts `services` (started on [`App::runtime`]): they are stopped with the app.
    pub fn host(&mut self, services: impl IntoIterator<Item = Box<dyn Running>>) {
        self.services.extend(services);
    }

    /// The hosted services' names, in start order.
    pub fn names(&self) -> Vec<String> {
        self.services.iter().map(|s| s.name().to_string()).collect()
    }

    /// The token the app's servers stop on: cancelled at stop, once the services no longer
    /// consume and before they flush.
    pub fn serving_token(&self) -> CancellationToken {
        self.stop_serving.clone()
    }

    /// Keeps a server's task (one that ends within [`crate::shutdown::GRACE`] of
    /// [`App::serving_token`]): the app waits for it at stop.
    pub fn add_server(&mut self, task: JoinHandle<()>) {
        self.servers.push(task);
    }

    /// Serves `/health`, `/ready` and `/metrics` ([`crate::http::router`]) on `addr`; returns
    /// the bound address. The error names `setting`, the flag that gave the address.
    #[cfg(feature = "http")]
    pub async fn serve_observability(
        &mut self,
        addr: std::net::SocketAddr,
        setting: &str,
        max_backlog: u64,
    ) -> Result<std::net::SocketAddr, String> {
        let router = crate::http::router(self.runtime.clone(), max_backlog);
        let (bound, task) = crate::http::serve(addr, setting, router, self.serving_token()).await?;
        self.add_server(task);
        Ok(bound)
    }

    /// Resolves with whether every hosted service's queue is declared and bound, within
    /// `patience`. It holds no borrow of the app, so that it may race the app's run.
    pub fn subscribed(&self, patience: Duration) -> impl Future<Output = bool> + Send + 'static {
        let receivers: Vec<_> = self.services.iter().map(|s| s.subscribed()).collect();
        async move {
            let all =
                futures::future::join_all(receivers.into_iter().map(|mut subscribed| async move {
                    subscribed.wait_for(|bound| *bound).await.is_ok()
                }));
            matches!(tokio::time::timeout(patience, all).await, Ok(bound) if bound.iter().all(|b| *b))
        }
    }

    /// Runs until `shutdown` resolves or a service stops on an error, whichever comes first,
    /// then stops ([`App::stop`]). The error is the bus's, when it does not close.
    pub async fn run<T>(self, shutdown: impl Future<Output = T>) -> Result<Stopped<T>, BusError> {
        let ending = tokio::select! {
            told = shutdown => Ending::Shutdown(told),
            reason = self.runtime.failure() => {
                error!(%reason, "a service stopped on an error");
                Ending::Failed(reason)
            }
        };
        info!("stopping");
        let clean = self.stop().await?;
        info!("stopped");
        Ok(Stopped { ending, clean })
    }

    /// Stops, in the order [`crate::shutdown`] gives: streams end and hosts stop consuming,
    /// servers stop accepting; each service finishes its batch, flushes and drains (within
    /// [`DRAIN`]); the servers' tasks end; the bus closes. Returns whether every service
    /// stopped cleanly; the error is the bus's.
    pub async fn stop(self) -> Result<bool, BusError> {
        self.runtime.begin_shutdown();
        self.stop_serving.cancel();
        let clean = stop_all(self.services).await;
        for server in self.servers {
            let _ = server.await;
        }
        self.bus.close().await?;
        Ok(clean)
    }
}

/// Runs a binary's `main` future on a tokio runtime built by `builder` (with every driver
/// enabled) and returns its exit code. An error (`main`'s, shown with its causes, or the
/// runtime's that could not be built) is reported on stderr as `error: …`, and the process
/// fails.
pub fn block_on<E: std::fmt::Display>(
    builder: &mut tokio::runtime::Builder,
    main: impl Future<Output = Result<std::process::ExitCode, E>>,
) -> std::process::ExitCode {
    let ended = match builder.enable_all().build() {
        Ok(runtime) => runtime.block_on(main).map_err(|error| format!("{error:#}")),
        Err(error) => Err(format!("cannot start the async runtime: {error}")),
    };
    ended.unwrap_or_else(|error| {
        eprintln!("error: {error}");
        std::process::ExitCode::FAILURE
    })
}

/// Stops every service in turn, each within [`DRAIN`]; returns whether all stopped cleanly
/// (those that did not are logged).
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
