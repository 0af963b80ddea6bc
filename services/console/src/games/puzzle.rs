//! Puzzle: Strata Relay's statistics and the game itself, playable.
//!
//! - [`charts`]: the telemetry's per-stage statistics and the trends (win rate per stage per
//!   hour and per day), folded from its facts.
//! - [`play`]: the games played on the console (the rules: `arcade-strata-relay`); each
//!   finished one is a `game.session.completed.v2` of the console's log, published once.
//! - [`projection`]: both, as the `puzzle` section.
//! - [`pages`]: `/puzzle`, `/puzzle/play`, `/puzzle/play/{gameId}` and the players' requests
//!   (a new board, a pulse).

pub mod charts;
pub mod pages;
pub mod play;
pub mod projection;
mod request;

use crate::games::Game;

/// The puzzle's section.
pub const GAME: Game = Game {
    projection: || Box::new(projection::Puzzle::default()),
    routes: pages::routes,
    nav: Some(("Puzzle", "/puzzle")),
};
