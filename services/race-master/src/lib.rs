//! Race master: the game master of a turn-based car race on a ring of 300 squares, whose cars
//! are independent programs that answer the master's questions through messages.
//!
//! Layout:
//! - [`domain`]: the pure race — registration and budgets, turns, random events, combats and
//!   the duel card game, penalties, achievements, scoring — as a decider
//!   ([`domain::RaceMaster`]: `decide`, `evolve`, `next_deadline`, `refusal`).
//! - [`mapping`]: the `race.*` contract messages, declared once, and the domain facts and
//!   inputs to and from them.
//! - [`bots`]: the built-in cars (cautious, aggressive, random), which see only contract
//!   messages, keep their own state from them and answer the master's questions.
//! - [`simulation`]: a whole race with built-in cars in one process, time as values.
//! - [`cli`]: `arcade race simulate`, the simulation on the command line.
//! - [`service`]: the master hosted on the runtime (queue `race-master`, clock-driven
//!   deadlines).
//! - `snapshot`: the on-disk format of its state snapshots (`arcade_runtime::Snapshot`), so a
//!   restart replays only the log after the newest one.
//! - [`car`]: a built-in car program playing a team through the bus only.
//! - [`duel_ai`]: the original master's fighting AI protocol (an HTTP AI per duel answer).

pub mod bots;
pub mod car;
pub mod cli;
pub mod domain;
pub mod duel_ai;
pub mod mapping;
pub mod service;
pub mod simulation;
mod snapshot;
