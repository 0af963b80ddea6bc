//! The pure race: rules and numbers ([`rules`]), the seeded dice ([`dice`]), the duel
//! ([`duel`]), cars' names and states ([`car`]), questions to cars ([`decision`]), facts ([`event`]), the state they fold into
//! ([`state`]), scoring ([`scoring`]), hints about the hidden achievements ([`hints`]) and the decider ([`decide`]). No I/O, no clock, no global
//! randomness: time and the seed come in as values.

pub mod car;
pub mod decide;
pub mod decision;
pub mod dice;
pub mod duel;
pub mod event;
pub mod hints;
pub mod rules;
pub mod scoring;
pub mod state;

pub use decide::{Input, RaceMaster, Rejection, StartSettings};
pub use event::Event;
pub use state::RaceState;
