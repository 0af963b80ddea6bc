//! The pure bingo domain: no I/O, no clock, no global randomness. Time comes in as a value
//! (`now_ms`), randomness from the server secret held by the decider.
//!
//! Layout:
//! - [`limits`]: every limit in one place; [`capacity`]: how many cards a game can print.
//! - [`grid`], [`pool`], [`pattern`], [`sources`], [`config`]: a game's configuration, checked
//!   ([`config_error`] says why one is refused).
//! - [`secret`]: the server secret, card layouts and printed labels derived from it.
//! - [`input`], [`event`], [`refusal`]: what the decider takes, emits and refuses.
//! - [`state`] and `evolve`: the fold of the events.
//! - `decide`, `claims`, `activity`: the decider [`Bingo`].

mod activity;
pub mod capacity;
mod claims;
pub mod config;
pub mod config_error;
mod decide;
pub mod event;
mod evolve;
pub mod grid;
pub mod input;
pub mod limits;
pub mod pattern;
pub mod pool;
pub mod refusal;
pub mod secret;
pub mod sources;
pub mod state;

pub use config::{GameConfig, GameSpec, TickMode};
pub use config_error::ConfigError;
pub use decide::Bingo;
pub use event::{CardCell, Cells, Check, Event, PrintedCard, WinReport};
pub use input::{Action, Command, Input};
pub use pattern::PatternKind;
pub use pool::{SquareId, SquareSpec};
pub use refusal::{Closed, Refusal, Rejection};
pub use secret::{Keys, Secret, SecretError};
pub use sources::{ActivitySource, Gesture, GestureError, SourceSpec};
pub use state::{CardView, Game, State};
