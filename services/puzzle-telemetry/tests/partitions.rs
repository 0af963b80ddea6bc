//! Partitioned telemetry: the statistics of N instances, each fed a share of the sessions,
//! merge into exactly the statistics of one instance fed them all (counters summed, duration
//! sketches bucket by bucket, so even the percentiles are the same), and they travel as
//! `puzzle.partition.updated.v1`, which rebuilds them exactly and refuses, naming the field, a
//! message whose counters do not hold together. A partitioned instance publishes that message
//! with each `puzzle.stats.updated.v1`; an unpartitioned one does not.

use arcade_contracts::Message;
use arcade_contracts::game::SessionCompletion;
use arcade_contracts::puzzle::{PartitionUpdated, StatsUpdated};
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::telemetry::{
    DurationSketch, Event, Input, Partition, PuzzleTelemetry, Stats, TelemetryState,
};
use arcade_puzzle_telemetry::mapping::PuzzleMessage;
use arcade_puzzle_telemetry::service::TelemetryService;
use arcade_runtime::Service;
use proptest::prelude::*;

/// One session of a random history and the instance it goes to.
#[derive(Debug, Clone)]
struct Sent {
    kind: u8,
    /// Replaces the played duration, to spread the sketch over its whole range.
    duration_ms: Option<u64>,
    to_first: bool,
}

fn sent() -> impl Strategy<Value = Sent> {
    (
        0u8..10,
        prop_oneof![
            3 => Just(None),
            1 => (0u64..16).prop_map(Some),
            1 => (0u64..10_000_000).prop_map(Some),
            1 => any::<u64>().prop_map(Some),
        ],
        any::<bool>(),
    )
        .prop_map(|(kind, duration_ms, to_first)| Sent {
            kind,
            duration_ms,
            to_first,
        })
}

/// The sessions of a history: v1, v2 and tampered v2 (flagged), some with odd stages.
fn sessions(seed: u64, history: &[Sent]) -> Vec<(SessionCompletion, bool)> {
    let mut simulator = Simulator::new(seed);
    history
        .iter()
        .map(|s| {
            let mut session: SessionCompletion = match s.kind {
                0..=3 => simulator.session(None).into(),
                4..=7 => simulator.play(None).v2("test 1").into(),
                8 => {
                    let mut v2 = simulator.play(None).v2("test 1");
                    v2.turns += 1;
                    v2.into()
                }
                _ => {
                    let mut v1 = simulator.session(None);
                    v1.stage = 9;
                    v1.into()
                }
            };
            if let Some(ms) = s.duration_ms {
                session.duration_ms = ms;
            }
            (session, s.to_first)
        })
        .collect()
}

/// The state of one instance fed `sessions`, deciding one at a time as the host does.
fn fed<'a>(
    decider: PuzzleTelemetry,
    sessions: impl IntoIterator<Item = &'a SessionCompletion>,
) -> TelemetryState {
    let mut state = decider.initial_state();
    for (i, session) in sessions.into_iter().enumerate() {
        let input = Input::Session(session.clone());
        let Ok(events) = decider.decide(&state, &input, 1_000_000 + i as u64);
        for event in &events {
            PuzzleTelemetry::evolve(&mut state, event);
        }
    }
    state
}

/// A partition's statistics to JSON and back, then rebuilt.
fn through_json(stats: &Stats, partition: Partition) -> Stats {
    let json = serde_json::to_value(stats.to_partition(partition, 42)).unwrap();
    let update: PartitionUpdated = serde_json::from_value(json).unwrap();
    let (back, rebuilt) = Stats::from_partition(&update).unwrap();
    assert_eq!(back, partition);
    rebuilt
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn two_halves_merged_equal_one_instance_fed_everything(
        seed in any::<u64>(),
        history in prop::collection::vec(sent(), 0..120),
    ) {
        let sessions = sessions(seed, &history);
        let decider = PuzzleTelemetry::publishing_every(5_000);
        let all = fed(decider, sessions.iter().map(|(s, _)| s));
        let first = fed(decider, sessions.iter().filter(|(_, f)| *f).map(|(s, _)| s));
        let second = fed(decider, sessions.iter().filter(|(_, f)| !*f).map(|(s, _)| s));

        let mut merged = first.stats().clone();
        merged.merge(second.stats());
        prop_assert_eq!(&merged, all.stats());
        prop_assert_eq!(merged.to_contract(7), all.stats().to_contract(7));

        // The same through the update, merged in the other order.
        let (p0, p1) = (Partition::new(0, 2).unwrap(), Partition::new(1, 2).unwrap());
        let rebuilt_first = through_json(first.stats(), p0);
        prop_assert_eq!(&rebuilt_first, first.stats());
        let mut merged = through_json(second.stats(), p1);
        merged.merge(&rebuilt_first);
        prop_assert_eq!(&merged, all.stats());
    }

    #[test]
    fn merged_sketches_equal_one_sketch_of_every_duration(
        a in prop::collection::vec(any::<u64>(), 0..200),
        b in prop::collection::vec(0u64..100_000, 0..200),
    ) {
        let sketch = |values: &[u64]| {
            let mut sketch = DurationSketch::default();
            for &v in values {
                sketch.record(v);
            }
            sketch
        };
        let mut merged = sketch(&a);
        merged.merge(&sketch(&b));
        let all: Vec<u64> = a.iter().chain(&b).copied().collect();
        let one = sketch(&all);
        prop_assert_eq!(&merged, &one);
        for permille in [1, 500, 900, 990, 1000] {
            prop_assert_eq!(merged.percentile(permille), one.percentile(permille));
        }
    }
}

/// A change that breaks a partition message.
type Damage = Box<dyn FnOnce(&mut PartitionUpdated)>;

fn example() -> PartitionUpdated {
    PartitionUpdated::example()
}

/// The field a damaged copy of the example is refused for.
fn refused(damage: impl FnOnce(&mut PartitionUpdated)) -> (String, String) {
    let mut update = example();
    damage(&mut update);
    let error = Stats::from_partition(&update).expect_err("damaged, so refused");
    let text = error.to_string();
    assert!(
        text.starts_with("puzzle.partition.updated.v1 ") && text.contains(&error.field),
        "{text}"
    );
    (error.field, error.problem)
}

#[test]
fn the_contract_example_rebuilds_and_writes_back_the_same() {
    let update = example();
    let (partition, stats) = Stats::from_partition(&update).unwrap();
    assert_eq!((partition.index(), partition.count()), (1, 2));
    assert_eq!(stats.sessions(), 21);
    assert_eq!(stats.flagged(), 1);
    assert_eq!(
        stats.to_partition(partition, update.published_at_ms),
        update
    );
    // The statistics it gives are those of the sessions it describes.
    let published = stats.to_contract(update.published_at_ms);
    assert_eq!(published.stages[0].duration.max_ms, Some(12_000));
    assert_eq!(published.stages[0].duration.mean_ms, Some(12_000));
    assert_eq!(published.stages[0].win_rate, Some(5.0 / 7.0));
}

#[test]
fn a_partition_message_whose_counters_do_not_hold_together_is_refused_naming_the_field() {
    let cases: Vec<(&str, Damage)> = vec![
        ("partitions", Box::new(|w| w.partitions = 0)),
        ("partition", Box::new(|w| w.partition = 2)),
        ("stages", Box::new(|w| w.stages.truncate(4))),
        ("stages[1].stage", Box::new(|w| w.stages.swap(1, 2))),
        ("stages[0].sessions", Box::new(|w| w.stages[0].won += 1)),
        (
            "stages[0].turnsHistogram",
            Box::new(|w| w.stages[0].turns_histogram.push(0)),
        ),
        (
            "stages[0].turnsHistogram",
            Box::new(|w| w.stages[0].turns_histogram[1] += 1),
        ),
        (
            "stages[0].turnsTotal",
            Box::new(|w| w.stages[0].turns_total += 1),
        ),
        (
            "stages[0].wonTurnsTotal",
            Box::new(|w| w.stages[0].won_turns_total = w.stages[0].turns_total + 1),
        ),
        (
            "stages[0].verified",
            Box::new(|w| w.stages[0].verified = 99),
        ),
        (
            "stages[0].v2Sessions",
            Box::new(|w| w.stages[0].v2_sessions += 1),
        ),
        (
            "flagged",
            Box::new(|w| {
                w.stages[0].flagged = 2;
                w.stages[0].v1_sessions += 2;
            }),
        ),
        (
            "stages[2].durations.buckets[0]",
            Box::new(|w| w.stages[2].durations.buckets[0][0] = 976),
        ),
        (
            "stages[2].durations.buckets[1]",
            Box::new(|w| {
                let [bucket, count] = w.stages[2].durations.buckets[0];
                w.stages[2].durations.buckets = vec![[bucket, count - 1], [bucket, 1]];
            }),
        ),
        (
            "stages[2].durations.buckets[1]",
            Box::new(|w| {
                let [bucket, count] = w.stages[2].durations.buckets[0];
                w.stages[2].durations.buckets = vec![[bucket, count], [bucket + 1, 0]];
            }),
        ),
        (
            "stages[2].durations.buckets",
            Box::new(|w| w.stages[2].durations.buckets[0][1] += 1),
        ),
        (
            "stages[2].durations.total",
            Box::new(|w| {
                w.stages[2].durations.buckets[0][1] += 1;
                w.stages[2].durations.total += 1;
                w.stages[2].durations.sum_ms = (36_000 * 6).to_string();
            }),
        ),
        (
            "stages[2].durations.minMs",
            Box::new(|w| w.stages[2].durations.min_ms = Some(40_000)),
        ),
        (
            "stages[2].durations.minMs",
            Box::new(|w| w.stages[2].durations.min_ms = Some(100)),
        ),
        (
            "stages[2].durations.maxMs",
            Box::new(|w| w.stages[2].durations.max_ms = None),
        ),
        (
            "stages[2].durations.sumMs",
            Box::new(|w| w.stages[2].durations.sum_ms = "12e3".into()),
        ),
        (
            "stages[2].durations.sumMs",
            Box::new(|w| w.stages[2].durations.sum_ms = "+180000".into()),
        ),
        (
            "stages[2].durations.sumMs",
            Box::new(|w| w.stages[2].durations.sum_ms = "1".into()),
        ),
    ];
    for (field, damage) in cases {
        let (got, problem) = refused(damage);
        assert_eq!(got, field, "refused for {problem}");
        assert!(!problem.is_empty());
    }
}

#[test]
fn only_a_partitioned_instance_publishes_its_partition_with_its_statistics() {
    let session: SessionCompletion = Simulator::new(3).play(None).v2("test 1").into();
    let publish = |decider: PuzzleTelemetry| {
        let state = fed(decider, [&session]);
        let Ok(events) = decider.decide(&state, &Input::Tick, 2_000_000);
        let mut after = state.clone();
        for event in &events {
            PuzzleTelemetry::evolve(&mut after, event);
        }
        assert_eq!(after.last_published_ms(), Some(2_000_000));
        assert_eq!(
            decider.next_deadline(&after),
            None,
            "published, nothing pending"
        );
        (state, events)
    };

    let (_, events) = publish(PuzzleTelemetry::publishing_every(5_000));
    assert!(
        matches!(events.as_slice(), [Event::StatsPublished(_)]),
        "{events:?}"
    );

    let partition = Partition::new(1, 3).unwrap();
    let (state, events) = publish(PuzzleTelemetry::publishing_every(5_000).partitioned(partition));
    let [
        Event::StatsPublished(stats),
        Event::PartitionPublished(update),
    ] = events.as_slice()
    else {
        panic!("{events:?}")
    };
    assert_eq!(stats.published_at_ms, update.published_at_ms);
    assert_eq!((update.partition, update.partitions), (1, 3));
    let (_, rebuilt) = Stats::from_partition(update).unwrap();
    assert_eq!(&rebuilt, state.stats());

    // As the service: its own event, published under its type, and read back from its log.
    let service = TelemetryService::named("puzzle-telemetry.p1", 5_000).with_partition(1, 3);
    assert_eq!(service.partition(), Some(partition));
    let outbound = service.encode(&events[1]).unwrap();
    assert_eq!(outbound.message_type, PartitionUpdated::TYPE);
    let message = events[1].to_message();
    assert_eq!(message.message_type(), PartitionUpdated::TYPE);
    let back = PuzzleMessage::decode(PartitionUpdated::TYPE, &message.payload().unwrap()).unwrap();
    assert_eq!(Event::from(back), events[1]);
    assert_ne!(PartitionUpdated::TYPE, StatsUpdated::TYPE);
}

#[test]
fn a_partition_is_one_of_its_count() {
    assert!(Partition::new(0, 1).is_ok());
    for (index, count) in [(0, 0), (2, 2), (5, 3)] {
        let error = Partition::new(index, count).unwrap_err().to_string();
        assert!(
            error.contains(&format!("partition {index} of {count}")),
            "{error}"
        );
    }
}
