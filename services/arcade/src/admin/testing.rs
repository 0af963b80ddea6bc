//! An admin endpoint for tests: on a free loopback port, with a fresh operator token and the
//! routes `extra` adds, behind the same checks and bounds as `arcade run`'s.

use std::net::SocketAddr;
use std::sync::Arc;

use arcade_runtime::Runtime;
use arcade_runtime::guard::{ClientLimits, Clients};
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

/// Starts one on `runtime`, with the routes `extra` makes, `limits`, and its clients bounded by
/// `clients`.
pub async fn spawn_with(
    runtime: &Runtime,
    extra: impl FnOnce(&AdminState) -> Router,
    limits: Limits,
    serve: ServeLimits,
    clients: Arc<Clients>,
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
        clients,
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
    let clients = Clients::new(ClientLimits::default());
    spawn_with(
        runtime,
        extra,
        Limits::default(),
        ServeLimits::default(),
        clients,
    )
    .await
}
