//! Judging a duel (target: under 5 µs): a whole duel replayed from its deck and answers, as the
//! master does on every answer; and one answer judged.

use std::hint::black_box;

use arcade_race_master::domain::duel::tactics::{Style, choose};
use arcade_race_master::domain::duel::{Duel, Hand, Play, deal_from_seed, judge};
use criterion::{Criterion, criterion_group, criterion_main};

/// A duel between the cautious and aggressive tactics, as (deck, first, answers).
fn recorded_duel() -> (arcade_race_master::domain::duel::Deck, usize, Vec<Vec<u8>>) {
    let (deck, first) = deal_from_seed(7, 3);
    let mut duel = Duel::new(deck, [5, 5], first);
    let mut answers = Vec::new();
    while duel.end().is_none() {
        let me = duel.to_play();
        let style = if me == 0 {
            Style::Cautious
        } else {
            Style::Aggressive
        };
        let opponent = duel.hand(1 - me).len();
        let action = choose(
            style,
            duel.hand(me),
            duel.distance(),
            duel.discarded(),
            opponent,
        );
        let cards = action.map(|a| a.cards()).unwrap_or_default();
        answers.push(cards.clone());
        let _ = duel.play(Play::Cards(cards));
    }
    (deck, first, answers)
}

fn duel(c: &mut Criterion) {
    let (deck, first, answers) = recorded_duel();
    assert!(answers.len() >= 4, "the benchmarked duel lasts a few turns");
    c.bench_function(&format!("duel judged ({} answers)", answers.len()), |b| {
        b.iter(|| {
            let mut duel = Duel::new(black_box(deck), [5, 5], first);
            for answer in &answers {
                let _ = duel.play(Play::Cards(answer.clone()));
            }
            duel.end()
        })
    });
    let hand = Hand::of(&[1, 4, 4, 4, 2]);
    c.bench_function("one answer judged", |b| {
        b.iter(|| judge(black_box(&[1, 4, 4, 4]), &hand, black_box(5)))
    });
}

criterion_group!(benches, duel);
criterion_main!(benches);
