//! Ticking by activity: a gesture ticks, on the member's card in every open activity game, the
//! squares whose trigger it matches (one `SquareTicked` each), and a card it completes wins.
//! Recorded twice, a gesture ticks once; undone, it unticks what it alone ticked, unless the
//! card already won, in the games where it ticked (announced there only; an undo of a gesture
//! no game holds is ignored). A mapped message whose source names its undoing message is
//! undone by that message when their key fields agree (a cancelled goal). Closed games and
//! called games ignore gestures.

use arcade_contracts::bingo as contract;
use serde_json::Value;

use super::claims::{new_win, won_event};
use super::config::TickMode;
use super::event::{CardCell, Event};
use super::grid::bit;
use super::sources::{Gesture, GestureError};
use super::state::{Game, GestureState, State};

/// What a gesture ticks in every open activity game.
pub(crate) fn record(state: &State, gesture: &Gesture, now: u64) -> Vec<Event> {
    state
        .games
        .values()
        .flat_map(|game| tick_game(game, gesture, None, now))
        .collect()
}

/// What another service's fact ticks in the games that map its type.
pub(crate) fn foreign(
    state: &State,
    message_type: &str,
    payload: &Value,
    message_id: &str,
    now: u64,
) -> Vec<Event> {
    let ticks = state
        .foreign_gestures(message_type, payload, message_id)
        .into_iter()
        .filter_map(|(game_id, gesture)| Some((state.game(&game_id)?, gesture.ok()?)))
        .flat_map(|(game, gesture)| {
            let key = (game.config.source_for(message_type)).and_then(|s| s.undo_key(payload));
            tick_game(game, &gesture, key, now)
        });
    // A message that undoes a mapped one: the gesture its key names, where one stands.
    let undos = state.games.values().flat_map(|game| {
        let keys = game.config.sources_undone_by(message_type);
        keys.filter_map(|source| game.undo_keys.get(&source.undo_key(payload)?))
            .filter_map(|entry_id| undo_game(game, entry_id))
    });
    ticks.chain(undos).collect()
}

/// What an undo unticks in the open activity games where the gesture ticked.
pub(crate) fn undo(state: &State, entry_id: &str) -> Vec<Event> {
    state
        .games
        .values()
        .filter_map(|game| undo_game(game, entry_id))
        .collect()
}

impl State {
    /// The gesture another service's message stands for in each open activity game that maps
    /// its type, or why it stands for none there (for the wiring to log: the message is a fact,
    /// there is nobody to answer).
    pub fn foreign_gestures(
        &self,
        message_type: &str,
        payload: &Value,
        message_id: &str,
    ) -> Vec<(String, Result<Gesture, GestureError>)> {
        self.games
            .values()
            .filter(|game| game.open && game.config.tick_mode() == TickMode::Activity)
            .filter_map(|game| {
                let source = game.config.source_for(message_type)?;
                // A message the filters keep out is no gesture, and no problem either.
                source
                    .admits(payload)
                    .then(|| (game.id.clone(), source.gesture(payload, message_id)))
            })
            .collect()
    }
}

fn tick_game(game: &Game, gesture: &Gesture, undo_key: Option<String>, now: u64) -> Vec<Event> {
    if !game.open
        || game.config.tick_mode() != TickMode::Activity
        || game.gestures.contains_key(&gesture.entry_id)
    {
        return Vec::new();
    }
    let Some(&index) = game.by_player.get(&gesture.member) else {
        return Vec::new();
    };
    let index = index as usize;
    let card = &game.cards[index];
    let grid = game.config.grid();
    let pool = game.config.pool();
    let mut events = Vec::new();
    let mut ticked = card.ticked;
    for (draw, &square_index) in card.layout.iter().enumerate() {
        let Some(square) = pool.at(square_index) else {
            continue;
        };
        let triggered = square
            .trigger
            .as_ref()
            .is_some_and(|t| t.matches(&gesture.verb, gesture.object.as_deref()));
        if triggered {
            let cell = grid.cell_of_draw(draw);
            ticked |= bit(cell);
            events.push(Event::SquareTicked(contract::SquareTicked {
                game_id: game.id.clone(),
                serial: card.serial,
                player: gesture.member.clone(),
                square_id: square.id,
                cell,
                entry_id: gesture.entry_id.clone(),
                verb: gesture.verb.clone(),
                undo_key: undo_key.clone(),
            }));
        }
    }
    if ticked != card.ticked && card.win.is_none() {
        let all = ticked | grid.free_mask();
        if let Some(found) = game.config.patterns().first_match(all) {
            let win = new_win(game, found.pattern, found.cells, now);
            events.push(won_event(game, index, &win));
        }
    }
    events
}

fn undo_game(game: &Game, entry_id: &str) -> Option<Event> {
    if !game.open || game.config.tick_mode() != TickMode::Activity {
        return None;
    }
    // Only where it ticked: undone already, or never seen here, it changes nothing.
    let Some(GestureState::Standing { number, ticks }) = game.gestures.get(entry_id) else {
        return None;
    };
    let pool = game.config.pool();
    let grid = game.config.grid();
    let unticked = ticks
        .iter()
        .filter_map(|&(card_index, cell)| {
            let card = &game.cards[card_index as usize];
            let others = card.support.iter().any(|&(c, g)| c == cell && g != *number);
            if others || card.win.is_some() {
                return None;
            }
            let draw = (0..grid.draws()).find(|&d| grid.cell_of_draw(d) == cell)?;
            let square = pool.at(card.layout[draw])?.id;
            Some(CardCell {
                serial: card.serial,
                player: card.owner.clone().unwrap_or_default(),
                square_id: square,
                cell,
            })
        })
        .collect();
    Some(Event::GestureUndone(contract::GestureUndone {
        game_id: game.id.clone(),
        entry_id: entry_id.to_string(),
        unticked,
    }))
}
