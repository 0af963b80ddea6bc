//! `arcade puzzle stats --partitions N` merges the statistics of partitioned telemetry
//! instances into exactly those of one instance fed every session.
//!
//! The broker test runs, in a vhost of its own (made and deleted through the management API),
//! three telemetry services in-process: partitions 0 and 1 of 2, each fed half of a set of
//! sessions straight into its own queue, and an unpartitioned one fed them all. Once every
//! instance's final publication is on the broker, the built `arcade` merges the partitions
//! from the history stream: its JSON equals the unpartitioned instance's
//! `puzzle.stats.updated.v1` (counts, rates and percentiles alike), its table prints, a
//! partition never heard from is named with exit code 1, and so are partitions reporting
//! another N. Skipped without `ARCADE_AMQP_URL` unless `ARCADE_REQUIRE_BROKER=1`.

#[path = "../../runtime/tests/support/broker.rs"]
mod broker;

use std::collections::BTreeMap;
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::game::GameSessionCompletedV2;
use arcade_contracts::puzzle::{PartitionUpdated, StatsUpdated};
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::service::TelemetryService;
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};
use arcade_runtime::testkit;
use futures::StreamExt;
use lapin::options::{BasicAckOptions, BasicPublishOptions, ConfirmSelectOptions};
use lapin::types::{AMQPValue, FieldTable, LongString};
use lapin::{BasicProperties, Connection, ConnectionProperties};
use reqwest::Url;

const SESSIONS: usize = 240;

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command.env_remove("ARCADE_AMQP_URL").env_remove("RUST_LOG");
    command
}

/// A vhost of the test's own, made and deleted through the management API
/// (`ARCADE_RABBITMQ_MANAGEMENT_URL`, default `http://<amqp host>:15672`, as the ops tests read
/// it; its user is `ARCADE_RABBITMQ_MANAGEMENT_USER` or the AMQP URL's).
struct Vhost {
    name: String,
    /// The AMQP URL into it.
    url: String,
    management: Url,
    user: (String, String),
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.to_string())
}

impl Vhost {
    fn new(amqp: &str) -> Vhost {
        let name = format!("arcade-partitions-{}", broker::random());
        let mut url = Url::parse(amqp).expect("ARCADE_AMQP_URL is a URL");
        let host = url
            .host_str()
            .expect("ARCADE_AMQP_URL has a host")
            .to_string();
        let management = Url::parse(&env_or(
            "ARCADE_RABBITMQ_MANAGEMENT_URL",
            &format!("http://{host}:15672/"),
        ))
        .expect("a management URL");
        let amqp_user = percent_decode(url.username());
        let user = (
            env_or("ARCADE_RABBITMQ_MANAGEMENT_USER", &amqp_user),
            env_or(
                "ARCADE_RABBITMQ_MANAGEMENT_PASSWORD",
                &percent_decode(url.password().unwrap_or("")),
            ),
        );
        url.set_path(&format!("/{name}"));
        let vhost = Vhost {
            url: url.to_string(),
            name,
            management,
            user,
        };
        vhost.call(
            reqwest::Method::PUT,
            &format!("api/vhosts/{}", vhost.name),
            None,
        );
        vhost.call(
            reqwest::Method::PUT,
            &format!("api/permissions/{}/{amqp_user}", vhost.name),
            Some(serde_json::json!({"configure": ".*", "write": ".*", "read": ".*"})),
        );
        vhost
    }

    fn call(&self, method: reqwest::Method, path: &str, body: Option<serde_json::Value>) {
        let url = self.management.join(path).unwrap();
        let mut request = reqwest::blocking::Client::new()
            .request(method.clone(), url)
            .basic_auth(&self.user.0, Some(&self.user.1));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request
            .send()
            .unwrap_or_else(|e| panic!("{method} /{path}: {e} (is the management plugin on?)"));
        assert!(
            response.status().is_success(),
            "{method} /{path}: {}",
            response.status()
        );
    }
}

impl Drop for Vhost {
    fn drop(&mut self) {
        let url = self
            .management
            .join(&format!("api/vhosts/{}", self.name))
            .unwrap();
        let _ = reqwest::blocking::Client::new()
            .delete(url)
            .basic_auth(&self.user.0, Some(&self.user.1))
            .send();
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).expect("UTF-8 credentials")
}

/// Publishes a session straight into `queue` (the default exchange), as a bare producer does.
async fn publish(
    channel: &lapin::Channel,
    queue: &str,
    id: &str,
    session: &GameSessionCompletedV2,
) {
    let mut headers = FieldTable::default();
    headers.insert(
        "type".into(),
        AMQPValue::LongString(LongString::from(GameSessionCompletedV2::TYPE)),
    );
    let properties = BasicProperties::default()
        .with_headers(headers)
        .with_message_id(id.into())
        .with_content_type("application/json".into());
    let confirm = channel
        .basic_publish(
            "".into(),
            queue.into(),
            BasicPublishOptions::default(),
            &serde_json::to_vec(session).unwrap(),
            properties,
        )
        .await
        .unwrap()
        .await
        .unwrap();
    assert!(confirm.is_ack(), "{queue} took session {id}");
}

fn counted_in(stats: &StatsUpdated) -> u64 {
    stats.sessions + stats.flagged
}

fn counted_in_partition(partition: &PartitionUpdated) -> u64 {
    partition.stages.iter().map(|s| s.sessions).sum::<u64>() + partition.flagged
}

fn stats_of(output: &Output) -> StatsUpdated {
    assert!(
        output.status.success(),
        "arcade puzzle stats failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a puzzle.stats.updated.v1 payload ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[test]
fn two_partitions_merge_into_the_statistics_of_one_instance_fed_everything() {
    let Some(amqp) = broker::url() else { return };
    let vhost = Vhost::new(&amqp);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let data = tempfile::tempdir().unwrap();
    let names = [
        "puzzle-telemetry.p0",
        "puzzle-telemetry.p1",
        "puzzle-telemetry",
    ]
    .map(|name| format!("{name}.{}", broker::random()));

    let (hosts, whole) = runtime.block_on(async {
        let mut config = AmqpConfig::new(vhost.url.clone());
        config.connection_name = format!("arcade-test.{}", broker::random());
        let bus = AmqpBus::new(config).unwrap();
        let arcade = testkit::runtime(Arc::new(bus.clone()), data.path());
        let services = [
            TelemetryService::named(names[0].clone(), 200).with_partition(0, 2),
            TelemetryService::named(names[1].clone(), 200).with_partition(1, 2),
            TelemetryService::named(names[2].clone(), 200),
        ];
        let mut hosts = Vec::new();
        for service in services {
            hosts.push(arcade.start(service).unwrap());
        }
        for name in &names {
            broker::wait_for_consumer(&vhost.url, name).await;
        }

        // What the services publish, watched by a plain client.
        let connection = Connection::connect(&vhost.url, ConnectionProperties::default())
            .await
            .unwrap();
        let (_observer, mut published) = broker::observe(
            &connection,
            "arcade.events",
            &[StatsUpdated::TYPE, PartitionUpdated::TYPE],
        )
        .await;

        // The sessions: honest v2 ones, and every tenth tampered (flagged); even ones to
        // partition 0, odd ones to partition 1, all of them to the unpartitioned instance.
        let channel = connection.create_channel().await.unwrap();
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await
            .unwrap();
        let mut simulator = Simulator::new(20_261_203);
        let mut fed = [0u64; 2];
        for i in 0..SESSIONS {
            let mut session = simulator.play(None).v2("partitions-test 1");
            if i % 10 == 9 {
                session.turns += 1;
            }
            let id = format!("{}-{i}", broker::random());
            publish(&channel, &names[i % 2], &id, &session).await;
            publish(&channel, &names[2], &id, &session).await;
            fed[i % 2] += 1;
        }

        // Until each instance's publication counting all it was fed is on the broker.
        let mut partitions: BTreeMap<u32, PartitionUpdated> = BTreeMap::new();
        let mut whole: Option<StatsUpdated> = None;
        tokio::time::timeout(Duration::from_secs(120), async {
            loop {
                let done = whole.as_ref().is_some_and(|w| counted_in(w) == SESSIONS as u64)
                    && (0..2).all(|k| {
                        partitions
                            .get(&k)
                            .is_some_and(|p| counted_in_partition(p) == fed[k as usize])
                    });
                if done {
                    break;
                }
                let delivery = published.next().await.unwrap().unwrap();
                let message_type = delivery.routing_key.to_string();
                let producer = delivery
                    .properties
                    .app_id()
                    .as_ref()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                if message_type == PartitionUpdated::TYPE {
                    let p: PartitionUpdated = serde_json::from_slice(&delivery.data).unwrap();
                    assert_eq!(producer, names[p.partition as usize]);
                    partitions.insert(p.partition, p);
                } else if producer == names[2] {
                    whole = Some(serde_json::from_slice(&delivery.data).unwrap());
                }
                delivery.ack(BasicAckOptions::default()).await.unwrap();
            }
        })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "within 120 s, not every instance published all it was fed: {fed:?} fed, partitions {:?}, whole {:?}",
                partitions.values().map(counted_in_partition).collect::<Vec<_>>(),
                whole.as_ref().map(counted_in)
            )
        });
        let _ = connection.close(200, "seen".into()).await;
        (hosts, whole.unwrap())
    });
    assert!(whole.flagged > 0 && whole.sessions > 0, "{whole:?}");

    let stats = |args: &[&str]| {
        arcade()
            .args(["puzzle", "stats", "--amqp", &vhost.url])
            .args(args)
            .output()
            .unwrap()
    };

    // Merged: the same figures as the instance fed everything.
    let mut merged = stats_of(&stats(&["--partitions", "2", "--json", "--timeout", "60s"]));
    assert!(merged.published_at_ms > 0);
    merged.published_at_ms = whole.published_at_ms;
    assert_eq!(merged, whole);

    // The table, as the single instance's view prints it.
    let table = stats(&["--partitions", "2", "--timeout", "60s"]);
    assert!(table.status.success(), "{table:?}");
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains(&whole.sessions.to_string()) && text.contains("stage"),
        "{text}"
    );

    // A partition never heard from is named; so are partitions reporting another N.
    let missing = stats(&["--partitions", "3", "--timeout", "3s"]);
    assert_eq!(missing.status.code(), Some(1), "{missing:?}");
    let error = String::from_utf8_lossy(&missing.stderr);
    assert!(error.contains("partition 2 of 3"), "{error}");
    let other = stats(&["--partitions", "1", "--timeout", "30s"]);
    assert_eq!(other.status.code(), Some(1), "{other:?}");
    let error = String::from_utf8_lossy(&other.stderr);
    assert!(
        error.contains("partition 0 reports 2 partitions"),
        "{error}"
    );

    runtime.block_on(async {
        for host in hosts {
            host.stop(Duration::from_secs(10)).await.unwrap();
        }
    });
    drop(runtime);
    drop(vhost);
}
