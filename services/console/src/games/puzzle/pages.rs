//! The puzzle's pages and the players' requests.
//!
//! - `GET /puzzle`: the telemetry's per-stage statistics (win rate, turns against the move
//!   limit, durations, verified and flagged sessions), today's sessions per stage, the trends
//!   (win rate per stage per hour and per day) and the newest sessions; live.
//! - `GET /puzzle/play`: a new board from a seed (empty: one drawn by the server) and a stage,
//!   and the games finished here lately.
//! - `GET /puzzle/play/{gameId}`: the board (heights, stone, anchors, charged cells), moves
//!   left and made, won or failed; a pulse by a click or a tap on a cell.
//! - `POST /puzzle/play` `{seed?, stage}` → 201 `{gameId, path}`; `POST
//!   /puzzle/play/{gameId}/pulses` `{x, y}` → 200 `{game}` (the board after it). The rules run
//!   in the console's decider (`arcade-strata-relay`); a refusal is 400 naming the field (or
//!   the cell), 404 for an unknown game, 409 for a game that is over. Playing is public (no
//!   token: players are not organisers; DESIGN, "Faces"), but like every action it must come
//!   from the console's own pages (`Host`, `Origin`). New boards are limited per client address
//!   (the web layer's `creations`: 429 with `Retry-After` beyond), and a game in progress is
//!   never dropped for another's new one: with every place taken by a game being played, a new
//!   board is refused 503 with `Retry-After`.

use std::time::Duration;

use arcade_runtime::guard::{ClientAddr, OverLimit};
use axum::Extension;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

use super::play::{MAX_GAME_ID, PlayCommand};
use super::projection::Puzzle;
use crate::desk::DeskError;
use crate::web::actions::{Refusal, body_object_or_empty, kind_of, refuse};
use crate::web::{Page, Script, Web, page_of};

const CHARTS_SCRIPT: Script = &[include_str!("scripts/charts.js")];
const NEW_SCRIPT: Script = &[include_str!("scripts/new.js")];
const BOARD_SCRIPT: Script = &[include_str!("scripts/board.js")];

/// How long a request waits for the decider's durable answer.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(10);
/// Seeds the server draws are in `1..SEED_RANGE` (short enough to read out and type again).
pub const SEED_RANGE: i64 = 1_000_000_000;
/// Games finished here listed on `/puzzle/play`.
pub const LISTED_GAMES: usize = 10;

/// The puzzle routes.
pub fn routes() -> Router<Web> {
    Router::new()
        .route("/puzzle", get(charts))
        .route("/puzzle/play", get(new_board).post(start))
        .route("/puzzle/play/{game_id}", page_of(board))
        .route("/puzzle/play/{game_id}/pulses", post(pulse))
}

async fn charts(State(web): State<Web>, headers: HeaderMap) -> Response {
    let title = "Strata Relay statistics";
    let page = Page::new(title, CHARTS_SCRIPT, "puzzle", |p| {
        let puzzle = p.get::<Puzzle>()?;
        let mut view = puzzle.charts.view();
        view["played"] = json!(puzzle.plays.recent(LISTED_GAMES));
        Some(view)
    });
    page.serve(&web, &headers).await
}

async fn new_board(State(web): State<Web>, headers: HeaderMap) -> Response {
    let page = Page::new("Play Strata Relay", NEW_SCRIPT, "puzzle", |p| {
        let puzzle = p.get::<Puzzle>()?;
        Some(json!({ "played": puzzle.plays.recent(LISTED_GAMES) }))
    });
    page.serve(&web, &headers).await
}

fn board(game_id: String) -> Result<Page, Refusal> {
    Ok(Page::new(
        "Strata Relay",
        BOARD_SCRIPT,
        "puzzle",
        move |p| Some(p.get::<Puzzle>()?.plays.get(&game_id)?.view()),
    ))
}

/// A player's request: from this console's own pages, with a JSON object body (empty when
/// blank).
fn request(web: &Web, headers: &HeaderMap, body: &Bytes) -> Result<Map<String, Value>, Refusal> {
    web.gate.same_site(headers)?;
    body_object_or_empty(body)
}

/// An integer field given as a number or as text (a form's input); `Ok(None)` when absent,
/// null or empty.
fn integer(map: &Map<String, Value>, field: &str) -> Result<Option<i64>, Refusal> {
    let number = match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("/{field}: {n} is not an integer")),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| format!("/{field}: {s:?} is not an integer")),
        Some(other) => Err(format!(
            "/{field}: expected an integer, found {}",
            kind_of(other)
        )),
    };
    number.map_err(|why| refuse(StatusCode::BAD_REQUEST, why))
}

/// An integer field that must be there: `missing` says what it is when it is not.
fn required(map: &Map<String, Value>, field: &str, missing: String) -> Result<i64, Refusal> {
    integer(map, field)?.ok_or_else(|| refuse(StatusCode::BAD_REQUEST, missing))
}

/// The answer to a request the desk could not carry out.
fn refused(e: DeskError) -> Refusal {
    let status = match &e {
        DeskError::Refused { code, .. } => match code.as_str() {
            "unknown" => StatusCode::NOT_FOUND,
            "finished" | "exists" => StatusCode::CONFLICT,
            _ => StatusCode::BAD_REQUEST,
        },
        DeskError::Busy => StatusCode::TOO_MANY_REQUESTS,
        DeskError::NotRunning | DeskError::Timeout(_) => StatusCode::SERVICE_UNAVAILABLE,
    };
    refuse(status, e.to_string())
}

/// When a player refused a new board for a full console may try again.
const FULL_RETRY: Duration = Duration::from_secs(30);

/// `POST /puzzle/play` `{seed?, stage}`: a new board; 201 `{gameId, path, seed, stage}`.
async fn start(
    State(web): State<Web>,
    client: Option<Extension<ClientAddr>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refusal> {
    let map = request(&web, &headers, &body)?;
    let Extension(client) = client.unwrap_or(Extension(ClientAddr::UNKNOWN));
    if let Err(over) = web.creations.take(client.0) {
        return Ok(over.into_response());
    }
    let stage = required(&map, "stage", "/stage: a stage (1 to 5) is needed".into())?;
    if !(1..=5).contains(&stage) {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            format!("/stage: {stage} is out of range: a stage is 1 to 5"),
        ));
    }
    // The shell draws a seed (the domain takes it as a value).
    let seed = integer(&map, "seed")?.unwrap_or_else(|| rand::random_range(1..SEED_RANGE));
    let game_id = format!("console-{}", uuid::Uuid::now_v7().simple());
    debug_assert!(game_id.len() <= MAX_GAME_ID);
    let command = PlayCommand::Start {
        request: uuid::Uuid::now_v7().to_string(),
        game_id: game_id.clone(),
        seed,
        stage,
    };
    match web.desk.ask(command, ANSWER_WITHIN).await {
        Err(DeskError::Refused { code, message }) if code == "full" => {
            let over = OverLimit {
                retry_after: FULL_RETRY,
                why: message,
            };
            return Ok(over.response(StatusCode::SERVICE_UNAVAILABLE));
        }
        answer => answer.map_err(refused)?,
    }
    let answer = json!({
        "gameId": game_id,
        "path": format!("/puzzle/play/{game_id}"),
        "seed": seed,
        "stage": stage,
    });
    Ok((StatusCode::CREATED, axum::Json(answer)).into_response())
}

/// `POST /puzzle/play/{gameId}/pulses` `{x, y}`: a pulse; 200 `{game}` (the board after it).
async fn pulse(
    State(web): State<Web>,
    Path(game_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refusal> {
    let map = request(&web, &headers, &body)?;
    let mut cell = [0i64; 2];
    for (i, field) in ["x", "y"].into_iter().enumerate() {
        cell[i] = required(
            &map,
            field,
            format!("/{field}: the cell's {field} (0 to 4) is needed"),
        )?;
    }
    let command = PlayCommand::Pulse {
        request: uuid::Uuid::now_v7().to_string(),
        game_id: game_id.clone(),
        x: cell[0],
        y: cell[1],
    };
    web.desk
        .ask(command, ANSWER_WITHIN)
        .await
        .map_err(refused)?;
    let game = web.live.read(|p| {
        p.get::<Puzzle>()
            .and_then(|puzzle| puzzle.plays.get(&game_id))
            .map(|play| play.view())
    });
    Ok(axum::Json(json!({ "game": game })).into_response())
}
