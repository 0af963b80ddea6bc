//! One client cannot lock the others out (the guard's per-address bounds), on the admin
//! endpoint and on the console: idle connections and live pages from one address, a flood of
//! new boards, `X-Forwarded-For` from a peer that is not a trusted proxy; and the security
//! headers and the payload limit. Distinct clients are distinct loopback addresses.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arcade_runtime::guard::{ClientLimits, Clients};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::admin::Limits;
use crate::admin::testing::spawn_with;
use crate::auth::{Auth, OperatorToken};
use crate::serve::ServeLimits;

/// `wanted` connections, or as many as the open-file limit leaves room for (the test holds
/// both ends of what it keeps open), saying so.
fn within_fd_limit(wanted: usize) -> usize {
    let limit = std::process::Command::new("sh")
        .args(["-c", "ulimit -n"])
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse::<usize>().ok())
        .unwrap_or(usize::MAX);
    let room = limit.saturating_sub(512);
    if room < wanted {
        eprintln!("open-file limit {limit}: {room} connections instead of {wanted}");
    }
    wanted.min(room)
}

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// A connection to `addr` from `from`.
async fn connect_from(from: &str, addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(ip(from), 0)).unwrap();
    socket.connect(addr).await.unwrap()
}

/// Sends `request` and reads until the end of the answer's headers (or the connection's end).
async fn head(stream: &mut TcpStream, request: &str) -> String {
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    let _ = tokio::time::timeout(Duration::from_secs(30), async {
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// A client whose requests come from `from`.
fn client_from(from: &str, token: Option<&str>) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(token) = token {
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
    }
    reqwest::Client::builder()
        .local_address(ip(from))
        .default_headers(headers)
        .build()
        .unwrap()
}

/// How long `request` takes to be answered, and its status; within 30 s or the test fails.
async fn timed(request: reqwest::RequestBuilder) -> (Duration, reqwest::Response) {
    let start = Instant::now();
    let response = tokio::time::timeout(Duration::from_secs(30), request.send())
        .await
        .expect("answered")
        .unwrap();
    (start.elapsed(), response)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_of_one_address_leave_another_served_and_over_limit_gets_429() {
    const IDLE: usize = 3_000;
    let w = world().await;
    let endpoint = spawn_with(
        &w.runtime,
        |_| axum::Router::new(),
        Limits::default(),
        ServeLimits::default(),
        Clients::new(ClientLimits::default()),
    )
    .await;
    let mut idle = Vec::new();
    for _ in 0..within_fd_limit(IDLE) {
        idle.push(connect_from("127.0.0.2", endpoint.addr).await);
    }
    // One more from the flooding address is told why and when to come back (once the
    // refusals in hand are done: beyond a few at a time, one is closed unanswered).
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let mut over = connect_from("127.0.0.2", endpoint.addr).await;
            let answer = head(&mut over, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n").await;
            if !answer.is_empty() {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("an over-limit connection is answered");
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    assert!(answer.contains("Retry-After: 5"), "{answer}");
    // Another address is served at once.
    let other = client_from("127.0.0.3", Some(&endpoint.operator));
    for _ in 0..5 {
        let (took, response) = timed(other.get(endpoint.url("/counters"))).await;
        assert_eq!(response.status(), 200);
        assert!(took < Duration::from_secs(1), "served in {took:?}");
    }
    drop(idle);
    endpoint.stop().await;
}

/// The console of `runtime`'s hosted console, served behind the guard of `limits`.
async fn console(
    runtime: &arcade_runtime::Runtime,
    limits: ClientLimits,
) -> (SocketAddr, CancellationToken) {
    let mut hosted = crate::hosted::Hosted::default();
    let running = crate::hosted::console::start(runtime, &mut hosted).unwrap();
    std::mem::forget(running); // the service runs until the runtime's bus is dropped
    let listener = crate::serve::bind("127.0.0.1:0".parse().unwrap(), "test")
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let token = OperatorToken::resolve(Some("op"), std::path::Path::new(".")).unwrap();
    let auth = Arc::new(Auth::open(&token, None, addr, &[]).unwrap());
    let args = crate::hosted::console::ConsoleArgs::default();
    let router =
        crate::hosted::console::router(runtime, hosted.console.unwrap(), auth, "test", addr, &args);
    let shutdown = CancellationToken::new();
    crate::serve::serve_on(
        listener,
        router,
        ServeLimits::default(),
        Clients::new(limits),
        shutdown.clone(),
    );
    (addr, shutdown)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_pages_and_idle_connections_of_one_address_leave_another_served() {
    const LIVE: usize = 1_100;
    let w = world().await;
    let (addr, shutdown) = console(&w.runtime, ClientLimits::default()).await;
    let request = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    let (mut open, mut refused) = (Vec::new(), 0);
    for _ in 0..LIVE {
        let mut stream = connect_from("127.0.0.2", addr).await;
        let answer = head(&mut stream, &request).await;
        if answer.starts_with("HTTP/1.1 200") {
            open.push(stream);
        } else {
            assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
            assert!(
                answer.to_ascii_lowercase().contains("retry-after: "),
                "{answer}"
            );
            refused += 1;
        }
    }
    assert_eq!(
        open.len(),
        ClientLimits::default().live,
        "live pages kept per address"
    );
    assert_eq!(refused, LIVE - open.len());
    // And idle connections on top.
    let mut idle = Vec::new();
    for _ in 0..within_fd_limit(3_000) {
        idle.push(connect_from("127.0.0.2", addr).await);
    }
    // Another address gets its page, and a live page of its own, at once.
    let other = client_from("127.0.0.3", None);
    let (took, response) = timed(other.get(format!("http://{addr}/"))).await;
    assert_eq!(response.status(), 200);
    assert!(took < Duration::from_secs(1), "served in {took:?}");
    let mut live = connect_from("127.0.0.3", addr).await;
    assert!(head(&mut live, &request).await.starts_with("HTTP/1.1 200"));
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_new_boards_evicts_no_game_of_another_address() {
    const FLOOD: usize = 1_100;
    let w = world().await;
    let (addr, shutdown) = console(&w.runtime, ClientLimits::default()).await;
    let url = |path: &str| format!("http://{addr}{path}");
    let player = client_from("127.0.0.3", None);
    let started: Value = player
        .post(url("/puzzle/play"))
        .json(&json!({"stage": 1, "seed": 7}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let path = started["path"].as_str().unwrap().to_string();
    let flooder = client_from("127.0.0.2", None);
    let (mut created, mut limited) = (0, 0);
    let flood = Instant::now();
    for _ in 0..FLOOD {
        let response = flooder
            .post(url("/puzzle/play"))
            .json(&json!({"stage": 1}))
            .send()
            .await
            .unwrap();
        match response.status().as_u16() {
            201 => created += 1,
            429 => {
                assert!(response.headers().contains_key("retry-after"));
                limited += 1;
            }
            other => panic!("a new board answered {other}"),
        }
    }
    // A minute's worth at once, then one every two seconds the flood lasted.
    let per_minute = crate::hosted::console::ConsoleArgs::default().new_games as usize;
    let refilled = flood.elapsed().as_secs() as usize * per_minute / 60 + 1;
    assert!(
        created >= per_minute && created <= per_minute + refilled,
        "{created} new boards"
    );
    assert_eq!(limited, FLOOD - created);
    // The player's game is still there: its next pulse is answered.
    let board: Value = player
        .get(url(&path))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let cell = board["view"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["stone"] == false && c["anchor"].is_null())
        .unwrap()
        .clone();
    let pulse = player
        .post(url(&format!("{path}/pulses")))
        .json(&json!({"x": cell["x"], "y": cell["y"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(pulse.status(), 200, "{:?}", pulse.text().await);
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_for_counts_only_from_a_trusted_proxy() {
    let w = world().await;
    let limits = ClientLimits {
        rate: 0.001,
        burst: 2.0,
        trusted_proxies: vec![ip("127.0.0.4")],
        ..ClientLimits::default()
    };
    let (addr, shutdown) = console(&w.runtime, limits).await;
    let url = format!("http://{addr}/console/console.css");
    let status = |client: reqwest::Client, forwarded: &'static str| {
        let url = url.clone();
        async move {
            let response = client
                .get(url)
                .header("x-forwarded-for", forwarded)
                .send()
                .await
                .unwrap();
            response.status().as_u16()
        }
    };
    // From an untrusted peer the header is ignored: its third request is over its rate.
    let untrusted = client_from("127.0.0.2", None);
    let statuses = [
        status(untrusted.clone(), "198.51.100.1").await,
        status(untrusted.clone(), "198.51.100.2").await,
        status(untrusted.clone(), "198.51.100.3").await,
    ];
    assert_eq!(statuses, [200, 200, 429]);
    // From the trusted proxy each client named is counted apart…
    let proxy = client_from("127.0.0.4", None);
    for n in 1..=3 {
        let forwarded = ["198.51.100.1", "198.51.100.2", "198.51.100.3"][n - 1];
        assert_eq!(status(proxy.clone(), forwarded).await, 200);
    }
    // …and one client named again is over its own rate.
    assert_eq!(status(proxy.clone(), "198.51.100.1").await, 200);
    assert_eq!(status(proxy.clone(), "198.51.100.1").await, 429);
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_carries_the_security_headers_and_big_payloads_get_413() {
    let w = world().await;
    let (console_addr, shutdown) = console(&w.runtime, ClientLimits::default()).await;
    let client = client_from("127.0.0.2", None);
    for path in ["/", "/console/console.js", "/puzzle/play/nothing-here"] {
        let response = client
            .get(format!("http://{console_addr}{path}"))
            .send()
            .await
            .unwrap();
        let headers = response.headers();
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
    }
    let page = client
        .get(format!("http://{console_addr}/"))
        .send()
        .await
        .unwrap();
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains("script-src 'self' 'sha256-"), "{csp}");
    shutdown.cancel();

    let endpoint = &w.endpoint;
    let op = endpoint.client(&endpoint.operator);
    for response in [
        op.get(endpoint.url("/counters")).send().await.unwrap(),
        reqwest::get(endpoint.url("/health")).await.unwrap(),
    ] {
        assert_eq!(response.headers()["x-frame-options"], "DENY");
        assert_eq!(response.headers()["x-content-type-options"], "nosniff");
        assert!(response.headers().contains_key("content-security-policy"));
    }
    // A payload every consumer would dead-letter is refused at the door.
    let limit = arcade_runtime::inbound::MAX_PAYLOAD_BYTES;
    let big = json!({ "filler": "x".repeat(limit) });
    let response = op
        .post(endpoint.url("/messages/race.start.v1"))
        .json(&big)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
}
