//! Bingo: the games of the bingo service, their organiser and their players.
//!
//! - [`projection`]: the read model ([`projection::Bingo`]), folded from `bingo.*` events (its
//!   parts in `state.rs`).
//! - [`views`]: what each page shows (the games, a game, a card, the operator's sheet).
//! - [`form`]: the "open a game" form as a `bingo.game.open.v1` payload.
//! - [`pages`]: `/bingo`, `/bingo/{gameId}`, `/bingo/{gameId}/cards/{serial}`,
//!   `/bingo/{gameId}/print` and the actions (open, deal, call, print, verify, close, claim).

pub mod form;
pub mod pages;
pub mod projection;
mod state;
pub mod views;

use crate::games::Game;

/// Bingo's section.
pub const GAME: Game = Game {
    projection: || Box::new(projection::Bingo::default()),
    routes: pages::routes,
    nav: Some(("Bingo", "/bingo")),
};
