//! Organiser actions: who may act, and sending the command.
//!
//! A page cannot send a header when it is opened, so viewing needs no token; an action is a
//! `POST` from the page's script with `Authorization: Bearer <token>`. The browser gets the
//! token from the operator once, through the login form of every page, and keeps it in
//! `sessionStorage` (this tab only, gone when it closes; never in a URL, a cookie or a log).
//! `POST /console/login` only checks it. Like the admin endpoint, an action must name this
//! console in `Host` (its bound address, `localhost`, or a name added with `--console-host`)
//! and, if it has an `Origin`, be of the same: a page of another site, or a rebound DNS name,
//! gets 403 before the token is looked at.

use std::net::SocketAddr;
use std::sync::Arc;

use arcade_runtime::guard::{Hosts, bearer};
use arcade_runtime::{SendError, SendOptions};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, post};
use serde_json::{Map, Value, json};

use super::Web;

/// The principals this console may act for: which one a bearer token names (the admin
/// endpoint's principals, `operator` for the operator's token).
pub trait Tokens: Send + Sync {
    /// The principal `token` names, if any.
    fn principal(&self, token: &str) -> Option<String>;
}

/// The operator's principal name.
pub const OPERATOR: &str = arcade_contracts::principal::OPERATOR;

/// Who may act on this console.
pub struct Gate {
    tokens: Arc<dyn Tokens>,
    hosts: Hosts,
    /// Where the operator finds the token (for a 401's message; never the token).
    token_source: String,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("hosts", &self.hosts)
            .finish_non_exhaustive()
    }
}

/// A refused request: its status and a message saying why (`{"error": …}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The status.
    pub status: StatusCode,
    /// Why, naming what is wrong and where.
    pub message: String,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.status, axum::Json(json!({ "error": self.message }))).into_response()
    }
}

/// Removes the optional `fields` of an action's body that are null or blank, so that they
/// go out absent rather than empty.
pub fn drop_blank(body: &mut Map<String, Value>, fields: &[&str]) {
    for field in fields {
        if body
            .get(*field)
            .is_some_and(|v| v.is_null() || v.as_str().is_some_and(|s| s.trim().is_empty()))
        {
            body.remove(*field);
        }
    }
}

/// What kind of JSON value `value` is, for a message (`a string`, `an array`…).
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The JSON object of an action's body; the refusal (400) names what is wrong and where.
pub fn body_object(body: &Bytes) -> Result<Map<String, Value>, Refusal> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "the request body must be a JSON object, not {}",
                kind_of(&other)
            ),
        )),
        Err(e) => Err(refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "the request body is not JSON: {e} (line {}, column {})",
                e.line(),
                e.column()
            ),
        )),
    }
}

/// As [`body_object`], but an empty (or blank) body is an empty object: an action whose
/// fields are all optional may be posted bare.
pub fn body_object_or_empty(body: &Bytes) -> Result<Map<String, Value>, Refusal> {
    if body.iter().all(u8::is_ascii_whitespace) {
        Ok(Map::new())
    } else {
        body_object(body)
    }
}

/// What an organiser's action sends: its payload and what the 202 answers besides the message
/// id; or why not.
pub type Command = Result<(Map<String, Value>, Value), Refusal>;

/// `POST` an organiser's action on the one thing its path names: the operator's token, the
/// path's id (`check`: 404 with its error), the body's JSON object (empty when blank); then
/// `build` makes the `message_type` command of the id and the body, and it is sent.
pub fn organiser_action<B>(
    check: fn(&str) -> Result<(), String>,
    message_type: &'static str,
    build: B,
) -> MethodRouter<Web>
where
    B: Fn(String, Map<String, Value>) -> Command + Clone + Send + Sync + 'static,
{
    post(
        move |State(web): State<Web>, Path(id): Path<String>, headers: HeaderMap, body: Bytes| async move {
            let principal = web.gate.operator(&headers)?;
            check(&id).map_err(|why| refuse(StatusCode::NOT_FOUND, why))?;
            let (payload, answer) = build(id, body_object_or_empty(&body)?)?;
            let payload = Value::Object(payload);
            Ok::<_, Refusal>(send(&web, principal, message_type, payload, answer).await)
        },
    )
}

/// A refusal.
pub fn refuse(status: StatusCode, message: impl Into<String>) -> Refusal {
    Refusal {
        status,
        message: message.into(),
    }
}

/// A refused request as a response.
pub fn error(status: StatusCode, message: impl Into<String>) -> Response {
    refuse(status, message).into_response()
}

impl Gate {
    /// A gate for a console bound to `bound`, also answering to `hosts` (names, or
    /// `name:port`).
    pub fn new(
        tokens: Arc<dyn Tokens>,
        bound: SocketAddr,
        hosts: &[String],
        token_source: impl Into<String>,
    ) -> Self {
        Gate {
            tokens,
            hosts: Hosts::new(bound, hosts, "this console", "--console-host"),
            token_source: token_source.into(),
        }
    }

    /// The principal of an action's request when it is the operator's; else the response that
    /// refuses it (403 for a foreign `Host` or `Origin`, 401 without a known token, 403 for a
    /// principal that is not the operator).
    pub fn operator(&self, headers: &HeaderMap) -> Result<String, Refusal> {
        match self.principal(headers, "the operator's token")? {
            principal if principal == OPERATOR => Ok(principal),
            principal => Err(refuse(
                StatusCode::FORBIDDEN,
                format!(
                    "{principal} may not act here: organiser actions need the operator's token"
                ),
            )),
        }
    }

    /// The principal of an action's request when it is the operator's or `owner`'s (a
    /// player's own card, a team's own page); else the refusal, as [`Gate::operator`]'s.
    pub fn operator_or(&self, headers: &HeaderMap, owner: &str) -> Result<String, Refusal> {
        let wanted = format!("the operator's token or {owner}'s");
        match self.principal(headers, &wanted)? {
            principal if principal == OPERATOR || principal == owner => Ok(principal),
            principal => Err(refuse(
                StatusCode::FORBIDDEN,
                format!("{principal} may not act here: this needs {wanted}"),
            )),
        }
    }

    /// Whether a request comes from this console's own pages: its `Host` names this console
    /// and its `Origin`, if any, is the same (403 otherwise). What a public request (a player's
    /// pulse) needs, and every action before its token is looked at.
    pub fn same_site(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        match self.hosts.foreign(headers) {
            Some(why) => Err(refuse(StatusCode::FORBIDDEN, why)),
            None => Ok(()),
        }
    }

    /// The principal a request's bearer token names, whoever it is, once its `Host` and
    /// `Origin` are this console's; `wanted` says whose token the action takes (for a 401).
    pub fn principal(&self, headers: &HeaderMap, wanted: &str) -> Result<String, Refusal> {
        self.same_site(headers)?;
        let Some(token) = bearer(headers) else {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                format!(
                    "no token: log in with {wanted} (the operator's is in {})",
                    self.token_source
                ),
            ));
        };
        self.tokens.principal(token).ok_or_else(|| {
            refuse(
                StatusCode::UNAUTHORIZED,
                format!(
                    "unknown token: this needs {wanted} (the operator's is in {})",
                    self.token_source
                ),
            )
        })
    }
}

/// `POST /console/login`: 204 when the bearer token is the operator's (the page then keeps
/// it), else why not.
pub async fn login(State(web): State<Web>, headers: HeaderMap) -> Response {
    match web.gate.operator(&headers) {
        Ok(_) => StatusCode::NO_CONTENT.into_response(),
        Err(refused) => refused.into_response(),
    }
}

/// Sends a command for `principal`, from the console; 202 with `answer` and the message id, or
/// the error: 400 naming each field the schema refuses (its JSON pointer), 404 when nobody
/// consumes it (the service is not running), 503 when the bus did not take it.
pub async fn send(
    web: &Web,
    principal: String,
    message_type: &str,
    payload: Value,
    mut answer: Value,
) -> Response {
    let options = SendOptions {
        message_id: None,
        sender: Some(principal),
        traceparent: None,
    };
    match web
        .runtime
        .send_with(message_type, payload, crate::SERVICE_NAME, options)
        .await
    {
        Ok(envelope) => {
            if let Some(object) = answer.as_object_mut() {
                object.insert("messageId".into(), Value::String(envelope.message_id));
            }
            (StatusCode::ACCEPTED, axum::Json(answer)).into_response()
        }
        Err(SendError::Invalid(e)) => error(StatusCode::BAD_REQUEST, e.to_string()),
        Err(e @ SendError::Unroutable { .. }) => error(StatusCode::BAD_REQUEST, e.to_string()),
        Err(e @ SendError::NotConsumed { .. }) => error(StatusCode::NOT_FOUND, e.to_string()),
        Err(e @ SendError::Bus(_)) => error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    }
}
