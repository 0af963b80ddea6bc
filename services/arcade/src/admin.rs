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
//!   applied once.
//! - `GET /stream?pattern=game.%23` → one JSON envelope per line, as messages pass (operator)
//!
//! What a client may cost is bounded: bodies by [`Limits`], connections by [`crate::serve`]; a
//! stream's reader that stops reading is dropped after [`Limits::stream_stall`] with a log
//! line, never buffered without end.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::principal::{bingo_player, race_team};
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Runtime, SendError, SendOptions, SubscriptionSpec};
use axum::Router;
use axum::body::Body;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::auth::{Auth, Principal, ReaderGuard, Refusals};
use crate::json_error::error;

/// What a client may cost the endpoint.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest request body, refused (413) before it is buffered.
    pub max_body: usize,
    /// Time a request's body may take to arrive.
    pub body_timeout: Duration,
    /// Time a stream's reader may leave a line unread before it is dropped.
    pub stream_stall: Duration,
    /// Lines a stream holds for its reader (beyond the socket's buffers).
    pub stream_buffer: usize,
    /// Bytes of lines a stream holds for its reader: with [`STREAM_PREFETCH`] deliveries of at
    /// most the broker's message size, what one reader that does not read may cost.
    pub stream_buffer_bytes: usize,
}

/// The unacked deliveries a stream's consumer may hold (a service queue's consumer takes more).
pub const STREAM_PREFETCH: u16 = 16;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 1024 * 1024,
            body_timeout: Duration::from_secs(10),
            stream_stall: Duration::from_secs(30),
            stream_buffer: 64,
            stream_buffer_bytes: 4 * 1024 * 1024,
        }
    }
}

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
        .route("/race/teams/{team}", post(add_team))
        .route("/bingo/players/{player}", post(add_player))
        .with_state(state)
}

/// `router` behind the bearer-token, `Host` and `Origin` checks of `auth`.
pub fn protect(router: Router, auth: Arc<Auth>) -> Router {
    router.layer(axum::middleware::from_fn_with_state(
        auth,
        crate::auth::authenticate,
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
                "the body is larger than {} bytes or broken: {e}",
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
    let options = SendOptions {
        message_id,
        sender: Some(principal.name()),
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

/// A stream's line and the bytes of its budget it holds.
type Line = (axum::body::Bytes, tokio::sync::OwnedSemaphorePermit);

/// A delivery as a stream line: its envelope as JSON and a newline.
fn stream_line(message: &arcade_runtime::WireMessage) -> axum::body::Bytes {
    let mut line = serde_json::to_vec(&lossy_envelope(message)).unwrap_or_default();
    line.push(b'\n');
    line.into()
}

/// Subscribes with `spec` and streams every delivery as one JSON envelope per line, acking each
/// once handed to the response. The consumer lives as long as the response (or until the
/// process stops: [`Runtime::stopping`]), and `reader` (a
/// team's one-reader guard) with it. At most `limits.stream_buffer` lines wait for the reader;
/// a reader that leaves one unread for `limits.stream_stall` is dropped, with a log line.
pub async fn ndjson_stream(
    runtime: &Runtime,
    spec: &SubscriptionSpec,
    limits: &Limits,
    reader: Option<ReaderGuard>,
) -> Response {
    let mut spec = spec.clone();
    spec.prefetch = spec.prefetch.min(STREAM_PREFETCH);
    let mut consumer = match runtime.bus().subscribe(&spec).await {
        Ok(consumer) => consumer,
        Err(e) => return error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    };
    let (lines, receiver) = tokio::sync::mpsc::channel::<Line>(limits.stream_buffer.max(1));
    // A line holds permits of this budget, one per byte, until it is handed to the socket.
    let budget = limits.stream_buffer_bytes.max(1);
    let bytes = Arc::new(tokio::sync::Semaphore::new(budget));
    let stall = limits.stream_stall;
    let queue = spec.queue.clone();
    // The stream ends when the process stops, so an open tap never holds a shutdown.
    let stopping = runtime.stopping();
    tokio::spawn(async move {
        let _reader = reader;
        loop {
            let delivery = tokio::select! {
                delivery = consumer.next() => match delivery {
                    Ok(delivery) => delivery,
                    Err(_) => break,
                },
                () = lines.closed() => break,
                () = stopping.cancelled() => break,
            };
            let line = stream_line(&delivery.message);
            let held = u32::try_from(line.len().min(budget)).unwrap_or(u32::MAX);
            let handed = tokio::time::timeout(stall, async {
                let permit = bytes.clone().acquire_many_owned(held).await.ok()?;
                lines.send((line, permit)).await.ok()
            });
            match handed.await {
                Ok(Some(())) => {
                    let _ = delivery.ack().await;
                }
                // The reader went away: the delivery goes back to its queue.
                Ok(None) => break,
                Err(_) => {
                    tracing::warn!(
                        %queue,
                        stall_secs = stall.as_secs(),
                        "stream reader dropped: it left a line unread too long"
                    );
                    break;
                }
            }
        }
    });
    let body = futures::stream::unfold(receiver, |mut receiver| async move {
        // The permit goes when the line is handed on: the socket's buffers bound the rest.
        let (line, _permit) = receiver.recv().await?;
        Some((Ok::<_, std::convert::Infallible>(line), receiver))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "application/x-ndjson")
        .body(Body::from_stream(body))
        .unwrap_or_else(|e| error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// An admin endpoint for tests: on a free loopback port, with a fresh operator token and the
/// routes `extra` adds, behind the same checks and bounds as `arcade run`'s.
#[cfg(test)]
pub mod testing {
    use std::net::SocketAddr;
    use std::sync::Arc;

    use arcade_runtime::Runtime;
    use axum::Router;
    use tokio_util::sync::CancellationToken;

    use super::{AdminState, Limits, protect, router};
    use crate::auth::{Auth, OperatorToken};
    use crate::serve::ServeLimits;

    /// A running test endpoint.
    pub struct TestAdmin {
        /// Where it listens.
        pub addr: SocketAddr,
        /// The operator's token.
        pub operator: String,
        /// Its principals.
        pub auth: Arc<Auth>,
        /// Cancel to stop it.
        pub shutdown: CancellationToken,
        /// Its task.
        pub server: tokio::task::JoinHandle<()>,
    }

    impl TestAdmin {
        /// A client presenting `token`.
        pub fn client(&self, token: &str) -> reqwest::Client {
            crate::auth::http_client(Some(token))
        }

        /// A URL of the endpoint.
        pub fn url(&self, path: &str) -> String {
            format!("http://{}{path}", self.addr)
        }

        /// Stops it.
        pub async fn stop(self) {
            self.shutdown.cancel();
            let _ = self.server.await;
        }
    }

    /// Starts one on `runtime`, with the routes `extra` makes and `limits`.
    pub async fn spawn_with(
        runtime: &Runtime,
        extra: impl FnOnce(&AdminState) -> Router,
        limits: Limits,
        serve: ServeLimits,
    ) -> TestAdmin {
        let listener = crate::serve::bind("127.0.0.1:0".parse().unwrap(), "test")
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let operator = crate::auth::new_token();
        let token = OperatorToken::resolve(Some(&operator), std::path::Path::new(".")).unwrap();
        let auth = Arc::new(Auth::open(&token, None, addr, &[]).unwrap());
        let state = AdminState {
            runtime: runtime.clone(),
            auth: auth.clone(),
            limits,
        };
        let routes = router(state.clone()).merge(extra(&state));
        let shutdown = CancellationToken::new();
        let server = crate::serve::serve_on(
            listener,
            protect(routes, auth.clone()),
            serve,
            shutdown.clone(),
        );
        TestAdmin {
            addr,
            operator,
            auth,
            shutdown,
            server,
        }
    }

    /// Starts one on `runtime` with the routes `extra` makes and the default bounds.
    pub async fn spawn(runtime: &Runtime, extra: impl FnOnce(&AdminState) -> Router) -> TestAdmin {
        spawn_with(runtime, extra, Limits::default(), ServeLimits::default()).await
    }
}
