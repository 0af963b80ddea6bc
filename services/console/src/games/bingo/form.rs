//! The organiser's "open a game" form as a `bingo.game.open.v1` payload: squares pasted one
//! per line, pattern names, grid and tick mode. Pure; an error names the payload field by its
//! JSON pointer (and the line of the pasted squares), as the schema's own errors do, so the
//! form shows every refusal the same way.
//!
//! The squares text: one square per line, numbered from 1 in order, blank lines skipped. In a
//! called game the line is the label; in an activity game it is `label | verb` or
//! `label | verb | object` (the gesture that ticks it), as `arcade bingo open` reads a file.

use arcade_contracts::bingo::{SquareLineError, TickMode, squares_of_text};
use serde_json::{Map, Value, json};

/// Most squares a pool holds (the contract's limit).
pub const MAX_SQUARES: usize = 500;

/// The pattern names the form offers, and the contract's `kind` of each.
pub const PATTERNS: [(&str, &str); 6] = [
    ("line", "line"),
    ("row", "row"),
    ("column", "column"),
    ("diagonal", "diagonal"),
    ("fullCard", "fullCard"),
    ("fourCorners", "fourCorners"),
];

/// The form's fields, as the page posts them.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenForm {
    /// The game id; empty: one is made up.
    pub game_id: String,
    /// `called` or `activity`.
    pub tick_mode: Value,
    /// Cells per side.
    pub size: Value,
    /// Whether the centre is free; absent: the service's default (odd grids).
    pub free_centre: Option<Value>,
    /// The pasted squares.
    pub squares: String,
    /// The chosen pattern names.
    pub patterns: Value,
}

/// The form from a request body; the error names the field.
pub fn read_form(mut body: Map<String, Value>) -> Result<OpenForm, String> {
    let game_id = match body.remove("gameId") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(id)) => id.trim().to_string(),
        Some(_) => return Err("/gameId: must be a string".into()),
    };
    let squares = match body.remove("squares") {
        Some(Value::String(text)) => text,
        None | Some(Value::Null) => String::new(),
        Some(_) => return Err("/squares: must be the squares' text, one per line".into()),
    };
    let form = OpenForm {
        game_id,
        tick_mode: body.remove("tickMode").unwrap_or(Value::Null),
        size: body.remove("size").unwrap_or(Value::Null),
        free_centre: body.remove("freeCentre").filter(|v| !v.is_null()),
        squares,
        patterns: body.remove("patterns").unwrap_or(Value::Null),
    };
    if let Some(field) = body.keys().next() {
        return Err(format!(
            "/{field}: unknown field (expected gameId, tickMode, size, freeCentre, squares, patterns)"
        ));
    }
    Ok(form)
}

/// The `bingo.game.open.v1` payload of `form` with `request_id`, `game_id` given (the form's,
/// or one made up by the caller when it left it empty). The errors name the payload's field.
pub fn open_payload(form: &OpenForm, game_id: &str, request_id: &str) -> Result<Value, String> {
    let activity = match &form.tick_mode {
        Value::String(mode) if mode == "called" => false,
        Value::String(mode) if mode == "activity" => true,
        other => {
            return Err(format!(
                "/tickMode: {other} is not a tick mode: \"called\" (the organiser calls squares) or \"activity\" (gestures tick them)"
            ));
        }
    };
    let size = match &form.size {
        Value::Number(n) if n.as_u64().is_some() => Value::Number(n.clone()),
        Value::String(s) if s.trim().parse::<u64>().is_ok() => json!(s.trim().parse::<u64>().ok()),
        other => {
            return Err(format!(
                "/grid/size: {other} is not a whole number of cells"
            ));
        }
    };
    let mut grid = json!({ "size": size });
    if let Some(free) = &form.free_centre {
        if !free.is_boolean() {
            return Err(format!("/grid/freeCentre: {free} is not true or false"));
        }
        grid["freeCentre"] = free.clone();
    }
    Ok(json!({
        "requestId": request_id,
        "gameId": game_id,
        "tickMode": if activity { "activity" } else { "called" },
        "grid": grid,
        "pool": pool(&form.squares, activity)?,
        "patterns": patterns(&form.patterns)?,
    }))
}

/// The pool of the pasted squares; an error names `/pool/<index>` and the line.
pub fn pool(text: &str, activity: bool) -> Result<Vec<Value>, String> {
    let mode = if activity {
        TickMode::Activity
    } else {
        TickMode::Called
    };
    let mut squares = Vec::new();
    for (at, square) in squares_of_text(text, mode) {
        let index = squares.len();
        if index == MAX_SQUARES {
            return Err(format!(
                "/pool: a pool holds at most {MAX_SQUARES} squares (line {at} is the {}th)",
                index + 1
            ));
        }
        let square = square.map_err(|error| match error {
            SquareLineError::NoVerb(_) => format!("/pool/{index}/trigger (line {at}): {error}"),
            SquareLineError::TooManyParts(_) => format!("/pool/{index} (line {at}): {error}"),
        })?;
        squares.push(json!(square));
    }
    if squares.is_empty() {
        return Err("/pool: no square: paste the squares, one per line".into());
    }
    Ok(squares)
}

/// The patterns of the chosen names; an error names `/patterns/<index>`.
pub fn patterns(names: &Value) -> Result<Vec<Value>, String> {
    let Value::Array(names) = names else {
        return Err("/patterns: choose at least one win pattern".into());
    };
    if names.is_empty() {
        return Err("/patterns: choose at least one win pattern".into());
    }
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let kind = name
                .as_str()
                .and_then(|name| PATTERNS.iter().find(|(n, _)| *n == name))
                .map(|(_, kind)| *kind)
                .ok_or_else(|| {
                    let names: Vec<&str> = PATTERNS.iter().map(|(n, _)| *n).collect();
                    format!(
                        "/patterns/{i}: {name} is not a pattern: one of {}",
                        names.join(", ")
                    )
                })?;
            Ok(json!({ "kind": kind }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(squares: &str, mode: &str, patterns: Value) -> OpenForm {
        OpenForm {
            game_id: "g".into(),
            tick_mode: json!(mode),
            size: json!(3),
            free_centre: None,
            squares: squares.into(),
            patterns,
        }
    }

    #[test]
    fn pasted_squares_become_the_pool_in_order_blank_lines_skipped() {
        let payload =
            open_payload(&form("a\n\n b \nc", "called", json!(["line"])), "g", "r").unwrap();
        assert_eq!(
            payload["pool"],
            json!([{"id": 1, "label": "a"}, {"id": 2, "label": "b"}, {"id": 3, "label": "c"}])
        );
        assert_eq!(payload["patterns"], json!([{"kind": "line"}]));
        assert_eq!(payload["grid"], json!({"size": 3}));
        assert_eq!(payload["requestId"], "r");
    }

    #[test]
    fn an_activity_square_names_its_gesture_and_a_missing_verb_is_named_by_path_and_line() {
        let payload = open_payload(
            &form(
                "Say hi | talk.hello\nVisit | walk | table-3",
                "activity",
                json!(["row"]),
            ),
            "g",
            "r",
        )
        .unwrap();
        assert_eq!(payload["pool"][0]["trigger"], json!({"verb": "talk.hello"}));
        assert_eq!(
            payload["pool"][1]["trigger"],
            json!({"verb": "walk", "object": "table-3"})
        );
        let error = open_payload(
            &form("a | x\n\nno verb", "activity", json!(["row"])),
            "g",
            "r",
        )
        .unwrap_err();
        assert!(error.starts_with("/pool/1/trigger (line 3)"), "{error}");
    }

    #[test]
    fn bad_fields_are_named_by_their_json_pointer() {
        let error =
            open_payload(&form("a", "called", json!(["line", "zigzag"])), "g", "r").unwrap_err();
        assert!(error.starts_with("/patterns/1: \"zigzag\""), "{error}");
        let error = open_payload(&form("a", "called", json!([])), "g", "r").unwrap_err();
        assert!(error.starts_with("/patterns:"), "{error}");
        let error = open_payload(&form("", "called", json!(["line"])), "g", "r").unwrap_err();
        assert!(error.starts_with("/pool:"), "{error}");
        let error = open_payload(&form("a", "shouted", json!(["line"])), "g", "r").unwrap_err();
        assert!(error.starts_with("/tickMode:"), "{error}");
        let mut bad_size = form("a", "called", json!(["line"]));
        bad_size.size = json!("big");
        let error = open_payload(&bad_size, "g", "r").unwrap_err();
        assert!(error.starts_with("/grid/size:"), "{error}");
        let many = "x\n".repeat(MAX_SQUARES + 1);
        let error = open_payload(&form(&many, "called", json!(["line"])), "g", "r").unwrap_err();
        assert!(
            error.starts_with("/pool: a pool holds at most 500"),
            "{error}"
        );
    }

    #[test]
    fn an_unknown_form_field_is_named() {
        let body = json!({"gameId": "g", "colour": "red"});
        let error = read_form(body.as_object().unwrap().clone()).unwrap_err();
        assert!(error.starts_with("/colour: unknown field"), "{error}");
    }
}
