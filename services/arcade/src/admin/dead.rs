//! `GET /dead`, `GET /dead/{id}` and `POST /dead/replay[?id=ID]` (operator): the dead letters
//! of the embedded bus this process holds, for `arcade dead list|show|replay` while it runs
//! ([`crate::dead::letters`], the same reading and replaying as on a stopped data dir; a replay
//! is recorded with the principal that asked). On
//! RabbitMQ the dead letters are the broker's: 409, `arcade dead --amqp` reads them there.

use axum::extract::{Extension, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::AdminState;
use crate::auth::Principal;
use crate::dead::letters;
use crate::dead::records::Replayer;
use crate::json_error::error;

/// The answer when the dead letters are not this process's to read: they are on RabbitMQ.
fn on_broker(state: &AdminState) -> Option<Response> {
    let bus = state.runtime.bus();
    (bus.name() != "embedded").then(|| {
        error(
            StatusCode::CONFLICT,
            format!(
                "this process runs on {}: its dead letters are the broker's; read them with `arcade dead list --amqp URL` as the operator's user",
                bus.name()
            ),
        )
    })
}

fn failed(e: &anyhow::Error) -> Response {
    error(StatusCode::SERVICE_UNAVAILABLE, format!("{e:#}"))
}

/// `GET /dead`: `{"letters": [summary…]}`.
pub async fn list(State(state): State<AdminState>) -> Response {
    if let Some(refused) = on_broker(&state) {
        return refused;
    }
    match letters::list(state.runtime.bus().as_ref(), None).await {
        Ok(lines) => axum::Json(json!({ "letters": lines })).into_response(),
        Err(e) => failed(&e),
    }
}

/// `GET /dead/{id}`: the dead letter, whole; 404 when none has that id.
pub async fn show(State(state): State<AdminState>, Path(id): Path<String>) -> Response {
    if let Some(refused) = on_broker(&state) {
        return refused;
    }
    match letters::show(state.runtime.bus().as_ref(), None, &id).await {
        Ok(Some(line)) => axum::Json(line).into_response(),
        Ok(None) => error(
            StatusCode::NOT_FOUND,
            format!("no dead letter has the message id {id:?}"),
        ),
        Err(e) => failed(&e),
    }
}

#[derive(Debug, Deserialize)]
pub struct ReplayQuery {
    id: Option<String>,
}

/// `POST /dead/replay[?id=ID]`: what the replay did ([`letters::Replayed`]).
pub async fn replay(
    State(state): State<AdminState>,
    Extension(principal): Extension<Principal>,
    Query(query): Query<ReplayQuery>,
) -> Response {
    if let Some(refused) = on_broker(&state) {
        return refused;
    }
    let replayer = Replayer {
        by: principal.name(),
        via: "admin endpoint",
    };
    let bus = state.runtime.bus();
    match letters::replay(bus.as_ref(), None, query.id.as_deref(), &replayer).await {
        Ok(done) => {
            tracing::info!(
                replayed = done.lines.len() - done.refused as usize,
                refused = done.refused,
                "dead letters replayed through the admin endpoint"
            );
            axum::Json(done).into_response()
        }
        Err(e) => failed(&e),
    }
}
