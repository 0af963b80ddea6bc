//! The console's HTTP surface: what every page shares.
//!
//! - [`Web`]: the handlers' state (the read model, the runtime to send commands with, the gate
//!   for actions, the live limits).
//! - [`page`]: one handler shape for every page. The same path answers a browser with the HTML
//!   page (its first frame embedded, so it draws without another request), `Accept:
//!   application/json` with the frame as JSON, and `Accept: text/event-stream` (what
//!   `EventSource` sends) with the live stream of frames ([`crate::live::stream`]).
//! - [`actions`]: the operator's gate (token, `Host`, `Origin`: the runtime's guard) and
//!   sending a command.
//! - [`layout`]: the HTML shell (viewport, navigation, the login form, the shared CSS and JS),
//!   served with a `Content-Security-Policy` naming its one inline script by hash.
//! - The web layer knows no game: the games hand it their routes and navigation entries when
//!   the console starts ([`crate::router`]).
//! - `GET /console/console.css`, `GET /console/console.js`: the shared assets, served by the
//!   console itself (no CDN: the machine may be offline).
//! - Every request's path is known to [`page`] (a task-local set by a layer), so the live
//!   clients of one path (and audience) share its feed ([`crate::live::stream_shared`]).

pub mod actions;
pub mod layout;

use std::sync::Arc;

use arcade_runtime::Runtime;
use arcade_runtime::guard::PerClientRate;
use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::live::{self, Live, LiveLimits, View};
use crate::projection::Projections;

use self::actions::Refusal;
pub use actions::{Gate, Tokens};

/// What the handlers share.
#[derive(Clone)]
pub struct Web {
    /// The read model.
    pub live: Live,
    /// Where players' requests go (Strata Relay played on the console).
    pub desk: crate::desk::Desk,
    /// The process's runtime: commands are sent with it; its clock and shutdown signal.
    pub runtime: Runtime,
    /// Who may act.
    pub gate: Arc<Gate>,
    /// What a live client may cost.
    pub limits: LiveLimits,
    /// What a visitor without a token may create (a new board), per client address.
    pub creations: Arc<PerClientRate>,
    /// The navigation, as the games registered it at start: label and path.
    pub nav: Arc<[NavEntry]>,
}

/// An entry of the navigation: label and path.
pub type NavEntry = (&'static str, &'static str);

/// A page's script: its parts, run in order as one inline script.
pub type Script = &'static [&'static str];

impl std::fmt::Debug for Web {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Web").finish_non_exhaustive()
    }
}

impl Web {
    /// Now, on the runtime's clock.
    pub fn now_ms(&self) -> u64 {
        self.runtime.clock().now_ms()
    }
}

/// Every route of the console: the shared ones and the games' (`games`, their pages and
/// actions, handed over at start).
pub fn router(web: Web, games: Router<Web>) -> Router {
    Router::new()
        .route("/console/console.css", get(css))
        .route("/console/console.js", get(js))
        .route("/console/login", post(actions::login))
        .merge(games)
        .with_state(web)
        .layer(axum::middleware::from_fn(remember_path))
}

tokio::task_local! {
    /// The path (and query) of the request being handled.
    static PATH: String;
}

/// Runs the handler with its request's path at hand (for [`page`]'s shared renders).
async fn remember_path(request: Request, next: Next) -> Response {
    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    PATH.scope(path, next.run(request)).await
}

const CSS: &str = include_str!("web/assets/console.css");
const JS: &str = include_str!("web/assets/console.js");

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            ),
        ],
        body,
    )
        .into_response()
}

async fn css() -> Response {
    asset("text/css; charset=utf-8", CSS)
}

async fn js() -> Response {
    asset("text/javascript; charset=utf-8", JS)
}

/// What a page is: its title, its view, and the script that draws a frame.
pub struct Page {
    /// The title (also the heading).
    pub title: String,
    /// The view.
    pub view: View,
    /// The page's script: defines `render(frame)`, called with the first frame and each update.
    pub script: Script,
    /// The `class` of `<body>` (`scoreboard` for the full-screen view).
    pub body_class: &'static str,
    /// Who the view is for, when it depends on more than the path (the operator's view of the
    /// race shows what the public's does not): live clients share a page's feed only with
    /// clients of the same path and audience.
    pub audience: &'static str,
}

impl Page {
    /// A page titled `title`, drawn by `script` in a `<body>` of class `body_class`, showing
    /// `view`.
    pub fn new(
        title: impl Into<String>,
        script: Script,
        body_class: &'static str,
        view: impl Fn(&Projections) -> Option<Value> + Send + Sync + 'static,
    ) -> Self {
        Page {
            title: title.into(),
            view: Arc::new(view),
            script,
            body_class,
            audience: "",
        }
    }

    /// The page as seen by `audience` ([`Page::audience`]).
    pub fn seen_by(mut self, audience: &'static str) -> Self {
        self.audience = audience;
        self
    }

    /// Serves the page ([`page`]).
    pub async fn serve(self, web: &Web, headers: &HeaderMap) -> Response {
        page(web, headers, self).await
    }
}

/// `GET` a page about what its path names: `make` builds it from the path's parameters, or
/// refuses them (a 404 naming what is wrong).
pub fn page_of<T>(make: fn(T) -> Result<Page, Refusal>) -> MethodRouter<Web>
where
    T: DeserializeOwned + Send + 'static,
{
    get(
        move |State(web): State<Web>, Path(params): Path<T>, headers: HeaderMap| async move {
            let page = make(params)?;
            Ok::<_, Refusal>(page.serve(&web, &headers).await)
        },
    )
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("title", &self.title)
            .finish_non_exhaustive()
    }
}

/// Which form of a page the client asked for.
enum Wants {
    Html,
    Json,
    Events,
}

fn wants(headers: &HeaderMap) -> Wants {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if accept.contains("text/event-stream") {
        Wants::Events
    } else if accept.contains("application/json") && !accept.contains("text/html") {
        Wants::Json
    } else {
        Wants::Html
    }
}

/// Whether the client asked for the HTML page (not the JSON frame, nor the live stream).
pub fn wants_html(headers: &HeaderMap) -> bool {
    matches!(wants(headers), Wants::Html)
}

/// Serves a page in the form the client asked for; 404 (in that form) when its view is `None`.
/// A request that comes while the console is still rebuilding its state at start waits for it.
pub async fn page(web: &Web, headers: &HeaderMap, page: Page) -> Response {
    web.live.resumed().await;
    match wants(headers) {
        Wants::Events => {
            let runtime = web.runtime.clone();
            // A path's view is the same for every client of it with the same audience: they
            // share its feed.
            let key = PATH
                .try_with(Clone::clone)
                .ok()
                .map(|path| match page.audience {
                    "" => path,
                    audience => format!("{path} {audience}"),
                });
            live::stream_shared(
                web.live.clone(),
                key,
                page.view,
                move || runtime.clock().now_ms(),
                web.limits,
                web.runtime.stopping(),
            )
        }
        form => {
            let view = web.live.read(|p: &Projections| (page.view)(p));
            let found = view.is_some();
            let frame = live::frame(&view.unwrap_or(Value::Null), web.now_ms());
            let status = if found {
                StatusCode::OK
            } else {
                StatusCode::NOT_FOUND
            };
            match form {
                Wants::Json => (status, axum::Json(frame)).into_response(),
                _ => {
                    let script = layout::inline_script(page.script);
                    let policy = arcade_runtime::guard::page_csp(&[&script], false);
                    (
                        status,
                        [
                            (header::CONTENT_TYPE, "text/html; charset=utf-8".to_string()),
                            (header::CONTENT_SECURITY_POLICY, policy),
                        ],
                        layout::shell(&page.title, page.body_class, &frame, &script, &web.nav),
                    )
                        .into_response()
                }
            }
        }
    }
}
