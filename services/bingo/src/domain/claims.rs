//! Claims and verifications: who may ask about a card, the check that the card is the one the
//! secret deals for its serial, and the answer (ticked cells and the winning pattern, if any).
//! A card wins once; a closed game's cards are verified, never winning.

use arcade_contracts::bingo as contract;

use super::event::{Check, Event, WinReport};
use super::grid::cells_of;
use super::refusal::Refusal;
use super::secret::Keys;
use super::state::Game;

/// Who asks.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Asker<'a> {
    /// A player claiming their own card.
    Player(&'a str),
    /// The organiser, by serial.
    Organiser,
    /// The organiser, with a printed card's label.
    Label(&'a str),
}

/// Checks a card for `asker`, with the keys that deal the game's cards.
pub(crate) fn check_card(
    keys: &Keys,
    game: &Game,
    serial: u32,
    asker: Asker<'_>,
    request_id: Option<String>,
    now: u64,
) -> Result<Vec<Event>, Refusal> {
    let id = || game.id.clone();
    let Some(index) = game.card_index(serial) else {
        return Err(Refusal::UnknownCard { game: id(), serial });
    };
    let card = &game.cards[index];
    let check = match asker {
        Asker::Player(player) => match &card.owner {
            Some(owner) if owner == player => Check::Claim,
            Some(_) => return Err(Refusal::NotYourCard { game: id(), serial }),
            None => return Err(Refusal::PrintedCardClaimed { game: id(), serial }),
        },
        Asker::Organiser => Check::Verify,
        Asker::Label(label) => {
            if card.owner.is_some() {
                return Err(Refusal::NotPrinted { game: id(), serial });
            }
            if !keys.label_matches(&game.id, serial, label) {
                return Err(Refusal::BadLabel { game: id(), serial });
            }
            Check::VerifyLabel
        }
    };
    let config = &game.config;
    let derived = keys.layout(&game.id, serial, config.pool().len(), config.grid().draws());
    if derived != card.layout {
        return Err(Refusal::LayoutMismatch { game: id(), serial });
    }
    let ticked = game.ticked_mask(card);
    let mut events = Vec::new();
    let win = match (&card.win, game.open) {
        (Some(win), _) => Some(win.report()),
        (None, false) => None,
        (None, true) => config.patterns().first_match(ticked).map(|found| {
            let report = new_win(game, found.pattern, found.cells, now);
            events.push(won_event(game, index, &report));
            report
        }),
    };
    events.push(Event::ClaimAnswered(contract::ClaimAnswered {
        request_id,
        game_id: id(),
        serial,
        check,
        player: card.owner.clone(),
        ticked_cells: cells_of(ticked),
        pattern: win.as_ref().map(|w| w.pattern.clone()),
        winning_cells: win.as_ref().map(|w| w.cells.clone()),
        won_at: win.as_ref().map(|w| w.at),
        place: win.as_ref().map(|w| w.place),
        game_closed: !game.open,
    }));
    Ok(events)
}

/// A win now with `pattern` (its index) and `cells`, placed after the game's current winners.
pub(crate) fn new_win(game: &Game, pattern: usize, cells: u128, now: u64) -> WinReport {
    WinReport {
        pattern: game
            .config
            .patterns()
            .get(pattern)
            .map(|p| p.name().to_string())
            .unwrap_or_default(),
        cells: cells_of(cells),
        at: now,
        // At most 100,000 cards.
        place: game.winners.len() as u32 + 1,
    }
}

/// The `CardWon` of card `index`.
pub(crate) fn won_event(game: &Game, index: usize, win: &WinReport) -> Event {
    let card = &game.cards[index];
    Event::CardWon(contract::CardWon {
        game_id: game.id.clone(),
        serial: card.serial,
        player: card.owner.clone(),
        pattern: win.pattern.clone(),
        cells: win.cells.clone(),
        won_at: win.at,
        place: win.place,
    })
}
