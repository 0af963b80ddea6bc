//! Speed targets of the bingo domain:
//! - dealing 100,000 cards of a 5×5 grid from a 75-square pool, duplicate check included
//!   (`decide` and `evolve` of every deal): under 2 s in all;
//! - one call costs the same (within 2×) with 100 or 100,000 cards;
//! - a claim (re-deriving the layout from the secret, reading the called squares, finding the
//!   pattern): under 20 µs.
//!
//! Run: `cargo bench -p arcade-bingo --bench bingo -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::Duration;

use arcade_bingo::domain::{Action, Command, GameSpec, PatternKind, SquareSpec, TickMode};
use arcade_bingo::{Bingo, Input, Secret, State};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const NOW: u64 = 1_767_225_600_000;

fn bingo() -> Bingo {
    Bingo::new(&Secret::new(*b"bench-secret-of-arcade-bingo").unwrap())
}

fn cmd(action: Action) -> Input {
    Input::Command(Command {
        request_id: None,
        game_id: "g".into(),
        action,
    })
}

fn step(bingo: &Bingo, state: &mut State, input: &Input) {
    let events = bingo.decide(state, input, NOW).expect("accepted");
    for event in &events {
        Bingo::evolve(state, event);
    }
}

fn classic_game() -> Input {
    cmd(Action::Open(GameSpec {
        tick_mode: TickMode::Called,
        grid_size: 5,
        free_centre: None,
        squares: (1..=75)
            .map(|id| SquareSpec {
                id,
                label: id.to_string(),
                trigger: None,
            })
            .collect(),
        patterns: vec![
            PatternKind::Line,
            PatternKind::FourCorners,
            PatternKind::FullCard,
        ],
        sources: Vec::new(),
    }))
}

/// A classic game with `cards` players dealt and the first `calls` squares called.
fn game_with(bingo: &Bingo, cards: u32, calls: u32) -> State {
    let mut state = State::default();
    step(bingo, &mut state, &classic_game());
    for p in 0..cards {
        step(
            bingo,
            &mut state,
            &cmd(Action::Deal {
                player: format!("player-{p}"),
            }),
        );
    }
    for square in 1..=calls {
        step(bingo, &mut state, &cmd(Action::Call { square }));
    }
    state
}

fn dealing(c: &mut Criterion) {
    let bingo = bingo();
    let players: Vec<Input> = (0..100_000)
        .map(|p| {
            cmd(Action::Deal {
                player: format!("player-{p}"),
            })
        })
        .collect();
    let mut group = c.benchmark_group("deal");
    group.sample_size(10);
    group.bench_function("100000 cards 5x5 pool 75", |b| {
        b.iter(|| {
            let mut state = State::default();
            step(&bingo, &mut state, &classic_game());
            for deal in &players {
                step(&bingo, &mut state, deal);
            }
            black_box(state)
        })
    });
    group.finish();
}

fn calling(c: &mut Criterion) {
    let bingo = bingo();
    let mut group = c.benchmark_group("call");
    for cards in [100, 100_000] {
        let state = game_with(&bingo, cards, 30);
        // Square 31 is not called yet: deciding it is a first call, announced.
        let call = cmd(Action::Call { square: 31 });
        assert_eq!(bingo.decide(&state, &call, NOW).unwrap().len(), 1);
        group.bench_with_input(BenchmarkId::new("cards", cards), &state, |b, state| {
            b.iter(|| bingo.decide(black_box(state), black_box(&call), NOW))
        });
    }
    group.finish();
}

fn claiming(c: &mut Criterion) {
    let bingo = bingo();
    let mut group = c.benchmark_group("claim");
    for cards in [1_000, 100_000] {
        // 60 of 75 squares called: most cards complete a line.
        let state = game_with(&bingo, cards, 60);
        let game = state.game("g").unwrap();
        let claim_of = |serial: u32| {
            let player = game.card(serial).unwrap().player.unwrap();
            cmd(Action::Claim { serial, player })
        };
        // A card the claim makes win: CardWon and the answer.
        let claim = game
            .serials()
            .map(claim_of)
            .find(|claim| bingo.decide(&state, claim, NOW).unwrap().len() == 2)
            .expect("a complete card");
        group.bench_with_input(
            BenchmarkId::new("winning, cards", cards),
            &state,
            |b, state| b.iter(|| bingo.decide(black_box(state), black_box(&claim), NOW)),
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = dealing, calling, claiming
}
criterion_main!(benches);
