//! `arcade schemas check --baseline DIR`: compares the schemas this build generates with a
//! baseline `schemas/` directory (in CI, the merge base's) and lists every change per type,
//! compatible or breaking ([`arcade_contracts::compat`]). Exit code 0 when nothing breaks,
//! 1 on any breaking change to a type the baseline has, 2 when the baseline cannot be read.
//! A type the baseline lacks is new: listed, never breaking.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arcade_contracts::catalog::all_types;
use arcade_contracts::compat::{Change, Class, compare};
use clap::{Args, Subcommand};
use serde_json::Value;

/// The `arcade schemas` subcommands.
#[derive(Debug, Subcommand)]
pub enum SchemasCommand {
    /// Compare the generated schemas with a baseline directory; exit 1 on a breaking change.
    Check(CheckArgs),
}

/// `arcade schemas check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A `schemas/` directory of an earlier version (one `<type>.json` per message type).
    #[arg(long, value_name = "DIR")]
    pub baseline: PathBuf,
}

/// What the check found for one message type.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// In the baseline and generated: its changes (maybe none).
    Changed(Vec<Change>),
    /// Generated, not in the baseline.
    New,
    /// In the baseline, no longer generated.
    Removed,
}

/// Reads every `*.vN.json` schema of a directory, by type name.
pub fn read_baseline(dir: &Path) -> Result<BTreeMap<String, Value>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut schemas = BTreeMap::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(type_name) = name.strip_suffix(".json") else {
            continue;
        };
        if !type_name.contains(".v") || !path.is_file() {
            continue;
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let schema = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        schemas.insert(type_name.to_string(), schema);
    }
    if schemas.is_empty() {
        return Err(format!(
            "{}: no schema (<type>.json) in it; is it a schemas/ directory?",
            dir.display()
        ));
    }
    Ok(schemas)
}

/// Every type's verdict, baseline against `current` (type name → schema).
pub fn check(
    baseline: &BTreeMap<String, Value>,
    current: &BTreeMap<String, Value>,
) -> BTreeMap<String, Verdict> {
    let mut verdicts = BTreeMap::new();
    for (name, old) in baseline {
        let verdict = match current.get(name) {
            Some(new) => Verdict::Changed(compare(old, new)),
            None => Verdict::Removed,
        };
        verdicts.insert(name.clone(), verdict);
    }
    for name in current.keys().filter(|n| !baseline.contains_key(*n)) {
        verdicts.insert(name.clone(), Verdict::New);
    }
    verdicts
}

/// The report as printed, and whether anything breaks.
pub fn report(verdicts: &BTreeMap<String, Verdict>) -> (String, bool) {
    let mut out = String::new();
    let (mut breaking, mut compatible, mut broken_types, mut new_types) = (0, 0, 0, 0);
    for (name, verdict) in verdicts {
        match verdict {
            Verdict::New => {
                new_types += 1;
                out.push_str(&format!("{name}: new type (compatible)\n"));
            }
            Verdict::Removed => {
                breaking += 1;
                broken_types += 1;
                out.push_str(&format!(
                    "{name}: BREAKING: the type is no longer generated (a published type is kept forever)\n"
                ));
            }
            Verdict::Changed(changes) if changes.is_empty() => {}
            Verdict::Changed(changes) => {
                out.push_str(&format!("{name}:\n"));
                let mut breaks = false;
                for change in changes {
                    out.push_str(&format!("  {change}\n"));
                    if change.class == Class::Breaking {
                        breaking += 1;
                        breaks = true;
                    } else {
                        compatible += 1;
                    }
                }
                broken_types += usize::from(breaks);
            }
        }
    }
    out.push_str(&format!(
        "{} types checked: {new_types} new, {compatible} compatible changes, {breaking} breaking changes in {broken_types} types\n",
        verdicts.len()
    ));
    if breaking > 0 {
        out.push_str("a breaking change needs a new type (.vN+1); see docs/CONTRACTS.md\n");
    }
    (out, breaking > 0)
}

/// Runs an `arcade schemas` subcommand.
pub fn run(command: SchemasCommand) -> ExitCode {
    let SchemasCommand::Check(args) = command;
    let baseline = match read_baseline(&args.baseline) {
        Ok(baseline) => baseline,
        Err(error) => {
            eprintln!("error: --baseline {error}");
            return ExitCode::from(2);
        }
    };
    let current: BTreeMap<String, Value> = all_types()
        .into_iter()
        .map(|t| (t.name.to_string(), t.schema()))
        .collect();
    let (text, breaks) = report(&check(&baseline, &current));
    print!("{text}");
    if breaks {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
