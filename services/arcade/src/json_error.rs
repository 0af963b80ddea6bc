//! The admin endpoint's answer to a request it refuses or fails: `{"error": message}` with a
//! status, the same for the endpoint's routes, its authentication and the services' routes.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// A JSON error answer: `{"error": message}`.
pub fn error(status: StatusCode, message: String) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}
