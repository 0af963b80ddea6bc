//! The bingo service's read model, for the process that hosts it: a copy of the service's
//! state folded from its own events, set from the state rebuilt at start (`resume`) and then
//! following every durable event (`effect`), so it never shows what is not flushed. The admin
//! endpoint reads games and cards here; nothing reads the service's store.

use std::sync::{Arc, PoisonError, RwLock};

use arcade_contracts::bingo::reads::{CardRead, GameRead, GameStatus, WinRead, WinnerRead};

use crate::domain::{Bingo, Event, Game, State};
use crate::mapping::config_out;

/// A read-only view of the bingo state, shared with whoever serves it.
#[derive(Debug, Clone, Default)]
pub struct BingoView {
    state: Arc<RwLock<State>>,
}

impl BingoView {
    pub(crate) fn reset(&self, state: &State) {
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = state.clone();
    }

    pub(crate) fn apply(&self, event: &Event) {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        Bingo::evolve(&mut state, event);
    }

    fn with<T>(&self, read: impl FnOnce(&State) -> T) -> T {
        // A panic while writing leaves the state of the last whole event: still the best answer.
        read(&self.state.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// A game as it stands, or `None` when there is no game of that id.
    pub fn game(&self, game_id: &str) -> Option<GameRead> {
        self.with(|state| state.game(game_id).map(game_read))
    }

    /// A card of a game: `Err(false)` when there is no such game, `Err(true)` when the game
    /// has no card of that serial.
    pub fn card(&self, game_id: &str, serial: u32) -> Result<CardRead, bool> {
        self.with(|state| {
            let game = state.game(game_id).ok_or(false)?;
            let card = game.card(serial).ok_or(true)?;
            Ok(CardRead {
                game_id: game_id.to_string(),
                serial,
                player: card.player,
                cells: card.cells,
                ticked_cells: card.ticked_cells,
                win: card.win.map(|w| WinRead {
                    pattern: w.pattern,
                    cells: w.cells,
                    won_at: w.at,
                    place: w.place,
                }),
            })
        })
    }
}

fn game_read(game: &Game) -> GameRead {
    let config = game.config();
    let winners = game
        .winners()
        .iter()
        .filter_map(|&serial| {
            let card = game.card(serial)?;
            let win = card.win?;
            Some(WinnerRead {
                place: win.place,
                serial,
                player: card.player,
                pattern: win.pattern,
                won_at: win.at,
            })
        })
        .collect();
    let contract = config_out(config);
    GameRead {
        game_id: game.id().to_string(),
        tick_mode: contract.tick_mode,
        status: if game.is_open() {
            GameStatus::Open
        } else {
            GameStatus::Closed
        },
        grid: contract.grid,
        pool: contract.pool,
        patterns: config
            .patterns()
            .all()
            .iter()
            .map(|p| p.name().to_string())
            .collect(),
        called_squares: game.called().to_vec(),
        winners,
        cards: game.card_count(),
        printable: game.printable(),
    }
}
