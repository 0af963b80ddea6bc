//! Speed of the referee's hot paths on the source's "bar" rules: evaluating the tie-break win
//! rule, and the full ball-lock (IBR) decision after a goal (target: under 1 µs).

use std::hint::black_box;

use arcade_referee::domain::referee::{BallSeen, StartGame};
use arcade_referee::{BallKind, Input, Phase, Play, Referee, Rules, Score, Side, TableState};
use criterion::{Criterion, criterion_group, criterion_main};

fn bar_rules() -> serde_json::Value {
    serde_json::from_str(include_str!("../examples/bar.rules.json")).expect("the example is JSON")
}

fn benches(c: &mut Criterion) {
    let document = bar_rules();
    let rules = Rules::parse(&document).expect("the bar rules are valid");
    let tie_break = rules
        .conditions(Phase::TieBreak)
        .expect("the bar rules have a tie-break");

    c.bench_function("parse the bar rules document", |b| {
        b.iter(|| Rules::parse(black_box(&document)))
    });

    c.bench_function("tie-break win rule, one side", |b| {
        b.iter(|| {
            rules.holds(
                black_box(tie_break.win),
                black_box(Side::Hinge),
                black_box(Score::new(6, 5)),
            )
        })
    });

    // 4–4 in default: a hinge goal makes 5–4, which starts the tie-break.
    let before = Play {
        score: Score::new(4, 4),
        phase: Phase::Default,
        balls: 8,
        winner: None,
    };
    let after = before.after_ball(&rules, Side::Hinge, BallKind::Goal);
    assert_eq!(after.phase, Phase::TieBreak);

    c.bench_function("IBR decision after a goal (4 simulated balls)", |b| {
        b.iter(|| black_box(&after).ibr(&rules))
    });

    // Goal and inout differ in strength here, so all four next balls are simulated.
    let aggressive: serde_json::Value =
        serde_json::from_str(include_str!("../examples/aggressive.rules.json")).expect("JSON");
    let aggressive = Rules::parse(&aggressive).expect("the aggressive rules are valid");
    let close = Play {
        score: Score::new(4, 3),
        phase: Phase::Default,
        balls: 7,
        winner: None,
    };
    c.bench_function(
        "IBR decision, four distinct balls (aggressive rules)",
        |b| b.iter(|| black_box(&close).ibr(&aggressive)),
    );

    c.bench_function("goal then IBR decision", |b| {
        b.iter(|| {
            let next = black_box(&before).after_ball(&rules, Side::Hinge, BallKind::Goal);
            next.ibr(&rules)
        })
    });

    let referee = Referee::new("t1");
    let mut state = TableState::default();
    let start = StartGame {
        table_id: "t1".into(),
        game_id: "g1".into(),
        rules: document.clone(),
        players: None,
        at_ms: 0,
    };
    for event in referee
        .decide(&state, &Input::Start(start))
        .expect("the game starts")
    {
        Referee::evolve(&mut state, &event);
    }
    let ball = Input::Ball(BallSeen {
        side: Side::Hinge,
        kind: BallKind::Goal,
        at_ms: 1_000,
    });
    c.bench_function("decide a ball (events included)", |b| {
        b.iter(|| referee.decide(black_box(&state), black_box(&ball)))
    });
}

criterion_group!(referee, benches);
criterion_main!(referee);
