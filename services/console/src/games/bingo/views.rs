//! What each bingo page shows, as JSON (pure functions of the projection): the games, one
//! game for its organiser, one card for its player, and the operator's printable sheet.
//!
//! Only the sheet (served to the operator alone) carries printed cards' labels, which verify
//! a printed card: a public view never does.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::projection::{Bingo, Card, Game, Rejection};

/// Dealt cards listed on a game's page (the newest serials beyond are counted).
pub const MAX_LISTED_CARDS: usize = 500;

/// Called squares shown on a card's page (the newest).
pub const CARD_PAGE_CALLS: usize = 8;

/// The view of every game, newest first, and the refusals of game openings.
pub fn list_view(bingo: &Bingo) -> Value {
    let mut games: Vec<&Game> = bingo.all().collect();
    games.sort_by(|a, b| {
        b.opened_at
            .cmp(&a.opened_at)
            .then(a.game_id.cmp(&b.game_id))
    });
    let games: Vec<Value> = games
        .into_iter()
        .map(|g| {
            json!({
                "gameId": g.game_id,
                "openRequestId": g.open_request_id,
                "tickMode": g.tick_mode,
                "size": g.size,
                "freeCentre": g.free_centre,
                "patterns": g.patterns,
                "openedAt": g.opened_at,
                "closedAt": g.closed_at,
                "cards": g.card_count,
                "called": g.called.len(),
                "lastCall": g.called.last(),
                "winners": g.winners.len(),
            })
        })
        .collect();
    json!({
        "games": games,
        "rejections": newest_first(bingo.rejections()),
    })
}

fn newest_first(rejections: &[Rejection]) -> Vec<&Rejection> {
    rejections.iter().rev().collect()
}

fn pool_of(game: &Game, called: &BTreeSet<u32>) -> Vec<Value> {
    game.pool
        .iter()
        .map(|s| {
            json!({
                "id": s.id,
                "label": s.label,
                "verb": s.verb,
                "object": s.object,
                "called": called.contains(&s.id),
            })
        })
        .collect()
}

fn card_summary(game: &Game, card: &Card, called: &BTreeSet<u32>) -> Value {
    json!({
        "serial": card.serial,
        "player": card.player,
        "ticked": game.ticked(card, called).len(),
        "cells": card.cells.len(),
        "place": card.win.as_ref().map(|w| w.place),
    })
}

/// The view of one game for its organiser (`game` is null until the console has seen it).
pub fn game_view(bingo: &Bingo, game_id: &str) -> Value {
    let Some(game) = bingo.game(game_id) else {
        return json!({ "gameId": game_id, "game": null });
    };
    let called = game.called_ids();
    let dealt: Vec<&Card> = game.cards.values().filter(|c| c.player.is_some()).collect();
    let players: Vec<Value> = dealt
        .iter()
        .rev()
        .take(MAX_LISTED_CARDS)
        .map(|c| card_summary(game, c, &called))
        .collect();
    let printed: usize = game.batches.iter().map(|b| b.serials.len()).sum();
    let batches: Vec<Value> = game
        .batches
        .iter()
        .rev()
        .map(|b| {
            json!({
                "batch": b.batch,
                "requestId": b.request_id,
                "count": b.serials.len(),
                "first": b.serials.first(),
                "last": b.serials.last(),
            })
        })
        .collect();
    let claims: Vec<&_> = game.claims.iter().rev().collect();
    json!({
        "gameId": game_id,
        "game": {
            "gameId": game.game_id,
            "tickMode": game.tick_mode,
            "size": game.size,
            "freeCentre": game.free_centre,
            "patterns": game.patterns,
            "openedAt": game.opened_at,
            "closedAt": game.closed_at,
            "cards": game.card_count,
            "cardsKept": game.cards.len(),
            "dealt": dealt.len(),
            "printed": printed,
            "pool": pool_of(game, &called),
            "called": game.called,
            "players": players,
            "batches": batches,
            "winners": game.winners,
            "claims": claims,
            "rejections": newest_first(&game.rejections),
        }
    })
}

/// The view of one card for its player (`card` is null until the console has seen it). A
/// printed card's label is left out.
pub fn card_view(bingo: &Bingo, game_id: &str, serial: u32) -> Value {
    let Some(game) = bingo.game(game_id) else {
        return json!({ "gameId": game_id, "serial": serial, "game": null, "card": null });
    };
    let called = game.called_ids();
    let card = game.cards.get(&serial).map(|card| {
        let ticked = game.ticked(card, &called);
        let winning: BTreeSet<u8> = card
            .win
            .as_ref()
            .map(|w| w.cells.iter().copied().collect())
            .unwrap_or_default();
        let cells: Vec<Value> = card
            .cells
            .iter()
            .enumerate()
            .map(|(cell, square)| {
                let n = u8::try_from(cell).unwrap_or(u8::MAX);
                json!({
                    "cell": cell,
                    "squareId": square,
                    "label": square.and_then(|id| game.square(id)).map(|s| s.label.as_str()),
                    "free": square.is_none(),
                    "ticked": ticked.contains(&n),
                    "winning": winning.contains(&n),
                })
            })
            .collect();
        json!({
            "serial": card.serial,
            "player": card.player,
            "printed": card.player.is_none(),
            "cells": cells,
            "ticked": ticked.len(),
            "win": card.win,
            "lastAnswer": card.last_answer,
        })
    });
    let claim_refusals: Vec<&Rejection> = game
        .rejections
        .iter()
        .rev()
        .filter(|r| {
            r.request_type
                == <arcade_contracts::bingo::ClaimCard as arcade_contracts::Message>::TYPE
        })
        .collect();
    let recent: Vec<_> = game.called.iter().rev().take(CARD_PAGE_CALLS).collect();
    json!({
        "gameId": game_id,
        "serial": serial,
        "game": {
            "tickMode": game.tick_mode,
            "size": game.size,
            "patterns": game.patterns,
            "closedAt": game.closed_at,
            "calledCount": game.called.len(),
            "recentCalls": recent,
            "winners": game.winners.len(),
        },
        "card": card,
        "rejections": claim_refusals,
    })
}

/// The printable view of a game (public: no labels), its batches newest first.
pub fn print_view(bingo: &Bingo, game_id: &str) -> Value {
    let Some(game) = bingo.game(game_id) else {
        return json!({ "gameId": game_id, "game": null });
    };
    let batches: Vec<Value> = game
        .batches
        .iter()
        .rev()
        .map(|b| json!({ "batch": b.batch, "count": b.serials.len(), "first": b.serials.first(), "last": b.serials.last() }))
        .collect();
    json!({
        "gameId": game_id,
        "game": { "gameId": game.game_id, "size": game.size, "tickMode": game.tick_mode, "batches": batches },
    })
}

/// The operator's sheet of printed batch `batch` (the last one when `None`): each card's
/// serial, label and cells' labels (null for the free centre). `None` when the console has
/// not seen the game or the batch.
pub fn sheet(bingo: &Bingo, game_id: &str, batch: Option<u32>) -> Option<Value> {
    let game = bingo.game(game_id)?;
    let batch = match batch {
        Some(n) => game.batches.iter().find(|b| b.batch == n)?,
        None => game.batches.last()?,
    };
    let cards: Vec<Value> = batch
        .serials
        .iter()
        .filter_map(|serial| game.cards.get(serial))
        .map(|card| {
            let cells: Vec<Option<&str>> = card
                .cells
                .iter()
                .map(|square| {
                    square
                        .and_then(|id| game.square(id))
                        .map(|s| s.label.as_str())
                })
                .collect();
            json!({ "serial": card.serial, "label": card.label, "cells": cells })
        })
        .collect();
    Some(json!({
        "gameId": game.game_id,
        "size": game.size,
        "batch": batch.batch,
        "count": batch.serials.len(),
        "cards": cards,
    }))
}
