//! The pure core: Strata Relay's rules ([`strata`], the shared pure crate `arcade-strata-relay`),
//! the telemetry decider ([`telemetry`]) and the headless bot that plays real sessions ([`bot`]).
//! No I/O, no clock, no global randomness.

pub mod bot;
/// Strata Relay's rules, from the shared pure library `arcade-strata-relay` (also the console's).
pub use arcade_strata_relay as strata;
pub mod telemetry;
