//! The service's events as contract messages (`From<&Event> for Outgoing`) and back
//! (`TryFrom<Outgoing> for Event`, for replay). Each event is exactly one message.
//!
//! An event that is the same thing as its message holds it: each direction is one line. The
//! others (a game's checked configuration, a claim's win) are written out.

use std::sync::Arc;

use arcade_contracts::bingo as wire;
use arcade_runtime::MappingError;
use arcade_runtime::mapping::into_domain;

use super::spec::{config_out, spec_in};
use crate::domain::{ClaimAnswer, ConfigError, Event, GameConfig, WinReport};

arcade_runtime::mapping! {
    /// An event as its contract message; each event is exactly one message.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Outgoing, of "the bingo service's log" {
        /// `bingo.game.opened.v1`
        GameOpened(wire::GameOpened),
        /// `bingo.card.dealt.v1`
        CardDealt(wire::CardDealt),
        /// `bingo.cards.printed.v1`
        CardsPrinted(wire::CardsPrinted),
        /// `bingo.square.called.v1`
        SquareCalled(wire::SquareCalled),
        /// `bingo.square.ticked.v1`
        SquareTicked(wire::SquareTicked),
        /// `bingo.gesture.undone.v1`
        GestureUndone(wire::GestureUndone),
        /// `bingo.claim.answered.v1`
        ClaimAnswered(wire::ClaimAnswered),
        /// `bingo.card.won.v1`
        CardWon(wire::CardWon),
        /// `bingo.game.closed.v1`
        GameClosed(wire::GameClosed),
        /// `bingo.request.rejected.v1`
        RequestRejected(wire::RequestRejected),
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
                Outgoing::GameOpened(wire::GameOpened {
                    request_id,
                    game_id,
                    tick_mode: c.tick_mode,
                    grid: c.grid,
                    pool: c.pool,
                    patterns: c.patterns,
                    activity_sources: c.sources,
                    opened_at,
                })
            }
            Event::CardDealt(m) => m.into(),
            Event::CardsPrinted(m) => m.into(),
            Event::SquareCalled(m) => m.into(),
            Event::SquareTicked(m) => m.into(),
            Event::GestureUndone(m) => m.into(),
            Event::ClaimAnswered(a) => Outgoing::ClaimAnswered(wire::ClaimAnswered {
                request_id: a.request_id,
                game_id: a.game_id,
                serial: a.serial,
                check: a.check,
                player: a.player,
                ticked_cells: a.ticked_cells,
                pattern: a.win.as_ref().map(|w| w.pattern.clone()),
                winning_cells: a.win.as_ref().map(|w| w.cells.clone()),
                won_at: a.win.as_ref().map(|w| w.at),
                place: a.win.as_ref().map(|w| w.place),
                game_closed: a.game_closed,
            }),
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
            Outgoing::GameOpened(m) => into_domain(m)?,
            Outgoing::CardDealt(m) => Event::CardDealt(m),
            Outgoing::CardsPrinted(m) => Event::CardsPrinted(m),
            Outgoing::SquareCalled(m) => Event::SquareCalled(m),
            Outgoing::SquareTicked(m) => Event::SquareTicked(m),
            Outgoing::GestureUndone(m) => Event::GestureUndone(m),
            Outgoing::ClaimAnswered(m) => m.into(),
            Outgoing::CardWon(m) => Event::CardWon(m),
            Outgoing::GameClosed(m) => Event::GameClosed(m),
            Outgoing::RequestRejected(m) => Event::RequestRejected(m),
        })
    }
}

impl TryFrom<wire::GameOpened> for Event {
    type Error = ConfigError;

    fn try_from(m: wire::GameOpened) -> Result<Event, ConfigError> {
        let spec = spec_in(
            m.tick_mode,
            &m.grid,
            &m.pool,
            &m.patterns,
            &m.activity_sources,
        );
        Ok(Event::GameOpened {
            request_id: m.request_id,
            game_id: m.game_id,
            config: Arc::new(GameConfig::new(&spec)?),
            opened_at: m.opened_at,
        })
    }
}

impl From<wire::ClaimAnswered> for Event {
    fn from(m: wire::ClaimAnswered) -> Event {
        let win = match (m.pattern, m.winning_cells, m.won_at, m.place) {
            (Some(pattern), Some(cells), Some(at), Some(place)) => Some(WinReport {
                pattern,
                cells,
                at,
                place,
            }),
            _ => None,
        };
        Event::ClaimAnswered(ClaimAnswer {
            request_id: m.request_id,
            game_id: m.game_id,
            serial: m.serial,
            check: m.check,
            player: m.player,
            ticked_cells: m.ticked_cells,
            win,
            game_closed: m.game_closed,
        })
    }
}
