//! The puzzle's read model: the telemetry's statistics and trends ([`Charts`]) and the games
//! played on this console ([`Plays`]), one snapshot section (`puzzle`).

use serde::{Deserialize, Serialize};

use super::charts::Charts;
use super::play::Plays;
use crate::observed::Observed;
use crate::projection::ReadModel;

/// The puzzle section's projection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Puzzle {
    /// Statistics and trends, from the telemetry's facts.
    pub charts: Charts,
    /// The games played here, from the console's own records.
    pub plays: Plays,
}

impl ReadModel for Puzzle {
    const KEY: &'static str = "puzzle";
    const VERSION: u32 = 1;

    fn apply(&mut self, event: &Observed) -> bool {
        if event.message_type.starts_with("console.puzzle.") {
            self.plays.apply(event)
        } else {
            self.charts.apply(event)
        }
    }
}
