//! Foosball table referee: JSON rules engine, game state machine, ball-lock (IBR) decisions,
//! table hardware.
//!
//! Layout:
//! - [`domain`]: pure — the rules document ([`Rules`]), the game ([`Play`]) and the decider
//!   ([`Referee`]: inputs, events, state, rejections).
//! - [`mapping`]: the `table.*` contract messages the referee takes and publishes, declared
//!   once, and their conversions to and from the domain.
//! - [`table`]: the table hardware — goal sensors in (GPIO, MCP23017, simulated), ball locks
//!   out (I2C, simulated).
//! - [`cli`]: `arcade referee replay|check`, for rule authors and tests.
//! - [`check`]: `arcade-referee --check-hardware`, every sensor read and every lock set once.
//! - [`service`]: the referee of one table on the Arcade runtime (queue `referee.<tableId>`,
//!   sensor polling, timer, ball locks set once their decision is durable).
//! - [`settings`]: its flags and environment settings, and the choice of table hardware.
//! - [`display`]: what the score display shows, and its task; its flags are in [`settings`].

pub mod check;
pub mod cli;
pub mod display;
pub mod domain;
pub mod mapping;
pub mod service;
pub mod settings;
pub mod snapshot;
pub mod table;

pub use domain::{
    BallKind, Event, Ibr, IbrLock, Input, Phase, Play, Referee, Rejection, Rules, RulesError,
    Score, Side, TableState,
};
