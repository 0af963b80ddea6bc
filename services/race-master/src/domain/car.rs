//! A car as the race's questions and facts name it: the [`Name`] of a team or a car, and the
//! [`CarState`] a car reports and the master holds.

use std::sync::Arc;

use super::rules::Modules;

/// A team's or car's name.
pub type Name = Arc<str>;

/// A car's square and modules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CarState {
    /// Its square.
    pub square: u32,
    /// Its modules.
    pub modules: Modules,
}
