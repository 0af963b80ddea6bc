//! A whole race in process: 8 teams × 5 built-in cars × 200 turns (target: under 1 s).

use std::hint::black_box;

use arcade_race_master::simulation::{SimulationConfig, simulate};
use criterion::{Criterion, criterion_group, criterion_main};

fn race(c: &mut Criterion) {
    let config = SimulationConfig {
        seed: 2024,
        teams: 8,
        cars: 5,
        turns: 200,
        record: false,
    };
    let sim = simulate(&config);
    assert_eq!(
        sim.state.turn, 200,
        "the benchmarked race plays its 200 turns"
    );
    let mut group = c.benchmark_group("race");
    group.sample_size(10);
    group.bench_function("8 teams x 5 cars x 200 turns", |b| {
        b.iter(|| simulate(black_box(&config)))
    });
    group.finish();
}

criterion_group!(benches, race);
criterion_main!(benches);
