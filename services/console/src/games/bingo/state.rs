//! The parts of bingo's read model ([`super::projection::Bingo`]): a game, its squares, calls,
//! cards, wins, printed batches, answers and refusals, and how many of each are kept.

use std::collections::{BTreeMap, BTreeSet};

use arcade_contracts::bingo::{ClaimCheck, PatternSpec, TickMode};
use serde::{Deserialize, Serialize};

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
pub(super) const MAX_POOL: usize = 500;
pub(super) const MAX_CELLS: usize = 81;

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
    pub(super) fn keep(&mut self, card: Card) {
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
    pub(super) fn new(
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
