//! The committed `schemas/` must equal what `contracts` generates, and every committed example
//! must be valid. Refresh them with:
//!
//! ```sh
//! ARCADE_UPDATE_SCHEMAS=1 cargo test -p arcade-contracts --test schemas
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use arcade_contracts::{Catalog, catalog::all_types};

const REFRESH: &str = "ARCADE_UPDATE_SCHEMAS=1 cargo test -p arcade-contracts --test schemas";

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

fn pretty(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON");
    text.push('\n');
    text
}

/// Every generated file: path relative to `schemas/` and content.
fn generated() -> Vec<(PathBuf, String)> {
    let types = all_types();
    let mut files = vec![(
        PathBuf::from("asyncapi.yaml"),
        arcade_contracts::asyncapi::document(&types),
    )];
    for t in types {
        files.push((
            PathBuf::from(format!("{}.json", t.name)),
            pretty(&t.schema()),
        ));
        files.push((
            PathBuf::from(format!("examples/{}.json", t.name)),
            pretty(&t.example()),
        ));
    }
    files
}

#[test]
fn committed_schemas_match_the_contracts() {
    let dir = schemas_dir();
    let files = generated();
    if std::env::var_os("ARCADE_UPDATE_SCHEMAS").is_some() {
        fs::create_dir_all(dir.join("examples")).unwrap();
        for (path, text) in &files {
            fs::write(dir.join(path), text).unwrap();
        }
    }
    let mut stale = Vec::new();
    for (path, text) in &files {
        match fs::read_to_string(dir.join(path)) {
            Ok(committed) if &committed == text => {}
            Ok(_) => stale.push(format!("schemas/{} differs", path.display())),
            Err(_) => stale.push(format!("schemas/{} is missing", path.display())),
        }
    }
    // No schema without a type: a removed type must not leave its schema behind.
    for entry in fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.contains(".v")
            && name.ends_with(".json")
            && !files.iter().any(|(p, _)| p.to_string_lossy() == name)
        {
            stale.push(format!("schemas/{name} has no message type in contracts"));
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nrefresh them with:\n    {REFRESH}",
        stale.join("\n")
    );
}

#[test]
fn committed_examples_are_valid_and_decode() {
    let catalog = Catalog::new();
    for t in catalog.types() {
        let path = schemas_dir().join(format!("examples/{}.json", t.name));
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing; refresh with {REFRESH}", path.display()));
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        catalog
            .validate(t.name, &value)
            .unwrap_or_else(|e| panic!("example of {}: {e}", t.name));
        t.route(&value)
            .unwrap_or_else(|e| panic!("example of {} does not decode: {e}", t.name));
    }
}

#[test]
fn type_names_are_versioned() {
    for t in all_types() {
        let parts: Vec<&str> = t.name.split('.').collect();
        let version = parts.last().unwrap();
        assert!(parts.len() >= 3, "{} has too few words", t.name);
        assert!(
            version.starts_with('v') && version[1..].parse::<u32>().is_ok(),
            "{} does not end in .vN",
            t.name
        );
        assert!(
            t.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '_'),
            "{} has characters a routing key should not",
            t.name
        );
    }
}
