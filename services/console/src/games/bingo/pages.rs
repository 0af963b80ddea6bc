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

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use self::commands::{call, claim, close, deal, open, print, verify};
use super::form;
use super::projection::Bingo;
use super::views;
use crate::projection::Projections;
use crate::web::actions::error;
use crate::web::{Page, Web, page};

mod commands;

const LIST_SCRIPT: &str = concat!(
    include_str!("scripts/common.js"),
    include_str!("scripts/list.js")
);
const GAME_SCRIPT: &str = concat!(
    include_str!("scripts/common.js"),
    include_str!("scripts/game.js")
);
const CARD_SCRIPT: &str = concat!(
    include_str!("scripts/common.js"),
    include_str!("scripts/card.js")
);
const PRINT_SCRIPT: &str = concat!(
    include_str!("scripts/common.js"),
    include_str!("scripts/print.js")
);

/// Longest game id (the contract's).
pub const MAX_GAME_ID: usize = 200;

/// Bingo's routes.
pub fn routes() -> Router<Web> {
    Router::new()
        .route("/bingo", get(list).post(open))
        .route("/bingo/{game_id}", get(game))
        .route("/bingo/{game_id}/cards", post(deal))
        .route("/bingo/{game_id}/calls", post(call))
        .route("/bingo/{game_id}/prints", post(print))
        .route("/bingo/{game_id}/verify", post(verify))
        .route("/bingo/{game_id}/close", post(close))
        .route("/bingo/{game_id}/print", get(print_page))
        .route("/bingo/{game_id}/sheet", get(sheet))
        .route("/bingo/{game_id}/cards/{serial}", get(card))
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

/// A fresh request id: the page matches the service's answer or refusal by it.
fn request_id() -> String {
    format!("console-{}", uuid::Uuid::now_v7())
}

async fn list(State(web): State<Web>, headers: HeaderMap) -> Response {
    page(
        &web,
        &headers,
        Page {
            title: "Bingo".into(),
            view: Arc::new(|p| p.get::<Bingo>().map(views::list_view)),
            script: LIST_SCRIPT,
            body_class: "bingo",
        },
    )
    .await
}

async fn game(State(web): State<Web>, Path(game_id): Path<String>, headers: HeaderMap) -> Response {
    if let Err(why) = check_game_id(&game_id) {
        return error(StatusCode::NOT_FOUND, why);
    }
    page(
        &web,
        &headers,
        Page {
            title: format!("Bingo {game_id}"),
            view: Arc::new(move |p| p.get::<Bingo>().map(|b| views::game_view(b, &game_id))),
            script: GAME_SCRIPT,
            body_class: "bingo-game",
        },
    )
    .await
}

async fn card(
    State(web): State<Web>,
    Path((game_id, serial)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let serial = match check_game_id(&game_id).and_then(|()| parse_serial(&serial)) {
        Ok(serial) => serial,
        Err(why) => return error(StatusCode::NOT_FOUND, why),
    };
    page(
        &web,
        &headers,
        Page {
            title: format!("Bingo {game_id}: card {serial}"),
            view: Arc::new(move |p| {
                p.get::<Bingo>()
                    .map(|b| views::card_view(b, &game_id, serial))
            }),
            script: CARD_SCRIPT,
            body_class: "bingo-card",
        },
    )
    .await
}

async fn print_page(
    State(web): State<Web>,
    Path(game_id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if let Err(why) = check_game_id(&game_id) {
        return error(StatusCode::NOT_FOUND, why);
    }
    page(
        &web,
        &headers,
        Page {
            title: format!("Bingo {game_id}: printable cards"),
            view: Arc::new(move |p| p.get::<Bingo>().map(|b| views::print_view(b, &game_id))),
            script: PRINT_SCRIPT,
            body_class: "bingo-print",
        },
    )
    .await
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
