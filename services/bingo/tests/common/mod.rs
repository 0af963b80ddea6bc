//! The bingo decider under the runtime's given/when/then harness, and builders of typical games.
#![allow(dead_code)]

use arcade_bingo::domain::{
    Action, Command, Event, GameSpec, Gesture, PatternKind, Secret, SquareSpec, TickMode,
};
use arcade_bingo::{Bingo, BingoService, Input, Outgoing};
use arcade_runtime::testkit;

/// The clock of every scenario (ms since the epoch).
pub const NOW: u64 = 1_767_225_600_000;

/// The secret every scenario deals from.
pub fn secret() -> Secret {
    Secret::new(*b"test-secret-of-arcade-bingo").unwrap()
}

/// The decider under test.
pub fn bingo() -> Bingo {
    Bingo::new(&secret())
}

/// A bingo scenario (the runtime's given/when/then harness on the service's decider).
pub type Scenario = testkit::Scenario<BingoService>;

/// Given these past events, dealing from [`secret`], at [`NOW`].
pub fn given(events: impl IntoIterator<Item = Event>) -> Scenario {
    Scenario::given(BingoService::new(&secret()), events).at(NOW)
}

/// Bingo's refusals as the requester reads them.
pub trait Refused {
    /// When this request arrives, it is refused: the refusal's code and reason.
    fn refused(&self, input: Input) -> (String, String);
}

impl Refused for Scenario {
    fn refused(&self, input: Input) -> (String, String) {
        let rejection = self.when(input).rejection();
        (rejection.refusal.code().to_string(), rejection.to_string())
    }
}

/// A request to a game.
pub fn cmd(game: &str, action: Action) -> Input {
    Input::Command(Command {
        request_id: None,
        game_id: game.to_string(),
        action,
    })
}

/// A request with a request id.
pub fn cmd_id(game: &str, request_id: &str, action: Action) -> Input {
    Input::Command(Command {
        request_id: Some(request_id.to_string()),
        game_id: game.to_string(),
        action,
    })
}

/// The squares 1 to n, untriggered (a called game's pool).
pub fn numbered(n: u32) -> Vec<SquareSpec> {
    (1..=n)
        .map(|id| SquareSpec {
            id,
            label: format!("Square {id}"),
            trigger: None,
        })
        .collect()
}

/// A called game: size×size cards (default free centre), squares 1 to pool.
pub fn called_spec(size: u32, pool: u32, patterns: Vec<PatternKind>) -> GameSpec {
    GameSpec {
        tick_mode: TickMode::Called,
        grid_size: size,
        free_centre: None,
        squares: numbered(pool),
        patterns,
        sources: Vec::new(),
    }
}

/// A triggered square.
pub fn square(id: u32, verb: &str, object: Option<&str>) -> SquareSpec {
    SquareSpec {
        id,
        label: format!("Square {id}"),
        trigger: Some(arcade_contracts::bingo::TriggerSpec {
            verb: verb.to_string(),
            object: object.map(str::to_string),
        }),
    }
}

/// An activity game of 3×3 cards with a free centre whose 8 squares are the verbs `v1` to `v8`
/// (exact), so every card holds every square: which cell holds which square depends on the
/// serial.
pub fn activity_spec(patterns: Vec<PatternKind>) -> GameSpec {
    GameSpec {
        tick_mode: TickMode::Activity,
        grid_size: 3,
        free_centre: None,
        squares: (1..=8).map(|i| square(i, &format!("v{i}"), None)).collect(),
        patterns,
        sources: Vec::new(),
    }
}

/// A gesture.
pub fn gesture(entry: &str, member: &str, verb: &str, object: Option<&str>) -> Input {
    Input::Recorded(Gesture {
        entry_id: entry.to_string(),
        member: member.to_string(),
        verb: verb.to_string(),
        object: object.map(str::to_string),
    })
}

/// An undo.
pub fn undo(entry: &str) -> Input {
    Input::Undone(arcade_contracts::activity::ActivityUndone {
        entry_id: entry.to_string(),
    })
}

/// The serial of a player's card.
pub fn serial_of(s: &Scenario, game: &str, player: &str) -> u32 {
    s.state()
        .game(game)
        .unwrap()
        .card_of(player)
        .unwrap()
        .serial
}

/// The cell of a square on a player's card.
pub fn cell_of(s: &Scenario, game: &str, player: &str, square: u32) -> u8 {
    let card = s.state().game(game).unwrap().card_of(player).unwrap();
    card.cells.iter().position(|&c| c == Some(square)).unwrap() as u8
}

/// The square in a cell of a player's card.
pub fn square_at(s: &Scenario, game: &str, player: &str, cell: u8) -> u32 {
    let card = s.state().game(game).unwrap().card_of(player).unwrap();
    card.cells[usize::from(cell)].unwrap()
}

/// The ticked cells of a player's card.
pub fn ticked(s: &Scenario, game: &str, player: &str) -> Vec<u8> {
    s.state()
        .game(game)
        .unwrap()
        .card_of(player)
        .unwrap()
        .ticked_cells
}

/// The names of events, to compare shapes.
pub fn kinds(events: &[Event]) -> Vec<&'static str> {
    events
        .iter()
        .map(|e| Outgoing::from(e).message_type())
        .collect()
}
