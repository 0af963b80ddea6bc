//! Bingo's pages and actions.
//!
//! Pages (no token to view):
//! - `GET /bingo`: every game; for the operator, the form that opens one.
//! - `GET /bingo/{gameId}`: one game for its organiser: the pool and the squares called, the
//!   players' cards, printed batches, claims and winners in order, refusals; for the operator,
//!   the actions below.
//! - `GET /bingo/{gameId}/cards/{serial}`: a player's card, ticking live, with a claim button.
//! - `GET /bingo/{gameId}/print`: the printable sheet of a printed batch (`?batch=N`, else the
//!   last); the cards themselves, whose labels verify them, come from `GET
//!   /bingo/{gameId}/sheet` with the operator's token.
//!
//! Actions (`POST`, 202 `{"requestId", "messageId", …}`; the service's answer or refusal, which
//! echoes the `requestId`, then shows on the page):
//! - `/bingo` `{"gameId"?, "tickMode", "size", "freeCentre"?, "squares", "patterns"}` →
//!   `bingo.game.open.v1` (operator).
//! - `/bingo/{gameId}/cards` `{"player"}` → `bingo.card.deal.v1` (operator).
//! - `/bingo/{gameId}/calls` `{"squareId"}` → `bingo.square.call.v1` (operator).
//! - `/bingo/{gameId}/prints` `{"count"}` → `bingo.cards.print.v1` (operator).
//! - `/bingo/{gameId}/verify` `{"serial", "label"?}` → `bingo.card.verify.v1` (operator).
//! - `/bingo/{gameId}/close` → `bingo.game.close.v1` (operator).
//! - `/bingo/{gameId}/cards/{serial}/claim` → `bingo.card.claim.v1` for the card's holder:
//!   the operator's token or that player's (`bingo-player-<player>`), nobody else's. The
//!   claim names the player the console saw dealt the card; the bingo service checks it again.

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::Value;

use self::commands::{claim, command, deal, open, verify};
use super::form;
use super::projection::Bingo;
use super::views;
use crate::projection::Projections;
use crate::web::actions::{Refusal, error, refuse};
use crate::web::{Page, Script, Web, page_of};
use arcade_contracts::Message;
use arcade_contracts::bingo::{CallSquare, CloseGame, DealCard, PrintCards, VerifyCard};

mod commands;

/// What every page of this game runs first.
const COMMON: &str = include_str!("scripts/common.js");
const LIST_SCRIPT: Script = &[COMMON, include_str!("scripts/list.js")];
const GAME_SCRIPT: Script = &[COMMON, include_str!("scripts/game.js")];
const CARD_SCRIPT: Script = &[COMMON, include_str!("scripts/card.js")];
const PRINT_SCRIPT: Script = &[COMMON, include_str!("scripts/print.js")];

/// Longest game id (the contract's).
pub const MAX_GAME_ID: usize = 200;

/// Bingo's routes.
pub fn routes() -> Router<Web> {
    Router::new()
        .route("/bingo", get(list).post(open))
        .route("/bingo/{game_id}", page_of(game))
        .route(
            "/bingo/{game_id}/cards",
            command(&["player"], DealCard::TYPE, deal),
        )
        .route(
            "/bingo/{game_id}/calls",
            command(&["squareId"], CallSquare::TYPE, Ok),
        )
        .route(
            "/bingo/{game_id}/prints",
            command(&["count"], PrintCards::TYPE, Ok),
        )
        .route(
            "/bingo/{game_id}/verify",
            command(&["serial", "label"], VerifyCard::TYPE, verify),
        )
        .route("/bingo/{game_id}/close", command(&[], CloseGame::TYPE, Ok))
        .route("/bingo/{game_id}/print", page_of(print_page))
        .route("/bingo/{game_id}/sheet", get(sheet))
        .route("/bingo/{game_id}/cards/{serial}", page_of(card))
        .route("/bingo/{game_id}/cards/{serial}/claim", post(claim))
}

/// Whether `id` can be a game id (1 to 200 bytes); the error says what is wrong.
pub fn check_game_id(id: &str) -> Result<(), String> {
    if (1..=MAX_GAME_ID).contains(&id.len()) {
        Ok(())
    } else {
        Err(format!(
            "a game id is 1 to {MAX_GAME_ID} bytes, not {}",
            id.len()
        ))
    }
}

/// A card serial from a path (a whole number from 1); the error says what is wrong.
pub fn parse_serial(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(serial) if serial >= 1 => Ok(serial),
        _ => Err(format!(
            "{text:?} is not a card serial: a whole number from 1"
        )),
    }
}

/// The game id and card serial of a card's path; 404 when either is not one.
fn card_path(game_id: &str, serial: &str) -> Result<u32, Refusal> {
    check_game_id(game_id)
        .and_then(|()| parse_serial(serial))
        .map_err(|why| refuse(StatusCode::NOT_FOUND, why))
}

/// A fresh request id: the page matches the service's answer or refusal by it.
fn request_id() -> String {
    format!("console-{}", uuid::Uuid::now_v7())
}

async fn list(State(web): State<Web>, headers: HeaderMap) -> Response {
    Page::new("Bingo", LIST_SCRIPT, "bingo", |p| {
        p.get::<Bingo>().map(views::list_view)
    })
    .serve(&web, &headers)
    .await
}

fn game(game_id: String) -> Result<Page, Refusal> {
    let title = format!("Bingo {game_id}");
    game_page(game_id, title, GAME_SCRIPT, "bingo-game", views::game_view)
}

fn card((game_id, serial): (String, String)) -> Result<Page, Refusal> {
    let serial = card_path(&game_id, &serial)?;
    let title = format!("Bingo {game_id}: card {serial}");
    Ok(Page::new(title, CARD_SCRIPT, "bingo-card", move |p| {
        p.get::<Bingo>()
            .map(|b| views::card_view(b, &game_id, serial))
    }))
}

fn print_page(game_id: String) -> Result<Page, Refusal> {
    let title = format!("Bingo {game_id}: printable cards");
    game_page(
        game_id,
        title,
        PRINT_SCRIPT,
        "bingo-print",
        views::print_view,
    )
}

/// A page about one game, drawn by `script` in a `<body>` of class `body_class`, with `view`
/// of it; 404 when `game_id` cannot be one.
fn game_page(
    game_id: String,
    title: String,
    script: Script,
    body_class: &'static str,
    view: fn(&Bingo, &str) -> Value,
) -> Result<Page, Refusal> {
    check_game_id(&game_id).map_err(|why| refuse(StatusCode::NOT_FOUND, why))?;
    Ok(Page::new(title, script, body_class, move |p| {
        p.get::<Bingo>().map(|b| view(b, &game_id))
    }))
}

#[derive(Debug, Deserialize)]
struct SheetQuery {
    batch: Option<String>,
}

/// `GET /bingo/{gameId}/sheet?batch=N`: the operator's printable cards, labels included.
async fn sheet(
    State(web): State<Web>,
    Path(game_id): Path<String>,
    Query(query): Query<SheetQuery>,
    headers: HeaderMap,
) -> Response {
    if let Err(refused) = web.gate.operator(&headers) {
        return refused.into_response();
    }
    let batch = match query.batch.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => match text.parse::<u32>() {
            Ok(n) => Some(n),
            Err(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    format!("?batch={text:?} is not a batch number"),
                );
            }
        },
    };
    web.live.resumed().await;
    let sheet = web.live.read(|p: &Projections| {
        p.get::<Bingo>()
            .and_then(|b| views::sheet(b, &game_id, batch))
    });
    match sheet {
        Some(sheet) => axum::Json(sheet).into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            match batch {
                Some(n) => format!("the console has seen no printed batch {n} of game {game_id:?}"),
                None => format!("the console has seen no printed batch of game {game_id:?}"),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_and_serials_are_checked() {
        assert!(check_game_id("friday-quiz").is_ok());
        assert!(check_game_id("").is_err());
        assert!(check_game_id(&"x".repeat(201)).is_err());
        assert_eq!(parse_serial("12"), Ok(12));
        for bad in ["0", "-1", "x", ""] {
            assert!(parse_serial(bad).unwrap_err().contains("not a card serial"));
        }
    }
}
