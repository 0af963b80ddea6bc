//! The services the `arcade` binary hosts, their settings (flags with environment fallbacks)
//! and the extra admin routes they serve. Each service's wiring lives in its own module here;
//! the service crates themselves know nothing of each other.

pub mod bingo;
pub mod console;
pub mod puzzle;
pub mod race;
pub mod referee;

use arcade_contracts::principal::Operators;
use arcade_runtime::{Running, Runtime};
use clap::{Args, ValueEnum};

/// A service this binary can host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ValueEnum)]
pub enum ServiceName {
    /// The foosball table referee (one per table).
    Referee,
    /// The bingo service.
    Bingo,
    /// The race master.
    RaceMaster,
    /// The puzzle telemetry service.
    PuzzleTelemetry,
    /// The console: live pages of every game and the organiser's actions (`--console`).
    Console,
}

impl ServiceName {
    /// Every service, in start order (`arcade run` with no names): the console first, so that
    /// its queue is bound before the others' relays publish what their logs hold.
    pub const ALL: [ServiceName; 5] = [
        ServiceName::Console,
        ServiceName::PuzzleTelemetry,
        ServiceName::Bingo,
        ServiceName::RaceMaster,
        ServiceName::Referee,
    ];

    /// The game services, in start order (what `arcade demo` hosts).
    pub const GAMES: [ServiceName; 4] = [
        ServiceName::PuzzleTelemetry,
        ServiceName::Bingo,
        ServiceName::RaceMaster,
        ServiceName::Referee,
    ];
}

/// Settings of every service.
#[derive(Debug, Clone, Default, Args)]
pub struct ServiceArgs {
    /// Referee settings.
    #[command(flatten)]
    pub referee: referee::RefereeArgs,
    /// Bingo settings.
    #[command(flatten)]
    pub bingo: bingo::BingoArgs,
    /// Race master settings.
    #[command(flatten)]
    pub race: race::RaceArgs,
    /// Puzzle telemetry settings.
    #[command(flatten)]
    pub puzzle: puzzle::PuzzleArgs,
    /// Console settings.
    #[command(flatten)]
    pub console: console::ConsoleArgs,
    /// The principals the services treat as the operator: the senders that may start the
    /// race, act for any team and claim for any player (the admin endpoint's `operator`, the
    /// operator's RabbitMQ user, the console's RabbitMQ user: it sends for the operator or a
    /// player only after checking their token).
    #[arg(
        long = "operator-principals",
        env = "ARCADE_OPERATOR_PRINCIPALS",
        value_delimiter = ',',
        default_value = "operator,arcade-admin,console",
        value_name = "NAMES"
    )]
    pub operators: Vec<String>,
}

/// What the started services hand the routes that read them (`None`: not hosted here).
#[derive(Clone, Default)]
pub struct Hosted {
    /// The console's read model and players' desk (its listener serves them).
    pub console: Option<(arcade_console::Live, arcade_console::Desk)>,
    /// Bingo's read model (`GET /bingo/games/…`).
    pub bingo: Option<arcade_bingo::BingoView>,
    /// The puzzle telemetry's statistics (`GET /puzzle`, `/puzzle/stats`).
    pub puzzle: Option<arcade_puzzle_telemetry::service::LiveStats>,
}

impl std::fmt::Debug for Hosted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hosted")
            .field("console", &self.console.is_some())
            .field("bingo", &self.bingo.is_some())
            .field("puzzle", &self.puzzle.is_some())
            .finish()
    }
}

/// Started services: what runs, and what their routes read.
#[allow(missing_debug_implementations)] // what runs is `dyn Running`, which has none
pub struct Started {
    /// The running services.
    pub running: Vec<Box<dyn Running>>,
    /// What their routes read.
    pub hosted: Hosted,
}

/// Starts the named services (all when `names` is empty).
pub fn start(
    runtime: &Runtime,
    names: &[ServiceName],
    args: &ServiceArgs,
) -> anyhow::Result<Started> {
    let mut names: Vec<ServiceName> = if names.is_empty() {
        ServiceName::ALL.to_vec()
    } else {
        names.to_vec()
    };
    // The console first: its queue is bound before the others' relays publish their logs.
    names.sort_by_key(|name| *name != ServiceName::Console);
    let operators = if args.operators.is_empty() {
        Operators::default()
    } else {
        Operators::new(args.operators.iter().cloned())
    };
    let mut running: Vec<Box<dyn Running>> = Vec::new();
    let mut hosted = Hosted::default();
    for name in names {
        match name {
            ServiceName::Referee => running.extend(referee::start(runtime, &args.referee)?),
            ServiceName::Bingo => {
                running.extend(bingo::start(runtime, &args.bingo, &operators, &mut hosted)?)
            }
            ServiceName::RaceMaster => {
                running.extend(race::start(runtime, &args.race, &operators)?)
            }
            ServiceName::PuzzleTelemetry => {
                running.extend(puzzle::start(runtime, &args.puzzle, &mut hosted)?)
            }
            ServiceName::Console => running.extend(console::start(runtime, &mut hosted)?),
        }
    }
    Ok(Started { running, hosted })
}

/// Admin routes the services add (merged into the admin endpoint), reading `hosted`.
pub fn routes(state: &crate::admin::AdminState, hosted: &Hosted) -> axum::Router {
    axum::Router::new()
        .merge(puzzle::routes(&state.runtime, hosted.puzzle.clone()))
        .merge(race::routes(state))
        .merge(bingo::routes(hosted.bingo.clone()))
}
