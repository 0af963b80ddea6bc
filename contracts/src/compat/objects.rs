//! Objects and alternatives: properties (removed, new, required or not),
//! `additionalProperties`, and `oneOf` / `anyOf` (an enum of constants, or schemas paired).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{Class, Walk, constants};

impl Walk<'_> {
    pub(super) fn properties(
        &mut self,
        path: &str,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
    ) {
        let props = |m: &Map<String, Value>| {
            m.get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let required = |m: &Map<String, Value>| -> BTreeSet<String> {
            m.get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let (old_props, new_props) = (props(old), props(new));
        let (old_req, new_req) = (required(old), required(new));
        let child = |name: &str| format!("{}/{name}", path.trim_end_matches('/'));
        for (name, old_schema) in &old_props {
            match new_props.get(name) {
                Some(new_schema) => self.node(&child(name), old_schema, new_schema),
                None => self.push(
                    &child(name),
                    Class::Breaking,
                    "property removed (or renamed)",
                ),
            }
        }
        for name in new_props.keys().filter(|n| !old_props.contains_key(*n)) {
            if new_req.contains(name) {
                self.push(&child(name), Class::Breaking, "new required property");
            } else {
                self.push(&child(name), Class::Compatible, "new optional property");
            }
        }
        for name in new_req.difference(&old_req) {
            if old_props.contains_key(name) {
                self.push(
                    &child(name),
                    Class::Breaking,
                    "optional property became required",
                );
            } else if !new_props.contains_key(name) {
                self.push(&child(name), Class::Breaking, "new required property");
            }
        }
        for name in old_req.difference(&new_req) {
            if new_props.contains_key(name) {
                self.push(&child(name), Class::Compatible, "no longer required");
            }
        }
    }

    pub(super) fn additional(
        &mut self,
        path: &str,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
    ) {
        let allow = |m: &Map<String, Value>| {
            m.get("additionalProperties")
                .cloned()
                .unwrap_or(Value::Bool(true))
        };
        match (allow(old), allow(new)) {
            (a, b) if a == b => {}
            (Value::Bool(true), _) => self.push(
                path,
                Class::Breaking,
                "additionalProperties tightened: other properties were allowed",
            ),
            (_, Value::Bool(true)) => self.push(
                path,
                Class::Compatible,
                "additionalProperties relaxed: other properties are allowed",
            ),
            (Value::Bool(false), _) => {
                self.push(path, Class::Compatible, "additionalProperties relaxed")
            }
            (_, Value::Bool(false)) => self.push(
                path,
                Class::Breaking,
                "additionalProperties tightened: no other property is allowed",
            ),
            (a, b) => self.node(&format!("{}/*", path.trim_end_matches('/')), &a, &b),
        }
    }

    pub(super) fn alternatives(
        &mut self,
        path: &str,
        keyword: &str,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
    ) {
        let list = |m: &Map<String, Value>| m.get(keyword).and_then(Value::as_array).cloned();
        let (old_alts, new_alts) = match (list(old), list(new)) {
            (None, None) => return,
            (Some(_), None) => {
                return self.push(path, Class::Compatible, format!("`{keyword}` removed"));
            }
            (None, Some(alternatives)) => return self.widened(path, keyword, old, &alternatives),
            (Some(a), Some(b)) => (a, b),
        };
        if let (Some(a), Some(b)) = (constants(&old_alts), constants(&new_alts)) {
            self.value_sets(path, "enum value", &a, &b);
            // Same constants: compare their annotations.
            for alt in &old_alts {
                if let Some(peer) = new_alts.iter().find(|n| n.get("const") == alt.get("const")) {
                    self.node(path, alt, peer);
                }
            }
            return;
        }
        // Pair equal alternatives first, then the rest by position.
        let mut unmatched_new: BTreeMap<usize, &Value> = new_alts.iter().enumerate().collect();
        let mut unmatched_old = Vec::new();
        for alt in &old_alts {
            match unmatched_new
                .iter()
                .find(|(_, n)| **n == alt)
                .map(|(i, _)| *i)
            {
                Some(i) => {
                    unmatched_new.remove(&i);
                }
                None => unmatched_old.push(alt),
            }
        }
        let rest: Vec<(usize, &Value)> = unmatched_new.into_iter().collect();
        for (n, alt) in unmatched_old.iter().enumerate() {
            match rest.get(n) {
                Some((i, peer)) => self.node(&format!("{path} ({keyword} {})", i + 1), alt, peer),
                None => self.push(
                    path,
                    Class::Breaking,
                    format!("a `{keyword}` alternative removed"),
                ),
            }
        }
        for _ in rest.iter().skip(unmatched_old.len()) {
            self.push(
                path,
                Class::Compatible,
                format!("a `{keyword}` alternative added"),
            );
        }
    }

    /// A schema that became a `keyword` of alternatives: compatible when one alternative
    /// accepts everything the old schema did (`T` → `anyOf [T, null]`), else breaking.
    fn widened(
        &mut self,
        path: &str,
        keyword: &str,
        old: &Map<String, Value>,
        alternatives: &[Value],
    ) {
        let old = Value::Object(old.clone());
        let fits = keyword == "anyOf"
            && alternatives.iter().any(|alternative| {
                let mut sub = Walk {
                    old_root: self.old_root,
                    new_root: self.new_root,
                    changes: Vec::new(),
                    seen: self.seen.clone(),
                };
                sub.node(path, &old, alternative);
                sub.changes.iter().all(|c| c.class == Class::Compatible)
            });
        if fits {
            self.push(
                path,
                Class::Compatible,
                format!("widened: the old schema is one alternative of the new `{keyword}`"),
            );
        } else {
            self.push(path, Class::Breaking, format!("`{keyword}` added"));
        }
    }
}
