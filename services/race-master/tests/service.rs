//! The race master as a service on the runtime, over the embedded bus in a temporary directory:
//! commands in, the right facts out (questions to the team's queue); a restart keeps the race;
//! a duplicate delivery changes nothing; bad payloads end in the dead letters with a reason;
//! deadlines on the runtime's clock (paused in a test) give the rule book's penalties; and a
//! whole race with built-in cars answering over the bus ends as the in-process simulation.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::race::{
    self as c, Answer, BudgetQuery, CarRegister, CarRegistered, DecisionMade, DecisionRequested,
    DuelResolved, PenaltyGiven, PenaltyReason, Question, RACE_MASTER_QUEUE, RaceFinished,
    RaceStart, RegistrationProblem, RegistrationRejected, StandingsUpdated,
};
use arcade_race_master::bots::{CarBot, Strategy};
use arcade_race_master::car::{CarProgram, run_on_bus, team_subscription};
use arcade_race_master::domain::StartSettings;
use arcade_race_master::mapping::RaceMessage;
use arcade_race_master::service::RaceService;
use arcade_race_master::simulation::{SimulationConfig, simulate_with};
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::clock::Clock;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::wire::HEADER_DEAD_REASON;
use arcade_runtime::{
    Bus, Destination, HostHandle, Publication, Runtime, SubscriptionSpec, WireMessage,
};
use serde::de::DeserializeOwned;

const SEED: u64 = 2026;

struct World {
    dir: tempfile::TempDir,
    bus: Arc<EmbeddedBus>,
    runtime: Runtime,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus.clone(), dir.path()).with_sender("operator");
    World { dir, bus, runtime }
}

/// A temporary subscription to every race fact.
async fn tap(runtime: &Runtime) -> Box<dyn Consumer> {
    let queue = format!("tap.{}", uuid_like());
    runtime
        .bus()
        .subscribe(&SubscriptionSpec::temporary(queue, vec!["race.#".into()]))
        .await
        .unwrap()
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("t{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// The next message of type `M` on `consumer` matching `pick` (others are skipped).
async fn next_of<M: Message + DeserializeOwned>(
    consumer: &mut Box<dyn Consumer>,
    pick: impl Fn(&M) -> bool,
) -> M {
    loop {
        let delivery = consumer.next().await.unwrap();
        let envelope = lossy_envelope(&delivery.message);
        delivery.ack().await.unwrap();
        if envelope.message_type == M::TYPE {
            let message: M = serde_json::from_value(envelope.payload).unwrap();
            if pick(&message) {
                return message;
            }
        }
    }
}

async fn send<M: Message>(runtime: &Runtime, message: &M) {
    runtime
        .send(M::TYPE, serde_json::to_value(message).unwrap(), "test")
        .await
        .unwrap();
}

fn register(team: &str, car: &str, pilots: u32, engines: u32, weapons: u32) -> CarRegister {
    CarRegister {
        team: team.into(),
        car: car.into(),
        modules: c::Modules {
            pilots,
            engines,
            weapons,
        },
    }
}

/// A start of `turns` turns where the random event is always "nothing" (so the only question
/// of a turn is the state check).
fn start(turns: u32, decision_timeout_ms: u64) -> RaceStart {
    RaceStart {
        turns: Some(turns),
        duration_ms: None,
        turn_interval_ms: Some(10),
        decision_timeout_ms: Some(decision_timeout_ms),
        distribution: Some(c::EventDistribution {
            nothing: 100,
            pirates: 0,
            garage: 0,
            wreck: 0,
            mine_field: 0,
        }),
    }
}

async fn stop(service: HostHandle<RaceService>) {
    service.stop(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_become_facts_and_questions_go_to_the_team_queue() {
    let w = world();
    let service = w.runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&w.runtime).await;
    let mut team = w
        .runtime
        .bus()
        .subscribe(&team_subscription("red"))
        .await
        .unwrap();

    send(&w.runtime, &register("red", "red-1", 1, 4, 3)).await;
    let registered: CarRegistered = within("the registration", next_of(&mut facts, |_| true)).await;
    assert_eq!(registered.car, "red-1");
    assert_eq!(registered.price, 1 + 8 + 6);
    assert_eq!(registered.budget_left, 100 - 15);

    send(&w.runtime, &register("red", "red-2", 0, 5, 5)).await;
    let refused: RegistrationRejected = within("the refusal", next_of(&mut facts, |_| true)).await;
    assert_eq!(refused.car, "red-2");
    assert_eq!(refused.problem, RegistrationProblem::NoPilot);

    send(&w.runtime, &start(1, 600_000)).await;
    let started: c::RaceStarted = within("the start", next_of(&mut facts, |_| true)).await;
    assert_eq!(started.turns, Some(1));
    let turn: c::TurnStarted = within("turn 1", next_of(&mut facts, |_| true)).await;
    assert_eq!(turn.turn, 1);
    assert_eq!(turn.joining, vec!["red-1".to_string()]);
    let moved: c::CarMoved = within("the move", next_of(&mut facts, |_| true)).await;
    assert_eq!((moved.from, moved.to), (0, 4), "one square per engine");

    // The car moved, so it is asked (at least) to report its state, on its team's queue only.
    let asked: DecisionRequested = within(
        "a question to red",
        next_of(&mut team, |r: &DecisionRequested| {
            r.question == Question::ReportState
        }),
    )
    .await;
    assert_eq!((asked.team.as_str(), asked.car.as_str()), ("red", "red-1"));
    assert!(asked.deadline_ms > started.at_ms);
    stop(service).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_from_the_same_data_keeps_the_race() {
    let w = world();
    let service = w.runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&w.runtime).await;
    send(&w.runtime, &register("blue", "blue-1", 2, 4, 4)).await;
    send(&w.runtime, &register("blue", "blue-2", 1, 2, 2)).await;
    within("two registrations", async {
        next_of(&mut facts, |r: &CarRegistered| r.car == "blue-2").await
    })
    .await;
    stop(service).await;
    drop(facts);

    // Same data directory, same seed: the log is replayed.
    let runtime =
        arcade_runtime::testkit::runtime(w.bus.clone(), w.dir.path()).with_sender("operator");
    let service = runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&runtime).await;
    let mut team = runtime
        .bus()
        .subscribe(&team_subscription("blue"))
        .await
        .unwrap();
    send(
        &runtime,
        &BudgetQuery {
            team: "blue".into(),
        },
    )
    .await;
    // The answer goes to the team's queue only.
    let budget: c::BudgetReported = within("the budget", next_of(&mut team, |_| true)).await;
    assert_eq!(budget.budget, 100 - (2 + 8 + 8) - (1 + 4 + 4));
    assert_eq!(
        budget.cars,
        vec!["blue-1".to_string(), "blue-2".to_string()]
    );
    send(&runtime, &register("blue", "blue-1", 1, 1, 1)).await;
    let refused: RegistrationRejected = within("the refusal", next_of(&mut facts, |_| true)).await;
    assert_eq!(refused.problem, RegistrationProblem::NameTaken);
    stop(service).await;
}

fn wire(message_type: &str, id: &str, body: Vec<u8>) -> Publication {
    Publication {
        destination: Destination::Queue(RACE_MASTER_QUEUE.into()),
        message: WireMessage {
            message_type: Some(message_type.into()),
            message_id: Some(id.into()),
            // The operator's: the master applies team commands only from the team or an operator.
            user_id: Some("operator".into()),
            body,
            ..Default::default()
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_delivery_changes_nothing() {
    let w = world();
    let service = w.runtime.start(RaceService::new(SEED)).unwrap();
    let mut team = w
        .runtime
        .bus()
        .subscribe(&team_subscription("gold"))
        .await
        .unwrap();
    let body = serde_json::to_vec(&register("gold", "gold-1", 1, 5, 4)).unwrap();
    let once = wire(CarRegister::TYPE, "register-gold-1", body);
    w.bus.publish(&[once.clone(), once.clone()]).await.unwrap();
    w.bus.publish(&[once]).await.unwrap();
    send(
        &w.runtime,
        &BudgetQuery {
            team: "gold".into(),
        },
    )
    .await;
    let budget: c::BudgetReported = within("the budget", next_of(&mut team, |_| true)).await;
    assert_eq!(budget.cars, vec!["gold-1".to_string()]);
    assert_eq!(budget.budget, 100 - (1 + 10 + 8), "paid once");
    // One registration, the team's account after it and one budget report: nothing else.
    assert_eq!(service.store().end() - 1, 3);
    assert_eq!(
        w.runtime.metrics().snapshot()["race-master"].deduplicated,
        2
    );
    stop(service).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_payloads_end_in_the_dead_letters_with_their_reason() {
    let w = world();
    let service = w.runtime.start(RaceService::new(SEED)).unwrap();
    let cases: Vec<(Publication, &str)> = vec![
        (
            wire(
                CarRegister::TYPE,
                "no-modules",
                br#"{"team":"red","car":"red-1"}"#.to_vec(),
            ),
            "modules",
        ),
        (
            wire(
                CarRegister::TYPE,
                "bad-name",
                br#"{"team":"Red Team","car":"red-1","modules":{"pilots":1,"engines":1,"weapons":1}}"#
                    .to_vec(),
            ),
            "/team",
        ),
        (
            wire(DecisionMade::TYPE, "not-json", b"{answer: yes".to_vec()),
            "body is not JSON",
        ),
        (
            wire(
                c::CarMoved::TYPE,
                "a-fact",
                serde_json::to_vec(&c::CarMoved::example()).unwrap(),
            ),
            "is a fact, not a command to the race master",
        ),
    ];
    let expected: Vec<&str> = cases.iter().map(|(_, reason)| *reason).collect();
    let publications: Vec<Publication> = cases.into_iter().map(|(p, _)| p).collect();
    let mut dead = w
        .bus
        .subscribe(&SubscriptionSpec::durable(
            w.bus.dead_letter_queue(),
            Vec::new(),
        ))
        .await
        .unwrap();
    w.bus.publish(&publications).await.unwrap();
    for reason in expected {
        let letter = within("a dead letter", dead.next()).await.unwrap();
        let why = letter
            .message
            .headers
            .get(HEADER_DEAD_REASON)
            .expect("a reason")
            .clone();
        assert!(why.contains(reason), "{why:?} should say {reason:?}");
        letter.ack().await.unwrap();
    }
    assert_eq!(service.store().end() - 1, 0, "nothing was decided");
    stop(service).await;
}

/// Deadlines run on the runtime's clock: with tokio's time paused, a car that never answers is
/// closed as unanswered exactly at its deadline, a minute of race time in no time at all.
#[tokio::test(start_paused = true)]
async fn a_car_that_does_not_answer_is_penalised_at_the_deadline() {
    const T0: u64 = 1_800_000_000_000;
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = arcade_runtime::testkit::runtime(bus.clone(), dir.path())
        .with_clock(Clock::starting_at(T0))
        .with_sender("operator");
    let service = runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&runtime).await;
    let mut team = runtime
        .bus()
        .subscribe(&team_subscription("mute"))
        .await
        .unwrap();
    send(&runtime, &register("mute", "mute-1", 1, 3, 2)).await;
    send(&runtime, &start(1, 60_000)).await;
    let asked: DecisionRequested = next_of(&mut team, |r: &DecisionRequested| {
        r.question == Question::ReportState
    })
    .await;
    assert_eq!(asked.deadline_ms, T0 + 60_000, "the race's answer time");
    let penalty: PenaltyGiven = next_of(&mut facts, |p: &PenaltyGiven| {
        p.decision_id == asked.decision_id
    })
    .await;
    assert_eq!(penalty.reason, PenaltyReason::NoAnswer);
    assert_eq!(penalty.turns_to_miss, 1);
    assert_eq!(
        penalty.correction,
        Some(c::CarState {
            square: 3,
            modules: c::Modules {
                pilots: 1,
                engines: 3,
                weapons: 2
            }
        }),
        "the state check's penalty comes with the right state"
    );
    assert!(runtime.clock().now_ms() >= asked.deadline_ms);
    let finished: RaceFinished = next_of(&mut facts, |_| true).await;
    assert_eq!(finished.turn, 1);
    assert!(finished.at_ms >= asked.deadline_ms);
    stop(service).await;
}

/// A car that misreports its state misses a turn and is sent the right state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_state_report_is_penalised_and_corrected() {
    let w = world();
    let service = w.runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&w.runtime).await;
    let mut team = w
        .runtime
        .bus()
        .subscribe(&team_subscription("liar"))
        .await
        .unwrap();
    send(&w.runtime, &register("liar", "liar-1", 1, 3, 2)).await;
    send(&w.runtime, &start(1, 600_000)).await;
    // Answer whatever comes; misreport the square when asked for the state.
    let report = loop {
        let request: DecisionRequested = within("a question", next_of(&mut team, |_| true)).await;
        let answer = match &request.question {
            Question::ShouldFight(_) => Answer::ShouldFight { fight: false },
            Question::CrossMineField => Answer::CrossMineField { cross: false },
            Question::ExploreWreck => Answer::ExploreWreck { explore: false },
            Question::BuyAtGarage(_) => Answer::BuyAtGarage { module: None },
            Question::DuelAnswer(q) => Answer::DuelAnswer {
                cards: q.cards.first().copied().into_iter().collect(),
            },
            Question::ReportState => Answer::ReportState {
                square: 250,
                modules: c::Modules {
                    pilots: 1,
                    engines: 3,
                    weapons: 2,
                },
            },
        };
        let is_report = request.question == Question::ReportState;
        send(
            &w.runtime,
            &DecisionMade {
                decision_id: request.decision_id,
                team: request.team.clone(),
                car: request.car.clone(),
                answer,
            },
        )
        .await;
        if is_report {
            break request;
        }
    };
    let penalty: PenaltyGiven = within(
        "the penalty",
        next_of(&mut facts, |p: &PenaltyGiven| {
            p.decision_id == report.decision_id
        }),
    )
    .await;
    assert_eq!(penalty.reason, PenaltyReason::WrongState);
    assert_eq!(penalty.turns_to_miss, 1);
    let right = penalty.correction.expect("the right state");
    assert_ne!(right.square, 250);
    stop(service).await;
}

/// Two teams of built-in cars (cautious and aggressive, as `arcade race simulate` names them)
/// play a whole race over the bus, each as its own program on its own queue. The race ends with
/// the `race.finished.v1` of the in-process simulation of the same seed and settings — the same
/// standings, bonuses, turn and seed; only `atMs` differs, since the bus race runs on the wall
/// clock and the simulation on time as values from 0. Every turn's standings and every duel's
/// transcript match too.
///
/// Why two teams: with two teams the master's decisions do not depend on how the programs'
/// answers interleave. Each program answers its own queue in order, so of two combats paired
/// in one turn the first always gets both its answers first, and its duel takes the lower duel
/// id (the id seeds the duel's deck) as in the simulation; everything else is keyed by turn,
/// car or duel id. With three teams or more, combats between other pairs of teams can complete
/// in either order, so duel ids (and decks) follow the timing of messages; and the `random`
/// strategy (the third team's) draws from one stream in the order its questions arrive. Those
/// races are sound (see the demo) but not byte-equal to the simulation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_race_with_bot_cars_over_the_bus_ends_as_the_simulation() {
    const SEED: u64 = 7;
    const CARS: usize = 3;
    const TURNS: u32 = 12;
    let settings = StartSettings {
        turn_interval_ms: Some(20),
        decision_timeout_ms: Some(60_000),
        ..StartSettings::default()
    };
    let config = SimulationConfig {
        seed: SEED,
        teams: 2,
        cars: CARS as u32,
        turns: TURNS,
        record: true,
    };
    let reference = simulate_with(&config, settings);
    let expected = reference.finished.clone().expect("the simulation finishes");

    let w = world();
    let service = w.runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&w.runtime).await;
    let strategies = [Strategy::Cautious, Strategy::Aggressive];
    let mut programs = Vec::new();
    for (number, strategy) in strategies.into_iter().enumerate() {
        let team = format!("team-{}", number + 1);
        let bot = CarBot::new(&team, strategy, SEED, number as u32);
        let runtime = w.runtime.clone();
        programs.push(tokio::spawn(async move {
            run_on_bus(&runtime, CarProgram::new(bot), CARS, None, |_| {}).await
        }));
        // Registration order is car order (it keys the dice): team 1's cars first, as in the
        // simulation.
        let last = format!("{team}-{CARS}");
        within("the registrations", async {
            next_of(&mut facts, |r: &CarRegistered| r.car == last).await
        })
        .await;
    }
    send(
        &w.runtime,
        &RaceStart {
            turns: Some(TURNS),
            duration_ms: None,
            turn_interval_ms: settings.turn_interval_ms,
            decision_timeout_ms: settings.decision_timeout_ms,
            distribution: None,
        },
    )
    .await;

    let mut standings = Vec::new();
    let mut duels = Vec::new();
    let finished = within("the end of the race", async {
        loop {
            let delivery = facts.next().await.unwrap();
            let envelope = lossy_envelope(&delivery.message);
            delivery.ack().await.unwrap();
            match RaceMessage::read(&envelope.message_type, &envelope.payload).unwrap() {
                Some(RaceMessage::StandingsUpdated(s)) => standings.push(s),
                Some(RaceMessage::DuelResolved(d)) => duels.push(d),
                Some(RaceMessage::PenaltyGiven(p)) => {
                    panic!("truthful cars answering in time are never penalised: {p:?}")
                }
                Some(RaceMessage::RaceFinished(f)) => break f,
                _ => {}
            }
        }
    })
    .await;
    for program in programs {
        let seen = within("the car program", program).await.unwrap().unwrap();
        assert_eq!(seen, finished, "each program saw the end");
    }

    assert_eq!(
        RaceFinished {
            at_ms: expected.at_ms,
            ..finished.clone()
        },
        expected
    );
    let reference_standings: Vec<StandingsUpdated> = reference
        .messages
        .iter()
        .filter_map(|m| match m {
            RaceMessage::StandingsUpdated(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(standings, reference_standings);
    let mut reference_duels: Vec<DuelResolved> = reference
        .messages
        .iter()
        .filter_map(|m| match m {
            RaceMessage::DuelResolved(d) => Some(d.clone()),
            _ => None,
        })
        .collect();
    reference_duels.sort_by_key(|d| d.duel_id);
    duels.sort_by_key(|d| d.duel_id);
    assert!(!duels.is_empty(), "the race had duels to compare");
    assert_eq!(duels, reference_duels);
    stop(service).await;
}

/// Three teams, one of them random: the race is not byte-equal to the simulation (see above),
/// but what must hold does. It ends after its turns with every team ranked; truthful cars that
/// answer in time are never penalised; every program sees the same end; and the master
/// restarted from its log reports each team's budget and points (end bonuses included) as
/// the final standings do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_teams_racing_over_the_bus_end_soundly() {
    const SEED: u64 = 31;
    const TURNS: u32 = 10;
    let w = world();
    let service = w.runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&w.runtime).await;
    let teams = [
        ("amber", Strategy::Cautious),
        ("navy", Strategy::Aggressive),
        ("olive", Strategy::Random),
    ];
    let mut programs = Vec::new();
    for (number, (team, strategy)) in teams.into_iter().enumerate() {
        let bot = CarBot::new(team, strategy, SEED, number as u32);
        let runtime = w.runtime.clone();
        programs.push(tokio::spawn(async move {
            run_on_bus(&runtime, CarProgram::new(bot), 3, None, |_| {}).await
        }));
    }
    let mut registered = 0;
    while registered < 9 {
        within(
            "the registrations",
            next_of(&mut facts, |_: &CarRegistered| true),
        )
        .await;
        registered += 1;
    }
    send(
        &w.runtime,
        &RaceStart {
            turns: Some(TURNS),
            duration_ms: None,
            turn_interval_ms: Some(5),
            decision_timeout_ms: Some(60_000),
            distribution: None,
        },
    )
    .await;
    let mut duels = 0;
    let finished = within("the end of the race", async {
        loop {
            let delivery = facts.next().await.unwrap();
            let envelope = lossy_envelope(&delivery.message);
            delivery.ack().await.unwrap();
            match RaceMessage::read(&envelope.message_type, &envelope.payload).unwrap() {
                Some(RaceMessage::DuelResolved(_)) => duels += 1,
                Some(RaceMessage::PenaltyGiven(p)) => {
                    panic!("truthful cars answering in time are never penalised: {p:?}")
                }
                Some(RaceMessage::RaceFinished(f)) => break f,
                _ => {}
            }
        }
    })
    .await;
    assert!(duels > 0, "the race had duels");
    assert_eq!(finished.turn, TURNS);
    assert_eq!(finished.reason, c::FinishReason::Turns);
    assert_eq!(finished.seed, SEED.to_string());
    let mut ranked: Vec<&str> = finished.standings.iter().map(|s| s.team.as_str()).collect();
    ranked.sort_unstable();
    assert_eq!(ranked, vec!["amber", "navy", "olive"]);
    for program in programs {
        let seen = within("a car program", program).await.unwrap().unwrap();
        assert_eq!(seen, finished);
    }
    stop(service).await;
    drop(facts);

    let runtime =
        arcade_runtime::testkit::runtime(w.bus.clone(), w.dir.path()).with_sender("operator");
    let service = runtime.start(RaceService::new(SEED)).unwrap();
    for standing in &finished.standings {
        // The answer goes to the team's own queue only.
        let mut facts = runtime
            .bus()
            .subscribe(&team_subscription(&standing.team))
            .await
            .unwrap();
        send(
            &runtime,
            &BudgetQuery {
                team: standing.team.clone(),
            },
        )
        .await;
        let budget: c::BudgetReported = within(
            "a budget",
            next_of(&mut facts, |b: &c::BudgetReported| b.team == standing.team),
        )
        .await;
        assert_eq!(budget.budget, standing.budget, "team {}", standing.team);
        // After the finish the report counts the end bonuses, as the standings do.
        assert_eq!(budget.points, standing.points, "team {}", standing.team);
    }
    stop(service).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_query_over_the_bus_names_a_race_over_or_asks_for_the_current_one() {
    let w = world();
    let service = w.runtime.start(RaceService::new(SEED)).unwrap();
    let mut facts = tap(&w.runtime).await;
    let mut team = w
        .runtime
        .bus()
        .subscribe(&team_subscription("red"))
        .await
        .unwrap();
    // Race 1: red-1 never answers, so the race of one turn ends at the deadline.
    send(&w.runtime, &register("red", "red-1", 1, 4, 3)).await;
    send(&w.runtime, &start(1, 50)).await;
    let finished: RaceFinished = within("race 1's finish", next_of(&mut facts, |_| true)).await;
    // Race 2, with no car of red's.
    send(&w.runtime, &start(1, 600_000)).await;
    within(
        "race 2's start",
        next_of(&mut facts, |_: &c::RaceStarted| true),
    )
    .await;

    let query = |race_id| c::StateQuery {
        team: "red".into(),
        race_id,
    };
    send(&w.runtime, &query(Some(1))).await;
    let over: c::StateReported = within(
        "race 1's report",
        next_of(&mut team, |r: &c::StateReported| r.race_id.is_some()),
    )
    .await;
    assert_eq!(over.race_id, Some(1));
    assert_eq!(over.turn, 1);
    assert_eq!(over.budget, 100 - (1 + 8 + 6));
    assert_eq!(over.cars.len(), 1);
    assert_eq!(over.cars[0].car, "red-1");
    let line = finished.standings.iter().find(|l| l.team == "red").unwrap();
    assert_eq!(over.points, line.points, "its points at the finish");

    send(&w.runtime, &query(None)).await;
    let now: c::StateReported = within(
        "race 2's report",
        next_of(&mut team, |r: &c::StateReported| r.race_id.is_none()),
    )
    .await;
    assert_eq!((now.budget, now.points), (100, 0));
    assert!(now.cars.is_empty(), "{now:?}");

    // A race the data dir never held: refused, to the team.
    send(&w.runtime, &query(Some(9))).await;
    let refused: c::CommandRejected = within("the refusal", next_of(&mut facts, |_| true)).await;
    assert_eq!(refused.command, "race.state.query.v1");
    assert!(refused.reason.contains("race 9"), "{refused:?}");
    stop(service).await;
}
