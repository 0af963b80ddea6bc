//! The admin endpoint's middleware: which requests need no token, where each principal may
//! go, and the check of `Host`/`Origin` and the bearer token.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use super::{Auth, Principal, Refusals};
use crate::json_error::error;

/// Whether a request needs no token: the probes and the puzzle's static page.
fn public(method: &Method, path: &str) -> bool {
    method == Method::GET && matches!(path, "/health" | "/ready")
}

/// Whether a non-operator principal may reach `path` at all (the handlers check the rest).
fn principal_route(principal: &Principal, method: &Method, path: &str) -> bool {
    match principal {
        Principal::Operator => true,
        Principal::Team(team) => {
            (method == Method::POST && path.starts_with("/messages/"))
                || (method == Method::GET && path == format!("/race/teams/{team}/stream"))
        }
        Principal::Player(_) => method == Method::POST && path.starts_with("/messages/"),
    }
}

/// The middleware: checks `Host`/`Origin` and the bearer token, and hands the handlers the
/// [`Principal`] as an extension.
pub async fn authenticate(
    State(auth): State<Arc<Auth>>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_string();
    if public(request.method(), &path) {
        return next.run(request).await;
    }
    if let Some(why) = auth.hosts().foreign(request.headers()) {
        Refusals::count(&auth.refused.foreign_origin);
        tracing::warn!(%path, reason = %why, "admin request refused");
        return error(StatusCode::FORBIDDEN, why);
    }
    let query_token = (request.method() == Method::GET && path == "/puzzle")
        .then(|| {
            request.uri().query().and_then(|q| {
                q.split('&')
                    .find_map(|pair| pair.strip_prefix("token="))
                    .map(str::to_string)
            })
        })
        .flatten();
    let token = arcade_runtime::guard::bearer(request.headers())
        .map(str::to_string)
        .or(query_token);
    let Some(token) = token else {
        return auth.unauthenticated("no bearer token");
    };
    let Some(principal) = auth.principal(&token) else {
        return auth.unauthenticated("unknown bearer token");
    };
    if !principal_route(&principal, request.method(), &path) {
        Refusals::count(&auth.refused.forbidden);
        tracing::warn!(principal = %principal.name(), %path, "admin request refused: not allowed");
        return error(
            StatusCode::FORBIDDEN,
            format!("{} may not {} {path}", principal.name(), request.method()),
        );
    }
    request.extensions_mut().insert(principal);
    next.run(request).await
}
