//! The committed broker policy (`ops/rabbitmq/definitions.json`) against the contract catalog,
//! and its renderer, without a broker: every event type has exactly one publisher, each service
//! reads only its own queue, queues dead-letter, the history stream keeps every event for the
//! operator alone, and no password is ever committed.

use std::process::Command;

use arcade_contracts::catalog::{MessageKind, all_types};
use arcade_contracts::race::TEAM_FACTS;
use arcade_ops_tests::deployment::{
    committed_definitions, ops_dir, password_variable, policy_users,
};
use arcade_ops_tests::settings::python_for_test;
use arcade_ops_tests::{SERVICE_QUEUES, publisher_of};
use arcade_runtime::bus::amqp::HistoryConfig;
use arcade_runtime::bus::amqp::history::HISTORY_STREAM;
use regex::Regex;
use serde_json::Value;

fn entries<'a>(definitions: &'a Value, section: &str) -> &'a Vec<Value> {
    definitions[section]
        .as_array()
        .unwrap_or_else(|| panic!("definitions.json has no {section} array"))
}

fn regex(pattern: &Value) -> Regex {
    let pattern = pattern.as_str().expect("a permission is a string");
    Regex::new(pattern).unwrap_or_else(|e| panic!("permission {pattern:?}: {e}"))
}

fn permission<'a>(definitions: &'a Value, user: &str) -> &'a Value {
    entries(definitions, "permissions")
        .iter()
        .find(|p| p["user"] == user)
        .unwrap_or_else(|| panic!("no permissions for {user}"))
}

#[test]
fn no_password_is_committed() {
    let definitions = committed_definitions().unwrap();
    for user in entries(&definitions, "users") {
        assert_eq!(
            user["password_hash"], "",
            "{}: the committed policy carries a password hash; render it instead",
            user["name"]
        );
    }
}

#[test]
fn every_event_type_has_exactly_one_publisher_its_domain_owner() {
    let definitions = committed_definitions().unwrap();
    let topic: Vec<(String, Regex)> = entries(&definitions, "topic_permissions")
        .iter()
        .filter(|t| t["exchange"] == "arcade.events")
        .map(|t| (t["user"].as_str().unwrap().to_string(), regex(&t["write"])))
        .collect();
    // Every user but the operator is limited by a topic permission (none means all allowed).
    for user in policy_users(&definitions) {
        if user != "arcade-admin" {
            assert!(
                topic.iter().any(|(u, _)| *u == user),
                "{user} has no topic permission on arcade.events, so it may publish any type"
            );
        }
    }
    let events: Vec<_> = all_types()
        .into_iter()
        .filter(|t| t.kind == MessageKind::Event)
        .collect();
    assert!(events.len() > 20, "the catalog lists its event types");
    for event in events {
        let mut writers: Vec<&str> = topic
            .iter()
            .filter(|(_, write)| write.is_match(event.name))
            .map(|(user, _)| user.as_str())
            .collect();
        writers.sort_unstable();
        let owner = publisher_of(event.name)
            .unwrap_or_else(|| panic!("{}: no publisher for this domain in ops", event.name));
        // The console is a Strata Relay client too: it publishes the sessions played on its
        // `/puzzle/play` page, as the game's devices do.
        let mut expected = vec![owner];
        if event.name == "game.session.completed.v2" {
            expected.push("console");
        }
        expected.sort_unstable();
        assert_eq!(writers, expected, "who may publish {}", event.name);
    }
}

#[test]
fn each_service_reads_only_its_own_queue() {
    let definitions = committed_definitions().unwrap();
    // Nobody but the operator reads the dead letters, nor configures a shared exchange.
    let others = [
        "race.team.red",
        "referee.t2",
        "arcade.events.x",
        "arcade.dead",
    ];
    for (user, own) in SERVICE_QUEUES {
        let read = regex(&permission(&definitions, user)["read"]);
        assert!(read.is_match(own), "{user} cannot read its own queue {own}");
        for (other_user, queue) in SERVICE_QUEUES {
            if other_user != user {
                assert!(
                    !read.is_match(queue),
                    "{user} may read {other_user}'s {queue}"
                );
            }
        }
        for queue in others {
            // The race master declares the team queues with their dead-letter exchange, which
            // RabbitMQ allows only to a user that may read the queue; what it could read there
            // is its own questions and public facts.
            let own_kind = (user == "referee" && queue == "referee.t2")
                || (user == "race-master" && queue == "race.team.red");
            if !own_kind {
                assert!(!read.is_match(queue), "{user} may read {queue}");
            }
        }
    }
    for (user, _) in SERVICE_QUEUES {
        let configure = regex(&permission(&definitions, user)["configure"]);
        for shared in ["arcade.events", "arcade.commands", "arcade.dead"] {
            assert!(!configure.is_match(shared), "{user} may configure {shared}");
        }
        let write = regex(&permission(&definitions, user)["write"]);
        assert!(
            !write.is_match("amq.default"),
            "{user} may use the default exchange"
        );
    }
    for producer in ["strata-relay", "activity-feed"] {
        let permission = permission(&definitions, producer);
        assert_eq!(permission["read"], "^$", "{producer} reads nothing");
        assert_eq!(permission["configure"], "^$", "{producer} declares nothing");
    }
}

/// A partitioned service's instances (`arcade run bingo --partition K/N`) declare, bind and
/// consume their partition queues `S.pK` and their consistent-hash exchange `S.partitions`,
/// bind it to the commands sent to `S`, and bind their own queue to the commands sent to it:
/// their service's partitions, nobody else's.
#[test]
fn partition_instances_may_use_their_own_service_partitions_only() {
    let definitions = committed_definitions().unwrap();
    let services = ["bingo", "puzzle-telemetry"];
    for user in services {
        let permission = permission(&definitions, user);
        let own = [
            format!("{user}.p0"),
            format!("{user}.p1"),
            format!("{user}.p12"),
            format!("{user}.partitions"),
        ];
        for access in ["configure", "write", "read"] {
            let allowed = regex(&permission[access]);
            for name in &own {
                assert!(allowed.is_match(name), "{user} may not {access} {name}");
            }
            let other = services.iter().find(|s| **s != user).unwrap();
            for name in [
                format!("{other}.p0"),
                format!("{other}.partitions"),
                format!("{user}.px"),
                format!("{user}.p0.x"),
                format!("{user}.partitions.x"),
                "race-master.p0".to_string(),
            ] {
                assert!(!allowed.is_match(&name), "{user} may {access} {name}");
            }
        }
        let commands = entries(&definitions, "topic_permissions")
            .iter()
            .find(|t| t["user"] == user && t["exchange"] == "arcade.commands")
            .unwrap_or_else(|| panic!("{user} has no topic permission on arcade.commands"));
        let read = regex(&commands["read"]);
        for key in [user.to_string(), format!("{user}.p0"), format!("{user}.p7")] {
            assert!(
                read.is_match(&key),
                "{user} may not bind {key} on the commands"
            );
        }
        assert!(!read.is_match(&format!("{user}.partitions")));
        assert_eq!(commands["write"], "^$", "{user} sends no commands");
    }
}

#[test]
fn service_queues_dead_letter_to_arcade_dead() {
    let definitions = committed_definitions().unwrap();
    let exchange = |name: &str| {
        entries(&definitions, "exchanges")
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no exchange {name}"))
    };
    assert_eq!(exchange("arcade.events")["type"], "topic");
    assert_eq!(exchange("arcade.events")["durable"], true);
    assert_eq!(exchange("arcade.dead")["durable"], true);
    // By the policy (tests/policies.rs checks it covers every service queue): an operator can
    // change it in place.
    let policies = entries(&definitions, "policies");
    for queue in entries(&definitions, "queues") {
        assert_eq!(queue["durable"], true, "{} is durable", queue["name"]);
        // A stream dead-letters nothing: it keeps every message for every reader.
        if queue["name"] != "arcade.dead" && queue["arguments"]["x-queue-type"] != "stream" {
            let name = queue["name"].as_str().unwrap();
            // A queue takes the matching policy of highest priority.
            let policy = policies
                .iter()
                .filter(|p| {
                    Regex::new(p["pattern"].as_str().unwrap())
                        .unwrap()
                        .is_match(name)
                })
                .max_by_key(|p| p["priority"].as_i64())
                .unwrap_or_else(|| panic!("no policy for {name}"));
            if name == "console" {
                // Bounded, its oldest dropped (not into arcade.dead, which they would fill): the
                // runtime publishes the console's own dead letters there (tests/policies.rs).
                assert!(policy["definition"]["dead-letter-exchange"].is_null());
                assert_eq!(policy["definition"]["overflow"], "drop-head");
            } else {
                assert_eq!(
                    policy["definition"]["dead-letter-exchange"], "arcade.dead",
                    "{name} dead-letters to arcade.dead"
                );
            }
        }
    }
    assert!(
        entries(&definitions, "bindings")
            .iter()
            .any(|b| b["source"] == "arcade.dead" && b["destination"] == "arcade.dead"),
        "the dead-letter queue is bound to the dead-letter exchange"
    );
}

#[test]
fn the_history_stream_keeps_every_event_and_only_the_operator_reads_it() {
    let definitions = committed_definitions().unwrap();
    let history = entries(&definitions, "queues")
        .iter()
        .find(|q| q["name"] == HISTORY_STREAM)
        .unwrap_or_else(|| panic!("no queue {HISTORY_STREAM}"));
    // What `arcade run` declares, so that its declaration is equivalent to the broker's.
    let declared = HistoryConfig::default();
    let arguments = &history["arguments"];
    assert_eq!(arguments["x-queue-type"], "stream");
    assert_eq!(arguments["x-max-length-bytes"], declared.max_bytes);
    assert_eq!(arguments["x-max-age"], declared.max_age.as_str());
    assert_eq!(
        declared.arguments().inner().len(),
        arguments.as_object().unwrap().len(),
        "the same arguments as the transport declares: {arguments}"
    );
    assert!(
        entries(&definitions, "bindings").iter().any(|b| {
            b["source"] == "arcade.events"
                && b["destination"] == HISTORY_STREAM
                && b["destination_type"] == "queue"
                && b["routing_key"] == "#"
        }),
        "the history stream is bound to every event"
    );
    let operator = permission(&definitions, "arcade-admin");
    assert!(regex(&operator["read"]).is_match(HISTORY_STREAM));
    for user in policy_users(&definitions) {
        if user == "arcade-admin" {
            continue;
        }
        let permission = permission(&definitions, &user);
        for what in ["read", "configure", "write"] {
            assert!(
                !regex(&permission[what]).is_match(HISTORY_STREAM),
                "{user} may {what} {HISTORY_STREAM}: only the operator reads it, events reach it through arcade.events"
            );
        }
    }
}

/// The console publishes one event type, the Strata Relay sessions played on its pages
/// (`game.session.completed.v2`), and sends commands to the services whose organiser actions
/// it offers (the referees, bingo, the race master), under its own user `console`, which the services trust as
/// an operator principal (it checks the operator's or the player's token first): nothing else.
#[test]
fn the_console_sends_commands_to_the_referees_bingo_and_the_race_master_only() {
    let definitions = committed_definitions().unwrap();
    let topic = |exchange: &str| {
        entries(&definitions, "topic_permissions")
            .iter()
            .find(|t| t["user"] == "console" && t["exchange"] == exchange)
            .unwrap_or_else(|| panic!("console has no topic permission on {exchange}"))
    };
    assert_eq!(
        topic("arcade.events")["write"],
        "^game\\.session\\.completed\\.v2$",
        "it publishes the sessions played on its pages, no other event"
    );
    let commands = regex(&topic("arcade.commands")["write"]);
    for queue in ["referee.t1", "bingo", "race-master"] {
        assert!(commands.is_match(queue), "console may command {queue}");
    }
    for queue in [
        "puzzle-telemetry",
        "console",
        "race.team.red",
        "bingo.x",
        "race-master.x",
        "arcade.dead",
    ] {
        assert!(!commands.is_match(queue), "console may not command {queue}");
    }
    assert!(
        arcade_contracts::principal::DEFAULT_OPERATORS.contains(&"console"),
        "the services trust the console's user as an operator by default"
    );
}

fn render(args: &[&str], passwords: bool) -> std::process::Output {
    let definitions = committed_definitions().unwrap();
    let mut command = Command::new("python3");
    command
        .arg(ops_dir().join("rabbitmq/render-definitions.py"))
        .args(args);
    for user in policy_users(&definitions) {
        command.env_remove(password_variable(&user));
        if passwords {
            command.env(password_variable(&user), format!("pw-{user}"));
        }
    }
    command.output().expect("python3 runs the renderer")
}

#[test]
fn the_renderer_fills_every_hash_and_renames_vhost_and_users() {
    if !python_for_test("the_renderer_fills_every_hash", &[]) {
        return;
    }
    let output = render(&["--vhost", "v1", "--user-prefix", "t-", "-o", "-"], true);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rendered: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(rendered["vhosts"], serde_json::json!([{"name": "v1"}]));
    let committed = committed_definitions().unwrap();
    let names: Vec<String> = policy_users(&committed)
        .iter()
        .map(|u| format!("t-{u}"))
        .collect();
    assert_eq!(policy_users(&rendered), names);
    for user in entries(&rendered, "users") {
        let hash = user["password_hash"].as_str().unwrap();
        // base64 of 4 salt bytes + a 32-byte SHA-256: 36 bytes, 48 characters.
        assert_eq!(hash.len(), 48, "{}: {hash}", user["name"]);
        assert_eq!(user["hashing_algorithm"], "rabbit_password_hashing_sha256");
    }
    for section in [
        "permissions",
        "topic_permissions",
        "queues",
        "exchanges",
        "bindings",
    ] {
        assert_eq!(
            entries(&rendered, section).len(),
            entries(&committed, section).len()
        );
        for item in entries(&rendered, section) {
            assert_eq!(item["vhost"], "v1", "{section}: {item}");
            if let Some(user) = item["user"].as_str() {
                assert!(user.starts_with("t-"), "{section}: {user}");
            }
        }
    }
}

#[test]
fn the_renderer_refuses_a_missing_password_naming_its_variable() {
    if !python_for_test("the_renderer_refuses_a_missing_password", &[]) {
        return;
    }
    let output = render(&["-o", "-"], false);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing rendered");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ARCADE_BROKER_PASSWORD_ARCADE_ADMIN"),
        "the error names the variable: {stderr}"
    );
}

#[test]
fn the_renderer_gives_each_team_and_table_a_user_of_its_own() {
    if !python_for_test("the_renderer_gives_each_team_and_table", &[]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = dir.path().join(".env");
    let env_arg = env.display().to_string();
    let output = render(
        &[
            "--teams",
            "red,blue",
            "--tables",
            "t1",
            "--env-file",
            &env_arg,
            "--generate-missing",
            "-o",
            "-",
        ],
        true,
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rendered: Value = serde_json::from_slice(&output.stdout).unwrap();
    let users = policy_users(&rendered);
    for user in ["race-team-red", "race-team-blue", "referee-t1"] {
        assert!(users.contains(&user.to_string()), "{user} in {users:?}");
    }
    assert!(
        !users.contains(&"referee".to_string()),
        "the all-tables referee is replaced"
    );
    let red = permission(&rendered, "race-team-red");
    let read = regex(&red["read"]);
    assert!(read.is_match("race.team.red") && !read.is_match("race.team.blue"));
    let write = regex(&red["write"]);
    assert!(
        !write.is_match("amq.default"),
        "no default exchange for a team"
    );
    let referee = permission(&rendered, "referee-t1");
    let read = regex(&referee["read"]);
    assert!(read.is_match("referee.t1") && !read.is_match("referee.t2"));
    let topics: Vec<&Value> = entries(&rendered, "topic_permissions")
        .iter()
        .filter(|t| t["user"] == "race-team-red")
        .collect();
    let commands = topics
        .iter()
        .find(|t| t["exchange"] == "arcade.commands")
        .expect("a topic permission on arcade.commands");
    let to = regex(&commands["write"]);
    assert!(to.is_match("race-master") && !to.is_match("bingo"));
    let events = topics
        .iter()
        .find(|t| t["exchange"] == "arcade.events")
        .unwrap();
    assert_eq!(events["write"], "^$", "a team publishes no event");
    // It binds its own queue to the facts a team sees, one type at a time, and to no other
    // event: not `race.#`, not a fact that tells a rival's money or points.
    let binds = regex(&events["read"]);
    for event in all_types().iter().filter(|t| t.kind == MessageKind::Event) {
        assert_eq!(
            binds.is_match(event.name),
            TEAM_FACTS.contains(&event.name),
            "race-team-red binding {}",
            event.name
        );
    }
    for key in ["race.#", "race.*.v1", "#", "race.started.v1.x"] {
        assert!(!binds.is_match(key), "race-team-red binding {key}");
    }
    let team_read = regex(&red["read"]);
    assert!(team_read.is_match("arcade.events") && team_read.is_match("arcade.commands"));
    let own = regex(&commands["read"]);
    assert!(own.is_match("race.team.red") && !own.is_match("race.team.blue"));
    assert!(!own.is_match("race-master") && !own.is_match("#"));
}
