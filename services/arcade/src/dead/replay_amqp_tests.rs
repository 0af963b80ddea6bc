//! The laundered grant stays refused after a replay, on RabbitMQ, where the broker stamps the
//! replaying operator's user on what it publishes: a team's `race.budget.grant.v1` of 5,000 to
//! itself is refused by the race master and dead-lettered (by the race master's user, with the
//! team as its recorded sender); `arcade dead replay` as the operator does not send it again; a
//! grant of the team's dead-lettered as a failure is replayed for the team
//! (`x-arcade-replay-sender`) and refused again as the team's; the team naming the operator in
//! that header itself is refused. The operator's own grant of 7 is the only grant made. Before
//! replays kept the sender, the operator's replay made the grant of 5,000.
//!
//! Users of its own (`rabbitmqctl`) in a vhost of its own: the race master's, the operator's
//! (both under a user prefix, as a deployment's) and the team's. Reads `ARCADE_AMQP_URL`;
//! skipped when unset unless `ARCADE_REQUIRE_BROKER=1`.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::principal::Operators;
use arcade_contracts::race::{BudgetGrant, BudgetGranted, CarRegister, Modules};
use arcade_race_master::service::RaceService;
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig, properties};
use arcade_runtime::dead_letter::{Dead, HEADER_REPLAY_SENDER, dead_letter_of};
use arcade_runtime::{
    Bus, Destination, HostConfig, Publication, Running, Runtime, SubscriptionSpec, WireMessage,
};
use lapin::options::{BasicPublishOptions, ConfirmSelectOptions};
use serde_json::{Value, json};

use super::letters;
use super::records::Replayer;

const WAIT: Duration = Duration::from_secs(90);

fn broker_url() -> Option<String> {
    match std::env::var("ARCADE_AMQP_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
                "ARCADE_REQUIRE_BROKER=1 but ARCADE_AMQP_URL is unset: broker tests must run"
            );
            eprintln!("skipped: ARCADE_AMQP_URL unset");
            None
        }
    }
}

fn ctl(args: &[&str]) {
    let program = std::env::var("RABBITMQCTL").unwrap_or_else(|_| "rabbitmqctl".into());
    let done = Command::new(&program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} {args:?}: {e} (set RABBITMQCTL)"));
    assert!(done.status.success(), "rabbitmqctl {args:?}: {done:?}");
}

/// A vhost and three users of the test's own, deleted when it ends.
struct Broker {
    vhost: String,
    users: Vec<String>,
    /// `amqp://HOST:PORT` of the test broker.
    host: String,
}

impl Broker {
    fn new(url: &str, users: &[&str]) -> Broker {
        let (authority, _) = url.rsplit_once('/').expect("a URL with a vhost");
        let (_, host) = authority.rsplit_once('@').expect("a URL with a user");
        let vhost = format!("arcade-replay-{}", uuid::Uuid::new_v4().simple());
        ctl(&["add_vhost", &vhost]);
        let broker = Broker {
            vhost,
            users: users.iter().map(|u| u.to_string()).collect(),
            host: host.to_string(),
        };
        for user in users {
            ctl(&["add_user", user, "pw"]);
            ctl(&[
                "set_permissions",
                "-p",
                &broker.vhost,
                user,
                ".*",
                ".*",
                ".*",
            ]);
        }
        broker
    }

    fn url(&self, user: &str) -> String {
        format!("amqp://{user}:pw@{}/{}", self.host, self.vhost)
    }

    async fn bus(&self, user: &str) -> AmqpBus {
        let bus = AmqpBus::new(AmqpConfig::new(self.url(user))).unwrap();
        bus.connect_now().await.unwrap();
        bus
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let program = std::env::var("RABBITMQCTL").unwrap_or_else(|_| "rabbitmqctl".into());
        let _ = Command::new(&program)
            .args(["delete_vhost", &self.vhost])
            .output();
        for user in &self.users {
            let _ = Command::new(&program).args(["delete_user", user]).output();
        }
    }
}

fn grant(team: &str, amount: u32) -> Value {
    serde_json::to_value(BudgetGrant {
        team: team.into(),
        amount,
        reason: None,
    })
    .unwrap()
}

/// The dead letters, once `ready` holds for them.
async fn dead_letters(bus: &AmqpBus, prefix: &str, ready: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    tokio::time::timeout(WAIT, async {
        loop {
            let letters = letters::list(bus, Some(prefix)).await.unwrap();
            if ready(&letters) {
                return letters;
            }
        }
    })
    .await
    .expect("the dead letters expected")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_rabbitmq_the_laundered_grant_stays_refused_after_a_replay() {
    let Some(url) = broker_url() else { return };
    let tag = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
    let prefix = format!("t{tag}-");
    let (master_user, admin_user) = (
        format!("{prefix}race-master"),
        format!("{prefix}arcade-admin"),
    );
    let team = format!("r{tag}");
    let team_user = format!("race-team-{team}");
    let broker = Broker::new(&url, &[&master_user, &admin_user, &team_user]);

    let admin = broker.bus(&admin_user).await;
    admin
        .declare(&SubscriptionSpec::durable("race-master", Vec::new()))
        .await
        .unwrap();
    let mut granted = admin
        .subscribe(&SubscriptionSpec::temporary(
            format!("tap.granted.{tag}"),
            vec![BudgetGranted::TYPE.into()],
        ))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let master_runtime = Runtime::new(Arc::new(broker.bus(&master_user).await))
        .with_data_dir(dir.path())
        .with_config(HostConfig {
            replayers: vec![admin_user.clone()],
            ..HostConfig::default()
        });
    let operators = Operators::new([admin_user.clone()]);
    let master = master_runtime
        .start(RaceService::new(5).with_operators(operators))
        .unwrap();

    let team_bus = broker.bus(&team_user).await;
    let team_runtime = Runtime::new(Arc::new(team_bus.clone()));
    let register = serde_json::to_value(CarRegister {
        team: team.clone(),
        car: format!("{team}-1"),
        modules: Modules {
            pilots: 1,
            engines: 1,
            weapons: 1,
        },
    })
    .unwrap();
    team_runtime
        .send(CarRegister::TYPE, register, "car")
        .await
        .unwrap();
    team_runtime
        .send(BudgetGrant::TYPE, grant(&team, 5_000), "car")
        .await
        .unwrap();
    // The team naming the operator as the sender it replays for.
    let mut forged = WireMessage {
        message_type: Some(BudgetGrant::TYPE.into()),
        message_id: Some("forged-replay".into()),
        body: serde_json::to_vec(&grant(&team, 5_000)).unwrap(),
        ..WireMessage::default()
    };
    forged
        .headers
        .insert(HEADER_REPLAY_SENDER.into(), admin_user.clone());
    team_bus
        .publish(&[Publication {
            destination: Destination::Queue("race-master".into()),
            message: forged,
        }])
        .await
        .unwrap();

    let letters = dead_letters(&admin, &prefix, |l| l.len() >= 2).await;
    for letter in &letters {
        assert_eq!(letter["sender"], team_user.as_str(), "{letter}");
        assert_eq!(letter["kind"], "refused", "{letter}");
        assert_eq!(letter["userId"], master_user.as_str(), "{letter}");
    }
    assert!(
        letters
            .iter()
            .any(|l| l["reason"].as_str().unwrap().contains("may not replay")),
        "{letters:?}"
    );

    let replayer = Replayer {
        by: admin_user.clone(),
        via: "RabbitMQ",
    };
    let done = letters::replay(&admin, Some(&prefix), None, &replayer)
        .await
        .unwrap();
    assert_eq!(done.refused, 2, "{:?}", done.lines);
    assert!(
        done.lines.iter().all(|l| l["replayed"] == false),
        "{:?}",
        done.lines
    );

    // A grant of the team's dead-lettered as a failure (by the race master's user, as the
    // race master would): replayed for the team, refused as the team's.
    let planted = WireMessage {
        message_type: Some(BudgetGrant::TYPE.into()),
        message_id: Some("failed-grant".into()),
        body: serde_json::to_vec(&grant(&team, 5_000)).unwrap(),
        ..WireMessage::default()
    };
    let planted = dead_letter_of(
        &planted,
        "race-master",
        Dead::failed("race-master: store busy", Some(&team_user)),
    );
    let connection = lapin::Connection::connect(
        &broker.url(&master_user),
        lapin::ConnectionProperties::default(),
    )
    .await
    .unwrap();
    let channel = connection.create_channel().await.unwrap();
    channel
        .confirm_select(ConfirmSelectOptions::default())
        .await
        .unwrap();
    channel
        .basic_publish(
            "arcade.dead".into(),
            "".into(),
            BasicPublishOptions::default(),
            &planted.body,
            properties::to_properties(&planted).with_user_id(master_user.as_str().into()),
        )
        .await
        .unwrap()
        .await
        .unwrap();
    let done = letters::replay(&admin, Some(&prefix), Some("failed-grant"), &replayer)
        .await
        .unwrap();
    assert_eq!(done.lines.len(), 1, "{:?}", done.lines);
    assert_eq!(done.lines[0]["replayed"], true, "{:?}", done.lines);
    assert_eq!(done.lines[0]["sender"], team_user.as_str());
    let letters = dead_letters(&admin, &prefix, |l| {
        l.iter()
            .any(|d| d["id"] == "failed-grant" && d["kind"] == "refused")
    })
    .await;
    let again = letters.iter().find(|d| d["id"] == "failed-grant").unwrap();
    assert_eq!(
        again["sender"],
        team_user.as_str(),
        "refused as the team's: {again}"
    );
    assert!(
        again["reason"]
            .as_str()
            .unwrap()
            .contains("not an operator"),
        "{again}"
    );
    let shown = letters::show(&admin, Some(&prefix), "failed-grant")
        .await
        .unwrap()
        .unwrap();
    let replays = shown["replays"].as_array().unwrap();
    assert_eq!(replays.len(), 1, "{shown}");
    assert_eq!(replays[0]["by"], admin_user.as_str());
    assert_eq!(replays[0]["outcome"]["replayed"], true);

    // The operator's own grant is the first grant made.
    let admin_runtime = Runtime::new(Arc::new(admin.clone()));
    admin_runtime
        .send(BudgetGrant::TYPE, grant(&team, 7), "operator")
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
    Box::new(master)
        .stop_boxed(Duration::from_secs(5))
        .await
        .unwrap();
    drop(connection);
}
