//! `game.*`: facts about finished game sessions, from any producer (Arcade's puzzle simulator,
//! or a PHP application publishing with Symfony Messenger's interop serializer).
//!
//! Two versions of one fact: `game.session.completed.v1` (the source contract, frozen) and
//! `game.session.completed.v2` (v1's fields plus the pulses played and the producer's version;
//! a new required field, hence a new type). A consumer of both reads them through
//! [`session_upcasters`] as one [`SessionCompletion`], v1's moves unknown.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use crate::upcast::Upcasters;

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

/// One pulse of a session: the cell `[x, y]` (column x, row y, each 0 to 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Pulse(pub [u8; 2]);

impl JsonSchema for Pulse {
    fn schema_name() -> Cow<'static, str> {
        "Pulse".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A pulsed cell as [x, y]: column x (0 to 4, left to right) and row y (0 to 4).",
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 4},
            "minItems": 2,
            "maxItems": 2
        })
    }
}

/// The largest move limit of any Strata Relay puzzle (stage 5: 2 × 5).
pub const MAX_MOVES: usize = 10;

/// `game.session.completed.v2`: a puzzle session ended, with the pulses played. v1's fields,
/// plus `moves` and `producerVersion`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    description = "A game session ended (Strata Relay puzzle), with the cells pulsed in order."
)]
pub struct GameSessionCompletedV2 {
    /// Identifier of the session, chosen by the producer; the same session keeps it in every
    /// version.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// Seed of the puzzle's generator.
    pub seed: i64,
    /// Difficulty stage, 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    pub stage: u8,
    /// How the session ended.
    pub outcome: Outcome,
    /// Pulses played (the length of `moves`).
    pub turns: u32,
    /// Wall-clock length of the session in milliseconds.
    pub duration_ms: u64,
    /// The cells pulsed, in order: at most the puzzle's move limit (2 × stage, so at most 10).
    #[schemars(length(max = 10))]
    pub moves: Vec<Pulse>,
    /// The producer's name and version, e.g. `strata-web 2.4.1`.
    #[schemars(length(min = 1, max = 100))]
    pub producer_version: String,
}

/// A finished session in the one shape a consumer of every version sees; not a wire type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCompletion {
    /// Identifier of the session (its identity across versions).
    pub game_id: String,
    /// Seed of the puzzle's generator.
    pub seed: i64,
    /// Stage, as received.
    pub stage: u8,
    /// How the session ended.
    pub outcome: Outcome,
    /// Pulses played.
    pub turns: u32,
    /// Length in milliseconds.
    pub duration_ms: u64,
    /// The cells pulsed, in order; `None` when the producer did not say (v1).
    pub moves: Option<Vec<Pulse>>,
    /// The producer's version, when it said (v2).
    pub producer_version: Option<String>,
    /// The contract version it arrived in (1 or 2).
    pub version: u8,
}

impl From<GameSessionCompleted> for SessionCompletion {
    /// The v1 upcaster: every v1 field, moves and producer version unknown.
    fn from(m: GameSessionCompleted) -> Self {
        SessionCompletion {
            game_id: m.game_id,
            seed: m.seed,
            stage: m.stage,
            outcome: m.outcome,
            turns: m.turns,
            duration_ms: m.duration_ms,
            moves: None,
            producer_version: None,
            version: 1,
        }
    }
}

impl From<&SessionCompletion> for GameSessionCompleted {
    /// What every version reports, as v1 carries it: the moves and the producer left out.
    fn from(m: &SessionCompletion) -> Self {
        GameSessionCompleted {
            game_id: m.game_id.clone(),
            seed: m.seed,
            stage: m.stage,
            outcome: m.outcome,
            turns: m.turns,
            duration_ms: m.duration_ms,
        }
    }
}

impl From<GameSessionCompletedV2> for SessionCompletion {
    fn from(m: GameSessionCompletedV2) -> Self {
        SessionCompletion {
            game_id: m.game_id,
            seed: m.seed,
            stage: m.stage,
            outcome: m.outcome,
            turns: m.turns,
            duration_ms: m.duration_ms,
            moves: Some(m.moves),
            producer_version: Some(m.producer_version),
            version: 2,
        }
    }
}

/// Every version of `game.session.completed`, upcast to [`SessionCompletion`]: the one place a
/// consumer of finished sessions learns to read a new version.
pub fn session_upcasters() -> Upcasters<SessionCompletion> {
    Upcasters::new()
        .register::<GameSessionCompleted>(SessionCompletion::from)
        .register::<GameSessionCompletedV2>(SessionCompletion::from)
}

messages! {
    Event GameSessionCompleted: "game.session.completed.v1" => GameSessionCompleted {
        game_id: "strata-7f3a2c".into(),
        seed: 421_337,
        stage: 3,
        outcome: Outcome::Won,
        turns: 5,
        duration_ms: 48_250,
    };
    Event GameSessionCompletedV2: "game.session.completed.v2" => GameSessionCompletedV2 {
        game_id: "strata-9d41b0".into(),
        seed: 421_337,
        stage: 1,
        outcome: Outcome::Won,
        turns: 2,
        duration_ms: 9_250,
        moves: vec![Pulse([1, 3]), Pulse([1, 3])],
        producer_version: "strata-web 2.4.1".into(),
    };
}
