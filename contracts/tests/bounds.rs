//! Integers carry the bounds of their Rust types in every schema, so a payload that passes its
//! schema decodes: out of range is refused at the boundary, naming the field.

use arcade_contracts::bounds::format_range;
use arcade_contracts::{Catalog, ValidationError};
use serde_json::{Value, json};

fn session(turns: Value) -> Value {
    json!({"gameId": "g1", "seed": 7, "stage": 1, "outcome": "won", "turns": turns,
           "durationMs": 1000})
}

#[test]
fn a_u32_beyond_its_range_is_refused_by_the_schema_naming_the_field() {
    let catalog = Catalog::new();
    let refused = catalog
        .validate(
            "game.session.completed.v1",
            &session(json!(5_000_000_000u64)),
        )
        .unwrap_err();
    let ValidationError::Schema { problems, .. } = &refused else {
        panic!("{refused}")
    };
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("/turns: "), "{problems:?}");
    assert!(problems[0].contains("5000000000"), "{problems:?}");
    // The largest u32 passes and decodes.
    let max = session(json!(u32::MAX));
    let entry = catalog.validate("game.session.completed.v1", &max).unwrap();
    entry
        .route(&max)
        .expect("a payload its schema accepts decodes");
}

/// Every integer schema (a `format` naming a Rust integer type), with its JSON path.
fn integers<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            if map
                .get("format")
                .and_then(Value::as_str)
                .and_then(format_range)
                .is_some()
            {
                out.push((path.clone(), value));
            }
            for (key, child) in map {
                integers(child, format!("{path}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                integers(child, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_integer_of_every_schema_is_bounded_by_its_type() {
    let catalog = Catalog::new();
    let mut seen = 0;
    for t in catalog.types() {
        let schema = t.schema();
        let mut found = Vec::new();
        integers(&schema, String::new(), &mut found);
        for (path, integer) in found {
            seen += 1;
            let format = integer["format"].as_str().unwrap();
            let (low, high) = format_range(format).unwrap();
            let bound = |key: &str| {
                let v = &integer[key];
                v.as_i64()
                    .map(i128::from)
                    .or_else(|| v.as_u64().map(i128::from))
                    .unwrap_or_else(|| panic!("{}{path}: {format} without {key}", t.name))
            };
            let (minimum, maximum) = (bound("minimum"), bound("maximum"));
            assert!(
                low <= minimum && maximum <= high && minimum <= maximum,
                "{}{path}: {format} bounded by [{minimum}, {maximum}]",
                t.name
            );
        }
    }
    assert!(seen > 200, "only {seen} integers found");
}

#[test]
fn a_bound_the_contract_sets_itself_is_kept() {
    // `stage` is `#[schemars(range(min = 1, max = 5))]` on a u8.
    let schema = Catalog::new()
        .get("game.session.completed.v1")
        .unwrap()
        .schema();
    let stage = &schema["properties"]["stage"];
    assert_eq!(
        (&stage["minimum"], &stage["maximum"]),
        (&json!(1), &json!(5))
    );
}
