//! Race: the race master's race, as its public facts tell it.
//!
//! - [`projection`]: the read model ([`projection::Race`]): settings, cars on the ring,
//!   standings (their types in `state.rs`), each turn's story ([`lines`]), duels ([`duels`]),
//!   team logs ([`teams`], answers in words in `answers.rs`).
//! - [`audience`]: what the public sees before the finish (no team's points or money) and
//!   what the operator sees (everything).
//! - [`pages`]: `/race`, `/race/turns/{turn}`, `/race/duels/{duelId}`, `/race/teams/{team}`
//!   (behind the team's token) and the organiser's actions (start the race, set the odds,
//!   publish a hint).

mod answers;
pub mod audience;
pub mod duels;
pub mod lines;
pub mod pages;
pub mod projection;
mod state;
pub mod teams;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::games::Game;
use crate::web::Web;

/// The race pages' style (linked by their script; the shared `console.css` stays shared).
const CSS: &str = include_str!("race/scripts/race.css");

async fn css() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/css; charset=utf-8"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            ),
        ],
        CSS,
    )
        .into_response()
}

fn routes() -> Router<Web> {
    pages::routes().route("/console/race/race.css", get(css))
}

/// The race's section.
pub const GAME: Game = Game {
    projection: || Box::new(projection::Race::default()),
    routes,
    nav: Some(("Race", "/race")),
};
