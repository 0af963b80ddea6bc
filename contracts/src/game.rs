//! `game.*`: facts about finished game sessions, from any producer (Arcade's puzzle simulator,
//! or a PHP application publishing with Symfony Messenger's interop serializer).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Message, MessageKind, MessageType};

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The player reached the goal.
    Won,
    /// The player used the whole move budget without reaching the goal.
    Failed,
    /// The player left before the end.
    Abandoned,
}

/// `game.session.completed.v1`: a puzzle session ended. Exactly the source contract:
/// `gameId`, `seed`, `stage`, `outcome`, `turns`, `durationMs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A game session ended (Strata Relay puzzle).")]
pub struct GameSessionCompleted {
    /// Identifier of the session, chosen by the producer.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// Seed of the puzzle's generator.
    pub seed: i64,
    /// Difficulty stage, 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    pub stage: u8,
    /// How the session ended.
    pub outcome: Outcome,
    /// Pulses played.
    pub turns: u32,
    /// Wall-clock length of the session in milliseconds.
    pub duration_ms: u64,
}

impl Message for GameSessionCompleted {
    const TYPE: &'static str = "game.session.completed.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        GameSessionCompleted {
            game_id: "strata-7f3a2c".into(),
            seed: 421_337,
            stage: 3,
            outcome: Outcome::Won,
            turns: 5,
            duration_ms: 48_250,
        }
    }
}

/// The message types of this module.
pub fn types() -> Vec<MessageType> {
    vec![MessageType::of::<GameSessionCompleted>()]
}
