//! The source's rule suite rebuilt: bounds, determinism, height limits, locality and terminal
//! states of the pulse rule and the signal (the generator has its own file).

use arcade_strata_relay::{
    CELLS, Cell, Layout, LayoutError, PulseRefused, Puzzle, Stage, State, physical_height,
};
use proptest::prelude::*;

/// A 5×5 board from rows of level digits, with `#` for stone at level 0; anchors at
/// `(0, source_row)` and `(4, target_row)`.
fn board(rows: [&str; 5], source_row: u8, target_row: u8, moves_left: u8) -> State {
    let mut levels = [0u8; CELLS];
    let mut immutable = [false; CELLS];
    for (y, row) in rows.iter().enumerate() {
        for (x, ch) in row.chars().enumerate() {
            let i = y * 5 + x;
            match ch {
                '#' => immutable[i] = true,
                d => levels[i] = d.to_digit(10).expect("a level digit") as u8,
            }
        }
    }
    immutable[source_row as usize * 5] = true;
    immutable[target_row as usize * 5 + 4] = true;
    let layout = Layout {
        levels,
        immutable,
        source: Cell::new(0, source_row),
        target: Cell::new(4, target_row),
        moves_left,
    };
    State::from_layout(&layout).expect("a valid layout")
}

fn sample_states() -> Vec<State> {
    Stage::ALL
        .iter()
        .flat_map(|&stage| (0..40).map(move |seed| Puzzle::generate(seed, stage).unwrap().start()))
        .collect()
}

// ---- bounds ----

#[test]
fn given_any_board_when_pulsing_outside_it_then_refused_as_immutable() {
    let state = Puzzle::generate(11, Stage::new(3).unwrap())
        .unwrap()
        .start();
    for cell in [
        Cell::new(5, 0),
        Cell::new(0, 5),
        Cell::new(5, 5),
        Cell::new(255, 2),
    ] {
        let refused = state.pulse(cell).unwrap_err();
        assert_eq!(refused, PulseRefused::Immutable { cell });
        assert_eq!(refused.code(), "immutable");
        assert_eq!(state.affected_cells(cell).len(), 0);
    }
}

#[test]
fn given_a_board_when_pulsing_an_anchor_or_stone_then_refused_and_nothing_spent() {
    for state in sample_states() {
        for cell in state.immutable_cells() {
            assert_eq!(state.pulse(cell), Err(PulseRefused::Immutable { cell }));
        }
        assert!(state.immutable_cells().contains(state.source()));
        assert!(state.immutable_cells().contains(state.target()));
    }
}

#[test]
fn layouts_out_of_bounds_are_refused_naming_the_problem() {
    let mut layout = Layout {
        levels: [0; CELLS],
        immutable: [false; CELLS],
        source: Cell::new(0, 2),
        target: Cell::new(4, 2),
        moves_left: 3,
    };
    layout.immutable[10] = true;
    layout.immutable[14] = true;
    assert!(State::from_layout(&layout).is_ok());

    let mut bad = layout.clone();
    bad.levels[7] = 3;
    let err = State::from_layout(&bad).unwrap_err();
    assert_eq!(
        err,
        LayoutError::LevelOutOfRange {
            cell: Cell::new(2, 1),
            level: 3
        }
    );
    assert_eq!(
        err.to_string(),
        "cell (2, 1) has level 3; levels are 0, 1 or 2"
    );

    let mut bad = layout.clone();
    bad.source = Cell::new(1, 2);
    assert_eq!(
        State::from_layout(&bad),
        Err(LayoutError::SourceNotOnLeftEdge(Cell::new(1, 2)))
    );
    let mut bad = layout.clone();
    bad.target = Cell::new(4, 7);
    assert_eq!(
        State::from_layout(&bad),
        Err(LayoutError::TargetNotOnRightEdge(Cell::new(4, 7)))
    );
    let mut bad = layout;
    bad.immutable[14] = false;
    assert_eq!(
        State::from_layout(&bad),
        Err(LayoutError::MutableAnchor(Cell::new(4, 2)))
    );
}

// ---- determinism ----

#[test]
fn the_same_seed_and_stage_always_give_the_same_puzzle() {
    for stage in Stage::ALL {
        for seed in [-7_i64, 0, 1, 42, 2_147_483_647, i64::MAX] {
            let a = Puzzle::generate(seed, stage).unwrap();
            let b = Puzzle::generate(seed, stage).unwrap();
            assert_eq!(a, b);
            assert_eq!(
                a.witness().collect::<Vec<_>>(),
                b.witness().collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn seeds_equal_in_their_low_31_bits_give_the_same_puzzle_and_others_differ() {
    let stage = Stage::new(4).unwrap();
    let a = Puzzle::generate(5, stage).unwrap();
    let b = Puzzle::generate(5 + (1 << 31), stage).unwrap();
    assert_eq!(a.start(), b.start(), "SeedRng keeps only seed & 0x7fffffff");
    assert_eq!(
        Puzzle::generate(0, stage).unwrap().start(),
        Puzzle::generate(1, stage).unwrap().start()
    );
    let distinct: std::collections::HashSet<_> = (0..200)
        .map(|seed| Puzzle::generate(seed, stage).unwrap().start())
        .collect();
    assert!(
        distinct.len() >= 195,
        "only {} distinct boards for 200 seeds",
        distinct.len()
    );
}

#[test]
fn a_pulse_is_a_function_of_state_and_cell() {
    for state in sample_states() {
        for cell in state.mutable_cells() {
            assert_eq!(state.pulse(cell), state.pulse(cell));
        }
    }
}

// ---- height limits ----

#[test]
fn heights_cycle_one_three_five_and_three_pulses_restore_a_cell() {
    assert_eq!([0, 1, 2].map(physical_height), [1, 3, 5]);
    let state = board(["00000", "00000", "12000", "00000", "00000"], 2, 2, 9);
    let cell = Cell::new(1, 2);
    let first = state.pulse(cell).unwrap();
    let change = first.changes.iter().find(|c| c.cell == cell).unwrap();
    assert_eq!(
        (change.before, change.after),
        (5, 1),
        "the peak fractures to the bottom"
    );
    let second = first.state.pulse(cell).unwrap().state;
    assert_eq!(second.height(cell), Some(3));
    let third = second.pulse(cell).unwrap().state;
    assert_eq!(third.levels(), state.levels());
    assert_eq!((third.turn(), third.moves_left()), (3, 6));
}

// ---- locality ----

#[test]
fn a_pulse_in_a_corner_an_edge_and_the_middle_changes_three_four_and_five_cells() {
    let state = board(["00000", "00000", "00000", "00000", "00000"], 2, 2, 9);
    let count = |x, y| state.pulse(Cell::new(x, y)).unwrap().changes.len();
    assert_eq!(count(0, 0), 3);
    assert_eq!(count(2, 0), 4);
    assert_eq!(count(2, 2), 5);
    assert_eq!(count(1, 2), 4, "the source anchor next to it is skipped");
    let stony = board(["0#000", "#0#00", "0#000", "00000", "00000"], 3, 3, 9);
    let pulsed = stony.pulse(Cell::new(1, 1)).unwrap();
    assert_eq!(
        pulsed.changes.cells().iter().collect::<Vec<_>>(),
        [Cell::new(1, 1)]
    );
}

fn pulse_case() -> impl Strategy<Value = (State, Vec<usize>)> {
    (
        1i64..=5,
        any::<i64>(),
        proptest::collection::vec(0usize..25, 1..12),
    )
        .prop_map(|(stage, seed, picks)| {
            let state = Puzzle::generate(seed, Stage::new(stage).unwrap())
                .unwrap()
                .start();
            (state, picks)
        })
}

proptest! {
    #[test]
    fn every_pulse_is_local_bounded_and_reported_exactly((start, picks) in pulse_case()) {
        let mut state = start;
        for pick in picks {
            let ground: Vec<Cell> = state.mutable_cells().iter().collect();
            let cell = ground[pick % ground.len()];
            let Ok(pulsed) = state.pulse(cell) else {
                prop_assert!(state.is_finished());
                break;
            };
            let (before, after) = (state.levels(), pulsed.state.levels());
            let changed: Vec<usize> = (0..CELLS).filter(|&i| before[i] != after[i]).collect();
            prop_assert!(changed.len() <= 5 && !changed.is_empty());
            for &i in &changed {
                let c = Cell::from_index(i).unwrap();
                prop_assert_eq!(u32::from(c.x.abs_diff(cell.x)) + u32::from(c.y.abs_diff(cell.y)) <= 1, true);
                prop_assert!(!state.immutable_cells().contains(c));
                prop_assert_eq!(after[i], (before[i] + 1) % 3);
            }
            let reported: Vec<usize> =
                pulsed.changes.iter().map(|c| c.cell.index().unwrap()).collect();
            prop_assert_eq!(&reported, &changed);
            for change in pulsed.changes.iter() {
                let i = change.cell.index().unwrap();
                prop_assert_eq!(change.before, physical_height(before[i]));
                prop_assert_eq!(change.after, physical_height(after[i]));
            }
            prop_assert!(after.iter().all(|&l| l <= 2));
            prop_assert_eq!(pulsed.state.immutable_cells(), state.immutable_cells());
            prop_assert_eq!(pulsed.state.moves_left() + 1, state.moves_left());
            prop_assert_eq!(pulsed.state.turn(), state.turn() + 1);
            prop_assert_eq!(pulsed.state.last_cell(), Some(cell));
            state = pulsed.state;
        }
    }
}

// ---- signal and terminal states ----

#[test]
fn the_signal_floods_orthogonal_resonant_neighbours_from_the_source_only() {
    let state = board(["11000", "01000", "11111", "00010", "00011"], 2, 4, 3);
    let charged: Vec<Cell> = state.charged_cells().iter().collect();
    assert!(
        charged.contains(&Cell::new(4, 4)),
        "reaches the target around the corner"
    );
    assert!(charged.contains(&Cell::new(0, 0)), "and the side branch");
    assert!(!state.charged_cells().contains(Cell::new(4, 3)));
    assert!(state.is_won());

    let diagonal = board(["00000", "00000", "11000", "00100", "00011"], 2, 4, 3);
    assert_eq!(
        diagonal.charged_cells().len(),
        2,
        "diagonals do not conduct"
    );
    assert!(!diagonal.is_won());

    let dead_source = board(["00000", "00000", "01111", "00000", "00000"], 2, 2, 3);
    assert!(dead_source.charged_cells().is_empty());
    assert!(!dead_source.is_won());
}

#[test]
fn given_a_won_game_when_pulsing_then_refused_as_finished() {
    let puzzle = Puzzle::generate(99, Stage::new(2).unwrap()).unwrap();
    let won = puzzle.replay_witness().unwrap();
    assert!(won.is_won() && !won.is_failed() && won.is_finished());
    let cell = won.mutable_cells().iter().next().unwrap();
    let refused = won.pulse(cell).unwrap_err();
    assert_eq!(refused, PulseRefused::Finished { won: true });
    assert_eq!(refused.code(), "finished");
    assert_eq!(
        won.pulse(Cell::new(9, 9)),
        Err(PulseRefused::Finished { won: true }),
        "finished first"
    );
}

#[test]
fn given_one_move_left_when_it_does_not_win_then_failed_and_everything_refused() {
    let state = board(["00000", "00000", "10201", "00000", "00000"], 2, 2, 1);
    let pulsed = state.pulse(Cell::new(1, 0)).unwrap().state;
    assert!(pulsed.is_failed() && !pulsed.is_won());
    assert_eq!(pulsed.moves_left(), 0);
    assert_eq!(
        pulsed.pulse(Cell::new(2, 2)),
        Err(PulseRefused::Finished { won: false })
    );
}

#[test]
fn given_one_move_left_when_it_wins_then_won_not_failed() {
    // The pulse at (2, 2) raises (1, 2), (2, 2) and (3, 2) to resonant: the row conducts.
    let state = board(["00000", "00000", "10001", "00000", "00000"], 2, 2, 1);
    assert!(!state.is_won());
    let last = state.pulse(Cell::new(2, 2)).unwrap().state;
    assert!(last.is_won() && !last.is_failed());
    assert_eq!(last.moves_left(), 0);
    assert_eq!(
        last.charged_cells().len(),
        7,
        "the row and the two risen neighbours"
    );
}
