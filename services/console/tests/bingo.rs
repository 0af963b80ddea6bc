//! Bingo's read model, given the bingo service's events: what the games', a game's and a
//! card's pages show (calls in order, ticks of a called and of an activity game, claims and
//! winners in order, refusals), that a printed card's label reaches only the operator's
//! sheet, that a snapshot gives the same views, and that a producer inventing games, cards or
//! claims cannot grow it without end.

use arcade_console::games::bingo::projection::{
    Bingo, MAX_CARDS, MAX_CLAIMS, MAX_GAMES, MAX_REJECTIONS,
};
use arcade_console::games::bingo::views::{card_view, game_view, list_view, sheet};
use arcade_console::observed::Observed;
use arcade_console::projection::{Projection, Projections};
use arcade_contracts::Message;
use arcade_contracts::bingo::{
    CardCell, CardDealt, CardWon, CardsPrinted, ClaimAnswered, ClaimCheck, GameClosed, GameOpened,
    GestureUndone, GridSpec, PatternSpec, PrintedCard, RequestRejected, SquareCalled, SquareSpec,
    SquareTicked, TickMode, TriggerSpec,
};
use serde_json::{Value, json};

/// The console's state and bingo's projection alone, fed the same events.
struct Feed {
    state: Projections,
    bingo: Bingo,
    n: u64,
}

impl Feed {
    fn new() -> Feed {
        Feed {
            state: Projections::default(),
            bingo: Bingo::default(),
            n: 0,
        }
    }

    /// Feeds one event; returns whether bingo's projection changed.
    fn give<M: Message + serde::Serialize>(&mut self, message: &M) -> bool {
        self.n += 1;
        let event = Observed {
            message_id: format!("m-{}", self.n),
            message_type: M::TYPE.into(),
            producer: "bingo".into(),
            occurred_at: "2026-12-04T20:00:00.000Z".into(),
            seen_at_ms: 10_000 + self.n,
            payload: serde_json::to_value(message).unwrap(),
        };
        self.state.apply(&event);
        let changed = self.bingo.apply(&event);
        assert_eq!(self.state.get::<Bingo>(), Some(&self.bingo), "registered");
        changed
    }

    fn bingo(&self) -> &Bingo {
        &self.bingo
    }
}

fn opened(game: &str, mode: TickMode, opened_at: u64) -> GameOpened {
    GameOpened {
        request_id: Some(format!("open-{game}")),
        game_id: game.into(),
        tick_mode: mode,
        grid: GridSpec {
            size: 3,
            free_centre: Some(true),
        },
        pool: (1..=10)
            .map(|id| SquareSpec {
                id,
                label: format!("square {id}"),
                trigger: (mode == TickMode::Activity).then(|| TriggerSpec {
                    verb: format!("verb.{id}"),
                    object: None,
                }),
            })
            .collect(),
        patterns: vec![PatternSpec::Row, PatternSpec::FullCard],
        activity_sources: vec![],
        opened_at,
    }
}

fn dealt(game: &str, player: &str, serial: u32, cells: [Option<u32>; 9]) -> CardDealt {
    CardDealt {
        request_id: Some(format!("deal-{player}")),
        game_id: game.into(),
        player: player.into(),
        serial,
        cells: cells.to_vec(),
        first_deal: true,
    }
}

fn called(game: &str, square: u32, number: u32) -> SquareCalled {
    SquareCalled {
        request_id: None,
        game_id: game.into(),
        square_id: square,
        label: format!("square {square}"),
        call_number: number,
    }
}

const ALICE: [Option<u32>; 9] = [
    Some(1),
    Some(2),
    Some(3),
    Some(4),
    None,
    Some(5),
    Some(6),
    Some(7),
    Some(8),
];
const BOB: [Option<u32>; 9] = [
    Some(9),
    Some(10),
    Some(1),
    Some(2),
    None,
    Some(3),
    Some(4),
    Some(5),
    Some(6),
];

fn ticked_cells(card: &Value) -> Vec<u64> {
    card["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ticked"] == true)
        .map(|c| c["cell"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_called_game_shows_its_calls_ticks_claims_and_winners_in_order() {
    let mut feed = Feed::new();
    feed.give(&opened("quiz", TickMode::Called, 1_000));
    feed.give(&dealt("quiz", "alice", 1, ALICE));
    feed.give(&dealt("quiz", "bob", 2, BOB));
    feed.give(&CardsPrinted {
        request_id: Some("print-1".into()),
        game_id: "quiz".into(),
        cards: vec![PrintedCard {
            serial: 3,
            label: "3f2a-9c01-77be-4d10".into(),
            cells: ALICE.iter().rev().copied().collect(),
        }],
    });
    for (n, square) in [1, 2, 3].into_iter().enumerate() {
        feed.give(&called("quiz", square, n as u32 + 1));
    }
    // A call announced twice (a redelivery) is one call.
    assert!(!feed.give(&called("quiz", 3, 3)));

    // Alice's first row is called: her card ticks it (and the free centre), Bob's the squares
    // he holds.
    let alice = card_view(feed.bingo(), "quiz", 1);
    assert_eq!(ticked_cells(&alice["card"]), [0, 1, 2, 4]);
    assert_eq!(alice["card"]["ticked"], 4);
    assert_eq!(alice["card"]["player"], "alice");
    assert_eq!(alice["card"]["cells"][0]["label"], "square 1");
    assert_eq!(alice["card"]["cells"][4]["free"], true);
    assert_eq!(alice["game"]["calledCount"], 3);
    assert_eq!(
        alice["game"]["recentCalls"][0]["squareId"], 3,
        "newest first"
    );
    let bob = card_view(feed.bingo(), "quiz", 2);
    assert_eq!(ticked_cells(&bob["card"]), [2, 3, 4, 5]);

    // Bob claims too early, Alice claims her row and wins, Bob's second claim is refused.
    feed.give(&ClaimAnswered {
        request_id: Some("claim-bob".into()),
        game_id: "quiz".into(),
        serial: 2,
        check: ClaimCheck::Claim,
        player: Some("bob".into()),
        ticked_cells: vec![2, 3, 4, 5],
        pattern: None,
        winning_cells: None,
        won_at: None,
        place: None,
        game_closed: false,
    });
    feed.give(&CardWon {
        game_id: "quiz".into(),
        serial: 1,
        player: Some("alice".into()),
        pattern: "row".into(),
        cells: vec![0, 1, 2],
        won_at: 2_000,
        place: 1,
    });
    feed.give(&ClaimAnswered {
        request_id: Some("claim-alice".into()),
        game_id: "quiz".into(),
        serial: 1,
        check: ClaimCheck::Claim,
        player: Some("alice".into()),
        ticked_cells: vec![0, 1, 2, 4],
        pattern: Some("row".into()),
        winning_cells: Some(vec![0, 1, 2]),
        won_at: Some(2_000),
        place: Some(1),
        game_closed: false,
    });
    feed.give(&RequestRejected {
        request_type: "bingo.card.claim.v1".into(),
        request_id: Some("claim-mallory".into()),
        game_id: "quiz".into(),
        code: "not-your-card".into(),
        reason: "card 1 is not mallory's".into(),
    });

    let view = game_view(feed.bingo(), "quiz");
    let game = &view["game"];
    assert_eq!(game["tickMode"], "called");
    assert_eq!(game["patterns"], json!(["row", "fullCard"]));
    assert_eq!(game["cards"], 3);
    assert_eq!(game["dealt"], 2);
    assert_eq!(game["printed"], 1);
    let calls: Vec<&Value> = game["called"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["squareId"])
        .collect();
    assert_eq!(calls, [&json!(1), &json!(2), &json!(3)], "in call order");
    assert_eq!(game["pool"][0]["called"], true);
    assert_eq!(game["pool"][3]["called"], false);
    assert_eq!(
        game["winners"],
        json!([{"place": 1, "serial": 1, "player": "alice", "pattern": "row", "wonAt": 2_000}])
    );
    let claims = game["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 2);
    assert_eq!(claims[0]["requestId"], "claim-alice", "newest first");
    assert_eq!(claims[0]["place"], 1);
    assert_eq!(
        claims[1]["pattern"],
        Value::Null,
        "bob's early claim: no win"
    );
    assert_eq!(game["rejections"][0]["code"], "not-your-card");
    assert_eq!(game["batches"][0]["requestId"], "print-1");

    // Alice's page: her win, its cells, the answer to her claim; the refusal to match.
    let alice = card_view(feed.bingo(), "quiz", 1);
    assert_eq!(alice["card"]["win"]["pattern"], "row");
    assert_eq!(alice["card"]["cells"][2]["winning"], true);
    assert_eq!(alice["card"]["cells"][3]["winning"], false);
    assert_eq!(alice["card"]["lastAnswer"]["requestId"], "claim-alice");
    assert_eq!(alice["rejections"][0]["requestId"], "claim-mallory");

    // The printed card's label verifies it: only the operator's sheet carries it.
    let label = "3f2a-9c01-77be-4d10";
    for public in [
        game_view(feed.bingo(), "quiz"),
        card_view(feed.bingo(), "quiz", 3),
        list_view(feed.bingo()),
    ] {
        assert!(!public.to_string().contains(label), "{public}");
    }
    assert_eq!(card_view(feed.bingo(), "quiz", 3)["card"]["printed"], true);
    let printed = sheet(feed.bingo(), "quiz", None).unwrap();
    assert_eq!(printed["cards"][0]["label"], label);
    assert_eq!(printed["cards"][0]["cells"][0], "square 8");
    assert_eq!(
        printed["cards"][0]["cells"][4],
        Value::Null,
        "the free centre"
    );
    assert!(sheet(feed.bingo(), "quiz", Some(2)).is_none());

    feed.give(&GameClosed {
        request_id: None,
        game_id: "quiz".into(),
        winners: vec![1],
        cards: 3,
        closed_at: 3_000,
    });
    let list = list_view(feed.bingo());
    assert_eq!(list["games"][0]["closedAt"], 3_000);
    assert_eq!(list["games"][0]["winners"], 1);
    assert_eq!(list["games"][0]["openRequestId"], "open-quiz");
    // Pages of what the console has not seen say so.
    assert_eq!(game_view(feed.bingo(), "other")["game"], Value::Null);
    assert_eq!(card_view(feed.bingo(), "quiz", 99)["card"], Value::Null);
}

#[test]
fn an_activity_card_ticks_with_gestures_and_unticks_when_one_is_undone() {
    let mut feed = Feed::new();
    feed.give(&opened("party", TickMode::Activity, 1_000));
    feed.give(&dealt("party", "zoe", 1, ALICE));
    let tick = |square: u32, cell: u8, entry: &str| SquareTicked {
        game_id: "party".into(),
        serial: 1,
        player: "zoe".into(),
        square_id: square,
        cell,
        entry_id: entry.into(),
        verb: format!("verb.{square}"),
        undo_key: None,
    };
    feed.give(&tick(1, 0, "e1"));
    feed.give(&tick(6, 6, "e2"));
    // A tick of a cell the card does not have changes nothing.
    assert!(!feed.give(&tick(6, 200, "e3")));
    assert_eq!(
        ticked_cells(&card_view(feed.bingo(), "party", 1)["card"]),
        [0, 4, 6]
    );
    feed.give(&GestureUndone {
        game_id: "party".into(),
        entry_id: "e2".into(),
        unticked: vec![CardCell {
            serial: 1,
            player: "zoe".into(),
            square_id: 6,
            cell: 6,
        }],
    });
    let card = card_view(feed.bingo(), "party", 1);
    assert_eq!(ticked_cells(&card["card"]), [0, 4]);
    assert_eq!(card["game"]["tickMode"], "activity");
    let game = game_view(feed.bingo(), "party");
    assert_eq!(game["game"]["pool"][0]["verb"], "verb.1");
    assert_eq!(game["game"]["players"][0]["ticked"], 2);
}

#[test]
fn refusals_of_openings_and_of_unknown_games_show_on_the_games_page() {
    let mut feed = Feed::new();
    feed.give(&RequestRejected {
        request_type: "bingo.game.open.v1".into(),
        request_id: Some("console-1".into()),
        game_id: "tiny".into(),
        code: "invalid-game".into(),
        reason: "a 5×5 card draws 24 squares, but the pool holds only 3".into(),
    });
    feed.give(&opened("quiz", TickMode::Called, 1_000));
    feed.give(&RequestRejected {
        request_type: "bingo.game.open.v1".into(),
        request_id: Some("console-2".into()),
        game_id: "quiz".into(),
        code: "game-exists".into(),
        reason: "game quiz exists".into(),
    });
    let list = list_view(feed.bingo());
    let rejections = list["rejections"].as_array().unwrap();
    assert_eq!(rejections.len(), 2);
    assert_eq!(rejections[0]["requestId"], "console-2", "newest first");
    assert_eq!(rejections[1]["code"], "invalid-game");
    assert_eq!(
        game_view(feed.bingo(), "quiz")["game"]["rejections"][0]["code"],
        "game-exists"
    );
}

#[test]
fn a_snapshot_gives_back_the_same_bingo_views() {
    let mut feed = Feed::new();
    feed.give(&opened("quiz", TickMode::Called, 1_000));
    feed.give(&dealt("quiz", "alice", 1, ALICE));
    feed.give(&called("quiz", 2, 1));
    let restored = Projections::decode(&feed.state.encode().unwrap()).unwrap();
    let bingo = restored.get::<Bingo>().unwrap();
    assert_eq!(
        card_view(bingo, "quiz", 1),
        card_view(feed.bingo(), "quiz", 1)
    );
    assert_eq!(game_view(bingo, "quiz"), game_view(feed.bingo(), "quiz"));
    assert_eq!(list_view(bingo), list_view(feed.bingo()));
}

#[test]
fn games_cards_claims_and_refusals_are_bounded() {
    let mut feed = Feed::new();
    // Every game open: one more is not shown.
    for n in 0..MAX_GAMES {
        feed.give(&opened(
            &format!("g{n}"),
            TickMode::Called,
            1_000 + n as u64,
        ));
    }
    assert!(!feed.give(&opened("extra", TickMode::Called, 5_000)));
    assert!(feed.bingo().game("extra").is_none());
    // With games closed, a new one pushes out the one that closed first.
    for (n, at) in [(7, 9_000), (3, 8_000)] {
        feed.give(&GameClosed {
            request_id: None,
            game_id: format!("g{n}"),
            winners: vec![],
            cards: 0,
            closed_at: at,
        });
    }
    assert!(feed.give(&opened("extra", TickMode::Called, 5_000)));
    assert!(feed.bingo().game("g3").is_none(), "closed first, removed");
    assert!(feed.bingo().game("g7").is_some());
    assert_eq!(feed.bingo().all().count(), MAX_GAMES);

    // Cards beyond the cap are counted, not kept.
    for serial in 1..=(MAX_CARDS as u32 + 5) {
        feed.give(&dealt("g0", &format!("p{serial}"), serial, ALICE));
    }
    let game = feed.bingo().game("g0").unwrap();
    assert_eq!(game.cards.len(), MAX_CARDS);
    assert_eq!(game.card_count, MAX_CARDS as u32 + 5);
    // Claims and refusals: the newest are kept.
    for n in 0..(MAX_CLAIMS + 10) {
        feed.give(&ClaimAnswered {
            request_id: Some(format!("c{n}")),
            game_id: "g0".into(),
            serial: 1,
            check: ClaimCheck::Verify,
            player: Some("p1".into()),
            ticked_cells: vec![4],
            pattern: None,
            winning_cells: None,
            won_at: None,
            place: None,
            game_closed: false,
        });
    }
    for n in 0..(MAX_REJECTIONS + 10) {
        feed.give(&RequestRejected {
            request_type: "bingo.square.call.v1".into(),
            request_id: Some(format!("r{n}")),
            game_id: format!("nowhere-{n}"),
            code: "unknown-game".into(),
            reason: "there is no game".into(),
        });
    }
    let view = game_view(feed.bingo(), "g0");
    let claims = view["game"]["claims"].as_array().unwrap();
    assert_eq!(claims.len(), MAX_CLAIMS);
    assert_eq!(claims[0]["requestId"], format!("c{}", MAX_CLAIMS + 9));
    let list = list_view(feed.bingo());
    assert_eq!(list["rejections"].as_array().unwrap().len(), MAX_REJECTIONS);
}
