//! The bingo service's state: a fold of its own events (see `evolve.rs`). Games by id; each
//! holds its configuration, its cards (layouts as pool indices), its winners in order, the
//! squares called, the standing gestures with the cells each one ticks, and the keys by which
//! a message undoes a mapped one.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::config::{GameConfig, TickMode};
use super::event::{Cells, WinReport};
use super::grid::{CellMask, bit, cells_of};
use super::pool::SquareId;

/// Every game the service knows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    pub(crate) games: BTreeMap<String, Game>,
}

/// One game.
#[derive(Debug, Clone, PartialEq)]
pub struct Game {
    pub(crate) id: String,
    pub(crate) config: Arc<GameConfig>,
    pub(crate) open: bool,
    pub(crate) cards: Vec<Card>,
    pub(crate) by_serial: HashMap<u32, u32>,
    pub(crate) by_player: HashMap<String, u32>,
    /// Layouts of every card, to skip a serial whose card would repeat one.
    pub(crate) layouts: HashSet<Box<[u16]>>,
    /// The first serial the next deal tries.
    pub(crate) next_serial: u32,
    pub(crate) winners: Vec<u32>,
    /// Per pool index: called yet?
    pub(crate) called: Vec<bool>,
    pub(crate) call_order: Vec<SquareId>,
    pub(crate) gestures: HashMap<String, GestureState>,
    pub(crate) next_gesture: u32,
    /// The standing mapped gestures a message can undo: occurrence key → entry id (see
    /// [`super::sources::ActivitySource::undo_key`]).
    pub(crate) undo_keys: HashMap<String, String>,
}

/// One card.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Card {
    pub(crate) serial: u32,
    /// The player who holds it; `None` for a printed card.
    pub(crate) owner: Option<String>,
    /// Pool index of the square in each drawn cell.
    pub(crate) layout: Box<[u16]>,
    /// Activity games: cells ticked by gestures (the free centre is added when read).
    pub(crate) ticked: CellMask,
    /// Activity games: (cell, gesture number) for every standing gesture's tick.
    pub(crate) support: Vec<(u8, u32)>,
    pub(crate) win: Option<Win>,
}

/// A card's win.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Win {
    pub(crate) pattern: String,
    pub(crate) cells: CellMask,
    pub(crate) at: u64,
    pub(crate) place: u32,
}

/// What a gesture did in a game.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum GestureState {
    /// It stands: its number, and the (card index, cell) it ticks.
    Standing { number: u32, ticks: Vec<(u32, u8)> },
    /// It was undone: recording it again ticks nothing.
    Undone,
}

/// A card as a reader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardView {
    /// Its serial.
    pub serial: u32,
    /// Who holds it; `None` for a printed card.
    pub player: Option<String>,
    /// Its squares, row by row, `None` for the free centre.
    pub cells: Cells,
    /// Its ticked cells, free centre included.
    pub ticked_cells: Vec<u8>,
    /// Its win, if it won.
    pub win: Option<WinReport>,
}

impl State {
    /// A game by id.
    pub fn game(&self, id: &str) -> Option<&Game> {
        self.games.get(id)
    }

    /// The ids of every game, in order.
    pub fn game_ids(&self) -> impl Iterator<Item = &str> {
        self.games.keys().map(String::as_str)
    }

    /// The message types open games map to gestures, or undo mapped gestures by: the events
    /// the service must also consume.
    pub fn mapped_message_types(&self) -> BTreeSet<String> {
        self.games
            .values()
            .filter(|g| g.open)
            .flat_map(|g| g.config.mapped_types())
            .map(str::to_string)
            .collect()
    }
}

impl Game {
    pub(crate) fn new(id: String, config: Arc<GameConfig>) -> Game {
        let pool_len = config.pool().len();
        Game {
            id,
            config,
            open: true,
            cards: Vec::new(),
            by_serial: HashMap::new(),
            by_player: HashMap::new(),
            layouts: HashSet::new(),
            next_serial: 1,
            winners: Vec::new(),
            called: vec![false; pool_len],
            call_order: Vec::new(),
            gestures: HashMap::new(),
            next_gesture: 0,
            undo_keys: HashMap::new(),
        }
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its configuration.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// Whether it still deals, calls, ticks and makes cards win.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Cards dealt and printed.
    pub fn card_count(&self) -> u32 {
        // At most 100,000 cards.
        self.cards.len() as u32
    }

    /// Winning serials, in the order they won.
    pub fn winners(&self) -> &[u32] {
        &self.winners
    }

    /// Squares called, in order.
    pub fn called(&self) -> &[SquareId] {
        &self.call_order
    }

    /// The serials of its cards, in the order they were dealt or printed.
    pub fn serials(&self) -> impl Iterator<Item = u32> + '_ {
        self.cards.iter().map(|c| c.serial)
    }

    /// A card by serial.
    pub fn card(&self, serial: u32) -> Option<CardView> {
        self.by_serial
            .get(&serial)
            .map(|&i| self.view(&self.cards[i as usize]))
    }

    /// A player's card.
    pub fn card_of(&self, player: &str) -> Option<CardView> {
        self.by_player
            .get(player)
            .map(|&i| self.view(&self.cards[i as usize]))
    }

    fn view(&self, card: &Card) -> CardView {
        CardView {
            serial: card.serial,
            player: card.owner.clone(),
            cells: self.cells(&card.layout),
            ticked_cells: cells_of(self.ticked_mask(card)),
            win: card.win.as_ref().map(Win::report),
        }
    }

    /// A card's ticked cells, free centre included: gestures' ticks in an activity game, the
    /// called squares it holds in a called game (computed now, so a call touches no card).
    pub(crate) fn ticked_mask(&self, card: &Card) -> CellMask {
        let grid = self.config.grid();
        let free = grid.free_mask();
        match self.config.tick_mode() {
            TickMode::Activity => free | card.ticked,
            TickMode::Called => card
                .layout
                .iter()
                .enumerate()
                .filter(|&(_, &square)| self.called[usize::from(square)])
                .fold(free, |mask, (draw, _)| mask | bit(grid.cell_of_draw(draw))),
        }
    }

    /// A layout as square ids per cell.
    pub(crate) fn cells(&self, layout: &[u16]) -> Cells {
        let grid = self.config.grid();
        let pool = self.config.pool();
        let mut cells: Cells = layout.iter().map(|&i| pool.at(i).map(|s| s.id)).collect();
        if let Some(free) = grid.free_cell() {
            cells.insert(usize::from(free), None);
        }
        cells
    }

    /// Square ids per cell as a layout; `None` when they do not fit the game (wrong length,
    /// unknown square, a hole outside the free centre, a square twice).
    pub(crate) fn layout(&self, cells: &Cells) -> Option<Box<[u16]>> {
        let grid = self.config.grid();
        if cells.len() != usize::from(grid.cells()) {
            return None;
        }
        let mut layout = Vec::with_capacity(grid.draws());
        // One bit per pool index (at most 500).
        let mut seen = [0u64; 8];
        for (cell, id) in cells.iter().enumerate() {
            match (id, grid.free_cell() == Some(cell as u8)) {
                (None, true) => {}
                (Some(id), false) => {
                    let index = self.config.pool().index_of(*id)?;
                    let (word, bit) = (usize::from(index / 64), 1u64 << (index % 64));
                    if seen[word] & bit != 0 {
                        return None;
                    }
                    seen[word] |= bit;
                    layout.push(index);
                }
                _ => return None,
            }
        }
        Some(layout.into_boxed_slice())
    }

    pub(crate) fn card_index(&self, serial: u32) -> Option<usize> {
        self.by_serial.get(&serial).map(|&i| i as usize)
    }
}

impl Win {
    pub(crate) fn report(&self) -> WinReport {
        WinReport {
            pattern: self.pattern.clone(),
            cells: cells_of(self.cells),
            at: self.at,
            place: self.place,
        }
    }
}
