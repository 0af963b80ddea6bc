//! Tables: the foosball tables and their referees' games.
//!
//! - [`projection`]: the read model ([`projection::Tables`]), folded from `table.*` events.
//! - [`display`]: the table's LED display, drawn as the referee draws it.
//! - [`pages`]: `/tables`, `/tables/{tableId}`, `/tables/{tableId}/scoreboard` and the
//!   organiser's actions (start a game, abort it, report a goal by hand).

pub mod display;
pub mod pages;
pub mod projection;

use crate::games::Game;

/// The tables' section.
pub const GAME: Game = Game {
    projection: || Box::new(projection::Tables::default()),
    routes: pages::routes,
    nav: Some(("Tables", "/tables")),
};
