//! The Arcade console: live pages for every game, and the organiser's actions.
//!
//! An analytics consumer like any other service: it subscribes to the games' topics
//! ([`service::TOPICS`]), records each event in its own log ([`observed::Observed`], never
//! published), folds them into read models ([`projection::Projections`], one per section,
//! snapshotted like every service's state), and serves them as pages that update live
//! (server-sent events). Everything it shows comes from events; everything it does is a command
//! message sent on the bus. It depends on `contracts` and the runtime only.
//!
//! Layout:
//! - [`service`]: the service (decider, `Service`, `Snapshot`); [`input`]: what it decides on.
//! - [`observed`]: the console's log record.
//! - [`projection`]: the [`projection::Projection`] trait and the registry state.
//! - [`live`]: the read model the pages read and the shared live-update stream.
//! - [`web`]: the router, the page shape (HTML / JSON / live stream on one path), the layout,
//!   the shared CSS and JS, the operator's gate for actions.
//! - [`desk`]: players' requests (Strata Relay) to the decider, and their answers.
//! - [`games`]: one module per section (`home`, `tables`, `bingo`, `race`, `puzzle`),
//!   each with its `projection.rs` and `pages.rs`, registered in [`games::GAMES`], which
//!   also gives the empty console state; [`router`] hands every game's routes and navigation
//!   entry to the web layer, which knows no game.

pub mod desk;
pub mod games;
pub mod input;
pub mod live;
pub mod observed;
pub mod projection;
pub mod service;
pub mod web;

use std::sync::Arc;

use arcade_runtime::guard::PerClientRate;
use arcade_runtime::{HostError, HostHandle, Runtime};

pub use desk::Desk;
pub use live::{Live, LiveLimits};
pub use service::ConsoleService;
pub use web::{Gate, Tokens, Web};

/// The console's default instance name (its queue and its data directory).
pub const SERVICE_NAME: &str = "console";

/// A started console: its service and what its pages read.
#[derive(Debug)]
pub struct Started {
    /// The running service.
    pub handle: HostHandle<ConsoleService>,
    /// Its read model.
    pub live: Live,
    /// Where its pages hand players' requests.
    pub desk: Desk,
}

/// Starts the console service on `runtime` (its store `console` in the data dir, rebuilt from
/// its snapshot and log).
pub fn start(runtime: &Runtime) -> Result<Started, HostError> {
    let service = ConsoleService::default();
    let live = service.live();
    let desk = service.desk();
    let handle = runtime.start(service)?;
    desk.connect(handle.local());
    Ok(Started { handle, live, desk })
}

/// New boards one client address may start a minute by default (as many at once).
pub const NEW_GAMES_PER_MINUTE: u32 = 30;

/// What each client address may create: `per_minute` new boards a minute, as many at once.
pub fn creations(per_minute: u32) -> Arc<PerClientRate> {
    let per_minute = f64::from(per_minute.max(1));
    Arc::new(PerClientRate::new(
        per_minute / 60.0,
        per_minute,
        "new games",
    ))
}

/// The console's routes on `runtime` (commands are sent with it; streams end with its
/// shutdown signal), reading `live`, handing players' requests to `desk`, acting behind `gate`,
/// letting each client address create what `creations` allows (new boards).
pub fn router(
    runtime: &Runtime,
    live: Live,
    desk: Desk,
    gate: Arc<Gate>,
    limits: LiveLimits,
    creations: Arc<PerClientRate>,
) -> axum::Router {
    web::router(
        Web {
            live,
            desk,
            runtime: runtime.clone(),
            gate,
            limits,
            creations,
            nav: games::nav().into(),
        },
        games::routes(),
    )
}
