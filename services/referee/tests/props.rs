//! Property tests against the naive referee (tests/naive): random rules documents and random
//! scripts of balls and clock readings.

mod common;
mod naive;

use std::io::Write as _;

use arcade_referee::cli::{Command, run};
use arcade_referee::domain::referee::{BallSeen, StartGame};
use arcade_referee::mapping::TableEvent;
use arcade_referee::{BallKind, Event, IbrLock, Input, Phase, Referee, Rules, Side, TableState};
use arcade_runtime::testkit::Scenario;
use common::TableRules;
use naive::{Naive, NaiveState};
use proptest::prelude::*;
use serde_json::{Value, json};

fn int_operand() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i64..9).prop_map(|n| json!(n)),
        prop::sample::select(vec!["$score", "$other_score", "$score_delta", "$max_score"])
            .prop_map(|v| json!(v)),
    ]
}

/// A random boolean rule using every operator, with typical win rules ("N points with D
/// ahead", "ahead") mixed in so that games are often won.
fn rule() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        (1i64..8, 0i64..3).prop_map(|(n, d)| {
            json!({"$and": [{"$geq": ["$score", n]}, {"$geq": ["$score_delta", d]}]})
        }),
        Just(json!({"$gt": ["$score", "$other_score"]})),
        any::<bool>().prop_map(|b| json!(b)),
        (
            prop::sample::select(vec!["$gt", "$geq", "$lt", "$leq"]),
            int_operand(),
            int_operand()
        )
            .prop_map(|(op, a, b)| json!({op: [a, b]})),
        prop::collection::vec(int_operand(), 2..4).prop_map(|args| json!({"$eq": args})),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(|args| json!({"$and": args})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|args| json!({"$or": args})),
            prop::collection::vec(inner, 2..3).prop_map(|args| json!({"$eq": args})),
        ]
    })
}

fn pair() -> impl Strategy<Value = Value> {
    (-1i64..4, -2i64..2).prop_map(|(a, b)| json!([a, b]))
}

fn full_table() -> impl Strategy<Value = Value> {
    (pair(), pair(), pair(), pair()).prop_map(|(hg, hi, lg, li)| {
        json!({"hinge": {"goal": hg, "inout": hi}, "lock": {"goal": lg, "inout": li}})
    })
}

/// A phase table that may lack sides or kinds (they fall back to `default`).
fn partial_table() -> impl Strategy<Value = Value> {
    prop::collection::vec(prop::option::of(pair()), 4).prop_map(|entries| {
        let mut table = serde_json::Map::new();
        for (i, entry) in entries.into_iter().enumerate() {
            if let Some(pair) = entry {
                let side = naive::SIDES[i / 2];
                let kinds = table.entry(side).or_insert_with(|| json!({}));
                kinds[naive::KINDS[i % 2]] = pair;
            }
        }
        Value::Object(table)
    })
}

fn conditions(with_start: bool) -> impl Strategy<Value = Value> {
    (rule(), prop::option::of(rule()), prop::option::of(rule())).prop_map(
        move |(win, lose, start)| {
            let mut c = json!({"win_rule": win});
            if let Some(lose) = lose {
                c["lose_rule"] = lose;
            }
            if with_start {
                c["start_rule"] = start.unwrap_or(json!(true));
            }
            c
        },
    )
}

/// A random valid rules document: a tie-break always has its start rule, and the initial
/// score never already wins (both are refused at start).
fn document() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![0u64, 10]),
        0u64..3,
        (0i64..5, 0i64..5),
        prop::option::of((
            full_table(),
            prop::option::of(partial_table()),
            prop::option::of(partial_table()),
        )),
        conditions(false),
        prop::option::of(conditions(true)),
        prop::option::of(conditions(false)),
    )
        .prop_map(
            |(timeout_s, rehearsal, (h, l), strength, default, tie_break, timeout)| {
                let mut doc = json!({
                    "timeout_s": timeout_s,
                    "rehearsal_balls": rehearsal,
                    "initial_score": {"hinge": h, "lock": l},
                    "conditions": {"default": default}
                });
                if let Some((default, tie_break, timeout)) = strength {
                    doc["goal_strength"] = json!({"default": default});
                    if let Some(t) = tie_break {
                        doc["goal_strength"]["tie_break"] = t;
                    }
                    if let Some(t) = timeout {
                        doc["goal_strength"]["timeout"] = t;
                    }
                }
                if let Some(c) = tie_break {
                    doc["conditions"]["tie_break"] = c;
                }
                if let Some(c) = timeout {
                    doc["conditions"]["timeout"] = c;
                }
                doc
            },
        )
        .prop_filter("a game that can be started", |doc| {
            arcade_referee::Rules::parse(doc).is_ok()
        })
}

#[derive(Debug, Clone, Copy)]
enum Step {
    Ball(usize, usize),
    Clock(u64),
}

fn script() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        6 => (0usize..2, 0usize..2).prop_map(|(s, k)| Step::Ball(s, k)),
        1 => (0u64..4).prop_map(Step::Clock),
    ];
    // A clock never goes backwards (a script where it does is refused): each reading is the
    // latest so far plus the drawn step.
    prop::collection::vec(step, 0..30).prop_map(|steps| {
        let mut now = 0;
        steps
            .into_iter()
            .map(|step| match step {
                Step::Clock(s) => {
                    now += s;
                    Step::Clock(now)
                }
                ball => ball,
            })
            .collect()
    })
}

const SIDE: [Side; 2] = [Side::Hinge, Side::Lock];
const KIND: [BallKind; 2] = [BallKind::Goal, BallKind::Inout];

fn phase_name(phase: Phase) -> &'static str {
    phase.name()
}

/// Plays the script through the decider; after each step, yields the state and the naive one.
fn play_both(
    doc: &Value,
    steps: &[Step],
    mut check: impl FnMut(&TableState, &NaiveState, &[Event]),
) {
    let naive = Naive { doc };
    let mut table = Scenario::new(TableRules(Referee::new("t")));
    let start = StartGame {
        table_id: "t".into(),
        game_id: "g".into(),
        rules: doc.clone(),
        players: None,
        at_ms: 0,
    };
    table.run(Input::Start(start));
    let mut expected = naive.start();
    let mut clock_s = 0;
    for step in steps {
        let input = match *step {
            Step::Ball(s, k) => {
                expected = naive.ball(&expected, s, k);
                Input::Ball(BallSeen {
                    side: SIDE[s],
                    kind: KIND[k],
                    at_ms: clock_s * 1000,
                })
            }
            Step::Clock(s) => {
                clock_s = clock_s.max(s);
                expected = naive.clock(&expected, clock_s);
                Input::Tick {
                    now_ms: clock_s * 1000,
                }
            }
        };
        let events = table.run(input);
        check(table.state(), &expected, &events);
    }
}

fn locked(lock: IbrLock) -> bool {
    lock == IbrLock::Locked
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_ibr_decision_equals_brute_force_simulation(doc in document(), steps in script()) {
        Rules::parse(&doc).unwrap();
        play_both(&doc, &steps, |state, expected, _| {
            let play = state.game().unwrap().play();
            assert_eq!(
                [play.score.hinge as i64, play.score.lock as i64, play.balls as i64],
                [expected.scores[0], expected.scores[1], expected.balls as i64]
            );
            assert_eq!(phase_name(play.phase), expected.phase);
            assert_eq!(play.winner.map(|w| w as usize), expected.winner);
            let ibr = state.ibr().unwrap();
            assert_eq!([locked(ibr.hinge), locked(ibr.lock)], Naive { doc: &doc }.ibr(expected));
        });
    }

    #[test]
    fn a_side_never_wins_without_qualifying(doc in document(), steps in script()) {
        let naive = Naive { doc: &doc };
        play_both(&doc, &steps, |state, _, events| {
            for event in events {
                if let Event::GameFinished(m) = event {
                    let (winner, phase) = (&m.winner.expect("a game the script ends is won"), m.phase);
                    let scores = [m.score.hinge as i64, m.score.lock as i64];
                    let (w, other) = (*winner as usize, 1 - *winner as usize);
                    assert!(naive.qualifies(phase.name(), w, scores), "{winner} won without qualifying");
                    assert!(!naive.qualifies(phase.name(), other, scores), "both qualified, yet {winner} won");
                    assert_eq!(state.game().unwrap().play().winner, Some(*winner));
                }
            }
        });
    }

    #[test]
    fn state_rebuilds_from_the_wire_messages_alone(doc in document(), steps in script()) {
        let mut log = Vec::new();
        let mut live = TableState::default();
        play_both(&doc, &steps, |state, _, events| {
            log.extend(events.iter().map(TableEvent::from));
            live = state.clone();
        });
        // the start events are not in `log`: rebuild them the same way the live state got them
        let start = StartGame { table_id: "t".into(), game_id: "g".into(), rules: doc.clone(), players: None, at_ms: 0 };
        let started = Scenario::new(TableRules(Referee::new("t"))).when(Input::Start(start)).events();
        let replayed = started.iter().map(TableEvent::from).chain(log)
            .map(|message| Event::try_from(message).unwrap());
        let rebuilt = Scenario::given(TableRules(Referee::new("t")), replayed);
        if !steps.is_empty() {
            prop_assert_eq!(rebuilt.state(), &live);
        }
    }

    #[test]
    fn the_same_script_always_gives_the_same_output(doc in document(), steps in script()) {
        let dir = tempfile::tempdir().unwrap();
        let rules = dir.path().join("rules.json");
        std::fs::write(&rules, doc.to_string()).unwrap();
        let script = dir.path().join("script.jsonl");
        let mut file = std::fs::File::create(&script).unwrap();
        for step in &steps {
            let line = match *step {
                Step::Ball(s, k) => json!({"ball": {"side": naive::SIDES[s], "kind": naive::KINDS[k]}}),
                Step::Clock(s) => json!({"clock_s": s}),
            };
            writeln!(file, "{line}").unwrap();
        }
        let replay = || {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let code = run(Command::Replay { rules: rules.clone(), script: script.clone() }, &mut out, &mut err);
            (code, out, err)
        };
        let first = replay();
        prop_assert_eq!(first.0, 0);
        prop_assert_eq!(String::from_utf8(first.1.clone()).unwrap().lines().count(), steps.len());
        prop_assert_eq!(replay(), first);
    }

    #[test]
    fn any_json_is_parsed_or_refused_without_panicking(doc in arbitrary_json()) {
        if let Err(e) = Rules::parse(&doc) {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}

/// JSON shaped like rules documents, with random keys from the format and typos.
fn arbitrary_json() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "conditions",
        "default",
        "tie_break",
        "timeout",
        "win_rule",
        "lose_rule",
        "start_rule",
        "goal_strength",
        "hinge",
        "lock",
        "goal",
        "inout",
        "timeout_s",
        "$and",
        "$or",
        "$eq",
        "$geq",
        "$gte",
        "$score",
        "x",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        prop::sample::select(vec!["$score", "$max_score", "$nope", ""]).prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..4).prop_map(|entries| Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect()
            )),
        ]
    })
}
