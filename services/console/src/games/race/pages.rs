//! The race's pages and the organiser's actions.
//!
//! - `GET /race`: the ring of 300 squares with every car on it, the standings, the turn in
//!   progress told line by line, the past turns (each with its leader), the duels, hints,
//!   achievements; once over, the bonuses and the seed (never before `race.finished.v1`).
//!   Before the finish the public sees no standings, leaders or achievements (a team's points
//!   and money: [`super::audience`]); the operator's token sees them.
//! - `GET /race/turns/{turn}`: one kept turn's story and the standings after it (the
//!   standings and achievements, as on `/race`, for the operator only before the finish).
//! - `GET /race/duels/{duelId}`: a duel replayed step by step (hands, moves, attacks, parries,
//!   draws; the hands once the transcript is public).
//! - `GET /race/teams/{team}`: the team's own log. The HTML page needs no token and holds no
//!   log; its JSON and live stream need the team's token (`race-team-<team>`, from `arcade race
//!   team add`) or the operator's, which the page sends as `Authorization: Bearer`.
//! - `POST /race/start` `{turns?, durationMs?, turnIntervalMs?, decisionTimeoutMs?,
//!   distribution?}` → `race.start.v1`; `POST /race/distribution` `{distribution}` →
//!   `race.distribution.set.v1`; `POST /race/hints` `{achievement}` → `race.hint.publish.v1`.
//!   The operator's only; the payload is checked against its schema (a refusal names the field
//!   by its JSON pointer) and the odds must add up to 100 before anything is sent. The master's
//!   own refusals (`race.command.rejected.v1`) show on `/race`.

use arcade_contracts::Message;
use arcade_contracts::principal::race_team;
use arcade_contracts::race::{DistributionSet, HintPublish, RaceStart};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{MethodRouter, get, post};
use serde_json::{Map, Value, json};

use super::audience::{Audience, hide_accounts, hide_in_turn};
use super::duels;
use super::projection::Race;
use crate::web::actions::{self, Refusal, body_object, refuse};
use crate::web::{Page, Script, Web, page_of, wants_html};

/// What every page of this game runs first.
const COMMON: &str = include_str!("scripts/common.js");
const RACE_SCRIPT: Script = &[COMMON, include_str!("scripts/race.js")];
const TURN_SCRIPT: Script = &[COMMON, include_str!("scripts/turn.js")];
const DUEL_SCRIPT: Script = &[COMMON, include_str!("scripts/duel.js")];
const TEAM_SCRIPT: Script = &[COMMON, include_str!("scripts/team.js")];

/// Duels listed on `/race` (the newest).
pub const LISTED_DUELS: usize = 30;
/// Hints, achievements and refusals listed on `/race` (the newest).
pub const LISTED_NEWS: usize = 10;

/// The achievements a hint may be about: the contract's names and the rule book's titles.
pub const ACHIEVEMENTS: [(&str, &str); 13] = [
    ("madMax", "Mad Max"),
    ("rapideCommeLEclair", "Rapide comme l'éclair"),
    ("armeJusquAuxDents", "Armé jusqu'aux dents"),
    ("snakesOnACar", "Snakes on a car"),
    ("asDuVolant", "As du volant"),
    ("pacifiste", "Pacifiste"),
    ("triSelectif", "Tri sélectif"),
    ("pimpMyRide", "Pimp my ride"),
    ("stratege", "Stratège"),
    ("clicClic", "Clic Clic"),
    ("panneDEssence", "Panne d'essence"),
    ("ulysse31", "Ulysse 31"),
    ("picsou", "Picsou"),
];

/// The race's routes.
pub fn routes() -> Router<Web> {
    Router::new()
        .route("/race", get(race))
        .route("/race/turns/{turn}", get(turn))
        .route("/race/duels/{duel_id}", page_of(duel))
        .route("/race/teams/{team}", get(team))
        .route("/race/start", command(RaceStart::TYPE, check_distribution))
        .route(
            "/race/distribution",
            command(DistributionSet::TYPE, check_distribution),
        )
        .route("/race/hints", command(HintPublish::TYPE, |_| Ok(())))
}

fn newest<T: serde::Serialize>(list: &std::collections::VecDeque<T>, n: usize) -> Vec<&T> {
    list.iter().rev().take(n).collect()
}

/// The view of `/race`.
pub fn race_view(race: &Race) -> Value {
    let mut cars: Vec<_> = race.cars.values().collect();
    cars.sort_by(|a, b| b.square.cmp(&a.square).then_with(|| a.car.cmp(&b.car)));
    let turns: Vec<Value> = race
        .turns
        .iter()
        .rev()
        .map(|t| {
            json!({
                "turn": t.turn,
                "atMs": t.at_ms,
                "lines": t.lines.len() + t.dropped as usize,
                "leader": t.standings.as_ref().and_then(|s| s.first()).map(|s| json!({
                    "team": s.team, "points": s.points
                })),
            })
        })
        .collect();
    json!({
        "status": race.status,
        "settings": race.settings,
        "distribution": race.distribution,
        "turn": race.turn,
        "phase": race.phase,
        "cars": cars,
        "carsDropped": race.cars_dropped,
        "teams": race.teams.names().collect::<Vec<_>>(),
        "standings": race.standings,
        "turns": turns,
        "current": race.turns.back(),
        "finished": race.finished,
        "hints": newest(&race.hints, LISTED_NEWS),
        "achievements": newest(&race.achievements, LISTED_NEWS),
        "refusals": newest(&race.refusals, LISTED_NEWS),
        "duels": race.duels.newest(LISTED_DUELS).map(duels::summary).collect::<Vec<_>>(),
        "achievementNames": ACHIEVEMENTS.iter().map(|(id, title)| json!({"id": id, "title": title})).collect::<Vec<_>>(),
    })
}

/// The view of `/race` for `audience`: [`race_view`], without the teams' accounts for the
/// public before the finish.
pub fn race_view_for(race: &Race, audience: Audience) -> Value {
    let mut view = race_view(race);
    if !audience.sees_accounts(race.status) {
        hide_accounts(&mut view);
    }
    view
}

/// The view of `/race/turns/{turn}` (`story` null when the turn is not kept).
pub fn turn_view(race: &Race, turn: u32) -> Value {
    json!({ "turn": turn, "story": race.turn(turn), "latest": race.turn })
}

/// The view of `/race/turns/{turn}` for `audience`: [`turn_view`], without the standings and
/// achievements for the public before the finish.
pub fn turn_view_for(race: &Race, turn: u32, audience: Audience) -> Value {
    let mut view = turn_view(race, turn);
    if !audience.sees_accounts(race.status) {
        hide_in_turn(&mut view["story"]);
    }
    view
}

/// The view of `/race/duels/{duelId}`, if the console saw the duel.
pub fn duel_view(race: &Race, duel_id: u32) -> Option<Value> {
    race.duels.get(duel_id).map(duels::view)
}

/// The view of a team's log: its cars, its standing, its log newest first.
pub fn team_view(race: &Race, team: &str) -> Value {
    let log = race.teams.team(team);
    json!({
        "team": team,
        "locked": false,
        "known": log.is_some(),
        "status": race.status,
        "turn": race.turn,
        "cars": race.cars.values().filter(|c| c.team == team).collect::<Vec<_>>(),
        "standing": race.standings.iter().find(|s| s.team == team),
        "log": log.map(|t| t.log.iter().rev().collect::<Vec<_>>()).unwrap_or_default(),
        "dropped": log.map_or(0, |t| t.dropped),
    })
}

/// A page of the race: titled `title`, drawn by `script` in a `<body>` of class `body_class`,
/// showing `view` of the race (none until the console has its projection).
fn race_page(
    title: impl Into<String>,
    script: Script,
    body_class: &'static str,
    view: impl Fn(&Race) -> Option<Value> + Send + Sync + 'static,
) -> Page {
    Page::new(title, script, body_class, move |p| {
        p.get::<Race>().and_then(&view)
    })
}

async fn race(State(web): State<Web>, headers: HeaderMap) -> Response {
    let audience = Audience::of(&web, &headers);
    race_page("Race", RACE_SCRIPT, "race", move |r| {
        Some(race_view_for(r, audience))
    })
    .seen_by(audience.name())
    .serve(&web, &headers)
    .await
}

/// A number from a path (a turn, a duel id); 404 naming `what` it should be otherwise.
fn path_number(text: &str, what: &str) -> Result<u32, Refusal> {
    text.parse::<u32>().map_err(|_| {
        refuse(
            StatusCode::NOT_FOUND,
            format!("{text:?} is not {what}: a number from 1"),
        )
    })
}

async fn turn(
    State(web): State<Web>,
    Path(turn): Path<String>,
    headers: HeaderMap,
) -> Result<Response, Refusal> {
    let turn = path_number(&turn, "a turn")?;
    let audience = Audience::of(&web, &headers);
    let title = format!("Race · turn {turn}");
    let page = race_page(title, TURN_SCRIPT, "race", move |r| {
        Some(turn_view_for(r, turn, audience))
    })
    .seen_by(audience.name());
    Ok(page.serve(&web, &headers).await)
}

fn duel(duel_id: String) -> Result<Page, Refusal> {
    let duel_id = path_number(&duel_id, "a duel id")?;
    let title = format!("Duel {duel_id}");
    Ok(race_page(title, DUEL_SCRIPT, "race duel", move |r| {
        duel_view(r, duel_id)
    }))
}

/// Whether `name` is a team name as the contract has it (`^[a-z0-9][a-z0-9-]{0,31}$`).
pub fn valid_team(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=32).contains(&bytes.len())
        && bytes[0] != b'-'
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

async fn team(
    State(web): State<Web>,
    Path(team): Path<String>,
    headers: HeaderMap,
) -> Result<Response, Refusal> {
    if !valid_team(&team) {
        return Err(refuse(
            StatusCode::NOT_FOUND,
            format!(
                "{team:?} is not a team name: 1 to 32 of a-z, 0-9 and '-', not starting with '-'"
            ),
        ));
    }
    let title = format!("Team {team}");
    let page = if wants_html(&headers) {
        // The page itself holds no log: its script asks for it with the team's token.
        let locked = json!({ "team": team, "locked": true });
        Page::new(title, TEAM_SCRIPT, "race team", move |_| {
            Some(locked.clone())
        })
    } else {
        web.gate.operator_or(&headers, &race_team(&team))?;
        race_page(title, TEAM_SCRIPT, "race team", move |r| {
            Some(team_view(r, &team))
        })
    };
    Ok(page.serve(&web, &headers).await)
}

/// The odds at `pointer` add up to 100, or the refusal says what they add up to.
fn check_odds(odds: Option<&Value>, pointer: &str) -> Result<(), Refusal> {
    let Some(Value::Object(odds)) = odds else {
        return Ok(()); // the schema names a missing or wrong `distribution`
    };
    let sum: u64 = ["nothing", "pirates", "garage", "wreck", "mineField"]
        .iter()
        .filter_map(|k| odds.get(*k).and_then(Value::as_u64))
        .sum();
    if sum == 100 {
        Ok(())
    } else {
        Err(refuse(
            StatusCode::BAD_REQUEST,
            format!("{pointer}: the odds add up to {sum}, not 100"),
        ))
    }
}

/// The distribution of a command, if any, adds up to 100.
fn check_distribution(payload: &Map<String, Value>) -> Result<(), Refusal> {
    check_odds(payload.get("distribution"), "/distribution")
}

/// `POST` the operator's command: the gate, a JSON object, then `check`, then send it as
/// `message_type`.
fn command(
    message_type: &'static str,
    check: fn(&Map<String, Value>) -> Result<(), Refusal>,
) -> MethodRouter<Web> {
    post(
        move |State(web): State<Web>, headers: HeaderMap, body: Bytes| async move {
            let principal = web.gate.operator(&headers)?;
            let mut payload = body_object(&body)?;
            // An empty field of the form is a setting left out (its default).
            payload.retain(|_, v| !v.is_null());
            check(&payload)?;
            let payload = Value::Object(payload);
            Ok::<_, Refusal>(actions::send(&web, principal, message_type, payload, json!({})).await)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_names_follow_the_contract() {
        assert!(valid_team("red"));
        assert!(valid_team("team-2"));
        for bad in ["", "-red", "Red", "red team", "r/d", &"x".repeat(33)] {
            assert!(!valid_team(bad), "{bad:?}");
        }
    }

    #[test]
    fn the_odds_must_add_up_to_100() {
        let odds =
            json!({"nothing": 50, "pirates": 10, "garage": 10, "wreck": 15, "mineField": 15});
        assert!(check_odds(Some(&odds), "/distribution").is_ok());
        let odds = json!({"nothing": 50, "pirates": 10, "garage": 10, "wreck": 15, "mineField": 5});
        let refused = check_odds(Some(&odds), "/distribution").unwrap_err();
        assert_eq!(refused.status, StatusCode::BAD_REQUEST);
        assert_eq!(
            refused.message,
            "/distribution: the odds add up to 90, not 100"
        );
    }

    #[test]
    fn every_achievement_of_the_contract_can_be_hinted() {
        for (id, _) in ACHIEVEMENTS {
            let achievement: Result<arcade_contracts::race::Achievement, _> =
                serde_json::from_value(json!(id));
            assert!(achievement.is_ok(), "{id}");
        }
    }
}
