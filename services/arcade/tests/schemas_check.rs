//! `arcade schemas check --baseline DIR` from the outside: the committed schemas pass against
//! themselves, a breaking change to an existing type fails with exit code 1 naming the type,
//! the field and the change, a type the baseline lacks is new (compatible), and an unreadable
//! baseline is exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn schemas() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas")
}

fn check(baseline: &Path) -> (Option<i32>, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["schemas", "check", "--baseline"])
        .arg(baseline)
        .output()
        .unwrap();
    (
        status.code(),
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

/// A copy of the committed schemas, with `edit` applied to one type's schema.
fn baseline_with(name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(schemas()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let file = dir.path().join(format!("{name}.json"));
    let mut schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    edit(&mut schema);
    std::fs::write(&file, serde_json::to_string_pretty(&schema).unwrap()).unwrap();
    dir
}

#[test]
fn the_committed_schemas_pass_against_themselves() {
    let (code, out, err) = check(&schemas());
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("0 new, 0 compatible changes, 0 breaking changes"),
        "{out}"
    );
}

#[test]
fn a_breaking_change_to_an_existing_type_fails_naming_it() {
    // As if the published v1 had a property that the build no longer generates.
    let baseline = baseline_with("game.session.completed.v1", |s| {
        s["properties"]["playerLevel"] = serde_json::json!({"type": "integer"});
    });
    let (code, out, _) = check(baseline.path());
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("game.session.completed.v1:"), "{out}");
    assert!(
        out.contains("BREAKING   /playerLevel: property removed (or renamed)"),
        "{out}"
    );
    assert!(out.contains("1 breaking changes in 1 types"), "{out}");
}

#[test]
fn compatible_changes_and_a_new_type_pass() {
    // The baseline before v2 existed, and with a narrower stage range and another description.
    let baseline = baseline_with("game.session.completed.v1", |s| {
        s["properties"]["stage"]["maximum"] = serde_json::json!(4);
        s["description"] = serde_json::json!("An older description.");
    });
    std::fs::remove_file(baseline.path().join("game.session.completed.v2.json")).unwrap();
    let (code, out, _) = check(baseline.path());
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("game.session.completed.v2: new type (compatible)"),
        "{out}"
    );
    assert!(
        out.contains("compatible /stage: maximum 4 became 5"),
        "{out}"
    );
    assert!(out.contains("compatible /: `description` changed"), "{out}");
    assert!(
        out.contains("1 new, 2 compatible changes, 0 breaking changes"),
        "{out}"
    );
}

#[test]
fn a_missing_baseline_is_exit_code_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let (code, _, err) = check(&missing);
    assert_eq!(code, Some(2));
    assert!(err.contains("nowhere"), "{err}");
    let (code, _, err) = check(dir.path());
    assert_eq!(code, Some(2));
    assert!(err.contains("no schema"), "{err}");
}

#[test]
fn schemas_check_has_help() {
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["schemas", "check", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("--baseline <DIR>"));
}
