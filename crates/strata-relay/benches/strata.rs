//! Strata Relay's hot paths against the source's figures (Godot 4.7.2 on an Apple M4: 80.564 µs
//! per generation, 12.346 µs per pulse including the state copy). Targets here: generation
//! under 5 µs, a pulse with its state copy under 100 ns.

use std::hint::black_box;

use arcade_strata_relay::{Cell, Puzzle, Stage};
use criterion::{Criterion, criterion_group, criterion_main};

fn generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    for stage in Stage::ALL {
        let mut seed = 0i64;
        group.bench_function(format!("stage {stage}"), |b| {
            b.iter(|| {
                seed += 1;
                Puzzle::generate(black_box(seed), black_box(stage))
            })
        });
    }
    // The source's benchmark: 5,000 generations across the five stages.
    let mut seed = 0i64;
    group.bench_function("mixed stages", |b| {
        b.iter(|| {
            seed += 1;
            Puzzle::generate(black_box(seed), Stage::ALL[(seed % 5) as usize])
        })
    });
    group.finish();
}

fn pulse(c: &mut Criterion) {
    let puzzle = Puzzle::generate(2026, Stage::LAST).expect("seed 2026 generates");
    let start = puzzle.start();
    let cells: Vec<Cell> = start.mutable_cells().iter().collect();
    let mut group = c.benchmark_group("pulse");
    // The source copies the 25-cell state, then applies the pulse; `pulse` returns a new state.
    let mut n = 0usize;
    group.bench_function("with state copy", |b| {
        b.iter(|| {
            n = (n + 1) % cells.len();
            let copy = *black_box(&start);
            copy.pulse(black_box(cells[n])).map(|p| p.state)
        })
    });
    group.bench_function("with changes listed", |b| {
        b.iter(|| {
            n = (n + 1) % cells.len();
            let pulsed = black_box(&start)
                .pulse(black_box(cells[n]))
                .expect("mutable cell");
            pulsed
                .changes
                .iter()
                .map(|c| u32::from(c.after))
                .sum::<u32>()
        })
    });
    group.bench_function("charged cells", |b| {
        b.iter(|| black_box(&start).charged_cells())
    });
    group.bench_function("witness replay", |b| {
        b.iter(|| black_box(&puzzle).replay_witness())
    });
    group.finish();
}

criterion_group!(benches, generation, pulse);
criterion_main!(benches);
