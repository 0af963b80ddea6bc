//! Admin routes of the bingo service: its games and cards as they stand, read from the
//! service's own read model ([`BingoView`], folded from bingo's durable events in this process;
//! nothing reads its store).
//!
//! - `GET /bingo/games/{gameId}` → a [`GameRead`](arcade_contracts::bingo::reads::GameRead):
//!   mode, status, grid, pool, patterns, called squares, winners in order, card count, how many
//!   cards it can still print; 404 when there is no such game.
//! - `GET /bingo/games/{gameId}/cards/{serial}` → a
//!   [`CardRead`](arcade_contracts::bingo::reads::CardRead); 404 when there is no such game or
//!   card, 400 when the serial is not a number.
//!
//! A process that does not host bingo answers 503.

use arcade_bingo::BingoView;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::json_error::error;

fn not_hosted() -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "this `arcade run` does not host bingo; run `arcade run bingo`".into(),
    )
}

/// The bingo read routes, reading `view` (`None`: bingo is not hosted here, 503).
pub fn routes(view: Option<BingoView>) -> axum::Router {
    axum::Router::new()
        .route("/bingo/games/{game_id}", get(game))
        .route("/bingo/games/{game_id}/cards/{serial}", get(card))
        .with_state(view)
}

fn no_game(game_id: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!("there is no game \"{game_id}\""),
    )
}

async fn game(State(view): State<Option<BingoView>>, Path(game_id): Path<String>) -> Response {
    let Some(view) = view else {
        return not_hosted();
    };
    match view.game(&game_id) {
        Some(game) => axum::Json(game).into_response(),
        None => no_game(&game_id),
    }
}

async fn card(
    State(view): State<Option<BingoView>>,
    Path((game_id, serial)): Path<(String, String)>,
) -> Response {
    let Some(view) = view else {
        return not_hosted();
    };
    let Ok(serial) = serial.parse::<u32>() else {
        return error(
            StatusCode::BAD_REQUEST,
            format!("the serial \"{serial}\" is not a card number (1, 2, …)"),
        );
    };
    match view.card(&game_id, serial) {
        Ok(card) => axum::Json(card).into_response(),
        Err(false) => no_game(&game_id),
        Err(true) => error(
            StatusCode::NOT_FOUND,
            format!("game \"{game_id}\" has no card with serial {serial}"),
        ),
    }
}
