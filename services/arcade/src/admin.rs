//! The admin endpoint `arcade run` serves on loopback: health, counters, sending a message, and
//! a stream of messages (what `arcade tap` and `arcade send` use with the embedded transport).
//! Every route but the probes needs a bearer token ([`crate::auth`]).
//!
//! - `GET /health`, `GET /ready`, `GET /metrics`: [`crate::observe`] (merged by `arcade run`)
//! - `GET /counters` → every service's counters
//! - `GET /auth` → the principals added and the requests refused, by why (operator)
//! - `POST /race/teams/{team}`, `POST /bingo/players/{player}` → 201 and the principal's new
//!   secret (operator; the old secret stops working)
//! - `POST /messages/{type}` with a JSON payload → 202 and the envelope, 400 and the error
//!   for a payload its schema refuses, 403 for what the token's principal may not send, 404
//!   for a command no queue takes (nobody consumes it: it is in the dead letters, reason
//!   `unroutable`). An `Idempotency-Key` header is the message id: the same key sent again is
//!   applied once. A W3C `traceparent` header is the trace context the message continues: the
//!   endpoint's producer span `publish <exchange>` is its child.
//! - `GET /stream?pattern=game.%23` → one JSON envelope per line, as messages pass (operator)
//! - `GET /dead`, `GET /dead/{id}`, `POST /dead/replay` → the dead letters ([`dead`], operator)
//!
//! What a client may cost is bounded: bodies by [`Limits`], connections by [`crate::serve`]; a
//! stream's reader that stops reading is dropped after [`Limits::stream_stall`] with a log
//! line, never buffered without end.

use std::sync::Arc;

use arcade_contracts::principal::{bingo_player, race_team};
use arcade_runtime::{Runtime, SendError, SendOptions, SubscriptionSpec};
use axum::Router;
use axum::body::Body;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::auth::{Auth, Principal, Refusals};
use crate::json_error::error;

mod dead;
mod limits;
mod stream;
#[cfg(test)]
pub mod testing;

pub use limits::Limits;
pub use stream::ndjson_stream;

/// What the handlers share.
#[derive(Clone, Debug)]
pub struct AdminState {
    /// The process's runtime.
    pub runtime: Runtime,
    /// Its principals.
    pub auth: Arc<Auth>,
    /// What a client may cost.
    pub limits: Limits,
}

/// The admin routes, to which services may merge their own (the telemetry page); wrap the
/// whole with [`protect`].
pub fn router(state: AdminState) -> Router {
    Router::new()
        .route("/counters", get(counters))
        .route("/auth", get(auth_report))
        .route("/messages/{message_type}", post(send))
        .route("/stream", get(stream))
        .route("/dead", get(dead::list))
        .route("/dead/{id}", get(dead::show))
        .route("/dead/replay", post(dead::replay))
        .route("/race/teams/{team}", post(add_team))
        .route("/bingo/players/{player}", post(add_player))
        .with_state(state)
}

/// `router` behind the bearer-token, `Host` and `Origin` checks of `auth`.
pub fn protect(router: Router, auth: Arc<Auth>) -> Router {
    router.layer(axum::middleware::from_fn_with_state(
        auth,
        crate::auth::middleware::authenticate,
    ))
}

async fn counters(State(state): State<AdminState>) -> impl IntoResponse {
    axum::Json(state.runtime.metrics().snapshot())
}

async fn auth_report(State(state): State<AdminState>) -> impl IntoResponse {
    axum::Json(json!({
        "principals": state.auth.names(),
        "refused": state.auth.refused,
    }))
}

/// `POST /race/teams/{team}`: the team's new secret (operator).
async fn add_team(State(state): State<AdminState>, Path(team): Path<String>) -> Response {
    if !arcade_race_master::domain::decide::valid_name(&team) {
        return bad_team(&team);
    }
    issue(
        &state,
        Principal::Team(team.clone()),
        json!({ "team": team }),
    )
}

/// `POST /bingo/players/{player}`: the player's new secret (operator).
async fn add_player(State(state): State<AdminState>, Path(player): Path<String>) -> Response {
    if player.is_empty() || player.len() > 200 || player.chars().any(char::is_control) {
        return error(
            StatusCode::BAD_REQUEST,
            format!("player name {player:?} must be 1 to 200 characters, none a control"),
        );
    }
    issue(
        &state,
        Principal::Player(player.clone()),
        json!({ "player": player }),
    )
}

fn issue(state: &AdminState, principal: Principal, mut answer: Value) -> Response {
    match state.auth.issue(&principal) {
        Ok(token) => {
            tracing::info!(principal = %principal.name(), "secret issued");
            answer["principal"] = json!(principal.name());
            answer["token"] = json!(token);
            (StatusCode::CREATED, axum::Json(answer)).into_response()
        }
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")),
    }
}

/// The refusal of a team name that cannot be one.
pub fn bad_team(team: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        format!("team name {team:?} must be 1 to 32 of a-z, 0-9 and '-', not starting with '-'"),
    )
}

#[derive(Debug, Deserialize)]
struct SendQuery {
    producer: Option<String>,
}

/// The message types a team may send, each for its own `team` only.
const TEAM_TYPES: [&str; 4] = [
    "race.car.register.v1",
    "race.decision.made.v1",
    "race.budget.query.v1",
    "race.state.query.v1",
];

/// Why `principal` may not send `payload` as `message_type`, if it may not.
fn forbidden(principal: &Principal, message_type: &str, payload: &Value) -> Option<String> {
    let field = |name: &str| payload.get(name).and_then(Value::as_str).unwrap_or("");
    match principal {
        Principal::Operator => None,
        Principal::Team(team) if TEAM_TYPES.contains(&message_type) => {
            let named = field("team");
            (named != team).then(|| {
                format!(
                    "{} may not send {message_type} for team {named:?}: only for its own team",
                    race_team(team)
                )
            })
        }
        Principal::Player(player) if message_type == "bingo.card.claim.v1" => {
            let named = field("player");
            (named != player).then(|| {
                format!(
                    "{} may not claim for player {named:?}: only for itself",
                    bingo_player(player)
                )
            })
        }
        other => Some(format!("{} may not send {message_type}", other.name())),
    }
}

/// An `Idempotency-Key`: 1 to 200 of letters, digits and `-_.:`.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, String> {
    let Some(value) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let key = value.to_str().unwrap_or("");
    let valid = !key.is_empty()
        && key.len() <= 200
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c));
    if valid {
        Ok(Some(key.to_string()))
    } else {
        Err("Idempotency-Key must be 1 to 200 of letters, digits and -_.:".into())
    }
}

/// Reads a body of at most `limits.max_body` bytes within `limits.body_timeout`; a larger
/// declared length is refused before anything is read.
async fn read_body(body: Body, limits: &Limits) -> Result<axum::body::Bytes, Response> {
    match tokio::time::timeout(
        limits.body_timeout,
        axum::body::to_bytes(body, limits.max_body),
    )
    .await
    {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the body is larger than {} bytes (the most a consumer accepts) or broken: {e}",
                limits.max_body
            ),
        )),
        Err(_) => Err(error(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the body did not arrive within {}s",
                limits.body_timeout.as_secs()
            ),
        )),
    }
}

async fn send(
    State(state): State<AdminState>,
    Extension(principal): Extension<Principal>,
    Path(message_type): Path<String>,
    Query(query): Query<SendQuery>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let message_id = match idempotency_key(&headers) {
        Ok(key) => key,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    let body = match read_body(body, &state.limits).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let payload: Value = match serde_json::from_slice(&body) {
        Ok(payload) => payload,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("the payload is not JSON: {e}"),
            );
        }
    };
    if let Some(why) = forbidden(&principal, &message_type, &payload) {
        Refusals::count(&state.auth.refused.forbidden);
        tracing::warn!(principal = %principal.name(), %message_type, reason = %why, "send refused");
        return error(StatusCode::FORBIDDEN, why);
    }
    // Only the operator names the producer; anyone else produces as itself.
    let producer = match (&principal, query.producer) {
        (Principal::Operator, Some(producer)) => producer,
        (Principal::Operator, None) => "arcade-admin".into(),
        (other, _) => other.name(),
    };
    // The client's producer span, if it sent one: the endpoint's continues it (an invalid
    // value is dropped).
    let traceparent = headers
        .get("traceparent")
        .and_then(|value| value.to_str().ok())
        .map(str::to_string);
    let options = SendOptions {
        message_id,
        sender: Some(principal.name()),
        traceparent,
    };
    match state
        .runtime
        .send_with(&message_type, payload, &producer, options)
        .await
    {
        Ok(envelope) => (StatusCode::ACCEPTED, axum::Json(envelope)).into_response(),
        Err(e @ (SendError::Invalid(_) | SendError::Unroutable { .. })) => {
            error(StatusCode::BAD_REQUEST, e.to_string())
        }
        Err(e @ SendError::NotConsumed { .. }) => error(StatusCode::NOT_FOUND, e.to_string()),
        Err(e @ SendError::Bus(_)) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}

#[derive(Debug, Deserialize)]
struct StreamQuery {
    pattern: Option<String>,
}

async fn stream(State(state): State<AdminState>, Query(query): Query<StreamQuery>) -> Response {
    let pattern = query.pattern.unwrap_or_else(|| "#".into());
    let spec = SubscriptionSpec::temporary(
        format!("tap.{}", uuid::Uuid::new_v4().simple()),
        vec![pattern],
    );
    ndjson_stream(&state.runtime, &spec, &state.limits, None).await
}
