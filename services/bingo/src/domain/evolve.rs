//! `evolve`: applies one of the service's own events to the state. No rules here: `decide`
//! already checked them; an event that does not fit the state (a log written by another
//! version, or altered) changes nothing rather than panic.

use std::sync::Arc;

use arcade_contracts::bingo as contract;

use super::event::{Cells, Event};
use super::grid::{CellMask, bit};
use super::state::{Card, Game, GestureState, State, Win};

impl State {
    /// Applies one event.
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::GameOpened {
                game_id, config, ..
            } => {
                self.games
                    .entry(game_id.clone())
                    .or_insert_with(|| Game::new(game_id.clone(), Arc::clone(config)));
            }
            Event::CardDealt(contract::CardDealt {
                game_id,
                player,
                serial,
                cells,
                ..
            }) => {
                if let Some(game) = self.games.get_mut(game_id)
                    && !game.by_player.contains_key(player)
                {
                    game.add_card(*serial, Some(player.clone()), cells);
                }
            }
            Event::CardsPrinted(contract::CardsPrinted { game_id, cards, .. }) => {
                if let Some(game) = self.games.get_mut(game_id) {
                    for card in cards {
                        game.add_card(card.serial, None, &card.cells);
                    }
                }
            }
            Event::SquareCalled(contract::SquareCalled {
                game_id,
                square_id: square,
                ..
            }) => {
                if let Some(game) = self.games.get_mut(game_id)
                    && let Some(index) = game.config.pool().index_of(*square)
                    && !game.called[usize::from(index)]
                {
                    game.called[usize::from(index)] = true;
                    game.call_order.push(*square);
                }
            }
            Event::SquareTicked(contract::SquareTicked {
                game_id,
                serial,
                cell,
                entry_id,
                undo_key,
                ..
            }) => {
                if let Some(game) = self.games.get_mut(game_id) {
                    game.tick(*serial, *cell, entry_id);
                    if let Some(key) = undo_key
                        && let Some(GestureState::Standing { .. }) = game.gestures.get(entry_id)
                    {
                        game.undo_keys.insert(key.clone(), entry_id.clone());
                    }
                }
            }
            Event::GestureUndone(contract::GestureUndone {
                game_id, entry_id, ..
            }) => {
                if let Some(game) = self.games.get_mut(game_id) {
                    game.undo(entry_id);
                }
            }
            Event::CardWon(contract::CardWon {
                game_id,
                serial,
                pattern,
                cells,
                won_at,
                place,
                ..
            }) => {
                if let Some(game) = self.games.get_mut(game_id)
                    && let Some(i) = game.card_index(*serial)
                    && game.cards[i].win.is_none()
                {
                    let cells: CellMask = cells
                        .iter()
                        .filter(|&&c| c < 128)
                        .fold(0, |m, &c| m | bit(c));
                    let win = Win {
                        pattern: pattern.clone(),
                        cells,
                        at: *won_at,
                        place: *place,
                    };
                    game.cards[i].win = Some(win);
                    game.winners.push(*serial);
                }
            }
            Event::GameClosed(contract::GameClosed { game_id, .. }) => {
                if let Some(game) = self.games.get_mut(game_id) {
                    game.open = false;
                }
            }
            Event::ClaimAnswered(_) | Event::RequestRejected(_) => {}
        }
    }
}

impl Game {
    fn add_card(&mut self, serial: u32, owner: Option<String>, cells: &Cells) {
        if self.by_serial.contains_key(&serial) {
            return;
        }
        let Some(layout) = self.layout(cells) else {
            return;
        };
        // At most 100,000 cards.
        let index = self.cards.len() as u32;
        self.by_serial.insert(serial, index);
        if let Some(player) = &owner {
            self.by_player.insert(player.clone(), index);
        }
        self.layouts.insert(layout.clone());
        self.next_serial = self.next_serial.max(serial.saturating_add(1));
        self.cards.push(Card {
            serial,
            owner,
            layout,
            ticked: 0,
            support: Vec::new(),
            win: None,
        });
    }

    fn tick(&mut self, serial: u32, cell: u8, entry_id: &str) {
        let Some(card_index) = self.card_index(serial) else {
            return;
        };
        if cell >= self.config.grid().cells() {
            return;
        }
        let number = match self.gestures.get(entry_id) {
            Some(GestureState::Standing { number, .. }) => *number,
            Some(GestureState::Undone) => return,
            None => {
                let number = self.next_gesture;
                self.next_gesture += 1;
                let standing = GestureState::Standing {
                    number,
                    ticks: Vec::new(),
                };
                self.gestures.insert(entry_id.to_string(), standing);
                number
            }
        };
        if let Some(GestureState::Standing { ticks, .. }) = self.gestures.get_mut(entry_id) {
            ticks.push((card_index as u32, cell));
        }
        let card = &mut self.cards[card_index];
        card.support.push((cell, number));
        card.ticked |= bit(cell);
    }

    /// Removes a gesture's ticks; a cell no other standing gesture ticks is unticked, unless
    /// its card has won.
    fn undo(&mut self, entry_id: &str) {
        let Some(GestureState::Standing { number, ticks }) = self
            .gestures
            .insert(entry_id.to_string(), GestureState::Undone)
        else {
            return;
        };
        self.undo_keys.retain(|_, entry| entry != entry_id);
        for (card_index, cell) in ticks {
            let card = &mut self.cards[card_index as usize];
            card.support.retain(|&(c, g)| !(c == cell && g == number));
            let still_ticked = card.support.iter().any(|&(c, _)| c == cell);
            if !still_ticked && card.win.is_none() {
                card.ticked &= !bit(cell);
            }
        }
    }
}
