//! A cross-origin or rebound-DNS request, a request with no token, a resend counted twice,
//! idle connections holding the endpoint.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::race::CarRegister;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;
use crate::admin::Limits;
use crate::admin::testing::spawn_with;
use crate::serve::ServeLimits;
use arcade_runtime::guard::{ClientLimits, Clients};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_origin_foreign_host_and_tokenless_requests_are_refused() {
    let w = world().await;
    let addr = w.endpoint.addr;
    let op = &w.endpoint.operator;
    let body = r#"{"turns":1}"#;
    // A page of another site posting text/plain (no preflight), through a rebound DNS name.
    let forged = raw(
        addr,
        &raw_start(
            "Host: evil.example\r\nOrigin: http://evil.example\r\n",
            "text/plain",
            body,
        ),
    )
    .await;
    assert!(forged.starts_with("HTTP/1.1 403"), "{forged}");
    // Even with the token, a foreign Host or Origin is refused.
    for (host, origin) in [
        ("evil.example", None),
        (&*addr.to_string(), Some("http://evil.example")),
    ] {
        let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        let headers = format!("Host: {host}\r\n{origin}Authorization: Bearer {op}\r\n");
        let answer = raw(addr, &raw_start(&headers, "application/json", body)).await;
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    }
    // No token: 401 naming where the operator's is.
    let answer = raw(
        addr,
        &format!("GET /counters HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(answer.contains("ARCADE_ADMIN_TOKEN"), "{answer}");
    assert!(!answer.contains(op.as_str()), "the 401 shows no token");
    assert_eq!(
        w.endpoint
            .auth
            .refused
            .foreign_origin
            .load(Ordering::Relaxed),
        3
    );
    // The probes need nothing.
    let health = raw(
        addr,
        "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(!health.starts_with("HTTP/1.1 401") && !health.starts_with("HTTP/1.1 403"));
    w.endpoint.stop().await;
    w.master.stop_boxed(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_idempotency_key_is_applied_once() {
    let w = world().await;
    let operator = w.endpoint.client(&w.endpoint.operator);
    let mut facts = w.facts("tap.idem", "race.#").await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let response = operator
            .post(w.endpoint.url(&format!("/messages/{}", CarRegister::TYPE)))
            .header("Idempotency-Key", "register-red-1")
            .json(&register("red", "red-1"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 202);
        let envelope: Value = response.json().await.unwrap();
        ids.push(envelope["message_id"].as_str().unwrap().to_string());
    }
    assert!(ids.iter().all(|id| id == "register-red-1"), "{ids:?}");
    // A marker after them: everything before it has been handled once it is.
    operator
        .post(w.endpoint.url(&format!("/messages/{}", CarRegister::TYPE)))
        .json(&register("red", "red-2"))
        .send()
        .await
        .unwrap();
    let (mut registered, mut rejected) = (0, 0);
    tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let delivery = facts.next().await.unwrap();
            let kind = delivery.message.message_type.clone().unwrap_or_default();
            let payload: Value = serde_json::from_slice(&delivery.message.body).unwrap();
            delivery.ack().await.unwrap();
            match kind.as_str() {
                "race.car.registered.v1" if payload["car"] == "red-2" => return,
                "race.car.registered.v1" => registered += 1,
                "race.registration.rejected.v1" => rejected += 1,
                _ => {}
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(
        (registered, rejected),
        (1, 0),
        "applied once, not refused as a repeat"
    );
    w.endpoint.stop().await;
    w.master.stop_boxed(Duration::from_secs(5)).await.unwrap();
}

/// Idle connections (a slowloris, a client that connects and says nothing) are closed by the
/// idle timeout while good requests keep being served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_while_good_requests_are_served() {
    const IDLE: usize = 3_000;
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus, dir.path());
    let endpoint = spawn_with(
        &runtime,
        |_| axum::Router::new(),
        Limits::default(),
        ServeLimits {
            max_connections: IDLE + 100,
            header_timeout: Duration::from_secs(2),
            idle_timeout: Duration::from_secs(2),
            write_stall: Duration::from_secs(2),
        },
        // One address holds them all here: what is tested is the timeouts, not the cap per
        // address (`clients.rs`).
        Clients::new(ClientLimits {
            connections: IDLE + 100,
            ..ClientLimits::default()
        }),
    )
    .await;
    let mut idle = Vec::with_capacity(IDLE);
    for n in 0..IDLE {
        let mut stream = tokio::net::TcpStream::connect(endpoint.addr).await.unwrap();
        if n % 2 == 0 {
            // Half send the start of a request and never finish it.
            stream
                .write_all(b"GET /counters HTTP/1.1\r\nHost: x")
                .await
                .unwrap();
        }
        idle.push(stream);
    }
    let client = endpoint.client(&endpoint.operator);
    for _ in 0..20 {
        let response = tokio::time::timeout(
            Duration::from_secs(30),
            client.get(endpoint.url("/counters")).send(),
        )
        .await
        .expect("a good request is answered while idle connections are open")
        .unwrap();
        assert_eq!(response.status(), 200);
    }
    let closed = tokio::time::timeout(Duration::from_secs(120), async {
        let mut closed = 0;
        for stream in &mut idle {
            let mut buf = [0u8; 512];
            loop {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            closed += 1;
        }
        closed
    })
    .await
    .expect("every idle connection is closed by the timeouts");
    assert_eq!(closed, IDLE);
    endpoint.stop().await;
}
