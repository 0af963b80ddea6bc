//! The compatibility check: one test per breaking kind (the check finds it breaking) and per
//! compatible kind (the check finds no breaking change), on schemas shaped as `schemars`
//! generates them, plus the committed schemas compared with themselves.

use arcade_contracts::catalog::all_types;
use arcade_contracts::compat::{Change, Class, compare};
use serde_json::{Value, json};

/// A v1-like schema: required and optional properties, an enum as `oneOf` consts in `$defs`,
/// bounds, a pattern, an array.
fn base() -> Value {
    json!({
        "$defs": {
            "Outcome": {
                "description": "How a session ended.",
                "oneOf": [
                    {"const": "won", "description": "Won.", "type": "string"},
                    {"const": "failed", "description": "Failed.", "type": "string"}
                ]
            }
        },
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "x.y.z.v1",
        "type": "object",
        "properties": {
            "gameId": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Id."},
            "code": {"type": "string", "pattern": "^[a-z]+$"},
            "kind": {"type": "string", "const": "session"},
            "level": {"type": "string", "enum": ["low", "high"]},
            "stage": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 5},
            "turns": {"type": "integer", "format": "uint32", "minimum": 0},
            "seed": {"type": "integer", "format": "int64"},
            "outcome": {"$ref": "#/$defs/Outcome", "description": "How."},
            "moves": {"type": "array", "items": {"type": "integer"}, "maxItems": 10},
            "note": {"type": ["string", "null"]}
        },
        "required": ["gameId", "stage", "turns", "outcome"]
    })
}

fn changed(edit: impl FnOnce(&mut Value)) -> Vec<Change> {
    let mut new = base();
    edit(&mut new);
    compare(&base(), &new)
}

fn assert_breaking(name: &str, edit: impl FnOnce(&mut Value)) {
    let changes = changed(edit);
    assert!(
        changes.iter().any(|c| c.class == Class::Breaking),
        "{name}: expected a breaking change, got {changes:#?}"
    );
}

fn assert_compatible(name: &str, edit: impl FnOnce(&mut Value)) {
    let changes = changed(edit);
    assert!(
        !changes.is_empty(),
        "{name}: the change was not seen at all"
    );
    assert!(
        changes.iter().all(|c| c.class == Class::Compatible),
        "{name}: expected only compatible changes, got {changes:#?}"
    );
}

fn prop<'a>(v: &'a mut Value, name: &str) -> &'a mut Value {
    &mut v["properties"][name]
}

#[test]
fn unchanged_schemas_have_no_change() {
    assert_eq!(compare(&base(), &base()), Vec::<Change>::new());
    for t in all_types() {
        assert_eq!(
            compare(&t.schema(), &t.schema()),
            Vec::<Change>::new(),
            "{}",
            t.name
        );
    }
}

#[test]
fn a_new_required_property_is_breaking() {
    assert_breaking("new required", |v| {
        v["properties"]["moves2"] = json!({"type": "array"});
        v["required"].as_array_mut().unwrap().push(json!("moves2"));
    });
    assert_breaking("optional made required", |v| {
        v["required"].as_array_mut().unwrap().push(json!("seed"));
    });
}

#[test]
fn a_removed_property_is_breaking() {
    assert_breaking("removed optional", |v| {
        v["properties"].as_object_mut().unwrap().remove("seed");
    });
    assert_breaking("removed required", |v| {
        v["properties"].as_object_mut().unwrap().remove("turns");
        v["required"] = json!(["gameId", "stage", "outcome"]);
    });
}

#[test]
fn a_renamed_property_is_breaking() {
    let changes = changed(|v| {
        let turns = v["properties"]
            .as_object_mut()
            .unwrap()
            .remove("turns")
            .unwrap();
        v["properties"]["pulses"] = turns;
        v["required"] = json!(["gameId", "stage", "pulses", "outcome"]);
    });
    let removed = changes.iter().find(|c| c.path == "/turns").expect("turns");
    assert_eq!(removed.class, Class::Breaking, "{changes:#?}");
    let added = changes
        .iter()
        .find(|c| c.path == "/pulses")
        .expect("pulses");
    assert_eq!(added.class, Class::Breaking, "{changes:#?}");
}

#[test]
fn a_narrowed_type_is_breaking() {
    assert_breaking("integer to string", |v| {
        *prop(v, "seed") = json!({"type": "string"});
    });
    assert_breaking("null no longer allowed", |v| {
        *prop(v, "note") = json!({"type": "string"});
    });
    let mut old = base();
    old["properties"]["extra"] = json!({});
    let mut new = old.clone();
    new["properties"]["extra"] = json!({"type": "integer"});
    let changes = compare(&old, &new);
    assert!(
        changes
            .iter()
            .any(|c| c.class == Class::Breaking && c.path == "/extra"),
        "any to integer: {changes:#?}"
    );
}

#[test]
fn a_narrowed_range_is_breaking() {
    assert_breaking("minimum raised", |v| prop(v, "stage")["minimum"] = json!(2));
    assert_breaking("maximum lowered", |v| {
        prop(v, "stage")["maximum"] = json!(4)
    });
    assert_breaking("maximum made exclusive", |v| {
        let stage = prop(v, "stage").as_object_mut().unwrap();
        stage.remove("maximum");
        stage.insert("exclusiveMaximum".into(), json!(5));
    });
    assert_breaking("maximum added below the format's bound", |v| {
        prop(v, "turns")["maximum"] = json!(1000)
    });
    assert_breaking("minimum added on a signed integer", |v| {
        prop(v, "seed")["minimum"] = json!(0)
    });
}

#[test]
fn a_narrowed_length_is_breaking() {
    assert_breaking("minLength raised", |v| {
        prop(v, "gameId")["minLength"] = json!(3)
    });
    assert_breaking("maxLength lowered", |v| {
        prop(v, "gameId")["maxLength"] = json!(100)
    });
    assert_breaking("maxLength added", |v| {
        prop(v, "code")["maxLength"] = json!(8)
    });
    assert_breaking("maxItems lowered", |v| {
        prop(v, "moves")["maxItems"] = json!(5)
    });
    assert_breaking("minItems added", |v| {
        prop(v, "moves")["minItems"] = json!(1)
    });
}

#[test]
fn a_narrowed_pattern_is_breaking() {
    assert_breaking("pattern changed", |v| {
        prop(v, "code")["pattern"] = json!("^[a-f]+$")
    });
    assert_breaking("pattern added", |v| {
        prop(v, "gameId")["pattern"] = json!("^g-")
    });
}

#[test]
fn a_narrowed_enum_is_breaking() {
    assert_breaking("enum value removed", |v| {
        prop(v, "level")["enum"] = json!(["low"])
    });
    assert_breaking("enum added", |v| prop(v, "code")["enum"] = json!(["abc"]));
    let changes = changed(|v| {
        v["$defs"]["Outcome"]["oneOf"].as_array_mut().unwrap().pop();
    });
    let removed = changes
        .iter()
        .find(|c| c.what.contains("\"failed\""))
        .expect("the removed value is named");
    assert_eq!(removed.class, Class::Breaking);
    assert_eq!(removed.path, "/outcome");
}

#[test]
fn a_changed_const_is_breaking() {
    assert_breaking("const changed", |v| {
        prop(v, "kind")["const"] = json!("game")
    });
    assert_breaking("const added", |v| prop(v, "code")["const"] = json!("abc"));
}

#[test]
fn tightened_additional_properties_are_breaking() {
    assert_breaking("absent to false", |v| {
        v["additionalProperties"] = json!(false)
    });
    let mut old = base();
    old["additionalProperties"] = json!(true);
    let mut new = base();
    new["additionalProperties"] = json!(false);
    assert!(
        compare(&old, &new)
            .iter()
            .any(|c| c.class == Class::Breaking)
    );
}

#[test]
fn a_removed_type_constraint_inside_a_definition_is_seen_through_the_ref() {
    let changes = changed(|v| {
        v["$defs"]["Outcome"]["oneOf"][0]["const"] = json!("victory");
    });
    assert!(
        changes
            .iter()
            .any(|c| c.class == Class::Breaking && c.path == "/outcome"),
        "{changes:#?}"
    );
}

#[test]
fn descriptions_and_examples_are_compatible() {
    assert_compatible("description", |v| {
        prop(v, "gameId")["description"] = json!("Another.")
    });
    assert_compatible("examples", |v| v["examples"] = json!([{"gameId": "g"}]));
    assert_compatible("title", |v| v["title"] = json!("x.y.z.v1 (sessions)"));
    assert_compatible("enum value's description", |v| {
        v["$defs"]["Outcome"]["oneOf"][0]["description"] = json!("The target was charged.")
    });
}

#[test]
fn a_new_optional_property_is_compatible() {
    assert_compatible("optional", |v| {
        v["properties"]["player"] = json!({"type": ["string", "null"]})
    });
}

#[test]
fn a_widened_range_or_length_or_enum_is_compatible() {
    assert_compatible("maximum raised", |v| prop(v, "stage")["maximum"] = json!(9));
    assert_compatible("minimum lowered", |v| {
        prop(v, "stage")["minimum"] = json!(0)
    });
    assert_compatible("maximum removed", |v| {
        prop(v, "stage").as_object_mut().unwrap().remove("maximum");
    });
    assert_compatible("maxLength raised", |v| {
        prop(v, "gameId")["maxLength"] = json!(400)
    });
    assert_compatible("maxItems raised", |v| {
        prop(v, "moves")["maxItems"] = json!(20)
    });
    assert_compatible("pattern removed", |v| {
        prop(v, "code").as_object_mut().unwrap().remove("pattern");
    });
    assert_compatible("enum value added", |v| {
        prop(v, "level")["enum"] = json!(["low", "high", "max"])
    });
    assert_compatible("oneOf value added", |v| {
        v["$defs"]["Outcome"]["oneOf"]
            .as_array_mut()
            .unwrap()
            .push(json!({"const": "abandoned", "type": "string"}))
    });
    assert_compatible("no longer required", |v| {
        v["required"] = json!(["gameId", "stage", "turns"])
    });
    assert_compatible(
        "made nullable through anyOf",
        |v| *prop(v, "outcome") = json!({"anyOf": [{"$ref": "#/$defs/Outcome"}, {"type": "null"}], "description": "How."}),
    );
    assert_breaking("anyOf that does not hold the old schema", |v| {
        *prop(v, "outcome") = json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})
    });
    assert_compatible("type widened", |v| {
        *prop(v, "code") = json!({"type": ["string", "null"], "pattern": "^[a-z]+$"})
    });
}

#[test]
fn a_bound_the_format_already_implies_is_compatible() {
    assert_compatible("uint32 maximum", |v| {
        prop(v, "turns")["maximum"] = json!(4_294_967_295u64)
    });
    assert_compatible("int64 bounds", |v| {
        prop(v, "seed")["minimum"] = json!(i64::MIN);
        prop(v, "seed")["maximum"] = json!(i64::MAX);
    });
    let mut old = base();
    *prop(&mut old, "seed") = json!({"type": "integer", "format": "uint64", "minimum": 0});
    let mut new = old.clone();
    prop(&mut new, "seed")["maximum"] = json!(u64::MAX);
    let changes = compare(&old, &new);
    assert!(
        !changes.is_empty() && changes.iter().all(|c| c.class == Class::Compatible),
        "uint64 maximum: {changes:#?}"
    );
    // One below the implied bound is a real narrowing.
    assert_breaking("uint32 maximum minus one", |v| {
        prop(v, "turns")["maximum"] = json!(4_294_967_294u64)
    });
}
