//! Bingo's actions: each `POST` checked (who may, which game, which fields) and sent as a
//! bingo command; 202 with its request id.

use arcade_contracts::Message;
use arcade_contracts::bingo::{
    CallSquare, ClaimCard, CloseGame, DealCard, OpenGame, PrintCards, VerifyCard,
};
use arcade_contracts::principal::{OPERATOR, bingo_player};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{Bingo, check_game_id, form, parse_serial, request_id};
use crate::projection::Projections;
use crate::web::Web;
use crate::web::actions::{self, Refusal, error, refuse};

/// The JSON object of an action's body (an empty body is an empty object); the error names
/// what is wrong.
fn body_object(body: &Bytes) -> Result<Map<String, Value>, Refusal> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(refuse(
            StatusCode::BAD_REQUEST,
            "the request body must be a JSON object",
        )),
        Err(e) => Err(refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "the request body is not JSON: {e} (line {}, column {})",
                e.line(),
                e.column()
            ),
        )),
    }
}

/// An organiser action on a game: the operator, a game id, a JSON object body.
fn organiser(
    web: &Web,
    headers: &HeaderMap,
    game_id: &str,
    body: &Bytes,
) -> Result<(String, Map<String, Value>), Refusal> {
    let principal = web.gate.operator(headers)?;
    check_game_id(game_id).map_err(|why| refuse(StatusCode::NOT_FOUND, why))?;
    Ok((principal, body_object(body)?))
}

/// Refuses the fields of `body` other than `allowed`, naming the first.
fn only(body: &Map<String, Value>, allowed: &[&str]) -> Result<(), Refusal> {
    match body.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(field) => Err(refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "/{field}: unknown field (expected {})",
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            ),
        )),
        None => Ok(()),
    }
}

/// Sends `message_type` with `payload` (its `requestId` set) for `principal`; 202 with the
/// request id, the game id and the message id.
async fn send(
    web: &Web,
    principal: String,
    message_type: &str,
    game_id: &str,
    mut payload: Map<String, Value>,
) -> Response {
    let request = request_id();
    payload.insert("requestId".into(), Value::String(request.clone()));
    payload.insert("gameId".into(), Value::String(game_id.to_string()));
    actions::send(
        web,
        principal,
        message_type,
        Value::Object(payload),
        json!({ "gameId": game_id, "requestId": request }),
    )
    .await
}

/// An organiser's command whose body holds only `fields`, sent as it came.
async fn as_sent(
    web: &Web,
    headers: &HeaderMap,
    game_id: &str,
    body: &Bytes,
    fields: &[&str],
    message_type: &str,
) -> Response {
    let (principal, body) = match organiser(web, headers, game_id, body) {
        Ok(ok) => ok,
        Err(refused) => return refused.into_response(),
    };
    if let Err(refused) = only(&body, fields) {
        return refused.into_response();
    }
    send(web, principal, message_type, game_id, body).await
}

pub(super) async fn open(State(web): State<Web>, headers: HeaderMap, body: Bytes) -> Response {
    let principal = match web.gate.operator(&headers) {
        Ok(principal) => principal,
        Err(refused) => return refused.into_response(),
    };
    let body = match body_object(&body) {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    let form = match form::read_form(body) {
        Ok(form) => form,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    let game_id = if form.game_id.is_empty() {
        let id = uuid::Uuid::now_v7().simple().to_string();
        format!("bingo-{}", &id[id.len() - 8..])
    } else {
        form.game_id.clone()
    };
    let request = request_id();
    let payload = match form::open_payload(&form, &game_id, &request) {
        Ok(payload) => payload,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    actions::send(
        &web,
        principal,
        OpenGame::TYPE,
        payload,
        json!({ "gameId": game_id, "requestId": request }),
    )
    .await
}

pub(super) async fn deal(
    State(web): State<Web>,
    Path(game_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (principal, body) = match organiser(&web, &headers, &game_id, &body) {
        Ok(ok) => ok,
        Err(refused) => return refused.into_response(),
    };
    if let Err(refused) = only(&body, &["player"]) {
        return refused.into_response();
    }
    let player = match body.get("player") {
        Some(Value::String(player)) if !player.trim().is_empty() => player.trim().to_string(),
        _ => return error(StatusCode::BAD_REQUEST, "/player: name the player"),
    };
    let mut payload = Map::new();
    payload.insert("player".into(), Value::String(player));
    send(&web, principal, DealCard::TYPE, &game_id, payload).await
}

pub(super) async fn call(
    State(web): State<Web>,
    Path(game_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    as_sent(
        &web,
        &headers,
        &game_id,
        &body,
        &["squareId"],
        CallSquare::TYPE,
    )
    .await
}

pub(super) async fn print(
    State(web): State<Web>,
    Path(game_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    as_sent(
        &web,
        &headers,
        &game_id,
        &body,
        &["count"],
        PrintCards::TYPE,
    )
    .await
}

pub(super) async fn verify(
    State(web): State<Web>,
    Path(game_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (principal, mut body) = match organiser(&web, &headers, &game_id, &body) {
        Ok(ok) => ok,
        Err(refused) => return refused.into_response(),
    };
    if let Err(refused) = only(&body, &["serial", "label"]) {
        return refused.into_response();
    }
    actions::drop_blank(&mut body, &["label"]);
    send(&web, principal, VerifyCard::TYPE, &game_id, body).await
}

pub(super) async fn close(
    State(web): State<Web>,
    Path(game_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    as_sent(&web, &headers, &game_id, &body, &[], CloseGame::TYPE).await
}

/// Who holds a card, as the console saw it dealt.
enum Holder {
    NoGame,
    NoCard,
    Printed,
    Player(String),
}

pub(super) async fn claim(
    State(web): State<Web>,
    Path((game_id, serial)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let wanted = "the operator's token or the card's player's";
    let principal = match web.gate.principal(&headers, wanted) {
        Ok(principal) => principal,
        Err(refused) => return refused.into_response(),
    };
    let serial = match check_game_id(&game_id).and_then(|()| parse_serial(&serial)) {
        Ok(serial) => serial,
        Err(why) => return error(StatusCode::NOT_FOUND, why),
    };
    match body_object(&body).and_then(|body| only(&body, &[])) {
        Ok(()) => {}
        Err(refused) => return refused.into_response(),
    }
    web.live.resumed().await;
    let holder = web.live.read(|p: &Projections| {
        let Some(game) = p.get::<Bingo>().and_then(|b| b.game(&game_id)) else {
            return Holder::NoGame;
        };
        match game.cards.get(&serial) {
            None => Holder::NoCard,
            Some(card) => card.player.clone().map_or(Holder::Printed, Holder::Player),
        }
    });
    let player = match holder {
        Holder::NoGame => {
            return error(
                StatusCode::NOT_FOUND,
                format!("the console has seen no game {game_id:?}"),
            );
        }
        Holder::NoCard => {
            return error(
                StatusCode::NOT_FOUND,
                format!("the console has seen no card {serial} in game {game_id:?}"),
            );
        }
        Holder::Printed => {
            return error(
                StatusCode::CONFLICT,
                format!(
                    "card {serial} is a printed card: nobody claims it here; the organiser verifies it by its label"
                ),
            );
        }
        Holder::Player(player) => player,
    };
    let owner = bingo_player(&player);
    if principal != OPERATOR && principal != owner {
        return error(
            StatusCode::FORBIDDEN,
            format!(
                "{principal} may not claim card {serial}: it is {player}'s ({owner} or the operator)"
            ),
        );
    }
    let mut payload = Map::new();
    payload.insert("serial".into(), json!(serial));
    payload.insert("player".into(), Value::String(player));
    send(&web, principal, ClaimCard::TYPE, &game_id, payload).await
}
