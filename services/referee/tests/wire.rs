//! Every event of a played game becomes a contract message that matches its committed schema,
//! and comes back from the log as the same event.

mod common;

use arcade_contracts::table::{TableGameStart, TableGoalReport};
use arcade_contracts::{Catalog, Message, Route};
use arcade_referee::domain::referee::BallSeen;
use arcade_referee::mapping::{TableEvent, TableRejection};
use arcade_referee::{BallKind, Event, Input, Referee};
use arcade_runtime::testkit::Scenario;
use common::TableRules;

fn payload(message: &TableEvent) -> serde_json::Value {
    message.payload().unwrap()
}

fn decode(message_type: &str, payload: serde_json::Value) -> TableEvent {
    TableEvent::decode(message_type, &payload).unwrap()
}

/// A whole game from the example commands on the examples' table: start, goals into the
/// tie-break, the timeout.
fn played_game() -> Vec<Event> {
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
    let mut table = Scenario::new(TableRules(Referee::new(TableGameStart::example().table_id)));
    for input in inputs {
        table.run(input);
    }
    table.into_history()
}

#[test]
fn every_event_matches_its_schema_and_round_trips() {
    let catalog = Catalog::new();
    let table_id = TableGameStart::example().table_id;
    let events = played_game();
    let types: Vec<&str> = events
        .iter()
        .map(|e| TableEvent::from(e).message_type())
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
        let message = TableEvent::from(event);
        let json = payload(&message);
        catalog.validate(message.message_type(), &json).unwrap();
        assert_eq!(json["tableId"], table_id);
        let back = Event::try_from(decode(message.message_type(), json)).unwrap();
        assert_eq!(&back, event);
    }
}

#[test]
fn rejections_become_their_rejected_messages() {
    let catalog = Catalog::new();
    let mut start = TableGameStart::example();
    start.table_id = "t1".into();
    start
        .rules
        .insert("timeout_s".into(), serde_json::json!(-5));
    let refusal = common::table([])
        .when(Input::from(start.clone()))
        .rejection();
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
    let refusal = common::table([])
        .when(Input::from(report.clone()))
        .rejection();
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
