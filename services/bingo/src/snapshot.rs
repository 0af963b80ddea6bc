//! The on-disk format of the bingo service's state snapshots (`arcade_runtime::Snapshot`).
//!
//! Version 2, postcard: every game as version 1 wrote it, with its undo keys (occurrence key →
//! entry id, sorted) after it. A version 1 snapshot (before undo keys) is skipped by the host,
//! which folds the log instead: no state is lost, only the shortcut.
//!
//! Version 1: every game with its id, its configuration as JSON text (the pieces of
//! `bingo.game.opened.v1`: tick mode, grid, pool, patterns, activity sources, checked again on
//! load with `GameConfig::new`), whether it is open, its cards (serial, holder, layout as pool
//! indices, ticked cells, the (cell, gesture) ticks standing, the win), the next serial a deal
//! tries, the winners in order, the squares called in order, the gestures by entry id and the
//! next gesture number. The lookups (by serial, by player, the layouts seen, the called flags)
//! are rebuilt from those. These structs are the format; the domain's types never go to disk.
//!
//! No secret: the state holds none (the server secret lives only in the decider's keys; a
//! dealt card carries its squares, as `bingo.card.dealt.v1` already does in the log).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arcade_runtime::{Snapshot, SnapshotError};
use serde::{Deserialize, Serialize};

use crate::domain::state::{Card, Game, GestureState, Win};
use crate::domain::{GameConfig, State};
use crate::mapping::spec::{ContractConfig, config_out, spec_in};
use crate::service::BingoService;

#[derive(Debug, Serialize, Deserialize)]
struct StateV2 {
    /// Each game, with its undo keys (occurrence key, entry id) sorted by key.
    games: Vec<(GameV1, Vec<(String, String)>)>,
}

#[derive(Debug, Serialize, Deserialize)]
struct GameV1 {
    id: String,
    /// JSON text of the configuration in contract shapes.
    config: String,
    open: bool,
    cards: Vec<CardV1>,
    next_serial: u32,
    winners: Vec<u32>,
    call_order: Vec<u32>,
    /// (entry id, gesture): sorted by entry id.
    gestures: Vec<(String, GestureV1)>,
    next_gesture: u32,
}

#[derive(Debug, Serialize, Deserialize)]
struct CardV1 {
    serial: u32,
    owner: Option<String>,
    layout: Vec<u16>,
    ticked: u128,
    support: Vec<(u8, u32)>,
    win: Option<WinV1>,
}

#[derive(Debug, Serialize, Deserialize)]
struct WinV1 {
    pattern: String,
    cells: u128,
    at: u64,
    place: u32,
}

#[derive(Debug, Serialize, Deserialize)]
enum GestureV1 {
    /// Its number and the (card index, cell) it ticks.
    Standing(u32, Vec<(u32, u8)>),
    Undone,
}

fn payload(reason: impl Into<String>) -> SnapshotError {
    SnapshotError::Payload(reason.into())
}

fn config_json(config: &GameConfig) -> String {
    // Contract shapes serialize to JSON: plain strings, numbers and lists.
    serde_json::to_string(&config_out(config)).unwrap_or_default()
}

fn config_from(game: &str, text: &str) -> Result<GameConfig, SnapshotError> {
    let bad =
        |e: &dyn std::fmt::Display| payload(format!("the configuration of game \"{game}\": {e}"));
    let c: ContractConfig = serde_json::from_str(text).map_err(|e| bad(&e))?;
    let sources = &c.activity_sources;
    let spec = spec_in(c.tick_mode, &c.grid, &c.pool, &c.patterns, sources);
    GameConfig::new(&spec).map_err(|e| bad(&e))
}

fn game_v1(game: &Game) -> GameV1 {
    let mut gestures: Vec<(String, GestureV1)> = game
        .gestures
        .iter()
        .map(|(entry, gesture)| {
            let gesture = match gesture {
                GestureState::Standing { number, ticks } => {
                    GestureV1::Standing(*number, ticks.clone())
                }
                GestureState::Undone => GestureV1::Undone,
            };
            (entry.clone(), gesture)
        })
        .collect();
    gestures.sort_by(|a, b| a.0.cmp(&b.0));
    GameV1 {
        id: game.id.clone(),
        config: config_json(&game.config),
        open: game.open,
        cards: game
            .cards
            .iter()
            .map(|card| CardV1 {
                serial: card.serial,
                owner: card.owner.clone(),
                layout: card.layout.to_vec(),
                ticked: card.ticked,
                support: card.support.clone(),
                win: card.win.as_ref().map(|w| WinV1 {
                    pattern: w.pattern.clone(),
                    cells: w.cells,
                    at: w.at,
                    place: w.place,
                }),
            })
            .collect(),
        next_serial: game.next_serial,
        winners: game.winners.clone(),
        call_order: game.call_order.clone(),
        gestures,
        next_gesture: game.next_gesture,
    }
}

fn game_from(snapshot: GameV1) -> Result<Game, SnapshotError> {
    let id = snapshot.id;
    let config = config_from(&id, &snapshot.config)?;
    let pool_len = config.pool().len();
    let cells = config.grid().cells();
    let mut game = Game::new(id.clone(), Arc::new(config));
    let bad = |what: String| payload(format!("game \"{id}\": {what}"));
    let mut by_serial = HashMap::new();
    let mut by_player = HashMap::new();
    let mut layouts = HashSet::new();
    let mut cards = Vec::with_capacity(snapshot.cards.len());
    for (index, card) in snapshot.cards.into_iter().enumerate() {
        let index = u32::try_from(index).map_err(|_| bad("too many cards".into()))?;
        if card.layout.iter().any(|&i| usize::from(i) >= pool_len) {
            return Err(bad(format!("card {} draws outside the pool", card.serial)));
        }
        if card.support.iter().any(|&(cell, _)| cell >= cells) {
            return Err(bad(format!("card {} ticks outside the grid", card.serial)));
        }
        if by_serial.insert(card.serial, index).is_some() {
            return Err(bad(format!("serial {} twice", card.serial)));
        }
        if let Some(owner) = &card.owner {
            by_player.insert(owner.clone(), index);
        }
        let layout: Box<[u16]> = card.layout.into_boxed_slice();
        layouts.insert(layout.clone());
        cards.push(Card {
            serial: card.serial,
            owner: card.owner,
            layout,
            ticked: card.ticked,
            support: card.support,
            win: card.win.map(|w| Win {
                pattern: w.pattern,
                cells: w.cells,
                at: w.at,
                place: w.place,
            }),
        });
    }
    for &serial in &snapshot.winners {
        if !by_serial.contains_key(&serial) {
            return Err(bad(format!("winner {serial} holds no card")));
        }
    }
    for &square in &snapshot.call_order {
        let index = game
            .config
            .pool()
            .index_of(square)
            .ok_or_else(|| bad(format!("square {square} called is not in the pool")))?;
        game.called[usize::from(index)] = true;
    }
    let mut gestures = HashMap::with_capacity(snapshot.gestures.len());
    for (entry, gesture) in snapshot.gestures {
        let gesture = match gesture {
            GestureV1::Standing(number, ticks) => {
                if ticks
                    .iter()
                    .any(|&(card, cell)| card as usize >= cards.len() || cell >= cells)
                {
                    return Err(bad(format!(
                        "gesture \"{entry}\" ticks no card of the game"
                    )));
                }
                GestureState::Standing { number, ticks }
            }
            GestureV1::Undone => GestureState::Undone,
        };
        gestures.insert(entry, gesture);
    }
    game.open = snapshot.open;
    game.cards = cards;
    game.by_serial = by_serial;
    game.by_player = by_player;
    game.layouts = layouts;
    game.next_serial = snapshot.next_serial;
    game.winners = snapshot.winners;
    game.call_order = snapshot.call_order;
    game.gestures = gestures;
    game.next_gesture = snapshot.next_gesture;
    Ok(game)
}

impl Snapshot for BingoService {
    const VERSION: u32 = 2;

    fn encode(state: &State) -> Vec<u8> {
        let games = state.games.values().map(|game| {
            let mut keys: Vec<(String, String)> = game.undo_keys.clone().into_iter().collect();
            keys.sort();
            (game_v1(game), keys)
        });
        let snapshot = StateV2 {
            games: games.collect(),
        };
        // Plain integers, strings and vectors always serialize.
        postcard::to_allocvec(&snapshot).unwrap_or_default()
    }

    fn decode(bytes: &[u8]) -> Result<State, SnapshotError> {
        let snapshot: StateV2 = postcard::from_bytes(bytes).map_err(|e| payload(e.to_string()))?;
        let mut state = State::default();
        for (game, keys) in snapshot.games {
            let mut game = game_from(game)?;
            game.undo_keys = keys.into_iter().collect();
            state.games.insert(game.id.clone(), game);
        }
        Ok(state)
    }
}
