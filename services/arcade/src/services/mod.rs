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
    /// operator's RabbitMQ user, and the console's RabbitMQ user, whose commands the console
    /// sends only for the operator's token).
    #[arg(
        long = "operator-principals",
        env = "ARCADE_OPERATOR_PRINCIPALS",
        value_delimiter = ',',
        default_value = "operator,arcade-admin,console",
        value_name = "NAMES"
    )]
    pub operators: Vec<String>,
}

/// Starts the named services (all when `names` is empty).
pub fn start(
    runtime: &Runtime,
    names: &[ServiceName],
    args: &ServiceArgs,
) -> anyhow::Result<Vec<Box<dyn Running>>> {
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
    for name in names {
        match name {
            ServiceName::Referee => running.extend(referee::start(runtime, &args.referee)?),
            ServiceName::Bingo => running.extend(bingo::start(runtime, &args.bingo, &operators)?),
            ServiceName::RaceMaster => {
                running.extend(race::start(runtime, &args.race, &operators)?)
            }
            ServiceName::PuzzleTelemetry => running.extend(puzzle::start(runtime, &args.puzzle)?),
            ServiceName::Console => running.extend(console::start(runtime)?),
        }
    }
    Ok(running)
}

/// Admin routes the services add (merged into the admin endpoint).
pub fn routes(state: &crate::admin::AdminState) -> axum::Router {
    let runtime = &state.runtime;
    axum::Router::new()
        .merge(puzzle::routes(runtime))
        .merge(race::routes(state))
        .merge(bingo::routes())
}
