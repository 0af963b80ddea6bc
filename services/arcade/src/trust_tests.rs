//! Attacks on the admin endpoint, each refused: a team acting for another (at the endpoint
//! and, past it, at the race master), a second reader of a team's stream, a junk team's
//! stream, a cross-origin or rebound-DNS request, a resend counted twice, idle connections
//! holding the endpoint. Each test would pass the attack on an endpoint without the checks.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::race::{CarRegister, Modules};
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{Runtime, SubscriptionSpec};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::admin::testing::{TestAdmin, spawn};

mod clients;
mod requests;
mod teams;

struct World {
    _dir: tempfile::TempDir,
    runtime: Runtime,
    endpoint: TestAdmin,
    master: Box<dyn arcade_runtime::Running>,
}

async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus, dir.path()).with_sender("operator");
    let master = Box::new(runtime.start(RaceService::new(5)).unwrap());
    let endpoint = spawn(&runtime, crate::hosted::race::routes).await;
    World {
        _dir: dir,
        runtime,
        endpoint,
        master,
    }
}

impl World {
    /// A temporary subscription `name` of the bus to the types matching `pattern`.
    async fn facts(&self, name: &str, pattern: &str) -> Box<dyn arcade_runtime::bus::Consumer> {
        self.runtime
            .bus()
            .subscribe(&SubscriptionSpec::temporary(name, vec![pattern.into()]))
            .await
            .unwrap()
    }
}

fn register(team: &str, car: &str) -> Value {
    serde_json::to_value(CarRegister {
        team: team.into(),
        car: car.into(),
        modules: Modules {
            pilots: 1,
            engines: 1,
            weapons: 1,
        },
    })
    .unwrap()
}

async fn status_of(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or_default();
    (status, body["error"].as_str().unwrap_or("").to_string())
}

/// The status and error of the answer to `payload` posted by `client` to `url`.
async fn post_status(client: &reqwest::Client, url: String, payload: &Value) -> (u16, String) {
    status_of(client.post(url).json(payload).send().await.unwrap()).await
}

/// A raw request to publish `race.start.v1` with `body`, its `headers` (each ending in CRLF)
/// before its content type.
fn raw_start(headers: &str, content_type: &str, body: &str) -> String {
    format!(
        "POST /messages/race.start.v1 HTTP/1.1\r\n{headers}Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Sends raw HTTP/1.1 `request` and returns the status line and the whole answer.
async fn raw(addr: std::net::SocketAddr, request: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}
