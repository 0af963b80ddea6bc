//! `game.session.completed.v1` is the source contract: the same field names and bounds.

use arcade_contracts::{Catalog, ValidationError};
use serde_json::json;

fn valid() -> serde_json::Value {
    json!({"gameId":"g-1","seed":42,"stage":3,"outcome":"won","turns":4,"durationMs":1200})
}

#[test]
fn accepts_the_source_payload() {
    Catalog::new()
        .validate("game.session.completed.v1", &valid())
        .unwrap();
}

#[test]
fn refuses_each_broken_field_and_names_it() {
    let catalog = Catalog::new();
    let cases = [
        ("stage", json!(9), "/stage"),
        ("stage", json!(0), "/stage"),
        ("outcome", json!("draw"), "/outcome"),
        ("turns", json!(-1), "/turns"),
        ("durationMs", json!(1.5), "/durationMs"),
        ("seed", json!("42"), "/seed"),
        ("gameId", json!(7), "/gameId"),
    ];
    for (field, value, pointer) in cases {
        let mut payload = valid();
        payload[field] = value.clone();
        let err = catalog
            .validate("game.session.completed.v1", &payload)
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains(pointer), "{field}={value}: {text}");
    }
    let mut missing = valid();
    missing.as_object_mut().unwrap().remove("durationMs");
    let text = catalog
        .validate("game.session.completed.v1", &missing)
        .unwrap_err()
        .to_string();
    assert!(text.contains("durationMs"), "{text}");
}

#[test]
fn refuses_unknown_types() {
    let err = Catalog::new()
        .validate("game.session.completed.v9", &valid())
        .unwrap_err();
    assert_eq!(
        err,
        ValidationError::UnknownType("game.session.completed.v9".into())
    );
}
