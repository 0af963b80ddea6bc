//! A session counted (`puzzle.session.recorded.v1`) or kept out (`puzzle.session.flagged.v1`).
//! Each type is listed as a message, with its example, at the end of the file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::game::{Outcome, Pulse};

/// `puzzle.session.recorded.v1`: a session passed validation and is counted in the statistics.
/// Carries every field the statistics need, so they rebuild from the log alone.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A puzzle session passed validation and is counted in the statistics.")]
pub struct SessionRecorded {
    /// Identifier of the session, as its producer gave it.
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
    /// The move limit the generator gives for this seed and stage (2 × stage).
    #[schemars(range(min = 2, max = 10))]
    pub move_limit: u8,
    /// Wall-clock length of the session in milliseconds.
    pub duration_ms: u64,
    /// When the telemetry service recorded it, in milliseconds since the Unix epoch.
    pub recorded_at_ms: u64,
    /// Whether its moves were replayed through the puzzle and give its outcome (sessions that
    /// list their moves, `game.session.completed.v2`). Came with v2; absent means false.
    #[serde(default)]
    pub verified: bool,
    /// The version of `game.session.completed` the session arrived in. Came with v2; absent
    /// means 1.
    #[serde(default = "version_one")]
    #[schemars(range(min = 1))]
    pub source_version: u8,
}

fn version_one() -> u8 {
    1
}

/// Why a session cannot have happened under Strata Relay's rules.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "camelCase")]
pub enum FlagReason {
    /// The stage is not 1 to 5.
    StageOutOfRange,
    /// The generator builds no puzzle for this seed and stage.
    UnplayableSeed,
    /// More turns than the move limit of the puzzle.
    TurnsAboveLimit,
    /// `failed` before the whole move budget was used: a game fails only when no move is left.
    FailedBeforeBudget,
    /// `won` without a single pulse: every generated puzzle starts unsolved.
    WonWithoutTurn,
    /// `won` in fewer turns than any solution of this puzzle (checked exactly up to 2 turns).
    WonFasterThanPossible,
    /// `abandoned` with the whole budget used: the game had already ended as won or failed.
    AbandonedAfterBudget,
    /// The session lists another number of moves than its `turns` (v2).
    MovesNotTurns,
    /// A listed move pulses stone or an anchor, which the puzzle refuses (v2).
    MoveOnImmutable,
    /// A listed move comes after the game had ended, won or with its budget spent (v2).
    MoveAfterEnd,
    /// The listed moves replay to another outcome than the one claimed (v2).
    MovesDisagree,
}

/// `puzzle.session.flagged.v1`: a session is impossible under the puzzle's rules; it is kept
/// out of the statistics. Carries the offending session's fields as received.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schemars(
    description = "A puzzle session is impossible under Strata Relay's rules and was kept out of the statistics."
)]
pub struct SessionFlagged {
    /// Identifier of the session, as its producer gave it.
    #[schemars(length(min = 1, max = 200))]
    pub game_id: String,
    /// Which rule the session breaks.
    pub reason: FlagReason,
    /// The reason in words, with the numbers involved.
    pub detail: String,
    /// Seed of the puzzle's generator, as received.
    pub seed: i64,
    /// Stage, as received (possibly out of range: that may be the reason).
    pub stage: u8,
    /// Outcome, as received.
    pub outcome: Outcome,
    /// Turns, as received.
    pub turns: u32,
    /// Duration in milliseconds, as received.
    pub duration_ms: u64,
    /// The move limit the generator gives for this seed and stage; absent when there is no
    /// such puzzle (stage out of range, unplayable seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2, max = 10))]
    pub move_limit: Option<u8>,
    /// When the telemetry service flagged it, in milliseconds since the Unix epoch.
    pub flagged_at_ms: u64,
    /// The first listed move that disagrees, from 1, when replaying the moves found the flaw
    /// (v2 sessions). Came with v2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub move_index: Option<u8>,
    /// The cell of that move. Came with v2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_cell: Option<Pulse>,
    /// The version of `game.session.completed` the session arrived in. Came with v2; absent
    /// means 1.
    #[serde(default = "version_one")]
    #[schemars(range(min = 1))]
    pub source_version: u8,
}

messages! {
    Event SessionRecorded: "puzzle.session.recorded.v1" => SessionRecorded {
        game_id: "strata-7f3a2c".into(),
        seed: 421_337,
        stage: 3,
        outcome: Outcome::Won,
        turns: 5,
        move_limit: 6,
        duration_ms: 48_250,
        recorded_at_ms: 1_767_225_600_000,
        verified: true,
        source_version: 2,
    };
    Event SessionFlagged: "puzzle.session.flagged.v1" => SessionFlagged {
        game_id: "strata-0b91e4".into(),
        reason: FlagReason::TurnsAboveLimit,
        detail: "14 turns, above the move limit of 10 for seed 77 at stage 5".into(),
        seed: 77,
        stage: 5,
        outcome: Outcome::Failed,
        turns: 14,
        duration_ms: 95_000,
        move_limit: Some(10),
        flagged_at_ms: 1_767_225_600_500,
        move_index: None,
        move_cell: None,
        source_version: 1,
    };
}
