//! A car as the race's questions and facts name it: the [`Name`] of a team or a car, and the
//! [`CarState`] a car reports and the master holds.

use std::sync::Arc;

/// A team's or car's name.
pub type Name = Arc<str>;

/// A car's square and modules: the contract's type, the same thing.
pub use arcade_contracts::race::CarState;
