//! A team acting for another (at the endpoint and, past it, at the race master), a second
//! reader of a team's stream, a junk team's stream.

use std::sync::atomic::Ordering;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::race::{CarRegister, DecisionMade};
use arcade_runtime::SendOptions;
use serde_json::{Value, json};

use super::*;
use crate::auth::Principal;

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
    let (status, why) =
        post_status(&client, url(CarRegister::TYPE), &register("blue", "blue-1")).await;
    assert_eq!(status, 403, "{why}");
    assert!(
        why.contains("race-team-red") && why.contains("blue"),
        "{why}"
    );
    let answer = json!({"requestId":"r","team":"blue","car":"blue-1","answer":{"kind":"dice","choice":"roll"}});
    let (status, _) = post_status(&client, url(DecisionMade::TYPE), &answer).await;
    assert_eq!(status, 403);
    // Nor start the race.
    let (status, _) = post_status(&client, url("race.start.v1"), &json!({})).await;
    assert_eq!(status, 403);
    assert_eq!(w.endpoint.auth.refused.forbidden.load(Ordering::Relaxed), 3);
    // Its own registration goes through.
    let (status, why) =
        post_status(&client, url(CarRegister::TYPE), &register("red", "red-1")).await;
    assert_eq!(status, 202, "{why}");

    // Past the endpoint (a broker user, a forged envelope): the master refuses a sender that is
    // neither the team nor an operator, and counts it as dead-lettered.
    let mut facts = w.facts("tap.trust", "race.car.#").await;
    // A registration for blue forged by red, then blue's own.
    for (car, producer, sender) in [
        ("blue-9", "forger", "race-team-red"),
        ("blue-2", "car.blue", "race-team-blue"),
    ] {
        let options = SendOptions {
            message_id: None,
            sender: Some(sender.into()),
            traceparent: None,
        };
        w.runtime
            .send_with(CarRegister::TYPE, register("blue", car), producer, options)
            .await
            .unwrap();
    }
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
