//! A bingo claim from the wrong principal, on the embedded bus through the admin endpoint: a
//! claim names its player and is accepted only from that player's principal or the operator's.
//! Mallory, with her own player token, claims Alice's winning card in Alice's name: refused at
//! the endpoint (403) and, sent past it with Mallory as the sender, dead-lettered by the bingo
//! service; no `bingo.card.won.v1` comes of either. Alice's own claim wins. Without the checks
//! (the domain only compares the claim's `player` with the card's owner) Mallory's claim would
//! win the card.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use arcade_bingo::{BingoService, Secret};
use arcade_contracts::Message;
use arcade_contracts::bingo::{CallSquare, ClaimCard, DealCard, OpenGame};
use arcade_contracts::bingo::{GridSpec, PatternSpec, SquareSpec, TickMode};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Running, SendOptions, SubscriptionSpec};
use serde_json::{Value, json};

use crate::admin::testing::spawn;

const GAME: &str = "claims";

fn open_game() -> Value {
    serde_json::to_value(OpenGame {
        request_id: Some("open".into()),
        game_id: GAME.into(),
        tick_mode: TickMode::Called,
        grid: GridSpec {
            size: 3,
            free_centre: None,
        },
        pool: (1..=8)
            .map(|id| SquareSpec {
                id,
                label: format!("square {id}"),
                trigger: None,
            })
            .collect(),
        patterns: vec![PatternSpec::Line],
        activity_sources: vec![],
    })
    .unwrap()
}

fn claim(request_id: &str, serial: u32, player: &str) -> Value {
    serde_json::to_value(ClaimCard {
        request_id: Some(request_id.into()),
        game_id: GAME.into(),
        serial,
        player: player.into(),
    })
    .unwrap()
}

async fn status_of(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or_default();
    (status, body["error"].as_str().unwrap_or("").to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_in_another_players_name_is_refused_and_never_wins() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus.clone(), dir.path()).with_sender("operator");
    let secret = Secret::new(*b"bingo-claims-test-secret").unwrap();
    let bingo = runtime.start(BingoService::new(&secret)).unwrap();
    let endpoint = spawn(&runtime, |_| axum::Router::new()).await;
    let operator = endpoint.client(&endpoint.operator);
    let url = |path: &str| endpoint.url(path);

    // Every bingo fact, in the order the service publishes them.
    let mut facts = runtime
        .bus()
        .subscribe(&SubscriptionSpec::temporary(
            "tap.bingo-claims",
            vec!["bingo.#".into()],
        ))
        .await
        .unwrap();
    let mut seen: Vec<Value> = Vec::new();
    let mut until = async |seen: &mut Vec<Value>, done: &dyn Fn(&Value) -> bool| -> Value {
        tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                let delivery = facts.next().await.unwrap();
                let envelope = lossy_envelope(&delivery.message);
                delivery.ack().await.unwrap();
                let fact = json!({"type": envelope.message_type, "payload": envelope.payload});
                seen.push(fact.clone());
                if done(&fact) {
                    return fact;
                }
            }
        })
        .await
        .expect("the bingo service answers within 60 s")
    };
    let answer_to = |id: &'static str| move |fact: &Value| fact["payload"]["requestId"] == id;

    // Player tokens, as `arcade bingo player add` asks for them.
    let mut tokens = std::collections::BTreeMap::new();
    for player in ["alice", "mallory"] {
        let response = operator
            .post(url(&format!("/bingo/players/{player}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["principal"], format!("bingo-player-{player}"));
        tokens.insert(player, body["token"].as_str().unwrap().to_string());
    }
    let alice = endpoint.client(&tokens["alice"]);
    let mallory = endpoint.client(&tokens["mallory"]);
    let send = async |client: &reqwest::Client, message_type: &str, payload: Value| {
        status_of(
            client
                .post(url(&format!("/messages/{message_type}")))
                .json(&payload)
                .send()
                .await
                .unwrap(),
        )
        .await
    };

    // The operator opens the game, deals Alice her card and calls every square: it wins.
    assert_eq!(send(&operator, OpenGame::TYPE, open_game()).await.0, 202);
    until(&mut seen, &answer_to("open")).await;
    let deal = json!({"requestId": "deal", "gameId": GAME, "player": "alice"});
    assert_eq!(send(&operator, DealCard::TYPE, deal).await.0, 202);
    let dealt = until(&mut seen, &answer_to("deal")).await;
    assert_eq!(dealt["type"], "bingo.card.dealt.v1", "{dealt}");
    let serial = u32::try_from(dealt["payload"]["serial"].as_u64().unwrap()).unwrap();
    for square in 1..=8u32 {
        let call = serde_json::to_value(CallSquare {
            request_id: Some(format!("call-{square}")),
            game_id: GAME.into(),
            square_id: square,
        })
        .unwrap();
        assert_eq!(send(&operator, CallSquare::TYPE, call).await.0, 202);
    }
    let called = until(&mut seen, &answer_to("call-8")).await;
    assert_eq!(called["type"], "bingo.square.called.v1", "{called}");

    // Mallory claims Alice's card in Alice's name: refused at the endpoint, naming who.
    let (status, why) = send(
        &mallory,
        ClaimCard::TYPE,
        claim("forged-1", serial, "alice"),
    )
    .await;
    assert_eq!(status, 403, "{why}");
    assert!(
        why.contains("bingo-player-mallory") && why.contains("alice"),
        "{why}"
    );
    assert_eq!(endpoint.auth.refused.forbidden.load(Ordering::Relaxed), 1);

    // Past the endpoint (a broker user, a forged envelope) with Mallory as the sender: the
    // bingo service dead-letters it, naming the sender and the player.
    runtime
        .send_with(
            ClaimCard::TYPE,
            claim("forged-2", serial, "alice"),
            "mallory-app",
            SendOptions {
                message_id: None,
                sender: Some("bingo-player-mallory".into()),
                traceparent: None,
            },
        )
        .await
        .unwrap();
    // In her own name the claim passes the principal check and the game refuses it: the card
    // is not hers. Answered after the forged one (one queue, in order).
    let (status, why) = send(
        &mallory,
        ClaimCard::TYPE,
        claim("own-name", serial, "mallory"),
    )
    .await;
    assert_eq!(status, 202, "{why}");
    let refused = until(&mut seen, &answer_to("own-name")).await;
    assert_eq!(refused["type"], "bingo.request.rejected.v1", "{refused}");
    assert_eq!(refused["payload"]["code"], "not-your-card", "{refused}");
    let dead = bus.dead_letters();
    assert_eq!(dead.len(), 1, "the forged claim is dead-lettered");
    let reason = dead[0].dead_reason().unwrap_or("");
    assert!(
        reason.contains("sender bingo-player-mallory may not claim for player \"alice\""),
        "{reason}"
    );
    let forged: Value = serde_json::from_slice(&dead[0].body).unwrap();
    assert_eq!(forged["requestId"], "forged-2");
    assert!(
        seen.iter().all(|fact| fact["type"] != "bingo.card.won.v1"
            && fact["payload"]["requestId"] != "forged-1"
            && fact["payload"]["requestId"] != "forged-2"),
        "a forged claim was answered: {seen:?}"
    );

    // Alice's own claim wins, place 1.
    let (status, why) = send(
        &alice,
        ClaimCard::TYPE,
        claim("alice-claim", serial, "alice"),
    )
    .await;
    assert_eq!(status, 202, "{why}");
    let answered = until(&mut seen, &answer_to("alice-claim")).await;
    assert_eq!(answered["type"], "bingo.claim.answered.v1", "{answered}");
    assert_eq!(answered["payload"]["check"], "claim");
    assert_eq!(answered["payload"]["place"], 1, "{answered}");
    let won: Vec<&Value> = seen
        .iter()
        .filter(|fact| fact["type"] == "bingo.card.won.v1")
        .collect();
    assert_eq!(won.len(), 1, "{seen:?}");
    assert_eq!(won[0]["payload"]["player"], "alice");
    assert_eq!(won[0]["payload"]["serial"], serial);

    endpoint.stop().await;
    Box::new(bingo)
        .stop_boxed(Duration::from_secs(5))
        .await
        .unwrap();
}
