//! The bingo decider: [`Bingo`] holds the server's keys (configuration, never in an event) and
//! decides what each input does. Opening, dealing, printing, calling and closing are here;
//! claims in `claims.rs`, gestures in `activity.rs`.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use arcade_contracts::bingo as contract;

use super::activity;
use super::claims::{Asker, check_card};
use super::config::{GameConfig, TickMode};
use super::event::{Event, PrintedCard};
use super::input::{Action, Command, Input};
use super::limits::{MAX_CARDS, MAX_PRINT_BATCH, MAX_SKIPPED_SERIALS, MAX_TEXT_BYTES};
use super::refusal::{Closed, Refusal, Rejection};
use super::secret::{Keys, Secret};
use super::state::{Game, State};

/// The bingo decider. Its only configuration is the server secret.
#[derive(Clone)]
pub struct Bingo {
    pub(crate) keys: Keys,
}

impl fmt::Debug for Bingo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bingo").field("keys", &self.keys).finish()
    }
}

/// Checks an identifier's length (1 to 200 bytes).
pub(crate) fn check_text(field: &'static str, text: &str) -> Result<(), Refusal> {
    if text.is_empty() || text.len() > MAX_TEXT_BYTES {
        return Err(Refusal::TextLength {
            field,
            len: text.len(),
            max: MAX_TEXT_BYTES,
        });
    }
    Ok(())
}

impl Bingo {
    /// A decider dealing cards from this secret.
    pub fn new(secret: &Secret) -> Bingo {
        Bingo {
            keys: Keys::new(secret),
        }
    }

    /// Decides what an input does, at `now_ms` (ms since the epoch, from the runtime's clock).
    /// Only requests are refused; a gesture that ticks nothing decides nothing.
    pub fn decide(
        &self,
        state: &State,
        input: &Input,
        now_ms: u64,
    ) -> Result<Vec<Event>, Rejection> {
        match input {
            Input::Command(command) => {
                self.command(state, command, now_ms)
                    .map_err(|refusal| Rejection {
                        request_type: command.action.request_type(),
                        request_id: command.request_id.clone(),
                        game_id: command.game_id.clone(),
                        refusal,
                    })
            }
            Input::Recorded(gesture) => Ok(activity::record(state, gesture, now_ms)),
            Input::Undone(undone) => Ok(activity::undo(state, &undone.entry_id)),
            Input::Foreign {
                message_type,
                payload,
                message_id,
            } => Ok(activity::foreign(
                state,
                message_type,
                payload,
                message_id,
                now_ms,
            )),
        }
    }

    /// Applies an event (replay calls only this).
    pub fn evolve(state: &mut State, event: &Event) {
        state.apply(event);
    }

    /// Bingo schedules nothing.
    pub fn next_deadline(&self, _state: &State) -> Option<u64> {
        None
    }

    fn command(&self, state: &State, command: &Command, now: u64) -> Result<Vec<Event>, Refusal> {
        check_text("game id", &command.game_id)?;
        if let Some(request_id) = &command.request_id {
            check_text("request id", request_id)?;
        }
        let id = &command.game_id;
        let rid = command.request_id.clone();
        if let Action::Open(spec) = &command.action {
            if state.games.contains_key(id) {
                return Err(Refusal::GameExists(id.clone()));
            }
            let config =
                GameConfig::new(spec).map_err(|e| Refusal::InvalidGame(id.clone(), Box::new(e)))?;
            return Ok(vec![Event::GameOpened {
                request_id: rid,
                game_id: id.clone(),
                config: Arc::new(config),
                opened_at: now,
            }]);
        }
        let game = state
            .game(id)
            .ok_or_else(|| Refusal::UnknownGame(id.clone()))?;
        match &command.action {
            Action::Open(_) => Ok(Vec::new()),
            Action::Deal { player } => self.deal(game, player, rid),
            Action::Print { count } => self.print(game, *count, rid),
            Action::Call { square } => call(game, *square, rid),
            Action::Draw => self.draw(game, rid),
            Action::Claim { serial, player } => {
                check_text("player", player)?;
                check_card(&self.keys, game, *serial, Asker::Player(player), rid, now)
            }
            Action::Verify {
                serial,
                label: None,
            } => check_card(&self.keys, game, *serial, Asker::Organiser, rid, now),
            Action::Verify {
                serial,
                label: Some(label),
            } => {
                check_text("label", label)?;
                check_card(&self.keys, game, *serial, Asker::Label(label), rid, now)
            }
            Action::Close => close(game, rid, now),
        }
    }

    fn deal(&self, game: &Game, player: &str, rid: Option<String>) -> Result<Vec<Event>, Refusal> {
        check_text("player", player)?;
        if !game.open {
            return Err(Refusal::GameClosed {
                game: game.id.clone(),
                closed: Closed::Deal,
            });
        }
        if let Some(&index) = game.by_player.get(player) {
            let card = &game.cards[index as usize];
            return Ok(vec![Event::CardDealt(contract::CardDealt {
                request_id: rid,
                game_id: game.id.clone(),
                player: player.to_string(),
                serial: card.serial,
                cells: game.cells(&card.layout),
                first_deal: false,
            })]);
        }
        if game.card_count() >= MAX_CARDS {
            return Err(Refusal::CardLimit(game.id.clone()));
        }
        let (serial, layout) = self.distinct_card(game, game.next_serial, &HashSet::new())?;
        Ok(vec![Event::CardDealt(contract::CardDealt {
            request_id: rid,
            game_id: game.id.clone(),
            player: player.to_string(),
            serial,
            cells: game.cells(&layout),
            first_deal: true,
        })])
    }

    fn print(&self, game: &Game, count: u32, rid: Option<String>) -> Result<Vec<Event>, Refusal> {
        if game.config.tick_mode() != TickMode::Called {
            return Err(Refusal::PrintInActivityGame(game.id.clone()));
        }
        if count == 0 || count > MAX_PRINT_BATCH {
            return Err(Refusal::PrintCount(count));
        }
        if !game.open {
            return Err(Refusal::GameClosed {
                game: game.id.clone(),
                closed: Closed::Print,
            });
        }
        if game.card_count() + count > MAX_CARDS {
            let cards = game.card_count();
            return Err(Refusal::PrintTooMany {
                game: game.id.clone(),
                cards,
                count,
            });
        }
        if count > game.printable() {
            return Err(Refusal::TooFewDistinctCards {
                game: game.id.clone(),
                cards: game.card_count(),
                capacity: super::capacity::card_capacity(&game.config),
                count,
            });
        }
        let mut batch = HashSet::with_capacity(count as usize);
        let mut cards = Vec::with_capacity(count as usize);
        let mut next = game.next_serial;
        for _ in 0..count {
            let (serial, layout) = self.distinct_card(game, next, &batch)?;
            cards.push(PrintedCard {
                serial,
                label: self.keys.label(&game.id, serial),
                cells: game.cells(&layout),
            });
            batch.insert(layout);
            next = serial + 1;
        }
        Ok(vec![Event::CardsPrinted(contract::CardsPrinted {
            request_id: rid,
            game_id: game.id.clone(),
            cards,
        })])
    }

    /// The first serial from `first` whose card is unlike every card of the game (and of the
    /// batch being printed), skipping the others.
    fn distinct_card(
        &self,
        game: &Game,
        first: u32,
        batch: &HashSet<Box<[u16]>>,
    ) -> Result<(u32, Box<[u16]>), Refusal> {
        let pool_len = game.config.pool().len();
        let draws = game.config.grid().draws();
        for serial in first..=first.saturating_add(MAX_SKIPPED_SERIALS) {
            let layout = self.keys.layout(&game.id, serial, pool_len, draws);
            if !game.layouts.contains(&layout) && !batch.contains(&layout) {
                return Ok((serial, layout));
            }
        }
        Err(Refusal::NoDistinctCard {
            game: game.id.clone(),
            // At most 100,000 cards.
            cards: game.card_count() + batch.len() as u32,
            first,
            tried: MAX_SKIPPED_SERIALS + 1,
        })
    }
}

impl Bingo {
    /// Calls the first square of the game's draw order not called yet. The draw order is the
    /// layout of serial 0, a serial no card has: a shuffle of the whole pool keyed by the
    /// secret and the game, unknown to players and the same at every replay.
    fn draw(&self, game: &Game, rid: Option<String>) -> Result<Vec<Event>, Refusal> {
        let pool = game.config.pool();
        let order = self
            .keys
            .layout(&game.id, DRAW_ORDER_SERIAL, pool.len(), pool.len());
        let next = order
            .iter()
            .filter(|&&index| {
                !game
                    .called
                    .get(usize::from(index))
                    .copied()
                    .unwrap_or(false)
            })
            .find_map(|&index| pool.at(index));
        match next {
            Some(square) => call(game, square.id, rid),
            None => {
                check_callable(game)?;
                Err(Refusal::NothingToDraw(game.id.clone()))
            }
        }
    }
}

/// The serial whose layout is a game's draw order: card serials start at 1.
const DRAW_ORDER_SERIAL: u32 = 0;

/// A called game that is open: the squares of any other game are not called.
fn check_callable(game: &Game) -> Result<(), Refusal> {
    if game.config.tick_mode() != TickMode::Called {
        return Err(Refusal::CallInActivityGame(game.id.clone()));
    }
    if !game.open {
        return Err(Refusal::GameClosed {
            game: game.id.clone(),
            closed: Closed::Call,
        });
    }
    Ok(())
}

fn call(game: &Game, square: u32, rid: Option<String>) -> Result<Vec<Event>, Refusal> {
    check_callable(game)?;
    let pool = game.config.pool();
    let Some(index) = pool.index_of(square) else {
        return Err(Refusal::SquareNotInPool {
            game: game.id.clone(),
            square,
        });
    };
    if game.called[usize::from(index)] {
        // Announced the first time only; the caller learns it was called before, and when.
        let call_number = game
            .call_order
            .iter()
            .position(|&s| s == square)
            .map_or(0, |i| i as u32 + 1);
        return Err(Refusal::AlreadyCalled {
            game: game.id.clone(),
            square,
            call_number,
        });
    }
    let label = pool.at(index).map(|s| s.label.clone()).unwrap_or_default();
    Ok(vec![Event::SquareCalled(contract::SquareCalled {
        request_id: rid,
        game_id: game.id.clone(),
        square_id: square,
        label,
        // At most 500 squares.
        call_number: game.call_order.len() as u32 + 1,
    })])
}

fn close(game: &Game, rid: Option<String>, now: u64) -> Result<Vec<Event>, Refusal> {
    if !game.open {
        return Err(Refusal::GameClosed {
            game: game.id.clone(),
            closed: Closed::Close,
        });
    }
    Ok(vec![Event::GameClosed(contract::GameClosed {
        request_id: rid,
        game_id: game.id.clone(),
        winners: game.winners.clone(),
        cards: game.card_count(),
        closed_at: now,
    })])
}
