//! Bingo: cards dealt from a server secret, ticked by activity or by calls, claims checked by
//! the server.
//!
//! Layout:
//! - [`domain`]: the pure domain and the decider [`Bingo`] (`decide` / `evolve` over
//!   [`State`], [`Input`] and [`Event`]).
//! - [`mapping`]: the contract messages consumed ([`Incoming`], as inputs:
//!   [`Input::from_message`]) and published ([`Outgoing`], `From<&Event>`, and back for
//!   replay: [`Event::from_message`]), declared once.
//! - [`cli`]: the pure parts of `arcade bingo open | print | show` (squares files, pattern
//!   names, printed cards as JSON lines or an A4 HTML sheet).
//! - [`service`]: the thin service on the runtime ([`BingoService`]) and its [`Binder`].
//! - [`settings`]: where the server secret comes from.
//! - [`view`]: the read model of games and cards the hosting process serves ([`BingoView`]).

pub mod cli;
pub mod domain;
pub mod mapping;
pub mod service;
pub mod settings;
pub mod snapshot;
pub mod view;

pub use arcade_runtime::MappingError;
pub use domain::{Bingo, Event, Input, Rejection, Secret, SecretError, State};
pub use mapping::{Incoming, Outgoing};
pub use service::{Binder, BingoService};
pub use view::BingoView;

/// The environment variable holding the server secret when no secret file is given.
pub const SECRET_ENV: &str = "ARCADE_BINGO_SECRET";
