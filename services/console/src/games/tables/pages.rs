//! The tables' pages and the organiser's actions on a table.
//!
//! - `GET /tables`: every table (score, phase, clock, ball-return locks, last goals).
//! - `GET /tables/{tableId}`: one table, its last goals and refusals; for the operator, the
//!   actions below.
//! - `GET /tables/{tableId}/scoreboard`: full screen for a TV next to the table, with the
//!   table's LED display drawn pixel for pixel under the big score.
//! - `POST /tables/{tableId}/games` `{"rules": {…}, "gameId"?, "players"?}` →
//!   `table.game.start.v1` (202 `{"gameId", "messageId"}`; a game id is drawn when none is
//!   given). The referee checks the rules: a refusal comes back as `table.game.rejected.v1`,
//!   shown on the page with its JSON path.
//! - `POST /tables/{tableId}/abort` `{"gameId", "reason"?}` → `table.game.abort.v1`.
//! - `POST /tables/{tableId}/cancel` `{"gameId", "ball"?, "reason"?}` → `table.goal.cancel.v1`
//!   (the last ball; refused unless `ball` is it).
//! - `POST /tables/{tableId}/goals` `{"side", "kind"?, "player"?, "gameId"?}` →
//!   `table.goal.report.v1`.
//! - `GET /console/tables/examples.json`: the example rules documents to choose from.
//!
//! Every action needs the operator ([`crate::web::Gate`]); the payload is checked against its
//! schema before it is sent, and a refusal names each field by its JSON pointer.

use arcade_contracts::Message;
use arcade_contracts::table::{TableGameAbort, TableGameStart, TableGoalCancel, TableGoalReport};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Map, Value, json};

use super::projection::Tables;
use crate::web::actions::{self, Command, Refusal, kind_of, organiser_action, refuse};
use crate::web::{Page, Script, Web, page_of};

/// The example rules documents (the referee's own examples), by name.
pub const EXAMPLES: [(&str, &str); 3] = [
    (
        "bar",
        include_str!("../../../../referee/examples/bar.rules.json"),
    ),
    (
        "tournament",
        include_str!("../../../../referee/examples/tournament.rules.json"),
    ),
    (
        "aggressive",
        include_str!("../../../../referee/examples/aggressive.rules.json"),
    ),
];

/// What every page of this game runs first.
const COMMON: &str = include_str!("scripts/common.js");
const LIST_SCRIPT: Script = &[COMMON, include_str!("scripts/list.js")];
const TABLE_SCRIPT: Script = &[COMMON, include_str!("scripts/table.js")];
const SCOREBOARD_SCRIPT: Script = &[COMMON, include_str!("scripts/scoreboard.js")];

/// The tables' routes.
pub fn routes() -> Router<Web> {
    Router::new()
        .route("/tables", get(list))
        .route("/tables/{table_id}", page_of(table))
        .route("/tables/{table_id}/scoreboard", page_of(scoreboard))
        .route(
            "/tables/{table_id}/games",
            organiser_action(check_table_id, TableGameStart::TYPE, start),
        )
        .route(
            "/tables/{table_id}/abort",
            organiser_action(check_table_id, TableGameAbort::TYPE, abort),
        )
        .route(
            "/tables/{table_id}/cancel",
            organiser_action(check_table_id, TableGoalCancel::TYPE, cancel),
        )
        .route(
            "/tables/{table_id}/goals",
            organiser_action(check_table_id, TableGoalReport::TYPE, goal),
        )
        .route("/console/tables/examples.json", get(examples))
}

/// Whether `id` is a table id as the contract has it (1–64 of `A-Za-z0-9._-`, not starting
/// with `.`, `_` or `-`); the error says what is wrong.
pub fn check_table_id(id: &str) -> Result<(), String> {
    let first_ok = id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if (1..=64).contains(&id.len()) && first_ok && rest_ok {
        Ok(())
    } else {
        Err(format!(
            "{id:?} is not a table id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        ))
    }
}

/// The view of every table.
pub fn list_view(tables: &Tables) -> Value {
    json!({ "tables": tables.all().collect::<Vec<_>>() })
}

/// The view of one table (`table` is null until the console has seen it), with the frame of
/// its LED display (`display`, see [`super::display::display_view`]).
pub fn table_view(tables: &Tables, table_id: &str) -> Value {
    let table = tables.table(table_id);
    json!({
        "tableId": table_id,
        "table": table,
        "display": super::display::display_view(table),
    })
}

async fn list(State(web): State<Web>, headers: HeaderMap) -> Response {
    Page::new("Tables", LIST_SCRIPT, "tables", |p| {
        p.get::<Tables>().map(list_view)
    })
    .serve(&web, &headers)
    .await
}

/// A page of one table, drawn by `script` in a `<body>` of class `body_class`; 404 when
/// `table_id` is not a table id.
fn one_table(table_id: String, script: Script, body_class: &'static str) -> Result<Page, Refusal> {
    check_table_id(&table_id).map_err(|why| refuse(StatusCode::NOT_FOUND, why))?;
    let title = format!("Table {table_id}");
    Ok(Page::new(title, script, body_class, move |p| {
        p.get::<Tables>().map(|t| table_view(t, &table_id))
    }))
}

fn table(table_id: String) -> Result<Page, Refusal> {
    one_table(table_id, TABLE_SCRIPT, "table")
}

fn scoreboard(table_id: String) -> Result<Page, Refusal> {
    one_table(table_id, SCOREBOARD_SCRIPT, "scoreboard")
}

async fn examples() -> Response {
    let mut all = Map::new();
    for (name, text) in EXAMPLES {
        // The examples are the referee's, checked by its own tests; one that does not parse
        // is left out rather than served broken.
        if let Ok(rules) = serde_json::from_str::<Value>(text) {
            all.insert(name.to_string(), rules);
        }
    }
    axum::Json(Value::Object(all)).into_response()
}

/// `table.game.start.v1` of `{"rules", "gameId"?, "players"?}`; a game id is drawn when none
/// is given.
fn start(table_id: String, mut body: Map<String, Value>) -> Command {
    let game_id = match body.remove("gameId") {
        Some(Value::String(id)) if !id.trim().is_empty() => id.trim().to_string(),
        None | Some(Value::Null) => format!("g-{}", uuid::Uuid::now_v7()),
        Some(Value::String(_)) => format!("g-{}", uuid::Uuid::now_v7()),
        Some(other) => {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                format!("/gameId: must be a string, not {}", kind_of(&other)),
            ));
        }
    };
    let mut payload = Map::new();
    payload.insert("tableId".into(), Value::String(table_id));
    payload.insert("gameId".into(), Value::String(game_id.clone()));
    payload.insert("rules".into(), body.remove("rules").unwrap_or(Value::Null));
    if let Some(players) = body.remove("players").filter(|p| !p.is_null()) {
        payload.insert("players".into(), players);
    }
    if let Some(field) = body.keys().next() {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            format!("/{field}: unknown field (expected rules, gameId, players)"),
        ));
    }
    Ok((payload, json!({ "gameId": game_id })))
}

/// `table.game.abort.v1` of `{"gameId", "reason"?}`.
fn abort(table_id: String, mut body: Map<String, Value>) -> Command {
    body.insert("tableId".into(), Value::String(table_id));
    actions::drop_blank(&mut body, &["reason"]);
    let answer = json!({ "gameId": body.get("gameId").cloned().unwrap_or(Value::Null) });
    Ok((body, answer))
}

/// `table.goal.cancel.v1` of `{"gameId", "ball"?, "reason"?}`.
fn cancel(table_id: String, mut body: Map<String, Value>) -> Command {
    body.insert("tableId".into(), Value::String(table_id));
    actions::drop_blank(&mut body, &["reason", "ball"]);
    let answer = json!({ "gameId": body.get("gameId").cloned().unwrap_or(Value::Null) });
    Ok((body, answer))
}

/// `table.goal.report.v1` of `{"side", "kind"?, "player"?, "gameId"?}` (`kind` is `goal`
/// unless given).
fn goal(table_id: String, mut body: Map<String, Value>) -> Command {
    body.insert("tableId".into(), Value::String(table_id));
    body.entry("kind")
        .or_insert_with(|| Value::String("goal".into()));
    actions::drop_blank(&mut body, &["player", "gameId"]);
    Ok((body, json!({})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_ids_follow_the_contract() {
        assert!(check_table_id("t1").is_ok());
        assert!(check_table_id("bar-2.left_1").is_ok());
        for bad in ["", "-t", "t 1", "t/1", &"x".repeat(65)] {
            let why = check_table_id(bad).unwrap_err();
            assert!(why.contains("is not a table id"), "{why}");
        }
    }

    #[test]
    fn every_example_is_a_rules_object() {
        for (name, text) in EXAMPLES {
            let rules: Value = serde_json::from_str(text).unwrap();
            assert!(rules.get("conditions").is_some(), "{name}");
        }
    }
}
