//! The pure core: Strata Relay's rules ([`strata`]), the telemetry decider ([`telemetry`]) and
//! the headless bot that plays real sessions ([`bot`]). No I/O, no clock, no global randomness.

pub mod bot;
pub mod strata;
pub mod telemetry;
