//! The table's LED display as the console draws it beside the big score: the same
//! [`Board`] the referee's display shows, computed from the console's read model, drawn by the
//! same pure crate (`arcade-scoreboard`), so its pixels are the referee's. The console draws
//! the whole text at once (a page has the room), where the table's matrices scroll a text
//! wider than they are.

use arcade_contracts::table::{Phase, Score, Side};
use arcade_scoreboard::{
    Board, Phase as BoardPhase, Score as BoardScore, Side as BoardSide, render,
};
use serde_json::{Value, json};

use super::projection::{Game, Table};

/// What the table's display shows for its game; `None` before the console has seen one (the
/// referee shows its own idle text then, which the console does not know).
pub fn board_of(game: &Game) -> Board {
    let score = board_score(game.score);
    match &game.finished {
        None => Board::Playing {
            score,
            phase: match game.phase {
                Phase::Default => BoardPhase::Default,
                Phase::TieBreak => BoardPhase::TieBreak,
                Phase::Timeout => BoardPhase::Timeout,
            },
        },
        Some(finished) => match finished.winner {
            Some(side) => Board::Won {
                winner: match side {
                    Side::Hinge => BoardSide::Hinge,
                    Side::Lock => BoardSide::Lock,
                },
                score,
            },
            None => Board::Aborted { score },
        },
    }
}

fn board_score(score: Score) -> BoardScore {
    let side = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    BoardScore {
        hinge: side(score.hinge),
        lock: side(score.lock),
    }
}

/// The display of `table` for its page: `{"text", "width", "rows"}`, `rows` the 8 rows top to
/// bottom, `#` lit and `.` dark; null when the table has no game.
pub fn display_view(table: Option<&Table>) -> Value {
    let Some(game) = table.and_then(|t| t.game.as_ref()) else {
        return Value::Null;
    };
    let text = board_of(game).text();
    let frame = render(&text);
    json!({ "text": text, "width": frame.width(), "rows": frame.rows('#', '.') })
}
