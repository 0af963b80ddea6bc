//! Wiring of the console into the `arcade` binary: its settings, how it starts, and where its
//! pages are served.
//!
//! The console has a listener of its own (`--console`, default `127.0.0.1:7880`), not the admin
//! endpoint's: its pages are for other devices (the TV next to a table, phones), so it is the
//! address to open to the bar's network, while the admin API (every route behind a token)
//! stays on loopback; viewing needs no token there, every action needs the operator's (the same
//! token as the admin endpoint's, checked by the same principals); and its paths (`/`,
//! `/tables`, later `/bingo/{gameId}`, `/puzzle`) never meet the admin routes.

use std::net::SocketAddr;
use std::sync::Arc;

use arcade_console::{Desk, Gate, Live, LiveLimits, Tokens};
use arcade_runtime::{Running, Runtime};
use clap::Args;

use crate::auth::Auth;

/// Settings of the console.
#[derive(Debug, Clone, Args)]
pub struct ConsoleArgs {
    /// Where the console serves its pages. Open it to the network (`0.0.0.0:7880`) for TVs
    /// and phones: viewing needs no token, actions need the operator's.
    #[arg(
        id = "console_addr",
        long = "console",
        env = "ARCADE_CONSOLE_ADDR",
        default_value = "127.0.0.1:7880",
        value_name = "ADDR"
    )]
    pub addr: SocketAddr,
    /// Another name (or `name:port`) the console answers actions to in `Host`, besides its
    /// bound address and localhost: the name or address a phone opens it by (repeatable).
    #[arg(
        id = "console_hosts",
        long = "console-host",
        env = "ARCADE_CONSOLE_HOSTS",
        value_delimiter = ',',
        value_name = "NAME"
    )]
    pub hosts: Vec<String>,
    /// Seconds a live page may leave an update unread before it is dropped.
    #[arg(
        id = "console_stall",
        long = "console-stall",
        env = "ARCADE_CONSOLE_STALL",
        default_value_t = 30,
        value_name = "SECS"
    )]
    pub stall: u64,
    /// New Strata Relay boards one client address may start a minute (as many at once); beyond,
    /// 429 with `Retry-After`. Playing needs no token, so this bounds what one visitor can take.
    #[arg(
        id = "console_new_games",
        long = "console-new-games",
        env = "ARCADE_CONSOLE_NEW_GAMES",
        default_value_t = arcade_console::NEW_GAMES_PER_MINUTE,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "PER_MINUTE"
    )]
    pub new_games: u32,
    /// Connections the console serves at once (more wait until one closes): a full room's
    /// live pages, a phone or a TV each, and room for ordinary requests. Fewer, with a
    /// warning, when this and the admin endpoint's would not fit the open-file limit.
    #[arg(
        id = "console_max_connections",
        long = "console-max-connections",
        env = "ARCADE_CONSOLE_MAX_CONNECTIONS",
        default_value_t = 2048,
        value_name = "N"
    )]
    pub max_connections: usize,
}

impl Default for ConsoleArgs {
    fn default() -> Self {
        ConsoleArgs {
            addr: SocketAddr::from(([127, 0, 0, 1], 7880)),
            hosts: Vec::new(),
            stall: 30,
            new_games: arcade_console::NEW_GAMES_PER_MINUTE,
            max_connections: 2048,
        }
    }
}

/// Starts the console service; its read model and players' desk go to `hosted`, for its
/// listener.
pub fn start(
    runtime: &Runtime,
    hosted: &mut super::Hosted,
) -> anyhow::Result<Vec<Box<dyn Running>>> {
    let started = arcade_console::start(runtime)?;
    hosted.console = Some((started.live, started.desk));
    Ok(vec![Box::new(started.handle)])
}

/// The admin endpoint's principals, as the console's gate asks for them.
struct AuthTokens(Arc<Auth>);

impl Tokens for AuthTokens {
    fn principal(&self, token: &str) -> Option<String> {
        self.0.principal(token).map(|p| p.name())
    }
}

/// The console's router for a listener bound to `bound`, reading `live`, handing players'
/// requests to `desk`.
pub fn router(
    runtime: &Runtime,
    (live, desk): (Live, Desk),
    auth: Arc<Auth>,
    token_source: &str,
    bound: SocketAddr,
    args: &ConsoleArgs,
) -> axum::Router {
    let gate = Gate::new(Arc::new(AuthTokens(auth)), bound, &args.hosts, token_source);
    let limits = LiveLimits {
        stall: std::time::Duration::from_secs(args.stall.max(1)),
        ..LiveLimits::default()
    };
    let creations = arcade_console::creations(args.new_games);
    arcade_console::router(runtime, live, desk, Arc::new(gate), limits, creations)
        .layer(axum::extract::DefaultBodyLimit::max(256 * 1024))
}
