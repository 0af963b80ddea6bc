//! Bingo's read model: every game the bingo service announced, with its pool, the squares
//! called in order, its cards (who holds each, its cells and which are ticked), the claims
//! and verifications answered, the winners in the order they won, and the last requests the
//! service refused.
//!
//! Pure: folded from `bingo.*` events only; times come from the events (or the console's
//! record of when it saw them). Bounded: at most [`MAX_GAMES`] games (a new one pushes out the
//! oldest closed game, else it is not shown), [`MAX_CARDS`] cards kept per game (more are
//! counted), and the newest [`MAX_CLAIMS`] answers and [`MAX_REJECTIONS`] refusals.
//!
//! A printed card's label (what verifies it) is kept for the operator's printable sheet and
//! never put in a public view: see `pages.rs`.

use std::collections::BTreeMap;

use arcade_contracts::Message;
use arcade_contracts::bingo::{
    CardDealt, CardWon, CardsPrinted, ClaimAnswered, GameClosed, GameOpened, GestureUndone,
    OpenGame, RequestRejected, SquareCalled, SquareTicked, TickMode,
};
use serde::{Deserialize, Serialize};

pub use super::state::{
    Answer, Batch, Call, Card, Game, MAX_BATCHES, MAX_CARDS, MAX_CLAIMS, MAX_GAMES, MAX_REJECTIONS,
    MAX_WINNERS, Rejection, Square, Win, Winner, pattern_name,
};
use super::state::{MAX_CELLS, MAX_POOL};
use crate::observed::Observed;
use crate::projection::{ReadModel, of_topic};

/// Every bingo game seen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bingo {
    games: BTreeMap<String, Game>,
    /// Refusals of game openings, and of requests naming a game the console does not know,
    /// oldest first: what the games' page shows.
    rejections: Vec<Rejection>,
}

impl Bingo {
    /// A game, if seen.
    pub fn game(&self, game_id: &str) -> Option<&Game> {
        self.games.get(game_id)
    }

    /// Every game, by id.
    pub fn all(&self) -> impl Iterator<Item = &Game> {
        self.games.values()
    }

    /// Refusals of game openings, and of requests naming a game the console does not know,
    /// oldest first.
    pub fn rejections(&self) -> &[Rejection] {
        &self.rejections
    }

    fn open(&mut self, m: GameOpened) -> Option<()> {
        if let Some(game) = self.games.get(&m.game_id)
            && game.opened_at == m.opened_at
        {
            // The same announcement again (a replay): nothing new.
            return None;
        }
        if !self.games.contains_key(&m.game_id) && self.games.len() >= MAX_GAMES {
            let oldest_closed = self
                .games
                .values()
                .filter_map(|g| g.closed_at.map(|at| (at, g.game_id.clone())))
                .min()?;
            self.games.remove(&oldest_closed.1);
        }
        let free_centre = m.grid.free_centre.unwrap_or(m.grid.size % 2 == 1);
        self.games.insert(
            m.game_id.clone(),
            Game {
                game_id: m.game_id,
                open_request_id: m.request_id,
                tick_mode: m.tick_mode,
                size: m.grid.size,
                free_centre,
                pool: m
                    .pool
                    .into_iter()
                    .take(MAX_POOL)
                    .map(|s| Square {
                        id: s.id,
                        label: s.label,
                        verb: s.trigger.as_ref().map(|t| t.verb.clone()),
                        object: s.trigger.and_then(|t| t.object),
                    })
                    .collect(),
                patterns: m.patterns.iter().map(pattern_name).collect(),
                opened_at: m.opened_at,
                closed_at: None,
                called: Vec::new(),
                cards: BTreeMap::new(),
                card_count: 0,
                batches: Vec::new(),
                winners: Vec::new(),
                claims: Vec::new(),
                rejections: Vec::new(),
            },
        );
        Some(())
    }

    fn fold(&mut self, event: &Observed) -> Option<()> {
        match event.message_type.as_str() {
            GameOpened::TYPE => self.open(event.payload_as().ok()?)?,
            CardDealt::TYPE => {
                let m: CardDealt = event.payload_as().ok()?;
                let game = self.games.get_mut(&m.game_id)?;
                if game.cards.contains_key(&m.serial) {
                    return None;
                }
                if m.first_deal {
                    game.card_count = game.card_count.saturating_add(1);
                }
                game.keep(Card::new(m.serial, Some(m.player), m.cells, None, None));
            }
            CardsPrinted::TYPE => {
                let m: CardsPrinted = event.payload_as().ok()?;
                let game = self.games.get_mut(&m.game_id)?;
                let number = game.batches.last().map_or(1, |b| b.batch + 1);
                let serials: Vec<u32> = m.cards.iter().map(|c| c.serial).collect();
                game.card_count = game
                    .card_count
                    .saturating_add(u32::try_from(m.cards.len()).unwrap_or(u32::MAX));
                for card in m.cards {
                    game.keep(Card::new(
                        card.serial,
                        None,
                        card.cells,
                        Some(card.label),
                        Some(number),
                    ));
                }
                game.batches.push(Batch {
                    batch: number,
                    request_id: m.request_id,
                    serials,
                    seen_at_ms: event.seen_at_ms,
                });
                if game.batches.len() > MAX_BATCHES {
                    game.batches.remove(0);
                }
            }
            SquareCalled::TYPE => {
                let m: SquareCalled = event.payload_as().ok()?;
                let game = self.games.get_mut(&m.game_id)?;
                if game.called.iter().any(|c| c.square_id == m.square_id)
                    || game.called.len() >= MAX_POOL
                {
                    return None;
                }
                game.called.push(Call {
                    square_id: m.square_id,
                    label: m.label,
                    call_number: m.call_number,
                    seen_at_ms: event.seen_at_ms,
                });
            }
            SquareTicked::TYPE => {
                let m: SquareTicked = event.payload_as().ok()?;
                let card = self.games.get_mut(&m.game_id)?.cards.get_mut(&m.serial)?;
                if usize::from(m.cell) >= card.cells.len() {
                    return None;
                }
                card.gesture_ticks.insert(m.cell);
            }
            GestureUndone::TYPE => {
                let m: GestureUndone = event.payload_as().ok()?;
                let game = self.games.get_mut(&m.game_id)?;
                let mut changed = false;
                for cell in m.unticked {
                    if let Some(card) = game.cards.get_mut(&cell.serial) {
                        changed |= card.gesture_ticks.remove(&cell.cell);
                    }
                }
                changed.then_some(())?;
            }
            ClaimAnswered::TYPE => {
                let m: ClaimAnswered = event.payload_as().ok()?;
                let game = self.games.get_mut(&m.game_id)?;
                let answer = Answer {
                    request_id: m.request_id,
                    serial: m.serial,
                    check: m.check,
                    player: m.player,
                    pattern: m.pattern,
                    place: m.place,
                    game_closed: m.game_closed,
                    seen_at_ms: event.seen_at_ms,
                };
                if let Some(card) = game.cards.get_mut(&m.serial) {
                    if game.tick_mode == TickMode::Activity {
                        // The service's own count of the card's ticks, as of this answer.
                        card.gesture_ticks = m
                            .ticked_cells
                            .iter()
                            .copied()
                            .filter(|c| usize::from(*c) < card.cells.len())
                            .collect();
                    }
                    card.last_answer = Some(answer.clone());
                }
                push_bounded(&mut game.claims, answer, MAX_CLAIMS);
            }
            CardWon::TYPE => {
                let m: CardWon = event.payload_as().ok()?;
                let game = self.games.get_mut(&m.game_id)?;
                if game.winners.iter().any(|w| w.serial == m.serial) {
                    return None;
                }
                if let Some(card) = game.cards.get_mut(&m.serial) {
                    card.win = Some(Win {
                        pattern: m.pattern.clone(),
                        cells: m.cells.into_iter().take(MAX_CELLS).collect(),
                        place: m.place,
                        won_at: m.won_at,
                    });
                }
                if game.winners.len() < MAX_WINNERS {
                    game.winners.push(Winner {
                        place: m.place,
                        serial: m.serial,
                        player: m.player,
                        pattern: m.pattern,
                        won_at: m.won_at,
                    });
                }
            }
            GameClosed::TYPE => {
                let m: GameClosed = event.payload_as().ok()?;
                let game = self.games.get_mut(&m.game_id)?;
                if game.closed_at.is_some() {
                    return None;
                }
                game.closed_at = Some(m.closed_at);
                game.card_count = game.card_count.max(m.cards);
            }
            RequestRejected::TYPE => {
                let m: RequestRejected = event.payload_as().ok()?;
                let rejection = Rejection {
                    request_type: m.request_type,
                    request_id: m.request_id,
                    game_id: m.game_id,
                    code: m.code,
                    reason: m.reason,
                    seen_at_ms: event.seen_at_ms,
                };
                let opening = rejection.request_type == OpenGame::TYPE;
                match self.games.get_mut(&rejection.game_id) {
                    Some(game) => {
                        if opening {
                            push_bounded(&mut self.rejections, rejection.clone(), MAX_REJECTIONS);
                        }
                        push_bounded(&mut game.rejections, rejection, MAX_REJECTIONS);
                    }
                    None => push_bounded(&mut self.rejections, rejection, MAX_REJECTIONS),
                }
            }
            _ => return None,
        }
        Some(())
    }
}

fn push_bounded<T>(list: &mut Vec<T>, item: T, max: usize) {
    list.push(item);
    if list.len() > max {
        let excess = list.len() - max;
        list.drain(..excess);
    }
}

impl ReadModel for Bingo {
    const KEY: &'static str = "bingo";
    const VERSION: u32 = 1;

    fn apply(&mut self, event: &Observed) -> bool {
        of_topic(event, "bingo") && self.fold(event).is_some()
    }
}
