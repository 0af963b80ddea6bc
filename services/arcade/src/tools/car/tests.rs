use std::sync::Arc;

use arcade_contracts::race::RaceStart;
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::embedded::EmbeddedBus;

use super::*;
use crate::admin;
use crate::connection::AdminArg;

/// Three `arcade car` programs, each holding only its team's token, play a whole race
/// through the admin endpoint of a running race master (embedded transport): they register,
/// answer every question in time, report their state truthfully, and all end with the
/// master's `race.finished.v1`. An attacker with red's token trying to answer for blue and
/// to read blue's stream is refused and counted each time; no team is penalised (every
/// question reached its team, every answer was its own).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn car_programs_play_a_race_through_the_admin_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus, dir.path()).with_sender("operator");
    let master = runtime.start(RaceService::new(11)).unwrap();
    let endpoint = admin::testing::spawn(&runtime, crate::hosted::race::routes).await;
    let addr = endpoint.addr;
    let mut programs = Vec::new();
    let mut tokens = std::collections::BTreeMap::new();
    for (team, strategy) in [
        ("red", Strategy::Cautious),
        ("blue", Strategy::Random),
        ("green", Strategy::Aggressive),
    ] {
        let token = endpoint
            .auth
            .issue(&crate::auth::Principal::Team(team.into()))
            .unwrap();
        tokens.insert(team, token.clone());
        let args = CarArgs {
            team: team.into(),
            strategy,
            cars: 2,
            seed: Some(3),
            duel_ai: None,
            connection: Connection {
                broker: Default::default(),
                endpoint: AdminArg { admin: addr },
                token: Some(token),
            },
        };
        let program = CarProgram::new(CarBot::new(team, strategy, 3, 0));
        programs.push(tokio::spawn(async move {
            via_admin(&args, program, None).await
        }));
    }
    let mut registered = 0;
    let mut facts = runtime
        .bus()
        .subscribe(&arcade_runtime::SubscriptionSpec::temporary(
            "tap.car-test",
            vec!["race.#".into()],
        ))
        .await
        .unwrap();
    let mut penalties = 0;
    let mut attacked = false;
    let finished = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        loop {
            let delivery = facts.next().await.unwrap();
            let message_type = delivery.message.message_type.clone().unwrap_or_default();
            delivery.ack().await.unwrap();
            match message_type.as_str() {
                "race.car.registered.v1" => {
                    registered += 1;
                    if registered == 6 {
                        let start = RaceStart {
                            turns: Some(5),
                            duration_ms: None,
                            turn_interval_ms: Some(5),
                            decision_timeout_ms: Some(30_000),
                            distribution: None,
                        };
                        runtime
                            .send(
                                RaceStart::TYPE,
                                serde_json::to_value(&start).unwrap(),
                                "test",
                            )
                            .await
                            .unwrap();
                    }
                }
                "race.penalty.given.v1" => penalties += 1,
                "race.turn.started.v1" if !attacked => {
                    // An attacker holding red's token answers blue's question first and
                    // tries to read blue's stream.
                    attacked = true;
                    let attacker = endpoint.client(&tokens["red"]);
                    let answer = serde_json::json!({
                        "requestId": "forged", "team": "blue", "car": "blue-1",
                        "answer": {"kind": "dice", "choice": "roll"}
                    });
                    let forged = attacker
                        .post(endpoint.url("/messages/race.decision.made.v1"))
                        .json(&answer)
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(forged.status(), 403);
                    let read = attacker
                        .get(endpoint.url("/race/teams/blue/stream"))
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(read.status(), 403);
                }
                "race.finished.v1" => break,
                _ => {}
            }
        }
    })
    .await;
    assert!(finished.is_ok(), "the race did not end in time");
    assert_eq!(
        penalties, 0,
        "truthful cars answering in time: every question reached its team"
    );
    assert!(attacked);
    assert_eq!(
        endpoint
            .auth
            .refused
            .forbidden
            .load(std::sync::atomic::Ordering::Relaxed),
        2,
        "both attempts refused and counted"
    );
    for program in programs {
        let finished = program.await.unwrap().unwrap();
        assert_eq!(finished.turn, 5);
        assert_eq!(finished.standings.len(), 3);
    }
    endpoint.stop().await;
    master
        .stop(std::time::Duration::from_secs(5))
        .await
        .unwrap();
}

#[test]
fn the_story_names_what_the_team_was_asked_and_answered() {
    let request = arcade_contracts::race::DecisionRequested {
        decision_id: 3,
        team: "red".into(),
        car: "red-1".into(),
        turn: 2,
        deadline_ms: 1,
        question: Question::CrossMineField,
    };
    let answer = DecisionMade {
        decision_id: 3,
        team: "red".into(),
        car: "red-1".into(),
        answer: arcade_contracts::race::Answer::CrossMineField { cross: true },
    };
    assert_eq!(
        story("red", &Heard::Question { request, answer }).unwrap(),
        r#"turn 2 · red-1 asked cross the mine field? → {"kind":"crossMineField","cross":true}"#
    );
}
