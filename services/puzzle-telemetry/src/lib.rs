//! Strata Relay puzzle rules and generator, and the telemetry service that turns
//! `game.session.completed.v1` sessions into per-stage statistics.
//!
//! Layout:
//! - [`domain::strata`]: the 5 × 5 heightfield, the pulse, the signal, the generator.
//! - [`domain::telemetry`]: session validation, statistics and the decider
//!   ([`domain::telemetry::PuzzleTelemetry`]) the runtime hosts.
//! - [`domain::bot`]: a seeded headless player producing real sessions.
//! - [`service`]: the shell the runtime hosts ([`service::TelemetryService`]): bindings, contract
//!   encoding, the statistics timer, and the live view the admin endpoint serves.
//! - [`mapping`]: the contract messages consumed and published, declared once, and their
//!   conversions to and from the domain.
//! - [`snapshot`]: the on-disk format of the service's state snapshots.
//! - [`cli`]: `arcade puzzle generate` and the statistics table of `arcade puzzle stats`.

pub mod cli;
pub mod domain;
pub mod mapping;
pub mod service;
pub mod snapshot;
