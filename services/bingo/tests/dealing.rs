//! Dealing and printing: one card per player, serials from 1, layouts from the secret, no two
//! cards alike, at most 100,000 cards, printed batches with labels.

mod common;

use arcade_bingo::BingoService;
use arcade_bingo::domain::limits::MAX_CARDS;
use arcade_bingo::domain::{Action, Cells, Event, Keys, PatternKind, PrintedCard, Secret};
use arcade_contracts::bingo as contract;
use common::*;

fn called_game(size: u32, pool: u32) -> Scenario {
    let mut s = given([]);
    s.run(cmd(
        "g",
        Action::Open(called_spec(size, pool, vec![PatternKind::Line])),
    ));
    s
}

fn deal(player: &str) -> arcade_bingo::Input {
    cmd(
        "g",
        Action::Deal {
            player: player.into(),
        },
    )
}

fn dealt(events: &[Event]) -> (u32, Cells, bool) {
    match events {
        [
            Event::CardDealt(contract::CardDealt {
                serial,
                cells,
                first_deal,
                ..
            }),
        ] => (*serial, cells.clone(), *first_deal),
        other => panic!("{other:?}"),
    }
}

/// The cells the test secret gives a serial in a game whose pool is the squares 1 to `pool`.
fn cells_for(game: &str, serial: u32, pool: usize, draws: usize, free: Option<usize>) -> Cells {
    let layout = Keys::new(&secret()).layout(game, serial, pool, draws);
    let mut cells: Cells = layout.iter().map(|&i| Some(u32::from(i) + 1)).collect();
    if let Some(free) = free {
        cells.insert(free, None);
    }
    cells
}

#[test]
fn a_players_first_deal_gives_a_card_and_later_deals_the_same() {
    let mut s = called_game(5, 75);
    let (serial, cells, first) = dealt(&s.run(deal("alice")));
    assert_eq!((serial, first), (1, true));
    assert_eq!(cells.len(), 25);
    assert_eq!(cells[12], None, "the free centre");
    let mut ids: Vec<u32> = cells.iter().flatten().copied().collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 24, "24 distinct squares");
    assert!(ids.iter().all(|id| (1..=75).contains(id)));
    assert_eq!(dealt(&s.run(deal("bob"))).0, 2);
    let again = s.when(deal("alice")).events();
    s.apply(again.clone());
    assert_eq!(dealt(&again), (1, cells, false));
    assert_eq!(s.state().game("g").unwrap().card_count(), 2);
}

#[test]
fn a_cards_layout_is_the_one_the_secret_gives_its_serial() {
    let s = called_game(5, 75);
    let (_, cells, _) = dealt(&s.when(deal("alice")).events());
    assert_eq!(cells, cells_for("g", 1, 75, 24, Some(12)));
    // Another server with another secret deals another card for the same serial.
    let other = BingoService::new(&Secret::new(*b"another-secret-entirely").unwrap());
    let theirs = Scenario::given(other, called_game(5, 75).into_history())
        .when(deal("alice"))
        .events();
    assert_ne!(dealt(&theirs).1, cells);
}

/// The derivation exactly as `domain::secret` documents it, written out independently.
fn reference_layout(secret: &[u8], game: &str, serial: u32, pool: usize, draws: usize) -> Vec<u16> {
    use hmac::{Hmac, Mac};
    use sha2::{Digest, Sha256};
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret).unwrap();
    mac.update(b"arcade-bingo layout v1\0");
    mac.update(&(game.len() as u32).to_be_bytes());
    mac.update(game.as_bytes());
    mac.update(&serial.to_be_bytes());
    let seed = mac.finalize().into_bytes();
    let mut words = Vec::new();
    for block in 0u32..64 {
        let digest = Sha256::new()
            .chain_update(seed)
            .chain_update(block.to_be_bytes())
            .finalize();
        words.extend(
            digest
                .chunks(4)
                .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]])),
        );
    }
    let mut words = words.into_iter();
    let mut indices: Vec<u16> = (0..pool as u16).collect();
    for i in 0..draws {
        let n = (pool - i) as u64;
        let j = loop {
            let w = u64::from(words.next().unwrap());
            if w < (1u64 << 32) - (1u64 << 32) % n {
                break i + (w % n) as usize;
            }
        };
        indices.swap(i, j);
    }
    indices.truncate(draws);
    indices
}

#[test]
fn layouts_and_labels_follow_the_documented_derivation_and_never_change() {
    let keys = Keys::new(&secret());
    let raw = b"test-secret-of-arcade-bingo";
    for (game, serial, pool, draws) in [
        ("friday-quiz", 1, 75, 24),
        ("g", 77, 500, 80),
        ("g", 3, 8, 8),
    ] {
        assert_eq!(
            keys.layout(game, serial, pool, draws).to_vec(),
            reference_layout(raw, game, serial, pool, draws),
            "{game} serial {serial}"
        );
    }
    let mut mac = <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(raw).unwrap();
    hmac::Mac::update(
        &mut mac,
        b"arcade-bingo label v1\0\0\0\0\x0bfriday-quiz\0\0\0\x01",
    );
    let tag = hmac::Mac::finalize(mac).into_bytes();
    assert_eq!(
        keys.label("friday-quiz", 1).replace('-', ""),
        hex::encode(&tag[..8])
    );
    // Printed cards depend on these exact values: changing the derivation breaks them all.
    assert_eq!(
        keys.layout("friday-quiz", 1, 75, 24).to_vec(),
        GOLDEN_LAYOUT.to_vec()
    );
    assert_eq!(keys.label("friday-quiz", 1), GOLDEN_LABEL);
}

const GOLDEN_LAYOUT: [u16; 24] = [
    4, 8, 27, 39, 60, 18, 24, 71, 3, 45, 9, 54, 11, 46, 34, 59, 25, 38, 51, 30, 42, 66, 48, 0,
];
const GOLDEN_LABEL: &str = "e393-5c3c-7564-4346";

#[test]
fn a_serial_whose_card_repeats_another_is_skipped() {
    // Given card 1 already holds the squares the secret gives serial 2 …
    let mut s = called_game(5, 75);
    s = given(
        s.into_history()
            .into_iter()
            .chain([Event::CardDealt(contract::CardDealt {
                request_id: None,
                game_id: "g".into(),
                player: "zoe".into(),
                serial: 1,
                cells: cells_for("g", 2, 75, 24, Some(12)),
                first_deal: true,
            })]),
    );
    // … the next deal tries serial 2, finds it alike, and deals serial 3.
    let (serial, cells, _) = dealt(&s.when(deal("alice")).events());
    assert_eq!(serial, 3);
    assert_eq!(cells, cells_for("g", 3, 75, 24, Some(12)));
}

/// Every arrangement of the squares 1..=8 on a 3×3 card with a free centre (8! = 40,320), as
/// printed batches.
fn every_arrangement_of_eight() -> Vec<Event> {
    let mut cards = Vec::new();
    let mut perm: Vec<u32> = (1..=8).collect();
    let mut serial = 1;
    permute(&mut perm, 0, &mut |p| {
        let mut cells: Cells = p.iter().map(|&id| Some(id)).collect();
        cells.insert(4, None);
        cards.push(PrintedCard {
            serial,
            label: String::new(),
            cells,
        });
        serial += 1;
    });
    cards
        .chunks(1000)
        .map(|chunk| {
            Event::CardsPrinted(contract::CardsPrinted {
                request_id: None,
                game_id: "g".into(),
                cards: chunk.to_vec(),
            })
        })
        .collect()
}

fn permute(items: &mut Vec<u32>, k: usize, visit: &mut dyn FnMut(&[u32])) {
    if k == items.len() {
        visit(items);
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permute(items, k + 1, visit);
        items.swap(k, i);
    }
}

#[test]
fn a_pool_with_no_distinct_card_left_refuses_to_deal_instead_of_looping() {
    let open = called_game(3, 8).into_history();
    let s = given(open.into_iter().chain(every_arrangement_of_eight()));
    assert_eq!(s.state().game("g").unwrap().card_count(), 40_320);
    let (code, reason) = s.refused(deal("alice"));
    assert_eq!(code, "no-distinct-card");
    assert_eq!(
        reason,
        "game \"g\" found no card unlike its 40320 cards in 1001 serials from 40321: its pool \
         cannot make more distinct cards"
    );
}

/// `n` distinct 5×5 cards of the squares 1..=75 (the n-th arrangement of squares 1..=9 in the
/// first nine cells), as printed batches.
fn many_cards(n: u32) -> Vec<Event> {
    let card = |k: u32| {
        let mut digits: Vec<u32> = (1..=9).collect();
        let mut rest = k;
        let mut first = Vec::new();
        for radix in (1..=9u32).rev() {
            let f: u32 = (1..radix).product();
            first.push(digits.remove((rest / f) as usize));
            rest %= f;
        }
        let mut cells: Cells = first.into_iter().chain(10..=24).map(Some).collect();
        cells.insert(12, None);
        PrintedCard {
            serial: k + 1,
            label: String::new(),
            cells,
        }
    };
    let cards: Vec<PrintedCard> = (0..n).map(card).collect();
    cards
        .chunks(1000)
        .map(|chunk| {
            Event::CardsPrinted(contract::CardsPrinted {
                request_id: None,
                game_id: "g".into(),
                cards: chunk.to_vec(),
            })
        })
        .collect()
}

#[test]
fn a_game_holds_at_most_one_hundred_thousand_cards() {
    let open = called_game(5, 75).into_history();
    let mut s = given(open.into_iter().chain(many_cards(MAX_CARDS - 1)));
    assert!(!s.when(cmd("g", Action::Print { count: 2 })).is_accepted());
    assert!(s.when(deal("alice")).is_accepted());
    s.run(cmd("g", Action::Print { count: 1 }));
    assert_eq!(s.state().game("g").unwrap().card_count(), 100_000);
    let (code, reason) = s.refused(deal("alice"));
    assert_eq!(code, "card-limit");
    assert_eq!(
        reason,
        "game \"g\" has dealt the 100000 cards a game may hold"
    );
    let (code, reason) = s.refused(cmd("g", Action::Print { count: 1 }));
    assert_eq!(code, "card-limit");
    assert_eq!(
        reason,
        "game \"g\" holds 100000 cards and may hold 100000: a batch of 1 does not fit"
    );
}

#[test]
fn printed_batches_continue_the_serials_and_carry_labels_the_server_verifies() {
    let mut s = called_game(5, 75);
    s.run(deal("alice"));
    let events = s
        .when(cmd_id("g", "print-1", Action::Print { count: 3 }))
        .events();
    s.apply(events.clone());
    let [
        Event::CardsPrinted(contract::CardsPrinted {
            request_id, cards, ..
        }),
    ] = events.as_slice()
    else {
        panic!("{events:?}")
    };
    assert_eq!(request_id.as_deref(), Some("print-1"));
    let serials: Vec<u32> = cards.iter().map(|c| c.serial).collect();
    assert_eq!(serials, vec![2, 3, 4]);
    let keys = Keys::new(&secret());
    for card in cards {
        assert!(keys.label_matches("g", card.serial, &card.label));
        assert_eq!(card.cells, cells_for("g", card.serial, 75, 24, Some(12)));
        assert_eq!(
            s.state()
                .game("g")
                .unwrap()
                .card(card.serial)
                .unwrap()
                .player,
            None
        );
    }
    assert_eq!(dealt(&s.when(deal("bob")).events()).0, 5);
}

#[test]
fn a_batch_holds_one_to_a_thousand_cards() {
    let s = called_game(5, 75);
    for count in [0, 1001] {
        let (code, reason) = s.refused(cmd("g", Action::Print { count }));
        assert_eq!(code, "invalid-count");
        assert_eq!(
            reason,
            format!("a printed batch holds 1 to 1000 cards, not {count}")
        );
    }
    let events = s.when(cmd("g", Action::Print { count: 1000 })).events();
    let [Event::CardsPrinted(contract::CardsPrinted { cards, .. })] = events.as_slice() else {
        panic!()
    };
    assert_eq!(cards.len(), 1000);
}

#[test]
fn only_called_games_print() {
    let mut s = given([]);
    s.run(cmd(
        "a",
        Action::Open(activity_spec(vec![PatternKind::Row])),
    ));
    let (code, reason) = s.refused(cmd("a", Action::Print { count: 1 }));
    assert_eq!(code, "not-a-called-game");
    assert_eq!(
        reason,
        "game \"a\" is ticked by its players' activity: only a called game prints cards, since \
         a printed card has no player to make gestures"
    );
}

#[test]
fn a_closed_game_deals_and_prints_no_more() {
    let mut s = called_game(5, 75);
    s.run(deal("alice"));
    s.run(cmd("g", Action::Close));
    for (action, words) in [
        (
            Action::Deal {
                player: "bob".into(),
            },
            "it deals no more cards",
        ),
        (
            Action::Deal {
                player: "alice".into(),
            },
            "it deals no more cards",
        ),
        (Action::Print { count: 1 }, "it prints no more cards"),
    ] {
        let (code, reason) = s.refused(cmd("g", action));
        assert_eq!(code, "game-closed");
        assert_eq!(reason, format!("game \"g\" is closed: {words}"));
    }
}

#[test]
fn dealing_names_a_known_game_and_a_sized_player() {
    let s = called_game(5, 75);
    let (code, reason) = s.refused(cmd(
        "nope",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    assert_eq!(
        (code.as_str(), reason.as_str()),
        ("unknown-game", "there is no game \"nope\"")
    );
    let (code, reason) = s.refused(deal(""));
    assert_eq!(
        (code.as_str(), reason.as_str()),
        ("invalid-field", "the player must be 1 to 200 bytes, not 0")
    );
    assert!(s.refused(deal(&"p".repeat(201))).1.ends_with("not 201"));
    assert!(s.when(deal(&"p".repeat(200))).is_accepted());
}

#[test]
fn even_grids_and_grids_without_free_centre_fill_every_cell() {
    let s = called_game(4, 16);
    let (_, cells, _) = dealt(&s.when(deal("alice")).events());
    assert_eq!(cells.len(), 16);
    assert!(cells.iter().all(Option::is_some));
}
