//! Attacks on the admin endpoint, each refused: a team acting for another (at the endpoint
//! and, past it, at the race master), a second reader of a team's stream, a junk team's
//! stream, a cross-origin or rebound-DNS request, a resend counted twice, idle connections
//! holding the endpoint. Each test would pass the attack on an endpoint without the checks.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::race::{CarRegister, DecisionMade, Modules};
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{Runtime, SendOptions, SubscriptionSpec};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::admin::Limits;
use crate::admin::testing::{TestAdmin, spawn, spawn_with};
use crate::auth::Principal;
use crate::serve::ServeLimits;

struct World {
    _dir: tempfile::TempDir,
    runtime: Runtime,
    endpoint: TestAdmin,
    master: Box<dyn arcade_runtime::Running>,
}

async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = Runtime::new(bus)
        .with_data_dir(dir.path())
        .with_sender("operator");
    let master = Box::new(runtime.start(RaceService::new(5)).unwrap());
    let endpoint = spawn(&runtime, crate::services::race::routes).await;
    World {
        _dir: dir,
        runtime,
        endpoint,
        master,
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

/// Sends raw HTTP/1.1 `request` and returns the status line and the whole answer.
async fn raw(addr: std::net::SocketAddr, request: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_can_neither_register_nor_answer_for_another() {
    let w = world().await;
    let red = w
        .endpoint
        .auth
        .issue(&Principal::Team("red".into()))
        .unwrap();
    w.endpoint
        .auth
        .issue(&Principal::Team("blue".into()))
        .unwrap();
    let client = w.endpoint.client(&red);
    let url = |t: &str| w.endpoint.url(&format!("/messages/{t}"));
    let (status, why) = status_of(
        client
            .post(url(CarRegister::TYPE))
            .json(&register("blue", "blue-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 403, "{why}");
    assert!(
        why.contains("race-team-red") && why.contains("blue"),
        "{why}"
    );
    let answer = json!({"requestId":"r","team":"blue","car":"blue-1","answer":{"kind":"dice","choice":"roll"}});
    let (status, _) = status_of(
        client
            .post(url(DecisionMade::TYPE))
            .json(&answer)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 403);
    // Nor start the race.
    let (status, _) = status_of(
        client
            .post(url("race.start.v1"))
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(w.endpoint.auth.refused.forbidden.load(Ordering::Relaxed), 3);
    // Its own registration goes through.
    let (status, why) = status_of(
        client
            .post(url(CarRegister::TYPE))
            .json(&register("red", "red-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 202, "{why}");

    // Past the endpoint (a broker user, a forged envelope): the master refuses a sender that is
    // neither the team nor an operator, and counts it as dead-lettered.
    let mut facts = w
        .runtime
        .bus()
        .subscribe(&SubscriptionSpec::temporary(
            "tap.trust",
            vec!["race.car.#".into()],
        ))
        .await
        .unwrap();
    w.runtime
        .send_with(
            CarRegister::TYPE,
            register("blue", "blue-9"),
            "forger",
            SendOptions {
                message_id: None,
                sender: Some("race-team-red".into()),
            },
        )
        .await
        .unwrap();
    w.runtime
        .send_with(
            CarRegister::TYPE,
            register("blue", "blue-2"),
            "car.blue",
            SendOptions {
                message_id: None,
                sender: Some("race-team-blue".into()),
            },
        )
        .await
        .unwrap();
    let registered = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let delivery = facts.next().await.unwrap();
            let payload: Value = serde_json::from_slice(&delivery.message.body).unwrap();
            delivery.ack().await.unwrap();
            if payload["car"] == "blue-2" || payload["car"] == "blue-9" {
                return payload["car"].as_str().unwrap().to_string();
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(registered, "blue-2", "the forged registration was applied");
    let dead: u64 = w
        .runtime
        .metrics()
        .services()
        .iter()
        .map(|(_, c)| c.dead_lettered.load(Ordering::Relaxed))
        .sum();
    assert_eq!(dead, 1, "the forged registration is dead-lettered");
    w.endpoint.stop().await;
    w.master.stop_boxed(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_stream_has_one_reader_and_junk_teams_have_none() {
    let w = world().await;
    let red = w
        .endpoint
        .auth
        .issue(&Principal::Team("red".into()))
        .unwrap();
    let blue = w
        .endpoint
        .auth
        .issue(&Principal::Team("blue".into()))
        .unwrap();
    let stream = w.endpoint.url("/race/teams/red/stream");
    let first = w.endpoint.client(&red).get(&stream).send().await.unwrap();
    assert_eq!(first.status(), 200);
    let (status, why) = status_of(w.endpoint.client(&red).get(&stream).send().await.unwrap()).await;
    assert_eq!(status, 409, "a second reader is refused, not shared: {why}");
    let (status, _) = status_of(w.endpoint.client(&blue).get(&stream).send().await.unwrap()).await;
    assert_eq!(status, 403, "blue may not read red's stream");
    drop(first);
    // Once the first reader is gone, another may read (refused as a second reader until the
    // server has seen the first one go).
    let refused_while_leaving = tokio::time::timeout(Duration::from_secs(30), async {
        let mut refused = 0u64;
        loop {
            let response = w.endpoint.client(&red).get(&stream).send().await.unwrap();
            match response.status().as_u16() {
                200 => return refused,
                409 => refused += 1,
                other => panic!("a reader after the first left got {other}"),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the stream is free again once its reader left");

    let operator = w.endpoint.client(&w.endpoint.operator);
    for n in 0..20 {
        let (status, why) = status_of(
            operator
                .get(w.endpoint.url(&format!("/race/teams/junk-{n}/stream")))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 404, "{why}");
        assert!(why.contains("arcade race team add"), "{why}");
    }
    assert_eq!(
        w.endpoint.auth.refused.unknown_team.load(Ordering::Relaxed),
        20
    );
    assert_eq!(
        w.endpoint
            .auth
            .refused
            .second_reader
            .load(Ordering::Relaxed),
        1 + refused_while_leaving
    );
    w.endpoint.stop().await;
    w.master.stop_boxed(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_origin_foreign_host_and_tokenless_requests_are_refused() {
    let w = world().await;
    let addr = w.endpoint.addr;
    let op = &w.endpoint.operator;
    let body = r#"{"turns":1}"#;
    // A page of another site posting text/plain (no preflight), through a rebound DNS name.
    let forged = raw(
        addr,
        &format!(
            "POST /messages/race.start.v1 HTTP/1.1\r\nHost: evil.example\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
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
        let answer = raw(
            addr,
            &format!(
                "POST /messages/race.start.v1 HTTP/1.1\r\nHost: {host}\r\n{origin}Authorization: Bearer {op}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
        .await;
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
    let mut facts = w
        .runtime
        .bus()
        .subscribe(&SubscriptionSpec::temporary(
            "tap.idem",
            vec!["race.#".into()],
        ))
        .await
        .unwrap();
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
    let runtime = Runtime::new(bus).with_data_dir(dir.path());
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
