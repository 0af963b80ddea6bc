//! What a team sees of its rivals: during a race its queue (what `arcade car` and the team's
//! stream read) carries its own money and points — after each registration, grant and query —
//! and none of its rivals' (no registration price and budget, grant, achievement or standings
//! of theirs); after `race.finished.v1` every team's standing is there.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::race::{
    self as c, BudgetGrant, BudgetQuery, RaceFinished, RaceStart, TEAM_SECRETS,
};
use arcade_race_master::bots::{CarBot, Strategy};
use arcade_race_master::car::{CarProgram, Heard, run_on_bus, team_subscription};
use arcade_race_master::mapping::RaceMessage;
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Runtime, SubscriptionSpec};

const SEED: u64 = 42;
const TURNS: u32 = 8;

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

async fn send<M: Message>(runtime: &Runtime, message: &M) {
    runtime
        .send(M::TYPE, serde_json::to_value(message).unwrap(), "test")
        .await
        .unwrap();
}

/// What a message a team heard tells of a team's money or points: the team it is about, if
/// it tells any.
fn whose_account(message: &RaceMessage) -> Option<&str> {
    match message {
        RaceMessage::StateReported(m) => Some(&m.team),
        RaceMessage::BudgetReported(m) => Some(&m.team),
        RaceMessage::CarRegistered(m) => Some(&m.team),
        RaceMessage::BudgetGranted(m) => Some(&m.team),
        RaceMessage::AchievementAwarded(m) => Some(&m.team),
        RaceMessage::StandingsUpdated(_) => Some("(every team)"),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_stream_shows_its_own_money_and_no_rivals_until_the_finish() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus, dir.path()).with_sender("operator");
    let service = runtime.start(RaceService::new(SEED)).unwrap();
    // The operator's view: every fact on the topic.
    let mut topic = runtime
        .bus()
        .subscribe(&SubscriptionSpec::temporary(
            "tap.secrets".to_string(),
            vec!["race.#".into()],
        ))
        .await
        .unwrap();

    let heard: Arc<Mutex<Vec<RaceMessage>>> = Arc::default();
    let mut programs = Vec::new();
    for (number, (team, strategy)) in [("red", Strategy::Cautious), ("blue", Strategy::Aggressive)]
        .into_iter()
        .enumerate()
    {
        let bot = CarBot::new(team, strategy, SEED, number as u32);
        let runtime = runtime.clone();
        let heard = heard.clone();
        programs.push(tokio::spawn(async move {
            run_on_bus(&runtime, CarProgram::new(bot), 2, None, move |h| {
                if team != "red" {
                    return;
                }
                let message = match h {
                    Heard::Fact(m) => m.clone(),
                    Heard::Synced { report, .. } => RaceMessage::StateReported(report.clone()),
                    Heard::Finished(f) => RaceMessage::RaceFinished(f.clone()),
                    _ => return,
                };
                heard.lock().unwrap().push(message);
            })
            .await
        }));
    }
    let mut registered = 0;
    let mut granted = false;
    let mut finished: Option<RaceFinished> = None;
    within("the end of the race", async {
        loop {
            let delivery = topic.next().await.unwrap();
            let envelope = lossy_envelope(&delivery.message);
            delivery.ack().await.unwrap();
            match RaceMessage::read(&envelope.message_type, &envelope.payload).unwrap() {
                Some(RaceMessage::CarRegistered(_)) => {
                    registered += 1;
                    if registered == 4 {
                        // A grant to blue: the operator sees it, red must not.
                        let grant = BudgetGrant {
                            team: "blue".into(),
                            amount: 250,
                            reason: Some("best console".into()),
                        };
                        send(&runtime, &grant).await;
                    }
                }
                Some(RaceMessage::BudgetGranted(g)) if !granted => {
                    assert_eq!(g.team, "blue");
                    granted = true;
                    send(&runtime, &BudgetQuery { team: "red".into() }).await;
                    let start = RaceStart {
                        turns: Some(TURNS),
                        duration_ms: None,
                        turn_interval_ms: Some(5),
                        decision_timeout_ms: Some(60_000),
                        distribution: None,
                    };
                    send(&runtime, &start).await;
                }
                Some(RaceMessage::RaceFinished(f)) => {
                    finished = Some(f);
                    break;
                }
                _ => {}
            }
        }
    })
    .await;
    for program in programs {
        within("a car program", program).await.unwrap().unwrap();
    }
    let finished = finished.unwrap();
    service.stop(Duration::from_secs(5)).await.unwrap();

    let heard = heard.lock().unwrap().clone();
    let end = heard
        .iter()
        .position(|m| matches!(m, RaceMessage::RaceFinished(_)))
        .expect("red heard the finish");
    let (during, after) = heard.split_at(end);
    // Red's own money and points came on its stream during the race…
    let own: Vec<&c::StateReported> = during
        .iter()
        .filter_map(|m| match m {
            RaceMessage::StateReported(r) => Some(r),
            _ => None,
        })
        .collect();
    assert!(
        own.iter().any(|r| r.cars.len() == 2 && r.budget < 100),
        "red's stream told it its cars and money: {own:?}"
    );
    assert!(
        during
            .iter()
            .any(|m| matches!(m, RaceMessage::BudgetReported(b) if b.team == "red")),
        "red's budget query was answered on its stream"
    );
    // …and nothing of blue's, nor anything that tells every team's.
    for message in during {
        if let Some(team) = whose_account(message) {
            assert_eq!(
                team, "red",
                "red's stream told a rival's account: {message:?}"
            );
        }
        assert!(
            !TEAM_SECRETS.contains(&message.message_type()),
            "{} on red's stream during the race",
            message.message_type()
        );
    }
    assert!(
        during
            .iter()
            .any(|m| matches!(m, RaceMessage::CarMoved(c) if c.team == "blue")),
        "red still sees its rivals on the track"
    );
    // After the finish, the standings of every team, money and points.
    let RaceMessage::RaceFinished(seen) = &after[0] else {
        unreachable!()
    };
    assert_eq!(seen, &finished);
    let blue = seen.standings.iter().find(|s| s.team == "blue").unwrap();
    let red = seen.standings.iter().find(|s| s.team == "red").unwrap();
    assert!(
        blue.budget >= 250,
        "blue's grant shows at the end: {blue:?}"
    );
    assert!(red.budget < 100, "{red:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_queue_is_bound_to_no_fact_that_tells_a_teams_money() {
    let spec = team_subscription("red");
    for secret in TEAM_SECRETS {
        assert!(
            !spec
                .bindings
                .iter()
                .any(|b| b == secret || b.ends_with('#')),
            "{secret}: {:?}",
            spec.bindings
        );
    }
    assert!(spec.bindings.iter().any(|b| b == "race.finished.v1"));
}
