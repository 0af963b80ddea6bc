//! Integer bounds in the generated schemas: every integer whose Rust type is `u8`, `u32`,
//! `i64`… (schemars writes it as `"format": "uint32"`…) carries the `minimum` and `maximum` of
//! that type, so a payload that passes its schema always decodes (`"turns": 5000000000` is
//! refused by the schema, naming the field, instead of failing later as "expected u32"). A
//! bound the contract sets itself (`#[schemars(range(min = 1))]`) is kept when it is stricter.

use schemars::Schema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::transform::RecursiveTransform;
use serde_json::{Number, Value};

/// The generator of every contract schema: JSON Schema 2020-12 with integer bounds.
pub fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with_transform(RecursiveTransform(integer_bounds as fn(&mut Schema)))
        .into_generator()
}

/// The range of an integer `format` as schemars names Rust's integer types.
pub fn format_range(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" => (0, u64::MAX.into()),
        "uint" => (0, usize::MAX as i128),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "int" => (isize::MIN as i128, isize::MAX as i128),
        _ => return None,
    })
}

/// Sets `minimum` and `maximum` of one integer schema from its `format`.
fn integer_bounds(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let Some((low, high)) = object
        .get("format")
        .and_then(Value::as_str)
        .and_then(format_range)
    else {
        return;
    };
    let given = |key: &str| object.get(key).and_then(as_i128);
    let minimum = given("minimum").map_or(low, |m| m.max(low));
    let maximum = given("maximum").map_or(high, |m| m.min(high));
    object.insert("minimum".into(), number(minimum));
    object.insert("maximum".into(), number(maximum));
}

fn as_i128(value: &Value) -> Option<i128> {
    value
        .as_i64()
        .map(i128::from)
        .or_else(|| value.as_u64().map(i128::from))
}

fn number(n: i128) -> Value {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(n), _) => Value::Number(n.into()),
        (_, Ok(n)) => Value::Number(n.into()),
        // Beyond 64 bits: no integer format reaches here.
        _ => Value::Number(Number::from(0)),
    }
}
