//! Helpers shared by the referee's integration tests: the example rules and short builders.
#![allow(dead_code)]

use arcade_referee::Rules;
use serde_json::{Value, json};

/// The source's "bar" rules (examples/bar.rules.json).
pub fn bar_document() -> Value {
    serde_json::from_str(include_str!("../../examples/bar.rules.json")).unwrap()
}

pub fn bar() -> Rules {
    Rules::parse(&bar_document()).unwrap()
}

/// A document with only a default win rule.
pub fn with_win_rule(rule: Value) -> Value {
    json!({"conditions": {"default": {"win_rule": rule}}})
}

/// The error message of a document that must be refused.
pub fn refusal(document: Value) -> String {
    match Rules::parse(&document) {
        Ok(_) => panic!("{document} was accepted"),
        Err(e) => e.to_string(),
    }
}
