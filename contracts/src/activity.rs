//! `activity.*`: members' gestures that tick activity bingo cards. Any producer may publish
//! them (a community site's activity log, a chat bot, Arcade itself); the bingo service
//! consumes them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `activity.recorded.v1`: a member did something. Recording the same `entryId` again changes
/// nothing: a gesture ticks once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A member's gesture was recorded in an activity log.")]
pub struct ActivityRecorded {
    /// The gesture's idempotency key, unique in the producer's activity log.
    #[schemars(length(min = 1, max = 200))]
    pub entry_id: String,
    /// Who did it (a bingo player's id).
    #[schemars(length(min = 1, max = 200))]
    pub member: String,
    /// What they did, e.g. `talk.hello` or `photo.shared`.
    #[schemars(length(min = 1, max = 200))]
    pub verb: String,
    /// What it concerned, if anything, e.g. `table-3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub object: Option<String>,
}

/// `activity.undone.v1`: a recorded gesture was undone (deleted, retracted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A gesture recorded in an activity log was undone.")]
pub struct ActivityUndone {
    /// The idempotency key of the gesture undone.
    #[schemars(length(min = 1, max = 200))]
    pub entry_id: String,
}

messages! {
    Event ActivityRecorded: "activity.recorded.v1" => ActivityRecorded {
        entry_id: "act-8812".into(),
        member: "alice".into(),
        verb: "talk.hello".into(),
        object: Some("bob".into()),
    };
    Event ActivityUndone: "activity.undone.v1" => ActivityUndone {
        entry_id: "act-8812".into(),
    };
}
