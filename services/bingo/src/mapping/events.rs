//! The service's events as contract messages (`From<&Event> for Outgoing`) and back
//! (`TryFrom<Outgoing> for Event`, for replay). Each event is exactly one message.
//!
//! An event holds its message, so each direction is one line; only a game's opening, which
//! holds its checked configuration, is written out.

use std::sync::Arc;

use arcade_contracts::Message;
use arcade_contracts::bingo as contract;
use arcade_runtime::MappingError;

use super::spec::{config_out, spec_in};
use crate::domain::{Event, GameConfig};

arcade_runtime::mapping! {
    /// An event as its contract message; each event is exactly one message.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Outgoing, of "the bingo service's log" {
        /// `bingo.game.opened.v1`
        GameOpened(contract::GameOpened),
        /// `bingo.card.dealt.v1`
        CardDealt(contract::CardDealt),
        /// `bingo.cards.printed.v1`
        CardsPrinted(contract::CardsPrinted),
        /// `bingo.square.called.v1`
        SquareCalled(contract::SquareCalled),
        /// `bingo.square.ticked.v1`
        SquareTicked(contract::SquareTicked),
        /// `bingo.gesture.undone.v1`
        GestureUndone(contract::GestureUndone),
        /// `bingo.claim.answered.v1`
        ClaimAnswered(contract::ClaimAnswered),
        /// `bingo.card.won.v1`
        CardWon(contract::CardWon),
        /// `bingo.game.closed.v1`
        GameClosed(contract::GameClosed),
        /// `bingo.request.rejected.v1`
        RequestRejected(contract::RequestRejected),
    }
}

impl From<&Event> for Outgoing {
    fn from(event: &Event) -> Outgoing {
        match event.clone() {
            Event::GameOpened {
                request_id,
                game_id,
                config,
                opened_at,
            } => {
                let c = config_out(&config);
                Outgoing::GameOpened(contract::GameOpened {
                    request_id,
                    game_id,
                    tick_mode: c.tick_mode,
                    grid: c.grid,
                    pool: c.pool,
                    patterns: c.patterns,
                    activity_sources: c.activity_sources,
                    opened_at,
                })
            }
            Event::CardDealt(m) => m.into(),
            Event::CardsPrinted(m) => m.into(),
            Event::SquareCalled(m) => m.into(),
            Event::SquareTicked(m) => m.into(),
            Event::GestureUndone(m) => m.into(),
            Event::ClaimAnswered(m) => m.into(),
            Event::CardWon(m) => m.into(),
            Event::GameClosed(m) => m.into(),
            Event::RequestRejected(m) => m.into(),
        }
    }
}

impl TryFrom<Outgoing> for Event {
    type Error = MappingError;

    fn try_from(message: Outgoing) -> Result<Event, MappingError> {
        Ok(match message {
            Outgoing::GameOpened(m) => {
                let (sources, patterns) = (&m.activity_sources, &m.patterns);
                let spec = spec_in(m.tick_mode, &m.grid, &m.pool, patterns, sources);
                let config = GameConfig::new(&spec)
                    .map_err(|e| MappingError::invalid(contract::GameOpened::TYPE, e))?;
                Event::GameOpened {
                    request_id: m.request_id,
                    game_id: m.game_id,
                    config: Arc::new(config),
                    opened_at: m.opened_at,
                }
            }
            Outgoing::CardDealt(m) => Event::CardDealt(m),
            Outgoing::CardsPrinted(m) => Event::CardsPrinted(m),
            Outgoing::SquareCalled(m) => Event::SquareCalled(m),
            Outgoing::SquareTicked(m) => Event::SquareTicked(m),
            Outgoing::GestureUndone(m) => Event::GestureUndone(m),
            Outgoing::ClaimAnswered(m) => Event::ClaimAnswered(m),
            Outgoing::CardWon(m) => Event::CardWon(m),
            Outgoing::GameClosed(m) => Event::GameClosed(m),
            Outgoing::RequestRejected(m) => Event::RequestRejected(m),
        })
    }
}
