//! A console full of games being played refuses a new board 503 with `Retry-After` and drops
//! none; a client address over its rate of new boards gets 429 with `Retry-After`.

use std::sync::Arc;

use arcade_console::games::puzzle::play::MAX_PLAYING;
use arcade_console::{Gate, LiveLimits, Tokens};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::testkit;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

struct NoTokens;

impl Tokens for NoTokens {
    fn principal(&self, _token: &str) -> Option<String> {
        None
    }
}

const HOST: &str = "127.0.0.1:7880";

/// A new board: its status and `Retry-After`, if any.
async fn new_board(router: &axum::Router) -> (StatusCode, Option<String>) {
    let request = Request::post("/puzzle/play")
        .header("content-type", "application/json")
        .header("host", HOST)
        .body(Body::from(r#"{"stage":1,"seed":7}"#))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let retry = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    (response.status(), retry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_console_refuses_a_new_board_and_a_flooding_address_is_limited() {
    let dir = tempfile::tempdir().unwrap();
    let bus = EmbeddedBus::open(&dir.path().join("bus")).unwrap();
    let runtime = testkit::runtime(Arc::new(bus), dir.path());
    let started = arcade_console::start(&runtime).unwrap();
    let router = |creations| {
        let gate = Gate::new(Arc::new(NoTokens), HOST.parse().unwrap(), &[], "nowhere");
        arcade_console::router(
            &runtime,
            started.live.clone(),
            started.desk.clone(),
            Arc::new(gate),
            LiveLimits::default(),
            creations,
        )
    };
    // One address over its rate: 429, when to come back.
    let limited = router(arcade_console::creations(2));
    assert_eq!(new_board(&limited).await.0, StatusCode::CREATED);
    assert_eq!(new_board(&limited).await.0, StatusCode::CREATED);
    let (status, retry) = new_board(&limited).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert!(retry.is_some_and(|s| s.parse::<u64>().unwrap() >= 1));
    // Every place taken by a game being played: 503, when to come back, none dropped.
    let open = router(arcade_console::creations(u32::MAX));
    for _ in 2..MAX_PLAYING {
        assert_eq!(new_board(&open).await.0, StatusCode::CREATED);
    }
    let (status, retry) = new_board(&open).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(retry.as_deref(), Some("30"));
    let kept = started.live.read(|p| {
        p.get::<arcade_console::games::puzzle::projection::Puzzle>()
            .map(|puzzle| puzzle.plays.len())
    });
    assert_eq!(kept, Some(MAX_PLAYING));
}
