//! The scoreboard page's LED display: the frame the console serves for a table is the one the
//! pure scoreboard crate draws for the same score (the referee's display draws with it too).

use arcade_console::games::tables::pages::table_view;
use arcade_console::games::tables::projection::Tables;
use arcade_console::observed::Observed;
use arcade_console::projection::Projections;
use arcade_scoreboard::{Board, Phase, Score, Side, render};
use serde_json::{Value, json};

fn observed(message_type: &str, payload: Value, n: u64) -> Observed {
    Observed {
        message_id: format!("m-{n}"),
        message_type: message_type.into(),
        producer: "referee.t1".into(),
        occurred_at: "2026-12-02T19:30:00.000Z".into(),
        seen_at_ms: 1_000 + n,
        payload,
    }
}

struct Console {
    projections: Projections,
    events: u64,
}

impl Console {
    fn new() -> Console {
        Console {
            projections: Projections::default(),
            events: 0,
        }
    }

    fn see(&mut self, message_type: &str, payload: Value) {
        self.events += 1;
        self.projections
            .apply(&observed(message_type, payload, self.events));
    }

    fn display(&self) -> Value {
        table_view(self.projections.get::<Tables>().unwrap(), "t1")["display"].clone()
    }
}

/// The page's display as the crate draws `board`.
fn drawn(board: &Board) -> Value {
    let text = board.text();
    let frame = render(&text);
    json!({"text": text, "width": frame.width(), "rows": frame.rows('#', '.')})
}

fn goal(ball: u64, hinge: u64, lock: u64, phase: &str) -> Value {
    json!({"tableId": "t1", "gameId": "g-1", "side": "hinge", "kind": "goal", "counted": true,
           "score": {"hinge": hinge, "lock": lock}, "phase": phase, "ball": ball,
           "clockMs": ball * 1_000})
}

#[test]
fn the_pages_frame_is_the_crates_for_each_score_phase_and_result() {
    let mut console = Console::new();
    assert_eq!(console.display(), Value::Null, "no table, no frame");
    console.see(
        "table.game.started.v1",
        json!({"tableId": "t1", "gameId": "g-1", "rules": {"timeout_s": 900},
               "startedAtMs": 5_000, "score": {"hinge": 0, "lock": 0}}),
    );
    let playing = |hinge, lock, phase| Board::Playing {
        score: Score { hinge, lock },
        phase,
    };
    assert_eq!(console.display(), drawn(&playing(0, 0, Phase::Default)));
    console.see("table.goal.scored.v1", goal(9, 5, 4, "default"));
    let display = console.display();
    assert_eq!(display, drawn(&playing(5, 4, Phase::Default)));
    // Pixel for pixel: 8 rows of the text's width, `#` where the crate's frame is lit.
    let frame = render("5-4");
    assert_eq!(display["text"], "5-4");
    assert_eq!(display["width"], 14);
    let rows = display["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for (r, row) in rows.iter().enumerate() {
        let row = row.as_str().unwrap();
        for (c, pixel) in row.chars().enumerate() {
            assert_eq!(pixel == '#', frame.lit(c, r), "row {r} column {c}");
        }
    }

    console.see(
        "table.phase.changed.v1",
        json!({"tableId": "t1", "gameId": "g-1", "from": "default", "to": "tie_break",
               "score": {"hinge": 5, "lock": 4}, "clockMs": 9_000}),
    );
    assert_eq!(console.display(), drawn(&playing(5, 4, Phase::TieBreak)));
    assert_eq!(console.display()["text"], "TIE-BREAK 5-4");
    console.see("table.goal.scored.v1", goal(10, 6, 4, "tie_break"));
    console.see(
        "table.game.finished.v1",
        json!({"tableId": "t1", "gameId": "g-1", "winner": "hinge",
               "score": {"hinge": 6, "lock": 4}, "phase": "tie_break",
               "durationMs": 61_000, "reason": "win"}),
    );
    let won = Board::Won {
        winner: Side::Hinge,
        score: Score { hinge: 6, lock: 4 },
    };
    assert_eq!(console.display(), drawn(&won));
    assert_eq!(console.display()["text"], "HINGE WINS 6-4");
}

#[test]
fn an_aborted_game_shows_aborted_and_its_score() {
    let mut console = Console::new();
    console.see(
        "table.game.started.v1",
        json!({"tableId": "t1", "gameId": "g-1", "rules": {}, "startedAtMs": 5_000,
               "score": {"hinge": 2, "lock": 3}}),
    );
    console.see(
        "table.game.finished.v1",
        json!({"tableId": "t1", "gameId": "g-1", "score": {"hinge": 2, "lock": 3},
               "phase": "default", "durationMs": 1_000, "reason": "aborted"}),
    );
    assert_eq!(
        console.display(),
        drawn(&Board::Aborted {
            score: Score { hinge: 2, lock: 3 }
        })
    );
}
