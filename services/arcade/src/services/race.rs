//! Wiring of the race master into the `arcade` binary: its settings, how it starts, and the
//! admin route through which car programs reach their team's queue on the embedded transport.
//!
//! - `GET /race/teams/{team}/stream` → the team's queue `race.team.<team>` (bound to every
//!   `race.*` fact), one JSON envelope per line: the facts of the race and the decision
//!   requests addressed to the team, in the order the master published them. Each line is
//!   acknowledged once written to the response; the queue is durable, so what a car program
//!   has not received yet waits for it. Answers go back through `POST /messages/race.decision.made.v1`.

use arcade_race_master::car::team_subscription;
use arcade_race_master::domain::decide::valid_name;
use arcade_race_master::service::RaceService;
use arcade_runtime::{Running, Runtime};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use clap::Args;

use crate::admin::{error, ndjson_stream};

/// Settings of the race service.
#[derive(Debug, Clone, Default, Args)]
pub struct RaceArgs {
    /// The race's seed: every random draw of the race comes from it. Keep it secret (cars
    /// that knew it could foresee the draws; `race.started.v1` shows only its SHA-256) and
    /// restart the master with the same one. Absent: a random seed, written to the log at
    /// start so that a restart can be given it.
    #[arg(long = "race-seed", env = "ARCADE_RACE_SEED", value_name = "U64")]
    pub race_seed: Option<u64>,
}

/// Starts the race master.
pub fn start(runtime: &Runtime, args: &RaceArgs) -> anyhow::Result<Vec<Box<dyn Running>>> {
    let seed = match args.race_seed {
        Some(seed) => seed,
        None => {
            let seed = uuid::Uuid::new_v4().as_u64_pair().0;
            tracing::warn!(
                seed,
                "no --race-seed / ARCADE_RACE_SEED: drew a random seed; restart with it to resume this race"
            );
            seed
        }
    };
    let handle = runtime
        .start(RaceService::new(seed))
        .map_err(|e| anyhow::anyhow!("race master: {e}"))?;
    Ok(vec![Box::new(handle)])
}

/// Admin routes of the race master: a team's queue as a stream, for `arcade car`.
pub fn routes(runtime: &Runtime) -> axum::Router {
    axum::Router::new()
        .route("/race/teams/{team}/stream", get(team_stream))
        .with_state(runtime.clone())
}

async fn team_stream(State(runtime): State<Runtime>, Path(team): Path<String>) -> Response {
    if !valid_name(&team) {
        return error(
            StatusCode::BAD_REQUEST,
            format!(
                "team name {team:?} must be 1 to 32 of a-z, 0-9 and '-', not starting with '-'"
            ),
        );
    }
    // A temporary consumer of the durable team queue: the queue stays when the client goes.
    ndjson_stream(&runtime, &team_subscription(&team)).await
}
