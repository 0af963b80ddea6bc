//! Wiring of the race master into the `arcade` binary: its settings, how it starts, and the
//! admin route through which car programs reach their team's queue on the embedded transport.
//!
//! - `GET /race/teams/{team}/stream` → the team's queue `race.team.<team>` (bound to the
//!   `race.*` facts a team may see, `TEAM_FACTS`: none that tells a rival's money or points),
//!   one JSON envelope per line: those facts, and the decision requests and the team's own
//!   account addressed to the team, in the order the master published them. Each line is
//!   acknowledged once written to the response; the queue is durable, so what a car program
//!   has not received yet waits for it. Answers go back through `POST /messages/race.decision.made.v1`.
//!   Only the operator or the team's own principal (`race-team-<team>`, whose secret
//!   `arcade race team add` gives) may read it, one reader at a time (a second is refused
//!   with 409, not shared), and only for a team added so (404 otherwise: no queue is
//!   declared for a name nobody added).

use arcade_contracts::principal::Operators;
use arcade_race_master::car::team_subscription;
use arcade_race_master::domain::decide::valid_name;
use arcade_race_master::service::RaceService;
use arcade_runtime::{Running, Runtime};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use clap::Args;
use sha2::{Digest, Sha256};

use crate::admin::{AdminState, bad_team, ndjson_stream};
use crate::auth::Refusals;
use crate::json_error::error;

/// Settings of the race service.
#[derive(Debug, Clone, Default, Args)]
pub struct RaceArgs {
    /// The race's seed: every random draw of the race comes from it. Keep it secret (cars
    /// that knew it could foresee the draws; `race.started.v1` shows only its SHA-256) and
    /// restart the master with the same one. Absent: a random seed, written to
    /// DATA/race-seed (0600) and read from there at the next start; the log shows only its
    /// SHA-256. Its value is never shown.
    #[arg(
        long = "race-seed",
        env = "ARCADE_RACE_SEED",
        value_name = "U64",
        hide_env_values = true
    )]
    pub race_seed: Option<u64>,
}

/// The SHA-256 commitment of a seed, as `race.started.v1` shows it (hex of its 8 bytes,
/// little-endian).
pub fn seed_commitment(seed: u64) -> String {
    hex::encode(Sha256::digest(seed.to_le_bytes()))
}

/// Starts the race master.
pub fn start(
    runtime: &Runtime,
    args: &RaceArgs,
    operators: &Operators,
) -> anyhow::Result<Vec<Box<dyn Running>>> {
    let seed = match args.race_seed {
        Some(seed) => seed,
        None => stored_seed(runtime)?,
    };
    tracing::info!(
        seed_sha256 = %seed_commitment(seed),
        "race master seeded (the log shows only the seed's SHA-256)"
    );
    let handle = runtime
        .start(RaceService::new(seed).with_operators(operators.clone()))
        .map_err(|e| anyhow::anyhow!("race master: {e}"))?;
    Ok(vec![Box::new(handle)])
}

/// Without a seed given: the one in DATA/race-seed, else a new one written there (0600), so
/// that a restart resumes the race without the seed ever being logged. Without a data
/// directory (tests): a new one each time.
fn stored_seed(runtime: &Runtime) -> anyhow::Result<u64> {
    let Some(dir) = runtime.data_dir() else {
        return Ok(uuid::Uuid::new_v4().as_u64_pair().0);
    };
    let path = dir.join("race-seed");
    match std::fs::read_to_string(&path) {
        Ok(text) => text
            .trim()
            .parse()
            .map_err(|e| anyhow::anyhow!("{}: not a seed: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let seed = uuid::Uuid::new_v4().as_u64_pair().0;
            crate::auth::write_private(&path, format!("{seed}\n").as_bytes()).map_err(|e| {
                anyhow::anyhow!("{}: cannot write the race seed: {e}", path.display())
            })?;
            tracing::warn!(
                path = %path.display(),
                "no --race-seed / ARCADE_RACE_SEED: drew a random seed into this file (keep it secret; a restart reads it)"
            );
            Ok(seed)
        }
        Err(e) => anyhow::bail!("{}: cannot read the race seed: {e}", path.display()),
    }
}

/// Admin routes of the race master: a team's queue as a stream, for `arcade car`.
pub fn routes(state: &AdminState) -> axum::Router {
    axum::Router::new()
        .route("/race/teams/{team}/stream", get(team_stream))
        .with_state(state.clone())
}

async fn team_stream(State(state): State<AdminState>, Path(team): Path<String>) -> Response {
    if !valid_name(&team) {
        return bad_team(&team);
    }
    let auth = &state.auth;
    if !auth.knows_team(&team) {
        Refusals::count(&auth.refused.unknown_team);
        return error(
            StatusCode::NOT_FOUND,
            format!("no team {team:?}: the operator adds it with `arcade race team add {team}`"),
        );
    }
    let Some(reader) = auth.take_reader(&team) else {
        Refusals::count(&auth.refused.second_reader);
        tracing::warn!(%team, "a second reader of the team's stream refused");
        return error(
            StatusCode::CONFLICT,
            format!("team {team}'s stream already has a reader: one at a time"),
        );
    };
    // A temporary consumer of the durable team queue: the queue stays when the client goes.
    ndjson_stream(
        &state.runtime,
        &team_subscription(&team),
        &state.limits,
        Some(reader),
    )
    .await
}
