//! The generator: stage structure, witness replay through the public pulse rule, and the
//! source's stress test (5,000 puzzles across the five stages).

use arcade_strata_relay::{CELLS, Cell, CellSet, Puzzle, Stage, State};

fn neighbours(cell: Cell) -> Vec<Cell> {
    let (x, y) = (cell.x as i32, cell.y as i32);
    [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
        .into_iter()
        .filter(|&(x, y)| (0..5).contains(&x) && (0..5).contains(&y))
        .map(|(x, y)| Cell::new(x as u8, y as u8))
        .collect()
}

/// Plays the witness one pulse at a time through `State::pulse`; returns the states after each.
fn replay(puzzle: &Puzzle) -> Vec<State> {
    let mut states = vec![puzzle.start()];
    for cell in puzzle.witness() {
        let state = states
            .last()
            .unwrap()
            .pulse(cell)
            .unwrap_or_else(|refused| {
                panic!(
                    "seed {} stage {}: witness pulse at {cell} refused: {refused}",
                    puzzle.seed(),
                    puzzle.stage()
                )
            });
        states.push(state.state);
    }
    states
}

fn check(puzzle: &Puzzle) {
    let stage = puzzle.stage();
    let start = puzzle.start();
    let limit = usize::from(2 * stage.number());
    let context = format!("seed {} stage {}", puzzle.seed(), stage);
    assert!(
        !start.is_won() && !start.is_finished(),
        "{context}: starts solved"
    );
    assert_eq!(
        usize::from(start.moves_left()),
        limit,
        "{context}: move limit"
    );
    assert_eq!(usize::from(puzzle.move_limit()), limit, "{context}");
    assert_eq!(puzzle.witness().len(), limit, "{context}: witness length");
    let states = replay(puzzle);
    for (turn, state) in states.iter().enumerate().take(limit) {
        assert!(!state.is_won(), "{context}: won early at turn {turn}");
    }
    let end = states[limit];
    assert!(
        end.is_won() && !end.is_failed(),
        "{context}: the witness does not win"
    );
    assert_eq!(usize::from(end.turn()), limit);
    assert_eq!(puzzle.replay_witness(), Some(end));
}

#[test]
fn stress_five_thousand_puzzles_start_unsolved_and_their_witness_wins_within_the_limit() {
    let mut checked = 0;
    for stage in Stage::ALL {
        for n in 0..1_000i64 {
            let seed = n * 2_654_435_761 % 4_294_967_311 - 1_000_000;
            check(&Puzzle::generate(seed, stage).expect("every seed generates"));
            checked += 1;
        }
    }
    assert_eq!(checked, 5_000);
}

#[test]
fn the_witness_is_every_shuffle_pulse_twice_in_reverse_order() {
    for stage in Stage::ALL {
        let puzzle = Puzzle::generate(1234, stage).unwrap();
        let shuffle = puzzle.shuffle().to_vec();
        assert_eq!(shuffle.len(), usize::from(stage.number()));
        let expected: Vec<Cell> = shuffle.iter().rev().flat_map(|&c| [c, c]).collect();
        assert_eq!(puzzle.witness().collect::<Vec<_>>(), expected);
    }
}

#[test]
fn stage_one_is_straight_and_later_stages_bend() {
    for seed in 0..300 {
        let one = Puzzle::generate(seed, Stage::FIRST).unwrap();
        assert_eq!(one.start().source().y, one.start().target().y);
        assert_eq!(one.path().len(), 5);
        for stage in &Stage::ALL[1..] {
            let p = Puzzle::generate(seed, *stage).unwrap();
            let (s, t) = (p.start().source(), p.start().target());
            assert_ne!(
                s.y, t.y,
                "seed {seed} stage {stage}: a bent path changes rows"
            );
            assert_eq!(
                p.path().len(),
                5 + usize::from(s.y.abs_diff(t.y)),
                "one vertical run"
            );
        }
    }
}

#[test]
fn the_solved_board_charges_exactly_the_path_and_decoys_are_low_or_high() {
    for stage in Stage::ALL {
        for seed in 0..200 {
            let p = Puzzle::generate(seed, stage).unwrap();
            let solved = p.replay_witness().unwrap();
            assert_eq!(
                solved.charged_cells(),
                p.path(),
                "seed {seed} stage {stage}"
            );
            assert_eq!(
                solved.resonant_cells(),
                p.path(),
                "no resonant decoy when solved"
            );
            assert!(p.path().contains(solved.source()) && p.path().contains(solved.target()));
        }
    }
}

#[test]
fn stone_is_off_the_path_in_the_stage_count_and_crossed_by_a_shuffle_pulse_from_stage_three() {
    for stage in Stage::ALL {
        for seed in 0..300 {
            let p = Puzzle::generate(seed, stage).unwrap();
            let start = p.start();
            let anchors = [start.source(), start.target()];
            let stones: Vec<Cell> = start
                .immutable_cells()
                .iter()
                .filter(|c| !anchors.contains(c))
                .collect();
            assert_eq!(
                stones.len(),
                usize::from(stage.stones()),
                "seed {seed} stage {stage}"
            );
            assert!(
                stones.iter().all(|s| !p.path().contains(*s)),
                "stone on the path"
            );
            let crossing = p
                .shuffle()
                .iter()
                .filter(|c| neighbours(**c).iter().any(|n| stones.contains(n)))
                .count();
            if stage.crosses_stone() {
                assert!(
                    crossing >= 1,
                    "seed {seed} stage {stage}: no shuffle pulse crosses stone"
                );
            } else {
                assert_eq!(crossing, 0);
            }
        }
    }
}

#[test]
fn shuffle_pulses_are_distinct_mutable_and_move_the_path() {
    for stage in Stage::ALL {
        for seed in 0..300 {
            let p = Puzzle::generate(seed, stage).unwrap();
            let start = p.start();
            let ground_path: Vec<Cell> = p
                .path()
                .iter()
                .filter(|c| !start.immutable_cells().contains(*c))
                .collect();
            let mut seen: Vec<Cell> = Vec::new();
            for &cell in p.shuffle() {
                assert!(!start.immutable_cells().contains(cell));
                assert!(
                    !seen.contains(&cell),
                    "seed {seed} stage {stage}: repeated centre"
                );
                seen.push(cell);
                let touched = start.affected_cells(cell);
                assert!(
                    ground_path.iter().any(|c| touched.contains(*c)),
                    "not near the path"
                );
            }
        }
    }
}

#[test]
fn later_stages_overlap_their_shuffle_pulses_more() {
    let overlapping = |stage: Stage| {
        (0..500)
            .filter(|&seed| {
                let p = Puzzle::generate(seed, stage).unwrap();
                let crosses: Vec<CellSet> = p
                    .shuffle()
                    .iter()
                    .map(|&c| p.start().affected_cells(c))
                    .collect();
                crosses.iter().enumerate().any(|(i, a)| {
                    crosses[i + 1..]
                        .iter()
                        .any(|b| a.iter().any(|c| b.contains(c)))
                })
            })
            .count()
    };
    let stage = |n| Stage::new(n).unwrap();
    assert_eq!(overlapping(stage(1)), 0);
    assert!(
        overlapping(stage(4)) > 450,
        "false echoes: stage 4 crosses overlap"
    );
    assert!(overlapping(stage(5)) > 450);
}

#[test]
fn a_known_seed_generates_a_known_board() {
    let p = Puzzle::generate(42, Stage::new(3).unwrap()).unwrap();
    let start = p.start();
    let levels: String = start
        .levels()
        .iter()
        .map(|l| char::from(b'0' + l))
        .collect();
    let stone: String = start
        .immutable_flags()
        .iter()
        .map(|&i| if i { '#' } else { '.' })
        .collect();
    assert_eq!(levels.len(), CELLS);
    assert_golden(&format!(
        "{levels} {stone} {}->{} {:?}",
        start.source(),
        start.target(),
        p.witness().map(|c| (c.x, c.y)).collect::<Vec<_>>()
    ));
}

/// Pins the exact board of a seed, so a change to the generator is a visible decision.
fn assert_golden(actual: &str) {
    assert_eq!(
        actual,
        include_str!("golden/seed-42-stage-3.txt").trim_end()
    );
}
