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

use std::collections::{BTreeMap, BTreeSet};

use arcade_contracts::Message;
use arcade_contracts::bingo::{
    CardDealt, CardWon, CardsPrinted, ClaimAnswered, ClaimCheck, GameClosed, GameOpened,
    GestureUndone, OpenGame, PatternSpec, RequestRejected, SquareCalled, SquareTicked, TickMode,
};
use serde::{Deserialize, Serialize};

use crate::observed::Observed;
use crate::projection::Projection;

/// Games kept. A new game beyond pushes out the closed game that closed first; with none
/// closed, the new game is not shown (never unbounded memory from a producer inventing games).
pub const MAX_GAMES: usize = 100;

/// Cards kept per game (dealt and printed, by serial order of arrival); beyond, cards are
/// counted but not shown. A bar's bingo night deals tens to hundreds.
pub const MAX_CARDS: usize = 2_000;

/// Claim and verification answers kept per game (the newest).
pub const MAX_CLAIMS: usize = 50;

/// Refused requests kept per game (the newest).
pub const MAX_REJECTIONS: usize = 20;

/// Winners kept per game (the first ones, in order).
pub const MAX_WINNERS: usize = 1_000;

/// Printed batches remembered per game (the newest).
pub const MAX_BATCHES: usize = 100;

/// The most squares and cells a game can have (the contract's limits: a pool of 500, 9×9).
const MAX_POOL: usize = 500;
const MAX_CELLS: usize = 81;

/// Every bingo game seen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bingo {
    games: BTreeMap<String, Game>,
    /// Refusals of game openings, and of requests naming a game the console does not know,
    /// oldest first: what the games' page shows.
    rejections: Vec<Rejection>,
}

/// One game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Game {
    /// The game.
    pub game_id: String,
    /// The `requestId` of the request that opened it.
    pub open_request_id: Option<String>,
    /// How its cards get ticked.
    pub tick_mode: TickMode,
    /// Cells per side.
    pub size: u8,
    /// Whether the centre cell is free.
    pub free_centre: bool,
    /// Its squares, in pool order.
    pub pool: Vec<Square>,
    /// Its win patterns' names, in the order they are checked.
    pub patterns: Vec<String>,
    /// When it opened (ms since the epoch).
    pub opened_at: u64,
    /// When it closed, once it has.
    pub closed_at: Option<u64>,
    /// The squares called, in order.
    pub called: Vec<Call>,
    /// Its cards, by serial (at most [`MAX_CARDS`]).
    pub cards: BTreeMap<u32, Card>,
    /// Cards dealt and printed, kept or not.
    pub card_count: u32,
    /// Printed batches, oldest first (at most [`MAX_BATCHES`]).
    pub batches: Vec<Batch>,
    /// The winners, in the order they won.
    pub winners: Vec<Winner>,
    /// The last claim and verification answers, oldest first.
    pub claims: Vec<Answer>,
    /// The last refused requests, oldest first.
    pub rejections: Vec<Rejection>,
}

/// A square of the pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Square {
    /// Its id.
    pub id: u32,
    /// What it says.
    pub label: String,
    /// In an activity game, the gesture's verb that ticks it.
    pub verb: Option<String>,
    /// … and the object it must concern, if any.
    pub object: Option<String>,
}

/// A called square.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// The square.
    pub square_id: u32,
    /// Its label.
    pub label: String,
    /// 1 for the first call.
    pub call_number: u32,
    /// When the console saw it.
    pub seen_at_ms: u64,
}

/// A card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Card {
    /// Its serial.
    pub serial: u32,
    /// Who holds it; `None` for a printed card.
    pub player: Option<String>,
    /// The square of every cell, row by row; `None` for the free centre.
    pub cells: Vec<Option<u32>>,
    /// Cells ticked by gestures (activity games; a called game's ticks follow the calls).
    pub gesture_ticks: BTreeSet<u8>,
    /// A printed card's label: for the operator's sheet only, never in a public view.
    pub label: Option<String>,
    /// The batch it was printed in (index in the game's batches since the first, from 1).
    pub batch: Option<u32>,
    /// Its win.
    pub win: Option<Win>,
    /// The last answer to a claim or verification of it.
    pub last_answer: Option<Answer>,
}

/// A card's win.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Win {
    /// The pattern.
    pub pattern: String,
    /// Its cells.
    pub cells: Vec<u8>,
    /// Place among the winners, 1 for the first.
    pub place: u32,
    /// When (ms since the epoch).
    pub won_at: u64,
}

/// A winner, in the game's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Winner {
    /// Place, 1 for the first.
    pub place: u32,
    /// The card.
    pub serial: u32,
    /// Who holds it; `None` for a printed card.
    pub player: Option<String>,
    /// The pattern.
    pub pattern: String,
    /// When (ms since the epoch).
    pub won_at: u64,
}

/// A printed batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Batch {
    /// Its number in the game, from 1.
    pub batch: u32,
    /// The request it answers.
    pub request_id: Option<String>,
    /// Its serials, in order.
    pub serials: Vec<u32>,
    /// When the console saw it.
    pub seen_at_ms: u64,
}

/// The answer to a claim or a verification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The request it answers.
    pub request_id: Option<String>,
    /// The card.
    pub serial: u32,
    /// A claim, a verification, a label verification.
    pub check: ClaimCheck,
    /// Who holds the card.
    pub player: Option<String>,
    /// The pattern it won with (now or before); `None`: it has not won.
    pub pattern: Option<String>,
    /// Its place among the winners.
    pub place: Option<u32>,
    /// Whether the game was closed (its cards verified, never winning).
    pub game_closed: bool,
    /// When the console saw it.
    pub seen_at_ms: u64,
}

/// A refused request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejection {
    /// Its type, e.g. `bingo.card.claim.v1`.
    pub request_type: String,
    /// Its `requestId`.
    pub request_id: Option<String>,
    /// The game it named.
    pub game_id: String,
    /// The service's code, e.g. `not-your-card`.
    pub code: String,
    /// Why, in words.
    pub reason: String,
    /// When the console saw it.
    pub seen_at_ms: u64,
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

/// The name a pattern's wins carry.
pub fn pattern_name(pattern: &PatternSpec) -> String {
    match pattern {
        PatternSpec::Row => "row".into(),
        PatternSpec::Column => "column".into(),
        PatternSpec::Diagonal => "diagonal".into(),
        PatternSpec::FullCard => "fullCard".into(),
        PatternSpec::FourCorners => "fourCorners".into(),
        PatternSpec::Line => "line".into(),
        PatternSpec::Custom { name, .. } => name.clone(),
    }
}

impl Game {
    fn keep(&mut self, card: Card) {
        if self.cards.len() < MAX_CARDS {
            self.cards.insert(card.serial, card);
        }
    }

    /// Whether the game still plays.
    pub fn is_open(&self) -> bool {
        self.closed_at.is_none()
    }

    /// The square of `id`, if in the pool.
    pub fn square(&self, id: u32) -> Option<&Square> {
        self.pool.iter().find(|s| s.id == id)
    }

    /// The ids of the squares called so far.
    pub fn called_ids(&self) -> BTreeSet<u32> {
        self.called.iter().map(|c| c.square_id).collect()
    }

    /// The ticked cells of `card`, free centre included: in a called game, the cells whose
    /// square was called; in an activity game, the cells its gestures ticked.
    pub fn ticked(&self, card: &Card, called: &BTreeSet<u32>) -> BTreeSet<u8> {
        card.cells
            .iter()
            .enumerate()
            .filter(|(cell, square)| match square {
                None => true,
                Some(id) => match self.tick_mode {
                    TickMode::Called => called.contains(id),
                    TickMode::Activity => {
                        u8::try_from(*cell).is_ok_and(|cell| card.gesture_ticks.contains(&cell))
                    }
                },
            })
            .filter_map(|(cell, _)| u8::try_from(cell).ok())
            .collect()
    }
}

impl Card {
    fn new(
        serial: u32,
        player: Option<String>,
        mut cells: Vec<Option<u32>>,
        label: Option<String>,
        batch: Option<u32>,
    ) -> Card {
        cells.truncate(MAX_CELLS);
        Card {
            serial,
            player,
            cells,
            gesture_ticks: BTreeSet::new(),
            label,
            batch,
            win: None,
            last_answer: None,
        }
    }
}

impl Projection for Bingo {
    fn key(&self) -> &'static str {
        "bingo"
    }

    fn version(&self) -> u32 {
        1
    }

    fn apply(&mut self, event: &Observed) -> bool {
        event.message_type.starts_with("bingo.") && self.fold(event).is_some()
    }

    crate::json_snapshot!();
}
