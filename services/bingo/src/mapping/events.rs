//! The service's events as contract messages (`From<&Event> for Outgoing`) and back
//! (`From`/`TryFrom<contract> for Event`, for replay). Each event is exactly one message.
//!
//! An event whose fields are its message's, one to one (a few renamed), is one line of
//! [`events!`]: both directions come from it, and the compiler checks that no field of either
//! side is left out. The others have their arm and their conversion back written out.

use std::sync::Arc;

use arcade_contracts::bingo as wire;

use super::spec::{config_out, spec_in};
use crate::domain::{CardCell, ClaimAnswer, ConfigError, Event, GameConfig, WinReport};

arcade_runtime::mapping! {
    /// An event as its contract message; each event is exactly one message.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Outgoing for Event, of "the bingo service's log" {
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

/// `From<&Event> for Outgoing` with an arm per one-to-one event (`Variant { field, domain_field:
/// wire_field }` lists every field, the wire's name after a colon where it differs) and the
/// written-out arms; and `From<wire::Variant> for Event` for each one-to-one event.
macro_rules! events {
    (
        one_to_one { $($variant:ident { $($field:ident $(: $wire:ident)?),* $(,)? })* }
        written_out { $($pattern:pat => $message:expr,)* }
    ) => {
        impl From<&Event> for Outgoing {
            fn from(event: &Event) -> Outgoing {
                match event.clone() {
                    $(Event::$variant { $($field),* } => Outgoing::$variant(wire::$variant {
                        $($($wire:)? $field),*
                    }),)*
                    $($pattern => $message,)*
                }
            }
        }

        $(
            impl From<wire::$variant> for Event {
                fn from(message: wire::$variant) -> Event {
                    let wire::$variant { $($($wire:)? $field),* } = message;
                    Event::$variant { $($field),* }
                }
            }
        )*
    };
}

events! {
    one_to_one {
        CardDealt { request_id, game_id, player, serial, cells, first_deal }
        CardsPrinted { request_id, game_id, cards }
        SquareCalled { request_id, game_id, square: square_id, label, call_number }
        SquareTicked { game_id, serial, player, square: square_id, cell, entry_id, verb }
        CardWon { game_id, serial, player, pattern, cells, won_at, place }
        GameClosed { request_id, game_id, winners, cards, closed_at }
        RequestRejected { request_type, request_id, game_id, code, reason }
    }
    written_out {
        Event::GameOpened { request_id, game_id, config, opened_at } => {
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
        },
        Event::GestureUndone { game_id, entry_id, unticked } => {
            Outgoing::GestureUndone(wire::GestureUndone {
                game_id,
                entry_id,
                unticked: unticked
                    .into_iter()
                    .map(|c| wire::CardCell {
                        serial: c.serial,
                        player: c.player,
                        square_id: c.square,
                        cell: c.cell,
                    })
                    .collect(),
            })
        },
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

impl From<wire::GestureUndone> for Event {
    fn from(m: wire::GestureUndone) -> Event {
        let unticked = m.unticked.into_iter().map(|c| CardCell {
            serial: c.serial,
            player: c.player,
            square: c.square_id,
            cell: c.cell,
        });
        Event::GestureUndone {
            game_id: m.game_id,
            entry_id: m.entry_id,
            unticked: unticked.collect(),
        }
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
