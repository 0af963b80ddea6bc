//! `GET /`: the sections of the console (each registered game with a navigation entry), the
//! services the console heard from (events, last event, how long ago), and the readiness of
//! the services this process hosts (`/ready`'s checks: replayed, consuming, relay backlog).

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};

use super::projection::Services;
use crate::web::{Page, Script, Web};

const SCRIPT: Script = &[include_str!("home.js")];

/// The home routes.
pub fn routes() -> Router<Web> {
    Router::new().route("/", get(home))
}

/// The sections to link to: the navigation the games registered.
pub fn sections(nav: &[(&str, &str)]) -> Value {
    nav.iter()
        .map(|(label, path)| json!({ "label": label, "path": path }))
        .collect()
}

async fn home(State(web): State<Web>, headers: HeaderMap) -> Response {
    let runtime = web.runtime.clone();
    let sections = sections(&web.nav);
    let page = Page::new("Arcade", SCRIPT, "home", move |p| {
        let services = p.get::<Services>()?;
        let process = arcade_runtime::health::readiness(
            &runtime,
            arcade_runtime::health::DEFAULT_MAX_BACKLOG,
        );
        Some(json!({
            "sections": sections,
            "services": services.all().collect::<Vec<_>>(),
            "events": p.events(),
            "process": process,
        }))
    });
    page.serve(&web, &headers).await
}
