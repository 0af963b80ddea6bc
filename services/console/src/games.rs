//! The registry: every section of the console, its projection and its routes. Adding a game's
//! pages is its own module (`games/<game>/projection.rs`, `games/<game>/pages.rs`, its `GAME`)
//! and one line in [`GAMES`].

pub mod bingo;
pub mod home;
pub mod puzzle;
pub mod race;
pub mod tables;

use axum::Router;

use crate::projection::{Projection, Projections};
use crate::web::Web;

/// A section of the console.
#[derive(Debug, Clone, Copy)]
pub struct Game {
    /// Its read model, empty (folded from the log at start).
    pub projection: fn() -> Box<dyn Projection>,
    /// Its pages and actions (paths of its own).
    pub routes: fn() -> Router<Web>,
    /// Its entry in the navigation and on the home page: label and path.
    pub nav: Option<(&'static str, &'static str)>,
}

/// Every section, in navigation order.
pub const GAMES: &[Game] = &[
    home::GAME,
    tables::GAME,
    bingo::GAME,
    race::GAME,
    puzzle::GAME,
];

/// The console's state before any event: every registered game's projection, empty.
impl Default for Projections {
    fn default() -> Self {
        Projections::new(GAMES.iter().map(|game| (game.projection)()).collect())
    }
}

/// Every registered game's entry in the navigation, in order.
pub fn nav() -> Vec<(&'static str, &'static str)> {
    GAMES.iter().filter_map(|game| game.nav).collect()
}

/// Every registered game's pages and actions.
pub fn routes() -> Router<Web> {
    GAMES
        .iter()
        .fold(Router::new(), |router, game| router.merge((game.routes)()))
}
