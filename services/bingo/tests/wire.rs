//! The bingo service on the wire: every incoming message type decodes to its input, every
//! event is one contract message valid against its schema and decodes back to itself, and a
//! state replayed from the wire equals the state that decided.

mod common;

use arcade_bingo::domain::{Action, Event, PatternKind, SourceSpec};
use arcade_bingo::{Incoming, Input, MappingError, Outgoing};
use arcade_contracts::{Catalog, Message, catalog::all_types};
use common::*;
use serde_json::json;

/// A history with every kind of event: both game kinds, deals, prints, calls, ticks, undo,
/// claims, wins, a refusal and a close.
fn full_history() -> Vec<Event> {
    let mut s = given([]);
    s.run(cmd_id(
        "q",
        "r1",
        Action::Open(called_spec(5, 75, vec![PatternKind::Row])),
    ));
    s.run(cmd(
        "q",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    s.run(cmd(
        "q",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    s.run(cmd("q", Action::Print { count: 3 }));
    let card = s.state().game("q").unwrap().card_of("alice").unwrap();
    for cell in [0, 1, 2, 3, 4] {
        s.run(cmd(
            "q",
            Action::Call {
                square: card.cells[cell].unwrap(),
            },
        ));
    }
    s.run(cmd_id(
        "q",
        "claim",
        Action::Claim {
            serial: 1,
            player: "alice".into(),
        },
    ));
    s.run(cmd(
        "q",
        Action::Verify {
            serial: 2,
            label: None,
        },
    ));
    let rejection = s
        .when(cmd(
            "q",
            Action::Claim {
                serial: 2,
                player: "alice".into(),
            },
        ))
        .rejection();
    s.run(cmd("q", Action::Close));
    let mut spec = activity_spec(vec![
        PatternKind::Line,
        PatternKind::Custom {
            name: "x".into(),
            cell_sets: vec![vec![0, 8]],
        },
    ]);
    spec.sources = vec![SourceSpec {
        message_type: "table.goal.scored.v1".into(),
        verb: "v1".into(),
        member_field: "/scorer".into(),
        object_field: None,
        filters: Vec::new(),
        undone_by: None,
    }];
    s.run(cmd("a", Action::Open(spec)));
    s.run(cmd(
        "a",
        Action::Deal {
            player: "bob".into(),
        },
    ));
    for v in 1..=8 {
        s.run(gesture(&format!("e{v}"), "bob", &format!("v{v}"), None));
    }
    s.run(undo("e1"));
    s.run(Input::Foreign {
        message_type: "table.goal.scored.v1".into(),
        payload: json!({"scorer": "bob"}),
        message_id: "m-1".into(),
    });
    let mut history = s.into_history();
    history.push(rejection.to_event());
    history
}

#[test]
fn every_event_is_one_valid_contract_message_and_decodes_back() {
    let catalog = Catalog::new();
    let history = full_history();
    let mut types: Vec<&str> = Vec::new();
    for event in &history {
        let message = Outgoing::from(event);
        let (message_type, payload) = (message.message_type(), message.payload().unwrap());
        catalog
            .validate(message_type, &payload)
            .unwrap_or_else(|e| panic!("{message_type}: {e}\n{payload:#}"));
        assert_eq!(&Event::from_message(message_type, &payload).unwrap(), event);
        types.push(message_type);
    }
    types.sort_unstable();
    types.dedup();
    let bingo_events: Vec<&str> = all_types()
        .iter()
        .filter(|t| t.name.starts_with("bingo.") && t.kind == arcade_contracts::MessageKind::Event)
        .map(|t| t.name)
        .collect();
    let mut expected = bingo_events.clone();
    expected.sort_unstable();
    assert_eq!(types, expected, "the history covers every bingo event type");
}

#[test]
fn a_state_replayed_from_the_wire_decides_like_the_original() {
    let history = full_history();
    let back = history.iter().map(|event| {
        let message = Outgoing::from(event);
        let (t, payload) = (message.message_type(), message.payload().unwrap());
        let text = serde_json::to_string(&payload).unwrap();
        Event::from_message(t, &serde_json::from_str(&text).unwrap()).unwrap()
    });
    let (original, replayed) = (given(back.collect::<Vec<_>>()), given(history));
    assert_eq!(original.state(), replayed.state());
    for id in ["q", "a"] {
        let (a, b) = (
            original.state().game(id).unwrap(),
            replayed.state().game(id).unwrap(),
        );
        assert_eq!(
            a.serials().collect::<Vec<_>>(),
            b.serials().collect::<Vec<_>>()
        );
        for serial in a.serials() {
            assert_eq!(a.card(serial), b.card(serial));
        }
        assert_eq!(
            (a.winners(), a.called(), a.is_open()),
            (b.winners(), b.called(), b.is_open())
        );
    }
    let probe = [
        cmd(
            "a",
            Action::Claim {
                serial: 1,
                player: "bob".into(),
            },
        ),
        cmd(
            "a",
            Action::Deal {
                player: "carol".into(),
            },
        ),
        undo("e2"),
        gesture("e1", "bob", "v1", None),
    ];
    for input in probe {
        let outcome = original.when(input.clone()).outcome();
        assert_eq!(outcome, replayed.when(input).outcome());
    }
}

#[test]
fn every_bingo_command_and_activity_example_decodes_to_its_input() {
    let catalog = Catalog::new();
    for &name in Incoming::TYPES {
        let t = catalog.get(name).unwrap();
        let input = Input::from_message(name, &t.example(), "m-1").unwrap();
        let ok = match (name, &input) {
            ("activity.recorded.v1", Input::Recorded(g)) => g.entry_id == "act-8812",
            ("activity.undone.v1", Input::Undone(u)) => u.entry_id == "act-8812",
            (_, Input::Command(c)) => c.action.request_type() == name,
            _ => false,
        };
        assert!(ok, "{name} decoded as {input:?}");
    }
    // The example open request is a valid game.
    let open = Input::from_message(
        "bingo.game.open.v1",
        &catalog.get("bingo.game.open.v1").unwrap().example(),
        "m",
    )
    .unwrap();
    assert!(given([]).when(open).is_accepted());
}

#[test]
fn commands_are_routed_to_the_bingo_queue() {
    use arcade_contracts::bingo::{DealCard, QUEUE};
    assert_eq!(
        DealCard::example().route(),
        arcade_contracts::Route::Queue(QUEUE.into())
    );
    assert_eq!(QUEUE, "bingo");
}

#[test]
fn other_types_are_foreign_and_bad_payloads_say_why() {
    let input =
        Input::from_message("table.goal.scored.v1", &json!({"scorer": "a"}), "m-7").unwrap();
    assert_eq!(
        input,
        Input::Foreign {
            message_type: "table.goal.scored.v1".into(),
            payload: json!({"scorer": "a"}),
            message_id: "m-7".into(),
        }
    );
    let err = Input::from_message("bingo.card.deal.v1", &json!({"gameId": "g"}), "m").unwrap_err();
    assert!(
        matches!(&err, MappingError::Payload { message_type, .. } if message_type == "bingo.card.deal.v1")
    );
    assert!(err.to_string().contains("missing field `player`"), "{err}");
    let err = Event::from_message("table.goal.scored.v1", &json!({})).unwrap_err();
    assert!(
        matches!(&err, MappingError::UnknownType { message_type, .. } if message_type == "table.goal.scored.v1"),
        "{err:?}"
    );
}

#[test]
fn a_logged_game_with_a_broken_configuration_is_refused_on_replay() {
    let opened = arcade_contracts::bingo::GameOpened::example();
    let mut payload = serde_json::to_value(&opened).unwrap();
    payload["grid"]["size"] = json!(12);
    let err = Event::from_message("bingo.game.opened.v1", &payload).unwrap_err();
    assert_eq!(
        err.to_string(),
        "bingo.game.opened.v1 payload is not valid: a grid is 3 to 9 cells wide, not 12"
    );
}

#[test]
fn a_claim_answer_spells_out_no_win_as_nulls() {
    let mut s = given([]);
    s.run(cmd(
        "q",
        Action::Open(called_spec(3, 8, vec![PatternKind::Row])),
    ));
    s.run(cmd(
        "q",
        Action::Deal {
            player: "alice".into(),
        },
    ));
    let events = s
        .when(cmd_id(
            "q",
            "r-9",
            Action::Claim {
                serial: 1,
                player: "alice".into(),
            },
        ))
        .events();
    assert_eq!(
        (
            Outgoing::from(&events[0]).message_type(),
            Outgoing::from(&events[0]).payload().unwrap()
        ),
        (
            "bingo.claim.answered.v1",
            json!({
                "requestId": "r-9",
                "gameId": "q",
                "serial": 1,
                "check": "claim",
                "player": "alice",
                "tickedCells": [4],
                "pattern": null,
                "winningCells": null,
                "wonAt": null,
                "place": null,
                "gameClosed": false
            })
        )
    );
}
