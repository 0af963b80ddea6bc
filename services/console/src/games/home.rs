//! Home: what runs, with links to each section, and the health of each service.
//!
//! - [`projection`]: every producer the console heard from ([`projection::Services`]).
//! - [`pages`]: `GET /`.

pub mod pages;
pub mod projection;

use crate::games::Game;

/// The home section (no navigation entry: the brand links home).
pub const GAME: Game = Game {
    projection: || Box::new(projection::Services::default()),
    routes: pages::routes,
    nav: None,
};
