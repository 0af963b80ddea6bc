//! Telemetry ingest cost per session: validation (which regenerates the puzzle of
//! `(seed, stage)`) plus the statistics update, i.e. the decider's `decide` + `evolve`.
//! Target: well under 50 µs, so that ≥ 20,000 sessions/s is plausible once the log is added.

use std::hint::black_box;

use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::telemetry::{
    Input, PuzzleTelemetry, TelemetryState, validate,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn ingest(c: &mut Criterion) {
    let mut simulator = Simulator::new(7);
    let inputs: Vec<Input> = (0..4_096)
        .map(|_| Input::Session(simulator.session(None).into()))
        .collect();
    let decider = PuzzleTelemetry::default();
    let mut group = c.benchmark_group("telemetry");
    group.throughput(Throughput::Elements(1));

    let mut state = TelemetryState::default();
    let mut n = 0usize;
    group.bench_function("decide + evolve per session", |b| {
        b.iter(|| {
            n = (n + 1) % inputs.len();
            let Ok(events) = decider.decide(&state, black_box(&inputs[n]), 1_000 + n as u64);
            for event in &events {
                PuzzleTelemetry::evolve(&mut state, event);
            }
            events.len()
        })
    });

    let sessions: Vec<_> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Session(s) => Some(arcade_puzzle_telemetry::domain::telemetry::Session::from(s)),
            Input::Tick => None,
        })
        .collect();
    group.bench_function("validate only", |b| {
        b.iter(|| {
            n = (n + 1) % sessions.len();
            validate(black_box(&sessions[n])).is_ok()
        })
    });

    group.bench_function("stats snapshot", |b| {
        b.iter(|| black_box(&state).snapshot(5_000))
    });
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
