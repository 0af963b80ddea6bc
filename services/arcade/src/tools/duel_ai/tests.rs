use std::sync::{Arc, Mutex};

use arcade_contracts::Message;
use arcade_contracts::race::{self as c, RaceStart};
use arcade_race_master::bots::{CarBot, Strategy};
use arcade_race_master::car::CarProgram;
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::embedded::EmbeddedBus;
use axum::extract::{RawQuery, State};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::admin;
use crate::connection::{AdminArg, Connection};
use crate::tools::car::{CarArgs, via_admin};

/// What the test's AI was asked (raw query strings) and what it answered.
#[derive(Default)]
struct Seen {
    queries: Vec<String>,
    replies: Vec<Vec<u8>>,
}

fn list(query: &str, name: &str) -> Vec<u8> {
    let start = query.find(&format!("{name}=[")).expect(name) + name.len() + 2;
    let end = start + query[start..].find(']').expect("a closing bracket");
    query[start..end]
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("a number"))
        .collect()
}

/// A small fighting AI in the original protocol: it works the distance out of the moves
/// (22 squares apart at the start, attacks recorded as 0), attacks when it holds the
/// distance, else moves its smallest card.
async fn ai(State(seen): State<Arc<Mutex<Seen>>>, RawQuery(query): RawQuery) -> String {
    let query = query.unwrap_or_default();
    let (yours, others, cards) = (
        list(&query, "yourmoves"),
        list(&query, "othermoves"),
        list(&query, "cards"),
    );
    let moved: u32 = yours.iter().chain(&others).map(|&m| u32::from(m)).sum();
    let distance = 22u32.saturating_sub(moved);
    let reply: Vec<u8> = match cards.iter().find(|&&c| u32::from(c) == distance) {
        Some(&card) => vec![card],
        None => cards.iter().min().map(|&c| vec![c]).unwrap_or_default(),
    };
    let mut seen = seen.lock().unwrap();
    seen.queries.push(query);
    seen.replies.push(reply.clone());
    serde_json::json!({ "res": reply }).to_string()
}

/// `arcade car --duel-ai URL` plays every duel answer of its team with the HTTP AI, asked
/// as the original master asked: the answers the master closes are the AI's, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_duel_answer_comes_from_the_http_ai() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let ai_router = axum::Router::new()
        .route("/prod/action", axum::routing::get(ai))
        .with_state(seen.clone());
    let shutdown = CancellationToken::new();
    let ai_listener = crate::serve::bind("127.0.0.1:0".parse().unwrap(), "ai")
        .await
        .unwrap();
    let ai_addr = ai_listener.local_addr().unwrap();
    let ai_server = crate::serve::serve_on(
        ai_listener,
        ai_router,
        crate::serve::ServeLimits::default(),
        arcade_runtime::guard::Clients::new(arcade_runtime::guard::ClientLimits::default()),
        shutdown.clone(),
    );

    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus, dir.path()).with_sender("operator");
    let master = runtime.start(RaceService::new(4)).unwrap();
    let endpoint = admin::testing::spawn(&runtime, crate::hosted::race::routes).await;
    let addr = endpoint.addr;
    let red = endpoint
        .auth
        .issue(&crate::auth::Principal::Team("red".into()))
        .unwrap();
    let mut facts = runtime
        .bus()
        .subscribe(&arcade_runtime::SubscriptionSpec::temporary(
            "tap.duel-ai",
            vec!["race.#".into()],
        ))
        .await
        .unwrap();
    let url: reqwest::Url = format!("http://{ai_addr}/prod/action").parse().unwrap();
    let args = CarArgs {
        team: "red".into(),
        strategy: Strategy::Cautious,
        cars: 1,
        seed: Some(1),
        duel_ai: Some(url.clone()),
        connection: Connection {
            broker: Default::default(),
            endpoint: AdminArg { admin: addr },
            token: Some(red),
        },
    };
    let program = tokio::spawn(async move {
        let advisor = HttpDuelAi::new(url).unwrap();
        let program = CarProgram::new(CarBot::new("red", Strategy::Cautious, 1, 0));
        via_admin(&args, program, Some(&advisor)).await
    });
    let mut answers = Vec::new();
    let finished = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        loop {
            let delivery = facts.next().await.unwrap();
            let envelope = arcade_runtime::inbound::lossy_envelope(&delivery.message);
            delivery.ack().await.unwrap();
            match envelope.message_type.as_str() {
                "race.car.registered.v1" => {
                    // Pirates every turn: a duel per turn.
                    let start = RaceStart {
                        turns: Some(3),
                        duration_ms: None,
                        turn_interval_ms: Some(5),
                        decision_timeout_ms: Some(30_000),
                        distribution: Some(c::EventDistribution {
                            nothing: 0,
                            pirates: 100,
                            garage: 0,
                            wreck: 0,
                            mine_field: 0,
                        }),
                    };
                    let payload = serde_json::to_value(&start).unwrap();
                    runtime
                        .send(RaceStart::TYPE, payload, "test")
                        .await
                        .unwrap();
                }
                "race.decision.closed.v1" => {
                    let closed: c::DecisionClosed =
                        serde_json::from_value(envelope.payload).unwrap();
                    if let Some(c::Answer::DuelAnswer { cards }) = closed.answer {
                        answers.push(cards);
                    }
                }
                "race.finished.v1" => break,
                _ => {}
            }
        }
    })
    .await;
    assert!(finished.is_ok(), "the race did not end in time");
    program.await.unwrap().unwrap();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    assert!(!answers.is_empty(), "the car fought the pirates");
    assert_eq!(
        answers, seen.replies,
        "every duel answer is the AI's, in order"
    );
    for query in &seen.queries {
        let shape = query.starts_with("yourmoves=[")
            && query.contains("]&othermoves=[")
            && query.contains("]&cards=[")
            && query.ends_with(']');
        assert!(shape, "asked as the original master did: {query}");
        assert!(!list(query, "cards").is_empty(), "{query}");
    }
    shutdown.cancel();
    endpoint.stop().await;
    let _ = ai_server.await;
    master
        .stop(std::time::Duration::from_secs(5))
        .await
        .unwrap();
}
