//! What the console's decider takes: an event seen on the bus, or a player's request handed
//! over by the [`crate::desk`].

use crate::games::puzzle::play::PlayCommand;
use crate::observed::Observed;

/// What the console decides on: an event seen on the bus, or a player's request (a local
/// input from its pages).
#[derive(Debug, Clone)]
pub enum ConsoleInput {
    /// An event of the games' topics.
    Observed(Observed),
    /// A Strata Relay player's request.
    Play(PlayCommand),
}
