//! Bingo's actions: each `POST` checked (who may, which game, which fields) and sent as a
//! bingo command; 202 with its request id.

use arcade_contracts::Message;
use arcade_contracts::bingo::{ClaimCard, OpenGame};
use arcade_contracts::principal::{OPERATOR, bingo_player};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::MethodRouter;
use serde_json::{Map, Value, json};

use super::{Bingo, card_path, check_game_id, form, request_id};
use crate::projection::Projections;
use crate::web::Web;
use crate::web::actions::{self, Refusal, body_object_or_empty, organiser_action, refuse};

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

/// A command's payload made of an action's body, or why not.
type Payload = Result<Map<String, Value>, Refusal>;

/// A bingo command's `payload` with its `requestId` (fresh) and `gameId` set; the 202 answers
/// both.
fn with_request(game_id: &str, mut payload: Map<String, Value>) -> (Map<String, Value>, Value) {
    let request = request_id();
    payload.insert("requestId".into(), Value::String(request.clone()));
    payload.insert("gameId".into(), Value::String(game_id.to_string()));
    (payload, json!({ "gameId": game_id, "requestId": request }))
}

/// `POST` an organiser's command on a game whose body holds only `fields`: `build` makes
/// the `message_type` payload of the body.
pub(super) fn command(
    fields: &'static [&'static str],
    message_type: &'static str,
    build: fn(Map<String, Value>) -> Payload,
) -> MethodRouter<Web> {
    organiser_action(check_game_id, message_type, move |game_id, body| {
        only(&body, fields)?;
        Ok(with_request(&game_id, build(body)?))
    })
}

pub(super) async fn open(
    State(web): State<Web>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refusal> {
    let principal = web.gate.operator(&headers)?;
    let body = body_object_or_empty(&body)?;
    let form = form::read_form(body).map_err(|why| refuse(StatusCode::BAD_REQUEST, why))?;
    let game_id = if form.game_id.is_empty() {
        let id = uuid::Uuid::now_v7().simple().to_string();
        format!("bingo-{}", &id[id.len() - 8..])
    } else {
        form.game_id.clone()
    };
    let request = request_id();
    let payload = form::open_payload(&form, &game_id, &request)
        .map_err(|why| refuse(StatusCode::BAD_REQUEST, why))?;
    let answer = json!({ "gameId": game_id, "requestId": request });
    Ok(actions::send(&web, principal, OpenGame::TYPE, payload, answer).await)
}

/// `bingo.card.deal.v1` of `{"player"}`.
pub(super) fn deal(body: Map<String, Value>) -> Payload {
    let player = match body.get("player") {
        Some(Value::String(player)) if !player.trim().is_empty() => player.trim().to_string(),
        _ => return Err(refuse(StatusCode::BAD_REQUEST, "/player: name the player")),
    };
    let mut payload = Map::new();
    payload.insert("player".into(), Value::String(player));
    Ok(payload)
}

/// `bingo.card.verify.v1` of `{"serial", "label"?}`.
pub(super) fn verify(mut body: Map<String, Value>) -> Payload {
    actions::drop_blank(&mut body, &["label"]);
    Ok(body)
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
) -> Result<Response, Refusal> {
    let wanted = "the operator's token or the card's player's";
    let principal = web.gate.principal(&headers, wanted)?;
    let serial = card_path(&game_id, &serial)?;
    only(&body_object_or_empty(&body)?, &[])?;
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
            return Err(refuse(
                StatusCode::NOT_FOUND,
                format!("the console has seen no game {game_id:?}"),
            ));
        }
        Holder::NoCard => {
            return Err(refuse(
                StatusCode::NOT_FOUND,
                format!("the console has seen no card {serial} in game {game_id:?}"),
            ));
        }
        Holder::Printed => {
            return Err(refuse(
                StatusCode::CONFLICT,
                format!(
                    "card {serial} is a printed card: nobody claims it here; the organiser verifies it by its label"
                ),
            ));
        }
        Holder::Player(player) => player,
    };
    let owner = bingo_player(&player);
    if principal != OPERATOR && principal != owner {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            format!(
                "{principal} may not claim card {serial}: it is {player}'s ({owner} or the operator)"
            ),
        ));
    }
    let mut payload = Map::new();
    payload.insert("serial".into(), json!(serial));
    payload.insert("player".into(), Value::String(player));
    let (payload, answer) = with_request(&game_id, payload);
    let payload = Value::Object(payload);
    Ok(actions::send(&web, principal, ClaimCard::TYPE, payload, answer).await)
}
