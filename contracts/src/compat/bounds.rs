//! Bounds: numeric ranges (with the range an integer `format` implies) and the minimum and
//! maximum of lengths, item counts and property counts.

use serde_json::{Map, Value};

use super::{Walk, class, number};

/// A bound: its value and whether it is exclusive.
type Bound = (f64, bool);

/// One side of a numeric range: its name, the keywords of its inclusive and exclusive bounds,
/// and whether a value is a tighter bound than another on that side.
struct Side {
    name: &'static str,
    inclusive: &'static str,
    exclusive: &'static str,
    tighter: fn(f64, f64) -> bool,
}

const MINIMUM: Side = Side {
    name: "minimum",
    inclusive: "minimum",
    exclusive: "exclusiveMinimum",
    tighter: |a, b| a > b,
};

const MAXIMUM: Side = Side {
    name: "maximum",
    inclusive: "maximum",
    exclusive: "exclusiveMaximum",
    tighter: |a, b| a < b,
};

impl Side {
    /// The bound a schema sets on this side: the tighter of its inclusive and exclusive
    /// bounds (the exclusive one at equal values).
    fn bound(&self, m: &Map<String, Value>) -> Option<Bound> {
        let inclusive = number(m, self.inclusive).map(|v| (v, false));
        let exclusive = number(m, self.exclusive).map(|v| (v, true));
        match (inclusive, exclusive) {
            (Some(i), Some(e)) => Some(if (self.tighter)(i.0, e.0) { i } else { e }),
            (i, e) => i.or(e),
        }
    }
}

/// The range an integer `format` implies (the Rust type's own bounds).
pub(super) fn format_range(format: &str) -> Option<(f64, f64)> {
    Some(match format {
        "uint8" => (0.0, f64::from(u8::MAX)),
        "uint16" => (0.0, f64::from(u16::MAX)),
        "uint32" | "uint" => (0.0, f64::from(u32::MAX)),
        "uint64" => (0.0, u64::MAX as f64),
        "int8" => (f64::from(i8::MIN), f64::from(i8::MAX)),
        "int16" => (f64::from(i16::MIN), f64::from(i16::MAX)),
        "int32" | "int" => (f64::from(i32::MIN), f64::from(i32::MAX)),
        "int64" => (i64::MIN as f64, i64::MAX as f64),
        _ => return None,
    })
}

impl Walk<'_> {
    pub(super) fn range(&mut self, path: &str, old: &Map<String, Value>, new: &Map<String, Value>) {
        let implied = old
            .get("format")
            .and_then(Value::as_str)
            .filter(|f| Some(*f) == new.get("format").and_then(Value::as_str))
            .and_then(format_range);
        let sides = [
            (MINIMUM, implied.map(|(lo, _)| lo)),
            (MAXIMUM, implied.map(|(_, hi)| hi)),
        ];
        for (side, implied) in sides {
            let (old_bound, new_bound) = (side.bound(old), side.bound(new));
            if old_bound == new_bound {
                continue;
            }
            // Effective old bound: the declared one, or the format's own.
            let effective = old_bound.or(implied.map(|v| (v, false)));
            let stricter = match (effective, new_bound) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some((o, oe)), Some((n, ne))) => (side.tighter)(n, o) || (n == o && ne && !oe),
            };
            self.push(
                path,
                class(stricter),
                describe(
                    side.name,
                    old_bound,
                    new_bound,
                    stricter,
                    effective != old_bound,
                ),
            );
        }
    }

    pub(super) fn count(
        &mut self,
        path: &str,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        min: &str,
        max: &str,
        what: &str,
    ) {
        let (o, n) = (number(old, min), number(new, min));
        if o != n {
            let stricter = n.is_some_and(|n| n > o.unwrap_or(0.0));
            self.push(
                path,
                class(stricter),
                format!("minimum {what} {} became {}", show(o), show(n)),
            );
        }
        let (o, n) = (number(old, max), number(new, max));
        if o != n {
            let stricter = n.is_some_and(|n| o.is_none_or(|o| n < o));
            self.push(
                path,
                class(stricter),
                format!("maximum {what} {} became {}", show(o), show(n)),
            );
        }
    }
}

fn show(v: Option<f64>) -> String {
    v.map_or_else(|| "(none)".into(), |v| v.to_string())
}

fn describe(
    what: &str,
    old: Option<Bound>,
    new: Option<Bound>,
    stricter: bool,
    implied: bool,
) -> String {
    let bound = |b: Option<Bound>| match b {
        None => "(none)".to_string(),
        Some((v, true)) => format!("{v} (exclusive)"),
        Some((v, false)) => v.to_string(),
    };
    let note = if implied && !stricter {
        ": the bound its format already implies"
    } else {
        ""
    };
    format!("{what} {} became {}{note}", bound(old), bound(new))
}
