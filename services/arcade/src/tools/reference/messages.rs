//! `messages.md`: every message type of the catalog with its kind, producer, consumers, the
//! first line of its description and a link to its schema and example.

use std::fmt::Write as _;

use arcade_contracts::Message;
use arcade_contracts::asyncapi::is_received;
use arcade_contracts::catalog::{MessageKind, MessageType, Route, all_types};
use arcade_contracts::game::GameSessionCompletedV2;
use arcade_runtime::bus::pattern::Pattern;

/// The service that publishes the events of a domain (the type's first word).
fn publisher(name: &str) -> Option<&'static str> {
    match name.split('.').next()? {
        "table" => Some("referee"),
        "bingo" => Some("bingo"),
        "race" => Some("race-master"),
        "puzzle" => Some("puzzle-telemetry"),
        _ => None,
    }
}

fn producer(t: &MessageType) -> String {
    match t.kind {
        MessageKind::Command => "clients: the CLI, the console, `arcade send`".to_string(),
        MessageKind::Event if t.name == GameSessionCompletedV2::TYPE => {
            "games outside Arcade; the console".to_string()
        }
        MessageKind::Event if is_received(t) => "producers outside Arcade".to_string(),
        MessageKind::Event => publisher(t.name).unwrap_or("?").to_string(),
    }
}

fn consumers(t: &MessageType) -> String {
    // What the race master tells one team (its questions, its own account) goes to the team's
    // queue, which the team's car program reads.
    if let Ok(Route::Queue(queue)) = t.route(&t.example())
        && queue.starts_with("race.team.")
    {
        return "the team's car program (queue `race.team.<team>`)".to_string();
    }
    if t.kind == MessageKind::Command {
        return match t.route(&t.example()) {
            Ok(Route::Queue(queue)) => {
                let service = queue.split('.').next().unwrap_or(&queue).to_string();
                if service == queue {
                    format!("{service} (queue `{queue}`)")
                } else {
                    format!("{service} (queue `{service}.<id>`)")
                }
            }
            Ok(Route::Topic) | Err(_) => "?".to_string(),
        };
    }
    let matches = |patterns: &[String]| patterns.iter().any(|p| Pattern::new(p).matches(t.name));
    let mut out = Vec::new();
    let bingo: Vec<String> = arcade_bingo::service::base_bindings();
    if matches(&bingo) || arcade_bingo::Incoming::TYPES.contains(&t.name) {
        out.push("bingo");
    }
    let puzzle: Vec<String> = arcade_puzzle_telemetry::mapping::Consumed::TYPES
        .iter()
        .map(|t| (*t).to_string())
        .collect();
    if matches(&puzzle) {
        out.push("puzzle-telemetry");
    }
    let console: Vec<String> = arcade_console::service::TOPICS
        .iter()
        .map(|t| (*t).to_string())
        .collect();
    if matches(&console) {
        out.push("console");
    }
    out.join(", ")
}

fn description(t: &MessageType) -> String {
    let schema = t.schema();
    let text = schema
        .get("description")
        .and_then(|d| d.as_str())
        .unwrap_or_default();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // The first sentence: up to the first ". " (a description is one line here).
    let first = match text.find(". ") {
        Some(end) => &text[..=end],
        None => &text,
    };
    first.replace('|', "\\|")
}

/// The whole document.
pub fn document() -> String {
    let mut text = super::header(
        "Message types",
        "Every message type of the contract (`contracts/src/catalog.rs`). Events go to the topic \
         exchange `arcade.events` under their type; commands go to the queue of the service \
         that handles them. Besides the consumers listed, a bingo game may map any event to its \
         players' gestures (`activitySources` of `bingo.game.open.v1`). Each type links to its \
         JSON Schema and example in `schemas/`; [../CONTRACTS.md](../CONTRACTS.md) says how \
         they evolve.",
    );
    text.push_str(
        "\n| Type | Kind | Producer | Consumers | What it says |\n|---|---|---|---|---|\n",
    );
    for t in all_types() {
        let kind = match t.kind {
            MessageKind::Event => "event",
            MessageKind::Command => "command",
        };
        let _ = writeln!(
            text,
            "| [`{name}`](../../schemas/{name}.json) ([example](../../schemas/examples/{name}.json)) | {kind} | {} | {} | {} |",
            producer(&t),
            consumers(&t),
            description(&t),
            name = t.name,
        );
    }
    text
}
