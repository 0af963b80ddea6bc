//! The service's events as contract messages ([`Event::to_contract`]) and back
//! ([`Event::from_message`], for replay). Each event is exactly one message.

use std::sync::Arc;

use serde_json::Value;

use arcade_contracts::Message;
use arcade_contracts::bingo as wire;

use super::spec::{config_out, spec_in};
use super::{DecodeError, read};
use crate::domain::{CardCell, Check, ClaimAnswer, Event, GameConfig, PrintedCard, WinReport};

/// An event as its contract message.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
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

fn json<M: Message>(message: &M) -> Value {
    // Contract types are plain data: they always serialize.
    serde_json::to_value(message).unwrap_or(Value::Null)
}

impl Outgoing {
    /// Its message type.
    pub fn message_type(&self) -> &'static str {
        match self {
            Outgoing::GameOpened(_) => wire::GameOpened::TYPE,
            Outgoing::CardDealt(_) => wire::CardDealt::TYPE,
            Outgoing::CardsPrinted(_) => wire::CardsPrinted::TYPE,
            Outgoing::SquareCalled(_) => wire::SquareCalled::TYPE,
            Outgoing::SquareTicked(_) => wire::SquareTicked::TYPE,
            Outgoing::GestureUndone(_) => wire::GestureUndone::TYPE,
            Outgoing::ClaimAnswered(_) => wire::ClaimAnswered::TYPE,
            Outgoing::CardWon(_) => wire::CardWon::TYPE,
            Outgoing::GameClosed(_) => wire::GameClosed::TYPE,
            Outgoing::RequestRejected(_) => wire::RequestRejected::TYPE,
        }
    }

    /// Its JSON payload.
    pub fn payload(&self) -> Value {
        match self {
            Outgoing::GameOpened(m) => json(m),
            Outgoing::CardDealt(m) => json(m),
            Outgoing::CardsPrinted(m) => json(m),
            Outgoing::SquareCalled(m) => json(m),
            Outgoing::SquareTicked(m) => json(m),
            Outgoing::GestureUndone(m) => json(m),
            Outgoing::ClaimAnswered(m) => json(m),
            Outgoing::CardWon(m) => json(m),
            Outgoing::GameClosed(m) => json(m),
            Outgoing::RequestRejected(m) => json(m),
        }
    }
}

fn check_out(check: Check) -> wire::ClaimCheck {
    match check {
        Check::Claim => wire::ClaimCheck::Claim,
        Check::Verify => wire::ClaimCheck::Verify,
        Check::VerifyLabel => wire::ClaimCheck::VerifyLabel,
    }
}

fn check_in(check: wire::ClaimCheck) -> Check {
    match check {
        wire::ClaimCheck::Claim => Check::Claim,
        wire::ClaimCheck::Verify => Check::Verify,
        wire::ClaimCheck::VerifyLabel => Check::VerifyLabel,
    }
}

impl Event {
    /// The event as its contract message.
    pub fn to_contract(&self) -> Outgoing {
        match self.clone() {
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
            Event::CardDealt {
                request_id,
                game_id,
                player,
                serial,
                cells,
                first_deal,
            } => Outgoing::CardDealt(wire::CardDealt {
                request_id,
                game_id,
                player,
                serial,
                cells,
                first_deal,
            }),
            Event::CardsPrinted {
                request_id,
                game_id,
                cards,
            } => Outgoing::CardsPrinted(wire::CardsPrinted {
                request_id,
                game_id,
                cards: cards
                    .into_iter()
                    .map(|c| wire::PrintedCard {
                        serial: c.serial,
                        label: c.label,
                        cells: c.cells,
                    })
                    .collect(),
            }),
            Event::SquareCalled {
                request_id,
                game_id,
                square,
                label,
                call_number,
            } => Outgoing::SquareCalled(wire::SquareCalled {
                request_id,
                game_id,
                square_id: square,
                label,
                call_number,
            }),
            Event::SquareTicked {
                game_id,
                serial,
                player,
                square,
                cell,
                entry_id,
                verb,
            } => Outgoing::SquareTicked(wire::SquareTicked {
                game_id,
                serial,
                player,
                square_id: square,
                cell,
                entry_id,
                verb,
            }),
            Event::GestureUndone {
                game_id,
                entry_id,
                unticked,
            } => Outgoing::GestureUndone(wire::GestureUndone {
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
            }),
            Event::ClaimAnswered(a) => Outgoing::ClaimAnswered(wire::ClaimAnswered {
                request_id: a.request_id,
                game_id: a.game_id,
                serial: a.serial,
                check: check_out(a.check),
                player: a.player,
                ticked_cells: a.ticked_cells,
                pattern: a.win.as_ref().map(|w| w.pattern.clone()),
                winning_cells: a.win.as_ref().map(|w| w.cells.clone()),
                won_at: a.win.as_ref().map(|w| w.at),
                place: a.win.as_ref().map(|w| w.place),
                game_closed: a.game_closed,
            }),
            Event::CardWon {
                game_id,
                serial,
                player,
                pattern,
                cells,
                won_at,
                place,
            } => Outgoing::CardWon(wire::CardWon {
                game_id,
                serial,
                player,
                pattern,
                cells,
                won_at,
                place,
            }),
            Event::GameClosed {
                request_id,
                game_id,
                winners,
                cards,
                closed_at,
            } => Outgoing::GameClosed(wire::GameClosed {
                request_id,
                game_id,
                winners,
                cards,
                closed_at,
            }),
            Event::RequestRejected {
                request_type,
                request_id,
                game_id,
                code,
                reason,
            } => Outgoing::RequestRejected(wire::RequestRejected {
                request_type,
                request_id,
                game_id,
                code,
                reason,
            }),
        }
    }

    /// The event's message type and JSON payload.
    pub fn to_message(&self) -> (&'static str, Value) {
        let message = self.to_contract();
        (message.message_type(), message.payload())
    }

    /// An event back from the service's log (replay). Inverts [`Event::to_message`].
    pub fn from_message(message_type: &str, payload: &Value) -> Result<Event, DecodeError> {
        Ok(match message_type {
            wire::GameOpened::TYPE => {
                let m: wire::GameOpened = read(payload)?;
                let spec = spec_in(
                    m.tick_mode,
                    &m.grid,
                    &m.pool,
                    &m.patterns,
                    &m.activity_sources,
                );
                let config = GameConfig::new(&spec).map_err(|e| DecodeError::Invalid {
                    message_type: message_type.to_string(),
                    reason: e.to_string(),
                })?;
                Event::GameOpened {
                    request_id: m.request_id,
                    game_id: m.game_id,
                    config: Arc::new(config),
                    opened_at: m.opened_at,
                }
            }
            wire::CardDealt::TYPE => {
                let m: wire::CardDealt = read(payload)?;
                Event::CardDealt {
                    request_id: m.request_id,
                    game_id: m.game_id,
                    player: m.player,
                    serial: m.serial,
                    cells: m.cells,
                    first_deal: m.first_deal,
                }
            }
            wire::CardsPrinted::TYPE => {
                let m: wire::CardsPrinted = read(payload)?;
                Event::CardsPrinted {
                    request_id: m.request_id,
                    game_id: m.game_id,
                    cards: m
                        .cards
                        .into_iter()
                        .map(|c| PrintedCard {
                            serial: c.serial,
                            label: c.label,
                            cells: c.cells,
                        })
                        .collect(),
                }
            }
            wire::SquareCalled::TYPE => {
                let m: wire::SquareCalled = read(payload)?;
                Event::SquareCalled {
                    request_id: m.request_id,
                    game_id: m.game_id,
                    square: m.square_id,
                    label: m.label,
                    call_number: m.call_number,
                }
            }
            wire::SquareTicked::TYPE => {
                let m: wire::SquareTicked = read(payload)?;
                Event::SquareTicked {
                    game_id: m.game_id,
                    serial: m.serial,
                    player: m.player,
                    square: m.square_id,
                    cell: m.cell,
                    entry_id: m.entry_id,
                    verb: m.verb,
                }
            }
            wire::GestureUndone::TYPE => {
                let m: wire::GestureUndone = read(payload)?;
                Event::GestureUndone {
                    game_id: m.game_id,
                    entry_id: m.entry_id,
                    unticked: m
                        .unticked
                        .into_iter()
                        .map(|c| CardCell {
                            serial: c.serial,
                            player: c.player,
                            square: c.square_id,
                            cell: c.cell,
                        })
                        .collect(),
                }
            }
            wire::ClaimAnswered::TYPE => {
                let m: wire::ClaimAnswered = read(payload)?;
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
                    check: check_in(m.check),
                    player: m.player,
                    ticked_cells: m.ticked_cells,
                    win,
                    game_closed: m.game_closed,
                })
            }
            wire::CardWon::TYPE => {
                let m: wire::CardWon = read(payload)?;
                Event::CardWon {
                    game_id: m.game_id,
                    serial: m.serial,
                    player: m.player,
                    pattern: m.pattern,
                    cells: m.cells,
                    won_at: m.won_at,
                    place: m.place,
                }
            }
            wire::GameClosed::TYPE => {
                let m: wire::GameClosed = read(payload)?;
                Event::GameClosed {
                    request_id: m.request_id,
                    game_id: m.game_id,
                    winners: m.winners,
                    cards: m.cards,
                    closed_at: m.closed_at,
                }
            }
            wire::RequestRejected::TYPE => {
                let m: wire::RequestRejected = read(payload)?;
                Event::RequestRejected {
                    request_type: m.request_type,
                    request_id: m.request_id,
                    game_id: m.game_id,
                    code: m.code,
                    reason: m.reason,
                }
            }
            other => return Err(DecodeError::NotABingoEvent(other.to_string())),
        })
    }
}
