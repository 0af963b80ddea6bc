//! Schema compatibility: every difference between a published JSON Schema and its new version,
//! each classed as compatible or breaking (`arcade schemas check`). Pure: two JSON values in,
//! a list of changes out.
//!
//! The rule: a change is **breaking** when a payload valid under the old schema may be refused
//! by the new one, or when a consumer loses a field it could read. Breaking: a new required
//! property, a removed (or renamed) property, a type narrowed, a range, length or item count
//! narrowed (a bound raised, lowered or added), a pattern added or changed, an enum value (or a
//! `oneOf` alternative) removed, a `const` added or changed, `additionalProperties` tightened,
//! a stricter `format`. **Compatible**: descriptions, titles, examples and other annotations, a
//! new optional property, a property no longer required, a widened type, range, length or
//! enum, a constraint removed.
//!
//! One narrowing is compatible: a bound that the field's declared integer `format` (`uint8`,
//! `uint16`, `uint32`, `uint64`, `int8` … `int64`) already implies, such as `maximum:
//! 4294967295` on a `uint32`. A payload beyond it never decoded (the decoder reads the native
//! type), so the bound only writes down what was always refused.
//!
//! Written for the schemas `schemars` generates (draft 2020-12: `$defs`, `$ref` with sibling
//! keywords, enums as `oneOf` of `const`s, options as `anyOf [T, null]` or `type: [T, "null"]`).
//! A keyword it does not know is compared by value, and any difference there is breaking.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

mod bounds;
mod objects;

use bounds::format_range;

/// Whether a change can break a producer or a consumer of the old version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Every payload valid before is still valid, and every field is still there.
    Compatible,
    /// Some payload valid before may be refused now, or a field is gone.
    Breaking,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Class::Compatible => "compatible",
            Class::Breaking => "BREAKING",
        })
    }
}

/// One difference between the old and the new schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Where, in payload terms: `/turns`, `/moves/[]`, `/` for the whole payload.
    pub path: String,
    /// Compatible or breaking.
    pub class: Class,
    /// What changed, in words.
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<10} {}: {}", self.class, self.path, self.what)
    }
}

/// Every change from `old` to `new` (two root schemas), in the order found.
pub fn compare(old: &Value, new: &Value) -> Vec<Change> {
    let mut walk = Walk {
        old_root: old,
        new_root: new,
        changes: Vec::new(),
        seen: BTreeSet::new(),
    };
    walk.node("/", old, new);
    walk.changes
}

/// Keywords that describe and never constrain.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "examples",
    "default",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$defs",
];

/// Keywords handled by [`Walk::node`] itself.
const HANDLED: &[&str] = &[
    "$ref",
    "type",
    "format",
    "const",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "pattern",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "oneOf",
    "anyOf",
];

struct Walk<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    changes: Vec<Change>,
    /// `$ref` pairs already compared (recursive definitions).
    seen: BTreeSet<(String, String)>,
}

fn resolve<'v>(root: &'v Value, node: &'v Value) -> (Map<String, Value>, Option<String>) {
    let Some(map) = node.as_object() else {
        return (Map::new(), None);
    };
    let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
        return (map.clone(), None);
    };
    let target = reference
        .strip_prefix('#')
        .and_then(|pointer| root.pointer(pointer))
        .and_then(Value::as_object);
    let mut merged = target.cloned().unwrap_or_default();
    for (k, v) in map {
        if k != "$ref" {
            merged.insert(k.clone(), v.clone());
        }
    }
    if target.is_none() {
        merged.insert("$ref".into(), Value::String(reference.to_string()));
    }
    (merged, Some(reference.to_string()))
}

fn types_of(map: &Map<String, Value>) -> Option<BTreeSet<String>> {
    match map.get("type")? {
        Value::String(t) => Some(BTreeSet::from([t.clone()])),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect(),
        ),
        _ => None,
    }
}

fn number(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

/// The alternatives of a `oneOf`/`anyOf` that are all constants, as their values.
fn constants(alternatives: &[Value]) -> Option<Vec<&Value>> {
    alternatives.iter().map(|a| a.get("const")).collect()
}

impl Walk<'_> {
    fn push(&mut self, path: &str, class: Class, what: impl Into<String>) {
        self.changes.push(Change {
            path: path.to_string(),
            class,
            what: what.into(),
        });
    }

    fn node(&mut self, path: &str, old: &Value, new: &Value) {
        if old == new && !has_ref(old) {
            return;
        }
        let (old, old_ref) = resolve(self.old_root, old);
        let (new, new_ref) = resolve(self.new_root, new);
        if let (Some(a), Some(b)) = (&old_ref, &new_ref)
            && !self.seen.insert((a.clone(), b.clone()))
        {
            return;
        }
        self.annotations(path, &old, &new);
        self.types(path, &old, &new);
        self.constants(path, &old, &new);
        self.range(path, &old, &new);
        for (min, max, what) in [
            ("minLength", "maxLength", "length"),
            ("minItems", "maxItems", "item count"),
            ("minProperties", "maxProperties", "property count"),
        ] {
            self.count(path, &old, &new, min, max, what);
        }
        self.keyword(path, "pattern", &old, &new);
        self.properties(path, &old, &new);
        self.additional(path, &old, &new);
        if let (Some(a), Some(b)) = (old.get("items"), new.get("items")) {
            self.node(&format!("{}/[]", path.trim_end_matches('/')), a, b);
        } else if old.contains_key("items") != new.contains_key("items") {
            let class = if new.contains_key("items") {
                Class::Breaking
            } else {
                Class::Compatible
            };
            self.push(path, class, "item schema added or removed");
        }
        for keyword in ["oneOf", "anyOf"] {
            self.alternatives(path, keyword, &old, &new);
        }
        let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for key in keys {
            let k = key.as_str();
            if ANNOTATIONS.contains(&k) || HANDLED.contains(&k) || old.get(k) == new.get(k) {
                continue;
            }
            self.push(
                path,
                Class::Breaking,
                format!("`{k}` changed (a keyword the check does not interpret: counted breaking)"),
            );
        }
    }

    fn annotations(&mut self, path: &str, old: &Map<String, Value>, new: &Map<String, Value>) {
        for &k in &[
            "description",
            "title",
            "examples",
            "default",
            "deprecated",
            "$comment",
        ] {
            if old.get(k) != new.get(k) {
                self.push(path, Class::Compatible, format!("`{k}` changed"));
            }
        }
    }

    fn types(&mut self, path: &str, old: &Map<String, Value>, new: &Map<String, Value>) {
        let covered = |set: &BTreeSet<String>, t: &str| {
            set.contains(t) || (t == "integer" && set.contains("number"))
        };
        match (types_of(old), types_of(new)) {
            (None, Some(n)) => self.push(
                path,
                Class::Breaking,
                format!("type narrowed from any to {}", join(&n)),
            ),
            (Some(o), None) => self.push(
                path,
                Class::Compatible,
                format!("type {} widened to any", join(&o)),
            ),
            (Some(o), Some(n)) if o != n => {
                let lost: Vec<&String> = o.iter().filter(|t| !covered(&n, t)).collect();
                let class = if lost.is_empty() {
                    Class::Compatible
                } else {
                    Class::Breaking
                };
                self.push(
                    path,
                    class,
                    format!("type {} became {}", join(&o), join(&n)),
                );
            }
            _ => {}
        }
        let old_format = old.get("format").and_then(Value::as_str);
        let new_format = new.get("format").and_then(Value::as_str);
        if old_format != new_format {
            let class = match (old_format, new_format) {
                (_, None) => Class::Compatible,
                (Some(a), Some(b)) => match (format_range(a), format_range(b)) {
                    (Some((a_min, a_max)), Some((b_min, b_max)))
                        if b_min <= a_min && b_max >= a_max =>
                    {
                        Class::Compatible
                    }
                    _ => Class::Breaking,
                },
                (None, Some(_)) => Class::Breaking,
            };
            self.push(
                path,
                class,
                format!(
                    "format {} became {}",
                    old_format.unwrap_or("(none)"),
                    new_format.unwrap_or("(none)")
                ),
            );
        }
    }

    fn constants(&mut self, path: &str, old: &Map<String, Value>, new: &Map<String, Value>) {
        self.keyword(path, "const", old, new);
        let set = |m: &Map<String, Value>| m.get("enum").and_then(Value::as_array).cloned();
        match (set(old), set(new)) {
            (Some(a), Some(b)) => self.value_sets(
                path,
                "enum value",
                &a.iter().collect::<Vec<_>>(),
                &b.iter().collect::<Vec<_>>(),
            ),
            (None, Some(b)) => self.push(
                path,
                Class::Breaking,
                format!("enum added ({} values)", b.len()),
            ),
            (Some(_), None) => self.push(path, Class::Compatible, "enum removed"),
            (None, None) => {}
        }
    }

    fn value_sets(&mut self, path: &str, what: &str, old: &[&Value], new: &[&Value]) {
        for v in old.iter().filter(|v| !new.contains(v)) {
            self.push(path, Class::Breaking, format!("{what} {v} removed"));
        }
        for v in new.iter().filter(|v| !old.contains(v)) {
            self.push(path, Class::Compatible, format!("{what} {v} added"));
        }
    }

    /// A keyword of one value (`const`, `pattern`): adding or changing it is breaking,
    /// removing it compatible.
    fn keyword(
        &mut self,
        path: &str,
        key: &str,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
    ) {
        match (old.get(key), new.get(key)) {
            (Some(a), Some(b)) if a != b => {
                self.push(path, Class::Breaking, format!("{key} {a} became {b}"))
            }
            (None, Some(b)) => self.push(path, Class::Breaking, format!("{key} {b} added")),
            (Some(a), None) => self.push(path, Class::Compatible, format!("{key} {a} removed")),
            _ => {}
        }
    }
}

fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref),
        Value::Array(a) => a.iter().any(has_ref),
        _ => false,
    }
}

fn class(stricter: bool) -> Class {
    if stricter {
        Class::Breaking
    } else {
        Class::Compatible
    }
}

fn join(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join("|")
}
