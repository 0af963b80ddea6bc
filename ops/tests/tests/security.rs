//! The broker itself enforces `ops/rabbitmq/definitions.json`: loaded (rendered with test
//! passwords) into a random vhost of the test broker, a service's user cannot publish another
//! service's message types on `arcade.events` nor read another service's queue, and can do all
//! of its own. Reads `ARCADE_AMQP_URL`; skipped when unset unless `ARCADE_REQUIRE_BROKER=1`.

use arcade_contracts::catalog::{MessageKind, all_types};
use arcade_ops_tests::deployment::Deployment;
use arcade_ops_tests::probe::{Probe, Verdict};
use arcade_ops_tests::settings::{Broker, python_for_test};
use arcade_ops_tests::{PUBLISHERS, SERVICE_QUEUES, publisher_of};
use lapin::ExchangeKind;

/// Each service user, its queue and the bindings its `spec()` declares (bingo's configured
/// activity mapping may add any type: its topic read permission is open).
const SPECS: [(&str, &str, &[&str]); 4] = [
    ("referee", "referee.t1", &[]),
    (
        "bingo",
        "bingo",
        &[
            "activity.recorded.v1",
            "activity.undone.v1",
            "game.session.completed.v1",
        ],
    ),
    ("race-master", "race-master", &[]),
    (
        "puzzle-telemetry",
        "puzzle-telemetry",
        &["game.session.completed.v1", "game.session.completed.v2"],
    ),
];

const EVENTS: &str = "arcade.events";
const COMMANDS: &str = "arcade.commands";
const DEAD: &str = "arcade.dead";
const HISTORY: &str = "arcade.history";

async fn probe(deployment: &Deployment, user: &str) -> Probe {
    let connection = deployment
        .connect(user)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    Probe::new(connection, user)
}

fn assert_refused<T: std::fmt::Debug>(verdict: &Verdict<T>, what: &str, mentions: &str) {
    match verdict {
        Verdict::Refused(reason) => assert!(
            reason.contains(mentions),
            "{what}: refused, but for another reason: {reason}"
        ),
        Verdict::Allowed(v) => panic!("{what}: the broker allowed it ({v:?})"),
    }
}

#[tokio::test]
async fn the_referee_cannot_publish_bingo_card_won_but_can_publish_a_goal() {
    let Some(broker) = Broker::for_test("the_referee_cannot_publish_bingo_card_won") else {
        return;
    };
    if !python_for_test("the_referee_cannot_publish_bingo_card_won", &[]) {
        return;
    }
    Deployment::with(&broker, &[], async |deployment| {
        let referee = probe(deployment, "referee").await;
        let refused = referee
            .publish(EVENTS, "bingo.card.won.v1", br#"{"gameId":"g1"}"#)
            .await
            .unwrap();
        assert_refused(
            &refused,
            "referee publishing bingo.card.won.v1",
            "bingo.card.won.v1",
        );
        let allowed = referee
            .publish(EVENTS, "table.goal.scored.v1", br#"{"tableId":"t1"}"#)
            .await
            .unwrap();
        assert_eq!(allowed, Verdict::Allowed(()));
    })
    .await;
}

#[tokio::test]
async fn every_event_type_is_published_by_its_owner_only() {
    let Some(broker) = Broker::for_test("every_event_type_is_published_by_its_owner_only") else {
        return;
    };
    if !python_for_test("every_event_type_is_published_by_its_owner_only", &[]) {
        return;
    }
    Deployment::with(&broker, &[], async |deployment| {
        // The operator binds a witness queue to every event, to count what really got through.
        let admin = probe(deployment, "arcade-admin").await;
        let witness = "witness";
        assert_eq!(
            admin.declare_queue(witness, None).await.unwrap(),
            Verdict::Allowed(())
        );
        assert_eq!(
            admin.bind(witness, EVENTS, "#").await.unwrap(),
            Verdict::Allowed(())
        );

        let mut users = Vec::new();
        for (_, user) in PUBLISHERS {
            users.push((user, probe(deployment, user).await));
        }
        let mut published = Vec::new();
        for event in all_types().iter().filter(|t| t.kind == MessageKind::Event) {
            let owner = publisher_of(event.name).expect("every domain has a publisher");
            for (user, probe) in &users {
                let verdict = probe
                    .publish(EVENTS, event.name, event.name.as_bytes())
                    .await
                    .unwrap();
                if user == &owner {
                    assert_eq!(
                        verdict,
                        Verdict::Allowed(()),
                        "{user} publishing {}",
                        event.name
                    );
                    published.push(event.name.to_string());
                } else {
                    assert_refused(
                        &verdict,
                        &format!("{user} publishing {}", event.name),
                        event.name,
                    );
                }
            }
        }
        // Exactly the owners' messages reached the witness, each once: every publication was
        // confirmed or refused before the next, so the queue holds all there will ever be.
        let depth = admin.message_count(witness).await.unwrap();
        assert_eq!(
            depth as usize,
            published.len(),
            "a refused publication got through"
        );
        let mut received = Vec::new();
        for _ in 0..published.len() {
            match admin.consume_one(witness).await.unwrap() {
                Verdict::Allowed(body) => received.push(String::from_utf8(body).unwrap()),
                Verdict::Refused(r) => panic!("the operator cannot read the witness: {r}"),
            }
        }
        received.sort();
        published.sort();
        assert_eq!(received, published);
    })
    .await;
}

#[tokio::test]
async fn each_service_reads_only_its_own_queue() {
    let Some(broker) = Broker::for_test("each_service_reads_only_its_own_queue") else {
        return;
    };
    if !python_for_test("each_service_reads_only_its_own_queue", &[]) {
        return;
    }
    Deployment::with(&broker, &["red", "blue"], async |deployment| {
        let admin = probe(deployment, "arcade-admin").await;
        let mut services = Vec::new();
        for (user, queue) in SERVICE_QUEUES {
            let service = probe(deployment, user).await;
            // Each service declares its own queue as the transport does (the referee's is not
            // in the definitions: it is named after the table).
            let declared = service.declare_queue(queue, Some(DEAD)).await.unwrap();
            assert_eq!(declared, Verdict::Allowed(()), "{user} declaring {queue}");
            services.push((user, queue, service));
        }
        for (user, _, service) in &services {
            for (other, queue, _) in &services {
                if other != user {
                    let verdict = service.may_consume(queue).await.unwrap();
                    assert_refused(&verdict, &format!("{user} consuming {queue}"), queue);
                }
            }
        }
        // ... and each reads its own: a command the operator sends reaches it.
        for (user, queue, service) in &services {
            let body = format!("{{\"to\":\"{user}\"}}");
            let sent = admin.publish("", queue, body.as_bytes()).await.unwrap();
            assert_eq!(sent, Verdict::Allowed(()));
            let got = service.consume_one(queue).await.unwrap();
            assert_eq!(
                got,
                Verdict::Allowed(body.into_bytes()),
                "{user} reading {queue}"
            );
        }
        // A car team reads its own decision requests, never another team's.
        let red = probe(deployment, "race-team-red").await;
        let blue = probe(deployment, "race-team-blue").await;
        for (team, probe) in [("red", &red), ("blue", &blue)] {
            let queue = format!("race.team.{team}");
            assert_eq!(
                probe.declare_queue(&queue, None).await.unwrap(),
                Verdict::Allowed(())
            );
        }
        let refused = red.may_consume("race.team.blue").await.unwrap();
        assert_refused(
            &refused,
            "team red consuming team blue's queue",
            "race.team.blue",
        );
        let race_master = &services[2].2;
        // The race master declares a team's queue and binds it to the race facts a team may
        // see, one type at a time, before the team's first registration goes out; nothing
        // wider (`race.#` would give a team its rivals' money).
        let green = "race.team.green";
        let verdict = race_master.declare_queue(green, Some(DEAD)).await.unwrap();
        assert_eq!(
            verdict,
            Verdict::Allowed(()),
            "the race master declaring {green}"
        );
        let verdict = race_master
            .bind(green, EVENTS, "race.finished.v1")
            .await
            .unwrap();
        assert_eq!(
            verdict,
            Verdict::Allowed(()),
            "the race master binding {green}"
        );
        let verdict = race_master.bind(green, EVENTS, "race.#").await.unwrap();
        assert_refused(
            &verdict,
            "the race master binding a team queue to race.#",
            "race.#",
        );
        let verdict = race_master.bind(green, EVENTS, "#").await.unwrap();
        assert_refused(&verdict, "the race master binding a team queue to #", "#");
        // Commands go through the commands exchange, each queue bound under its own name.
        let verdict = race_master
            .bind("race.team.red", COMMANDS, "race.team.red")
            .await
            .unwrap();
        assert_eq!(verdict, Verdict::Allowed(()), "binding race.team.red");
        let request = br#"{"team":"red"}"#;
        let sent = race_master
            .publish(COMMANDS, "race.team.red", request)
            .await
            .unwrap();
        assert_eq!(
            sent,
            Verdict::Allowed(()),
            "the race master sends a decision request"
        );
        assert_eq!(
            red.consume_one("race.team.red").await.unwrap(),
            Verdict::Allowed(request.to_vec())
        );
    })
    .await;
}

#[tokio::test]
async fn services_declare_their_own_topology_and_no_one_elses() {
    let Some(broker) = Broker::for_test("services_declare_their_own_topology_and_no_one_elses")
    else {
        return;
    };
    if !python_for_test("services_declare_their_own_topology_and_no_one_elses", &[]) {
        return;
    }
    Deployment::with(&broker, &[], async |deployment| {
        for (user, queue, bindings) in SPECS {
            let service = probe(deployment, user).await;
            // The shared topology is the definitions': a service may neither declare (and so
            // delete) the exchanges nor touch the dead-letter queue.
            for (exchange, kind) in [
                (EVENTS, ExchangeKind::Topic),
                (COMMANDS, ExchangeKind::Topic),
                (DEAD, ExchangeKind::Fanout),
            ] {
                let verdict = service.declare_exchange(exchange, kind).await.unwrap();
                assert_refused(&verdict, &format!("{user} declaring {exchange}"), exchange);
            }
            let verdict = service.declare_queue(DEAD, None).await.unwrap();
            assert_refused(&verdict, &format!("{user} declaring {DEAD}"), DEAD);
            let verdict = service.may_consume(DEAD).await.unwrap();
            assert_refused(&verdict, &format!("{user} reading the dead letters"), DEAD);
            // The history stream is the operator's to read: events reach it through
            // arcade.events, which is all a service needs.
            let verdict = service.may_consume(HISTORY).await.unwrap();
            assert_refused(&verdict, &format!("{user} reading the history"), HISTORY);
            // What the transport declares at every start: its queue (dead-lettering to
            // arcade.dead), bound under its own name to the commands exchange, and its bindings.
            let verdict = service.declare_queue(queue, Some(DEAD)).await.unwrap();
            assert_eq!(verdict, Verdict::Allowed(()), "{user} declaring {queue}");
            let verdict = service.bind(queue, COMMANDS, queue).await.unwrap();
            assert_eq!(
                verdict,
                Verdict::Allowed(()),
                "{user} binding {queue} for commands"
            );
            let verdict = service.bind(queue, EVENTS, "#").await.unwrap();
            assert_refused(&verdict, &format!("{user} binding {queue} to #"), "#");
            for binding in bindings {
                let verdict = service.bind(queue, EVENTS, binding).await.unwrap();
                assert_eq!(
                    verdict,
                    Verdict::Allowed(()),
                    "{user} binding {queue} to {binding}"
                );
            }
            // A poison message is republished to the dead letters with its original key.
            let verdict = service.publish(DEAD, "some.poison.v1", b"{").await.unwrap();
            assert_eq!(verdict, Verdict::Allowed(()), "{user} dead-lettering");
            // Another service's queue: neither declared nor bound.
            let (other_user, other) = SERVICE_QUEUES
                .iter()
                .find(|(u, _)| *u != user)
                .copied()
                .unwrap();
            let verdict = service.declare_queue(other, Some(DEAD)).await.unwrap();
            assert_refused(
                &verdict,
                &format!("{user} declaring {other_user}'s {other}"),
                other,
            );
            let verdict = service.bind(other, EVENTS, "#").await.unwrap();
            assert_refused(&verdict, &format!("{user} binding {other}"), other);
        }
        // The puzzle telemetry binds the sessions it consumes, and nothing else.
        let puzzle = probe(deployment, "puzzle-telemetry").await;
        let own = "puzzle-telemetry";
        for version in ["v1", "v2"] {
            let allowed = puzzle
                .bind(own, EVENTS, &format!("game.session.completed.{version}"))
                .await
                .unwrap();
            assert_eq!(allowed, Verdict::Allowed(()), "{version}");
        }
        let refused = puzzle.bind(own, EVENTS, "bingo.#").await.unwrap();
        assert_refused(&refused, "puzzle-telemetry binding bingo.#", "bingo.#");
        // Commands go through the commands exchange, where topic permissions name the queues
        // a user may send to; the default exchange, which reaches any queue, is the operator's.
        let referee = probe(deployment, "referee").await;
        let refused = referee.publish("", "bingo", b"{}").await.unwrap();
        assert_refused(
            &refused,
            "referee sending a command to bingo",
            "amq.default",
        );
        let refused = referee.publish(COMMANDS, "bingo", b"{}").await.unwrap();
        assert_refused(&refused, "referee sending a command to bingo", COMMANDS);
    })
    .await;
}

/// The attacks of issue 17 against the broker policy, each refused by the broker itself (on
/// the earlier policy each went through): a team user closing a bingo game through the
/// default exchange, or through the commands exchange; a team or producer user planting a
/// fake dead letter; a service user reading the dead letters. What the team may do, it does.
#[tokio::test]
async fn a_team_user_reaches_the_race_master_only_and_plants_no_dead_letter() {
    let test = "a_team_user_reaches_the_race_master_only";
    let Some(broker) = Broker::for_test(test) else {
        return;
    };
    if !python_for_test(test, &[]) {
        return;
    }
    Deployment::with(&broker, &["red"], async |deployment| {
        let admin = probe(deployment, "arcade-admin").await;
        for queue in ["bingo", "race-master"] {
            let bound = admin.bind(queue, COMMANDS, queue).await.unwrap();
            assert_eq!(
                bound,
                Verdict::Allowed(()),
                "the definitions' binding of {queue}"
            );
        }
        let red = probe(deployment, "race-team-red").await;
        let close = br#"{"gameId":"g1"}"#;
        let refused = red.publish("", "bingo", close).await.unwrap();
        assert_refused(
            &refused,
            "team red closing a bingo game (default exchange)",
            "amq.default",
        );
        let refused = red.publish(COMMANDS, "bingo", close).await.unwrap();
        assert_refused(
            &refused,
            "team red closing a bingo game (commands)",
            "bingo",
        );
        // Its answers reach the race master.
        let answer = br#"{"team":"red"}"#;
        let sent = red.publish(COMMANDS, "race-master", answer).await.unwrap();
        assert_eq!(
            sent,
            Verdict::Allowed(()),
            "team red answering the race master"
        );
        // No one but the operator and the consuming services writes the dead letters, and no
        // one but the operator reads them.
        let fake = br#"{"gameId":"g1","player":"mallory"}"#;
        let refused = red.publish("", DEAD, fake).await.unwrap();
        assert_refused(
            &refused,
            "team red planting a dead letter (default exchange)",
            "amq.default",
        );
        let refused = red
            .publish(DEAD, "bingo.card.claim.v1", fake)
            .await
            .unwrap();
        assert_refused(&refused, "team red planting a dead letter", DEAD);
        let feed = probe(deployment, "activity-feed").await;
        let refused = feed
            .publish(DEAD, "bingo.card.claim.v1", fake)
            .await
            .unwrap();
        assert_refused(&refused, "activity-feed planting a dead letter", DEAD);
        let refused = feed.publish(COMMANDS, "bingo", fake).await.unwrap();
        assert_refused(&refused, "activity-feed sending a command", COMMANDS);
        let bingo = probe(deployment, "bingo").await;
        let refused = bingo.may_consume(DEAD).await.unwrap();
        assert_refused(&refused, "bingo reading the dead letters", DEAD);
        assert_eq!(admin.may_consume(DEAD).await.unwrap(), Verdict::Allowed(()));
    })
    .await;
}

/// A partition instance (`arcade run bingo --partition K/N`) connects as its service's user and
/// declares its service's partitions with the transport's own code — the consistent-hash
/// exchange, its bindings from the events and commands exchanges, every partition queue bound to
/// it — and the broker lets it; another service's partitions it may not declare.
#[tokio::test]
async fn partition_instances_declare_their_own_partitions_and_no_one_elses() {
    use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};
    use arcade_runtime::bus::partition::{Partition, Partitioned};
    use arcade_runtime::{Bus, SubscriptionSpec};

    let name = "partition_instances_declare_their_own_partitions";
    let Some(broker) = Broker::for_test(name) else {
        return;
    };
    if !python_for_test(name, &[]) {
        return;
    }
    let spec = |service: &str, k: u32, shared: &[&str], keyed: &[&str]| {
        let partition = Partition::new(k, 2).unwrap();
        let mut spec = SubscriptionSpec::durable(
            partition.instance(service),
            shared.iter().map(|b| b.to_string()).collect(),
        );
        spec.partition = Some(Partitioned {
            service: service.to_string(),
            partition,
            keyed: keyed.iter().map(|b| b.to_string()).collect(),
        });
        spec
    };
    Deployment::with(&broker, &[], async |deployment| {
        let sessions = ["game.session.completed.v1", "game.session.completed.v2"];
        let activity = ["activity.recorded.v1", "activity.undone.v1"];
        for (user, shared, keyed, other) in [
            ("bingo", &activity[..], &[][..], "puzzle-telemetry"),
            ("puzzle-telemetry", &[][..], &sessions[..], "bingo"),
        ] {
            let mut config = AmqpConfig::new(deployment.amqp_url(user).unwrap());
            config.history = None;
            let bus = AmqpBus::new(config).unwrap();
            bus.connect_now().await.unwrap();
            for k in 0..2 {
                bus.declare(&spec(user, k, shared, keyed))
                    .await
                    .unwrap_or_else(|e| panic!("{user} declaring partition {k}/2: {e}"));
            }
            let refused = bus
                .declare(&spec(other, 0, &[], &[]))
                .await
                .expect_err("another service's partitions");
            let text = refused.to_string();
            assert!(
                text.contains("ACCESS_REFUSED") && text.contains(other),
                "{user} declaring {other}'s partitions: {text}"
            );
            bus.close().await;
        }
    })
    .await;
}
