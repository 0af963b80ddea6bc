//! The laundered grant stays refused after a replay, on the embedded bus through the admin
//! endpoint of the running process: team red's `race.budget.grant.v1` of 5,000 to itself is
//! refused by the race master (only an operator grants) and dead-lettered with red as its
//! sender; the operator's replay does not send it again (its consumer refused it); a grant of
//! red's dead-lettered as a failure (not a refusal) is replayed as red, not as the operator,
//! and refused again. No `race.budget.granted.v1` of 5,000 comes of any of it; the operator's
//! own grant of 7 does. Each replay is recorded (who, when, which, outcome) and
//! `GET /dead/{id}` shows it. Before replays kept the sender, the replay made the grant.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::race::{BudgetGrant, BudgetGranted, CarRegister, Modules};
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::dead_letter::{Dead, dead_letter_of};
use arcade_runtime::{
    Bus, Destination, Publication, Running, Runtime, SendOptions, SubscriptionSpec, WireMessage,
};
use serde_json::{Value, json};

use crate::admin::testing::spawn;

const WAIT: Duration = Duration::from_secs(60);

fn as_sender(sender: &str) -> SendOptions {
    SendOptions {
        message_id: None,
        sender: Some(sender.into()),
        traceparent: None,
    }
}

fn grant(amount: u32) -> Value {
    serde_json::to_value(BudgetGrant {
        team: "red".into(),
        amount,
        reason: Some("to myself".into()),
    })
    .unwrap()
}

/// The dead letters the endpoint lists, once `ready` holds for them.
async fn dead_letters(
    client: &reqwest::Client,
    url: &str,
    ready: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    tokio::time::timeout(WAIT, async {
        loop {
            let body: Value = client.get(url).send().await.unwrap().json().await.unwrap();
            let letters = body["letters"].as_array().cloned().unwrap_or_default();
            if ready(&letters) {
                return letters;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the dead letters expected")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_laundered_grant_stays_refused_after_a_replay() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = Runtime::new(bus.clone())
        .with_data_dir(dir.path())
        .with_sender("operator");
    let master = runtime.start(RaceService::new(5)).unwrap();
    let endpoint = spawn(&runtime, |_| axum::Router::new()).await;
    let operator = endpoint.client(&endpoint.operator);
    let mut granted = bus
        .subscribe(&SubscriptionSpec::temporary(
            "tap.granted",
            vec![BudgetGranted::TYPE.into()],
        ))
        .await
        .unwrap();

    let register = serde_json::to_value(CarRegister {
        team: "red".into(),
        car: "red-1".into(),
        modules: Modules {
            pilots: 1,
            engines: 1,
            weapons: 1,
        },
    })
    .unwrap();
    runtime
        .send_with(
            CarRegister::TYPE,
            register,
            "car.red",
            as_sender("race-team-red"),
        )
        .await
        .unwrap();
    runtime
        .send_with(
            BudgetGrant::TYPE,
            grant(5_000),
            "car.red",
            as_sender("race-team-red"),
        )
        .await
        .unwrap();

    let list = endpoint.url("/dead");
    let letters = dead_letters(&operator, &list, |l| !l.is_empty()).await;
    assert_eq!(letters.len(), 1, "{letters:?}");
    let refused = &letters[0];
    assert_eq!(refused["type"], BudgetGrant::TYPE);
    assert_eq!(refused["sender"], "race-team-red", "{refused}");
    assert_eq!(refused["kind"], "refused", "{refused}");
    let id = refused["id"].as_str().unwrap().to_string();

    // The operator replays everything: the refusal is not sent again.
    let done: Value = operator
        .post(endpoint.url("/dead/replay"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(done["refused"], 1, "{done}");
    assert_eq!(done["lines"][0]["replayed"], false, "{done}");
    let why = done["lines"][0]["error"].as_str().unwrap();
    assert!(
        why.contains("race-team-red") && why.contains("cannot turn the refusal into an acceptance"),
        "{why}"
    );
    let shown: Value = operator
        .get(endpoint.url(&format!("/dead/{id}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let replays = shown["replays"].as_array().unwrap();
    assert_eq!(replays.len(), 1, "{shown}");
    assert_eq!(replays[0]["by"], "operator");
    assert_eq!(replays[0]["via"], "admin endpoint");
    assert_eq!(replays[0]["deadLetter"], id.as_str());
    assert_eq!(replays[0]["sender"], "race-team-red");
    assert_eq!(replays[0]["outcome"]["replayed"], false);
    assert!(replays[0]["at"].as_str().unwrap().ends_with('Z'), "{shown}");

    // A grant of red's that is a dead letter for another reason (not refused): replayed, it
    // is delivered as red's, checked as red's, and refused.
    let planted = WireMessage {
        message_type: Some(BudgetGrant::TYPE.into()),
        message_id: Some("red-grant-failed".into()),
        app_id: Some("car.red".into()),
        user_id: Some("race-team-red".into()),
        body: serde_json::to_vec(&grant(5_000)).unwrap(),
        ..WireMessage::default()
    };
    let planted = dead_letter_of(
        &planted,
        "race-master",
        Dead::failed("race-master: store busy", Some("race-team-red")),
    );
    bus.publish(&[Publication {
        destination: Destination::Queue(bus.dead_letter_queue()),
        message: planted,
    }])
    .await
    .unwrap();
    let done: Value = operator
        .post(endpoint.url("/dead/replay"))
        .query(&[("id", "red-grant-failed")])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(done["refused"], 0, "{done}");
    assert_eq!(done["lines"][0]["replayed"], true, "{done}");
    assert_eq!(done["lines"][0]["sender"], "race-team-red", "{done}");
    let letters = dead_letters(&operator, &list, |l| {
        l.iter()
            .any(|d| d["id"] == "red-grant-failed" && d["kind"] == "refused")
    })
    .await;
    let again = letters
        .iter()
        .find(|d| d["id"] == "red-grant-failed")
        .unwrap();
    assert_eq!(
        again["sender"], "race-team-red",
        "refused as red's: {again}"
    );
    assert!(
        again["reason"]
            .as_str()
            .unwrap()
            .contains("not an operator"),
        "{again}"
    );

    // The operator's own grant goes through, after both: the only grant made.
    runtime
        .send(BudgetGrant::TYPE, grant(7), "operator")
        .await
        .unwrap();
    let amount = tokio::time::timeout(WAIT, async {
        let delivery = granted.next().await.unwrap();
        let payload: Value = serde_json::from_slice(&delivery.message.body).unwrap();
        delivery.ack().await.unwrap();
        payload["amount"].clone()
    })
    .await
    .unwrap();
    assert_eq!(amount, json!(7), "the first grant made is the operator's");
    endpoint.stop().await;
    Box::new(master)
        .stop_boxed(Duration::from_secs(5))
        .await
        .unwrap();
}
