//! Property tests: no two cards of a game alike; layouts depend on secret, game and serial
//! only; the first-match pattern equals a brute-force check; undo never unticks a cell another
//! standing gesture ticked.

mod common;

use std::collections::HashSet;

use arcade_bingo::BingoService;
use arcade_bingo::domain::grid::{CellMask, Grid, bit};
use arcade_bingo::domain::pattern::{PatternKind, Patterns};
use arcade_bingo::domain::{Action, Keys, Secret};
use common::*;
use proptest::prelude::*;

fn secret_bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 16..48)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A 3×3 card of 8 squares has only 40,320 arrangements, so serials collide often; every
    /// card of the game still differs from every other.
    #[test]
    fn no_two_cards_of_a_game_are_alike(
        secret in secret_bytes(),
        players in 50usize..400,
        batches in proptest::collection::vec(1u32..200, 0..3),
    ) {
        let bingo = BingoService::new(&Secret::new(secret).unwrap());
        let mut s = Scenario::given(bingo, []).at(NOW);
        s.run(cmd("g", Action::Open(called_spec(3, 8, vec![PatternKind::Row]))));
        for (i, count) in batches.iter().enumerate() {
            s.run(cmd("g", Action::Print { count: *count }));
            for p in 0..players / (batches.len() + 1) {
                s.run(cmd("g", Action::Deal { player: format!("p{i}-{p}") }));
            }
        }
        for p in 0..players / (batches.len() + 1) {
            s.run(cmd("g", Action::Deal { player: format!("last-{p}") }));
        }
        let game = s.state().game("g").unwrap();
        let mut seen = HashSet::new();
        let mut last_serial = 0;
        for serial in game.serials() {
            let card = game.card(serial).unwrap();
            prop_assert!(seen.insert(card.cells.clone()), "card {} repeats another", serial);
            prop_assert!(serial > last_serial, "serials grow");
            last_serial = serial;
        }
        prop_assert_eq!(seen.len() as u32, game.card_count());
    }

    /// The same secret, game and serial always give the same layout; another secret, another.
    #[test]
    fn layouts_depend_on_secret_game_and_serial(
        a in secret_bytes(),
        b in secret_bytes(),
        game in "[a-z0-9-]{1,20}",
        serial in 1u32..200_000,
    ) {
        prop_assume!(a != b);
        let first = Keys::new(&Secret::new(a.clone()).unwrap()).layout(&game, serial, 75, 24);
        let again = Keys::new(&Secret::new(a).unwrap()).layout(&game, serial, 75, 24);
        let other = Keys::new(&Secret::new(b).unwrap()).layout(&game, serial, 75, 24);
        prop_assert_eq!(&first, &again);
        prop_assert_ne!(&first, &other);
    }
}

/// A pattern's cell lists, written out cell by cell (not with the masks under test).
fn brute_sets(kind: &PatternKind, n: u8) -> Vec<Vec<u8>> {
    let rows: Vec<Vec<u8>> = (0..n)
        .map(|r| (0..n).map(|c| r * n + c).collect())
        .collect();
    let cols: Vec<Vec<u8>> = (0..n)
        .map(|c| (0..n).map(|r| r * n + c).collect())
        .collect();
    let diags = vec![
        (0..n).map(|i| i * n + i).collect(),
        (0..n).map(|i| i * n + n - 1 - i).collect(),
    ];
    match kind {
        PatternKind::Row => rows,
        PatternKind::Column => cols,
        PatternKind::Diagonal => diags,
        PatternKind::FullCard => vec![(0..n * n).collect()],
        PatternKind::FourCorners => vec![vec![0, n - 1, n * (n - 1), n * n - 1]],
        PatternKind::Line => rows.into_iter().chain(cols).chain(diags).collect(),
        PatternKind::Custom { cell_sets, .. } => cell_sets.clone(),
    }
}

fn kind_strategy(cells: u8) -> impl Strategy<Value = PatternKind> {
    prop_oneof![
        Just(PatternKind::Row),
        Just(PatternKind::Column),
        Just(PatternKind::Diagonal),
        Just(PatternKind::FullCard),
        Just(PatternKind::FourCorners),
        Just(PatternKind::Line),
        proptest::collection::vec(proptest::collection::vec(0..cells, 1..6), 1..5).prop_map(
            |cell_sets| PatternKind::Custom {
                name: String::new(),
                cell_sets
            }
        ),
    ]
}

fn case() -> impl Strategy<Value = (u8, bool, Vec<PatternKind>, Vec<bool>)> {
    (3u8..=9, any::<bool>()).prop_flat_map(|(n, free)| {
        let cells = n * n;
        (
            Just(n),
            Just(free && n % 2 == 1),
            proptest::collection::vec(kind_strategy(cells), 1..=16),
            // Dense tickings, so that patterns do complete.
            proptest::collection::vec(proptest::bool::weighted(0.8), usize::from(cells)),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_first_match_is_the_first_pattern_a_brute_force_check_finds((n, free, kinds, ticks) in case()) {
        // Distinct names: the built-ins once each, customs numbered.
        let mut seen = HashSet::new();
        let kinds: Vec<PatternKind> = kinds
            .into_iter()
            .enumerate()
            .filter_map(|(i, k)| match k {
                PatternKind::Custom { cell_sets, .. } => Some(PatternKind::Custom { name: format!("c{i}"), cell_sets }),
                k => seen.insert(k.name().to_string()).then_some(k),
            })
            .collect();
        let grid = Grid::new(u32::from(n), Some(free)).unwrap();
        let centre = grid.free_cell();
        let ticked = |c: u8| ticks[usize::from(c)] || Some(c) == centre;
        let Ok(patterns) = Patterns::new(&kinds, &grid) else {
            // A custom set made of the free centre alone is refused; nothing to compare.
            return Ok(());
        };
        let mask: CellMask = (0..n * n).filter(|&c| ticks[usize::from(c)]).fold(grid.free_mask(), |m, c| m | bit(c));
        let expected = kinds.iter().enumerate().find_map(|(i, kind)| {
            brute_sets(kind, n).into_iter().find(|set| set.iter().all(|&c| ticked(c))).map(|set| {
                let mut set = set;
                set.sort_unstable();
                set.dedup();
                (i, set)
            })
        });
        let found = patterns
            .first_match(mask)
            .map(|m| (m.pattern, arcade_bingo::domain::grid::cells_of(m.cells)));
        prop_assert_eq!(found, expected);
    }
}

#[derive(Debug, Clone)]
enum Op {
    Record(u8, u8),
    Undo(u8),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        3 => (0u8..12, 1u8..8).prop_map(|(g, v)| Op::Record(g, v)),
        2 => (0u8..12).prop_map(Op::Undo),
    ];
    proptest::collection::vec(op, 1..60)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Verbs v1..v7 only, and a full-card pattern that needs v8: the card never wins, so its
    /// ticked cells are exactly those of its standing gestures (plus the free centre); in
    /// particular an undo never unticks a cell another standing gesture ticked, an undone
    /// gesture never ticks again, and an undo of a gesture not yet recorded changes nothing.
    #[test]
    fn undo_never_unticks_a_cell_another_standing_gesture_ticked(ops in ops()) {
        let mut s = given([]);
        s.run(cmd("a", Action::Open(activity_spec(vec![PatternKind::FullCard]))));
        s.run(cmd("a", Action::Deal { player: "alice".into() }));
        // Gesture key -> its verb's square, while it stands; None once undone.
        let mut gestures: std::collections::HashMap<u8, Option<u8>> = Default::default();
        for op in ops {
            match op {
                Op::Record(g, v) => {
                    s.run(gesture(&format!("e{g}"), "alice", &format!("v{v}"), None));
                    gestures.entry(g).or_insert(Some(v));
                }
                Op::Undo(g) => {
                    s.run(undo(&format!("e{g}")));
                    if let Some(standing) = gestures.get_mut(&g) {
                        *standing = None;
                    }
                }
            }
            let mut expected: Vec<u8> = gestures
                .values()
                .flatten()
                .map(|&v| cell_of(&s, "a", "alice", u32::from(v)))
                .chain([4])
                .collect();
            expected.sort_unstable();
            expected.dedup();
            prop_assert_eq!(ticked(&s, "a", "alice"), expected);
        }
    }
}
