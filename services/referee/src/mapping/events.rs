//! The referee's events as their `table.*` messages (`From<&Event> for TableEvent`) and back
//! from the log (`TryFrom<TableEvent> for Event`). Each event is exactly one message; one that
//! is the same thing as its message holds it, so each direction is one line. A game start,
//! which holds its checked rules, is written out.

use std::sync::Arc;

use arcade_contracts::table as contract;
use arcade_runtime::MappingError;
use arcade_runtime::mapping::into_domain;
use serde_json::Value;

use crate::domain::{Event, Rules, RulesError};

arcade_runtime::mapping! {
    /// A domain event as its contract message.
    #[derive(Debug, Clone, PartialEq)]
    pub enum TableEvent, of "the referee's log" {
        /// `table.game.started.v1`.
        GameStarted(contract::TableGameStarted),
        /// `table.goal.scored.v1`.
        GoalScored(contract::TableGoalScored),
        /// `table.phase.changed.v1`.
        PhaseChanged(contract::TablePhaseChanged),
        /// `table.ibr.changed.v1`.
        IbrChanged(contract::TableIbrChanged),
        /// `table.game.finished.v1` (a game won, timed out or aborted).
        GameFinished(contract::TableGameFinished),
        /// `table.goal.cancelled.v1`.
        GoalCancelled(contract::TableGoalCancelled),
    }
}

impl From<&Event> for TableEvent {
    fn from(event: &Event) -> TableEvent {
        match event.clone() {
            Event::GameStarted {
                table_id,
                game_id,
                rules,
                players,
                started_at_ms,
                score,
            } => TableEvent::GameStarted(contract::TableGameStarted {
                table_id,
                game_id,
                rules: rules.source().clone(),
                players,
                started_at_ms,
                score,
                rules_text: rules.explain(),
            }),
            Event::GoalScored(m) => m.into(),
            Event::PhaseChanged(m) => m.into(),
            Event::IbrChanged(m) => m.into(),
            Event::GameFinished(m) => m.into(),
            Event::GoalCancelled(m) => m.into(),
        }
    }
}

impl TryFrom<TableEvent> for Event {
    type Error = MappingError;

    fn try_from(message: TableEvent) -> Result<Event, MappingError> {
        Ok(match message {
            TableEvent::GameStarted(m) => into_domain(m)?,
            TableEvent::GoalScored(m) => Event::GoalScored(m),
            TableEvent::PhaseChanged(m) => Event::PhaseChanged(m),
            TableEvent::IbrChanged(m) => Event::IbrChanged(m),
            TableEvent::GameFinished(m) => Event::GameFinished(m),
            TableEvent::GoalCancelled(m) => Event::GoalCancelled(m),
        })
    }
}

/// A logged game start whose rules no longer parse: it cannot be turned back into its event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the rules of game \"{game_id}\" do not parse: {error}")]
pub struct ReplayError {
    /// The game.
    pub game_id: String,
    /// Why.
    pub error: RulesError,
}

impl TryFrom<contract::TableGameStarted> for Event {
    type Error = ReplayError;

    fn try_from(m: contract::TableGameStarted) -> Result<Event, ReplayError> {
        let rules = Rules::reload(&Value::Object(m.rules)).map_err(|error| ReplayError {
            game_id: m.game_id.clone(),
            error,
        })?;
        Ok(Event::GameStarted {
            table_id: m.table_id,
            game_id: m.game_id,
            rules: Arc::new(rules),
            players: m.players,
            started_at_ms: m.started_at_ms,
            score: m.score,
        })
    }
}
