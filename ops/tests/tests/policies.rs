//! The queue settings operators tune are a policy, not arguments: in the committed definitions
//! each service queue carries only its type and single active consumer, and the policy
//! `arcade-queues` gives every queue the services declare (their own, a table's, a team's, a
//! partition's) its dead-letter exchange, delivery limit, dead-lettering strategy and overflow;
//! loaded into a broker, each service's own declaration of its queue matches the definitions
//! and the broker applies the policy to it. The broker part reads `ARCADE_AMQP_URL`; skipped
//! when unset unless `ARCADE_REQUIRE_BROKER=1`.

use arcade_ops_tests::SERVICE_QUEUES;
use arcade_ops_tests::deployment::{Deployment, committed_definitions};
use arcade_ops_tests::management::Management;
use arcade_ops_tests::settings::{Broker, python_for_test};
use arcade_runtime::bus::amqp::topology::{DELIVERY_LIMIT, durable_arguments};
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig, QueueType};
use arcade_runtime::{Bus, SubscriptionSpec};
use regex::Regex;
use serde_json::{Value, json};

const POLICY: &str = "arcade-queues";
/// The console's queue's own policy (priority over `arcade-queues`): it is bounded, since
/// events reach it whether a console runs or not.
const CONSOLE_POLICY: &str = "arcade-console";

/// The console queue's settings: at most 100,000 messages and 256 MiB, the oldest dropped
/// (`drop-head`: a console away that long has missed them; publishers are never refused, as
/// `reject-publish` would refuse every service's events), and no dead-letter exchange (the
/// dropped ones would only fill `arcade.dead`; the console's own dead letters are published
/// there by the runtime).
fn console_settings() -> Value {
    json!({
        "delivery-limit": DELIVERY_LIMIT,
        "max-length": 100_000,
        "max-length-bytes": 268_435_456,
        "overflow": "drop-head",
    })
}

fn policy(definitions: &Value) -> &Value {
    definitions["policies"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == POLICY))
        .unwrap_or_else(|| panic!("definitions.json has no policy {POLICY}"))
}

/// The settings the policy gives, as the runtime's earlier releases declared them.
fn expected_settings() -> Value {
    json!({
        "dead-letter-exchange": "arcade.dead",
        "delivery-limit": DELIVERY_LIMIT,
        "dead-letter-strategy": "at-least-once",
        "overflow": "reject-publish",
    })
}

/// The arguments the runtime declares a service queue with, as JSON.
fn declared_arguments() -> Value {
    let table = durable_arguments(QueueType::Quorum, Some("arcade.dead"), None);
    let keys: Vec<String> = table.inner().keys().map(|k| k.to_string()).collect();
    assert_eq!(keys, ["x-queue-type", "x-single-active-consumer"]);
    json!({ "x-queue-type": "quorum", "x-single-active-consumer": true })
}

#[test]
fn service_queues_carry_only_required_arguments_and_the_policy_gives_the_rest() {
    let definitions = committed_definitions().unwrap();
    let policy = policy(&definitions);
    assert_eq!(policy["apply-to"], "queues");
    assert_eq!(policy["definition"], expected_settings());
    let pattern = Regex::new(policy["pattern"].as_str().unwrap()).unwrap();
    for queue in definitions["queues"].as_array().unwrap() {
        let name = queue["name"].as_str().unwrap();
        if name.starts_with("arcade.") {
            assert!(!pattern.is_match(name), "the policy takes {name}");
            continue;
        }
        assert_eq!(
            queue["arguments"],
            declared_arguments(),
            "{name}'s arguments"
        );
        assert!(pattern.is_match(name), "the policy misses {name}");
    }
    for name in [
        "referee.t1",
        "referee.bar-du-coin-1",
        "race.team.red",
        "bingo.p0",
        "puzzle-telemetry.p12",
    ] {
        assert!(pattern.is_match(name), "the policy misses {name}");
    }
    for name in ["arcade.dead", "arcade.history", "tap.0f3a", "referee.t1.x"] {
        assert!(!pattern.is_match(name), "the policy takes {name}");
    }
}

#[test]
fn the_console_queue_is_bounded_by_its_own_policy() {
    let definitions = committed_definitions().unwrap();
    let policies = definitions["policies"].as_array().unwrap();
    let console = policies
        .iter()
        .find(|p| p["name"] == CONSOLE_POLICY)
        .unwrap_or_else(|| panic!("definitions.json has no policy {CONSOLE_POLICY}"));
    assert_eq!(console["definition"], console_settings());
    assert_eq!(console["apply-to"], "queues");
    let pattern = Regex::new(console["pattern"].as_str().unwrap()).unwrap();
    assert!(pattern.is_match("console"));
    for (_, queue) in SERVICE_QUEUES.iter().filter(|(_, q)| *q != "console") {
        assert!(!pattern.is_match(queue), "{CONSOLE_POLICY} takes {queue}");
    }
    // A queue takes the matching policy of highest priority.
    assert!(console["priority"].as_i64() > policy(&definitions)["priority"].as_i64());
}

#[tokio::test]
async fn the_broker_applies_the_policy_to_each_service_s_own_queue() {
    let test = "the_broker_applies_the_policy_to_each_service_s_own_queue";
    let Some(broker) = Broker::for_test(test) else {
        return;
    };
    if !python_for_test(test, &[]) {
        return;
    }
    let management = Management::new(&broker);
    Deployment::with(&broker, &[], async |deployment| {
        for (user, queue) in SERVICE_QUEUES {
            // The service declares its queue as it does at every start: an equivalent
            // declaration of the definitions' queue (or, for a table, a new one).
            let bus = AmqpBus::new(AmqpConfig::new(deployment.amqp_url(user).unwrap())).unwrap();
            bus.declare(&SubscriptionSpec::durable(queue, Vec::new()))
                .await
                .unwrap_or_else(|e| panic!("{user} declaring {queue}: {e}"));
            bus.close().await;
            // The management API lists a new queue's policy once its first statistics are in
            // (every 5 s by default): polled, up to 30 s.
            let mut held = Value::Null;
            for _ in 0..150 {
                held = management.queue(&deployment.vhost, queue).await.unwrap();
                if !held["policy"].is_null() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            assert_eq!(held["arguments"], declared_arguments(), "{queue}: {held}");
            let (policy, settings) = if queue == "console" {
                (CONSOLE_POLICY, console_settings())
            } else {
                (POLICY, expected_settings())
            };
            assert_eq!(held["policy"], policy, "{queue}: {held}");
            assert_eq!(
                held["effective_policy_definition"], settings,
                "{queue}: {held}"
            );
        }
    })
    .await;
}
