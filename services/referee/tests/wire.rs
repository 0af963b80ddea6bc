//! Every event of a played game becomes a contract message that matches its committed schema,
//! and comes back from the log as the same event.

mod common;

use arcade_contracts::table::{TableGameStart, TableGoalReport};
use arcade_contracts::{Catalog, Message, Route};
use arcade_referee::domain::referee::BallSeen;
use arcade_referee::mapping::{TableEvent, TableRejection};
use arcade_referee::{BallKind, Event, Input, Referee, TableState};

fn payload(message: &TableEvent) -> serde_json::Value {
    message.payload().unwrap()
}

fn decode(message_type: &str, payload: serde_json::Value) -> TableEvent {
    TableEvent::decode(message_type, &payload).unwrap()
}

/// A whole game from the example commands: start, goals into the tie-break, the timeout.
fn played_game(referee: &Referee) -> Vec<Event> {
    let start = TableGameStart::example();
    let report = TableGoalReport::example();
    let at = 1_717_243_200_000;
    let mut inputs = vec![Input::from(start.clone()).at(at)];
    for i in 0..4 {
        inputs.push(Input::from(report.clone()).at(at + 10_000 * i + 1));
        let side = arcade_referee::Side::Lock;
        inputs.push(Input::Ball(BallSeen {
            side,
            kind: BallKind::Inout,
            at_ms: at + 10_000 * i + 2,
        }));
    }
    inputs.push(Input::from(report.clone()).at(at + 50_000));
    inputs.push(Input::Tick {
        now_ms: at + 900_000,
    });
    let mut state = TableState::default();
    let mut events = Vec::new();
    for input in &inputs {
        for event in referee.decide(&state, input).unwrap() {
            Referee::evolve(&mut state, &event);
            events.push(event);
        }
    }
    events
}

#[test]
fn every_event_matches_its_schema_and_round_trips() {
    let catalog = Catalog::new();
    let referee = Referee::new(TableGameStart::example().table_id);
    let events = played_game(&referee);
    let types: Vec<&str> = events
        .iter()
        .map(|e| e.to_message("t").message_type())
        .collect();
    for wanted in [
        "table.game.started.v1",
        "table.phase.changed.v1",
        "table.ibr.changed.v1",
        "table.game.finished.v1",
    ] {
        assert!(
            types.contains(&wanted),
            "the game publishes no {wanted}: {types:?}"
        );
    }
    for event in &events {
        let message = event.to_message(referee.table_id());
        let json = payload(&message);
        catalog.validate(message.message_type(), &json).unwrap();
        assert_eq!(json["tableId"], referee.table_id());
        let back = Event::from_message(&decode(message.message_type(), json)).unwrap();
        assert_eq!(&back, event);
    }
}

#[test]
fn rejections_become_their_rejected_messages() {
    let catalog = Catalog::new();
    let referee = Referee::new("t1");
    let mut start = TableGameStart::example();
    start.table_id = "t1".into();
    start
        .rules
        .insert("timeout_s".into(), serde_json::json!(-5));
    let refusal = referee
        .decide(&TableState::default(), &Input::from(start.clone()).at(0))
        .unwrap_err();
    let TableRejection::Game(message) = refusal.to_message("t1") else {
        panic!("{refusal:?}")
    };
    assert_eq!(
        message.error,
        "invalid rules: timeout_s: expected a non-negative integer, found -5"
    );
    assert_eq!(message.game_id, start.game_id);
    catalog
        .validate(
            "table.game.rejected.v1",
            &serde_json::to_value(&message).unwrap(),
        )
        .unwrap();

    let mut report = TableGoalReport::example();
    report.table_id = "t1".into();
    let refusal = referee
        .decide(&TableState::default(), &Input::from(report.clone()).at(0))
        .unwrap_err();
    let TableRejection::Goal(message) = refusal.to_message("t1") else {
        panic!("{refusal:?}")
    };
    assert_eq!(message.error, "no game has been started on this table");
    catalog
        .validate(
            "table.goal.rejected.v1",
            &serde_json::to_value(&message).unwrap(),
        )
        .unwrap();
}

#[test]
fn commands_are_routed_to_the_referee_of_their_table() {
    assert_eq!(
        TableGameStart::example().route(),
        Route::Queue("referee.bar-paris-11-t3".into())
    );
    assert_eq!(
        TableGoalReport::example().route(),
        Route::Queue("referee.bar-paris-11-t3".into())
    );
}
