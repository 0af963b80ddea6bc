//! The docs against the code: the committed reference (`docs/reference/`) equals what
//! `arcade docs` generates; every relative link of the hand-written Markdown leads to a file
//! (and heading) that exists; every `arcade …` command the docs quote names a subcommand that
//! exists and only flags its `--help` lists; and the hand-written Markdown keeps its size.
//! Regenerate the reference with:
//!
//! ```sh
//! ARCADE_BLESS=1 cargo test -p arcade --test docs
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BLESS: &str = "ARCADE_BLESS=1 cargo test -p arcade --test docs";
/// The README fits on a screen or two (bytes, as `wc -c` counts them, for every bound).
const README_MAX: usize = 8_000;
/// The hand-written Markdown of the repository, all files together.
const TOTAL_MAX: usize = 110_000;
/// The explanation: layout, code map, invariants, decisions.
const DESIGN_MAX: usize = 20_000;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn arcade(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("the arcade binary runs")
}

/// Every hand-written Markdown file (all but the generated reference), relative to the root.
fn markdown() -> Vec<PathBuf> {
    fn visit(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = path.strip_prefix(root).unwrap().to_path_buf();
            if path.is_dir() {
                if !name.starts_with('.')
                    && name != "target"
                    && name != "node_modules"
                    && relative != Path::new("docs/reference")
                {
                    visit(&path, root, out);
                }
            } else if name.ends_with(".md") {
                out.push(relative);
            }
        }
    }
    let mut out = Vec::new();
    let root = root();
    visit(&root, &root, &mut out);
    out
}

#[test]
fn the_committed_reference_is_what_the_code_generates() {
    let dir = root().join("docs/reference");
    let target = if std::env::var_os("ARCADE_BLESS").is_some() {
        dir.clone()
    } else {
        tempfile::tempdir().unwrap().keep()
    };
    let output = arcade(&["docs", "--dir", target.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let mut stale = Vec::new();
    let mut generated = BTreeSet::new();
    for entry in fs::read_dir(&target).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let text = fs::read_to_string(target.join(&name)).unwrap();
        match fs::read_to_string(dir.join(&name)) {
            Ok(committed) if committed == text => {}
            Ok(_) => stale.push(format!("docs/reference/{name} differs")),
            Err(_) => stale.push(format!("docs/reference/{name} is missing")),
        }
        generated.insert(name);
    }
    for entry in fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !generated.contains(&name) {
            stale.push(format!("docs/reference/{name} is not generated"));
        }
    }
    if target != dir {
        let _ = fs::remove_dir_all(&target);
    }
    assert!(
        stale.is_empty(),
        "{}\nregenerate it with:\n    {BLESS}",
        stale.join("\n")
    );
}

#[test]
fn the_hand_written_markdown_keeps_its_size() {
    let root = root();
    let mut sizes = BTreeMap::new();
    for path in markdown() {
        let chars = fs::read(root.join(&path)).unwrap().len();
        sizes.insert(path, chars);
    }
    let total: usize = sizes.values().sum();
    let readme = sizes[Path::new("README.md")];
    let design = sizes[Path::new("docs/DESIGN.md")];
    let listing = sizes
        .iter()
        .map(|(p, n)| format!("{n:>7} {}", p.display()))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(readme <= README_MAX, "README.md: {readme} > {README_MAX}");
    assert!(
        design <= DESIGN_MAX,
        "docs/DESIGN.md: {design} > {DESIGN_MAX}"
    );
    assert!(
        total <= TOTAL_MAX,
        "hand-written Markdown: {total} > {TOTAL_MAX} characters\n{listing}"
    );
}

/// The GitHub anchor of a heading: lower case, punctuation dropped, spaces as dashes.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let base = slug(line.trim_start_matches('#'));
            let n = seen.entry(base.clone()).or_default();
            out.insert(if *n == 0 {
                base.clone()
            } else {
                format!("{base}-{n}")
            });
            *n += 1;
        }
    }
    out
}

/// Every link target `](target)` of a text, outside code blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push(
                after[..end]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_string(),
            );
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_leads_somewhere() {
    let root = root();
    let mut broken = Vec::new();
    for file in markdown().into_iter().chain(
        ["cli.md", "settings.md", "messages.md"].map(|n| PathBuf::from("docs/reference").join(n)),
    ) {
        let text = fs::read_to_string(root.join(&file)).unwrap();
        for link in links(&text) {
            if link.is_empty() || link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match link.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (link.as_str(), None),
            };
            let target = if path.is_empty() {
                root.join(&file)
            } else {
                root.join(&file).parent().unwrap().join(path)
            };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", file.display()));
                continue;
            }
            if let (Some(anchor), true) = (anchor, path.is_empty() || path.ends_with(".md")) {
                let text = fs::read_to_string(&target).unwrap();
                if !anchors(&text).contains(anchor) {
                    broken.push(format!("{}: {link}: no such heading", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The `arcade …` commands a text quotes: code spans that start with `arcade ` and lines of
/// code blocks that run it (after a prompt, `VAR=value` settings, or `cargo run … --`).
fn quoted_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut shell = false;
    let mut continued = String::new();
    for line in text.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            fenced = !fenced;
            // Blocks of commands: no language, or a shell's; not `text` (output) or `json`.
            shell = fenced && matches!(info.trim(), "" | "sh" | "bash" | "shell" | "console");
            continue;
        }
        if fenced && !shell {
            continue;
        }
        if fenced {
            let mut line = line.trim().trim_start_matches("$ ").to_string();
            if !continued.is_empty() {
                line = format!("{continued} {line}");
            }
            if let Some(head) = line.strip_suffix('\\') {
                continued = head.to_string();
                continue;
            }
            continued.clear();
            out.extend(command_of(&line));
        } else {
            for (i, span) in line.split('`').enumerate() {
                if i % 2 == 1 {
                    out.extend(command_of(span));
                }
            }
        }
    }
    out
}

/// The arcade arguments of one shell line, if it runs arcade.
fn command_of(line: &str) -> Option<String> {
    let line = line.split(['|', ';', '&', '>', '<']).next()?;
    let line = line.split(" #").next()?.trim();
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() && words[i].contains('=') && !words[i].starts_with('-') {
        i += 1;
    }
    let words = &words[i..];
    let rest = match words {
        [first, rest @ ..] if *first == "arcade" || first.ends_with("/arcade") => rest,
        ["cargo", "run", rest @ ..] => {
            let dashes = rest.iter().position(|w| *w == "--")?;
            &rest[dashes + 1..]
        }
        _ => return None,
    };
    Some(rest.join(" "))
}

/// The subcommands a `--help` lists.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn every_quoted_command_exists_with_its_flags() {
    let root = root();
    let mut helps: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut help = |path: &[String]| -> String {
        helps
            .entry(path.to_vec())
            .or_insert_with(|| {
                let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
                args.push("--help");
                let output = arcade(&args);
                assert!(
                    output.status.success(),
                    "arcade {}: {output:?}",
                    args.join(" ")
                );
                String::from_utf8(output.stdout).unwrap()
            })
            .clone()
    };
    let mut wrong = Vec::new();
    let mut checked = 0;
    for file in markdown() {
        let text = fs::read_to_string(root.join(&file)).unwrap();
        for command in quoted_commands(&text) {
            checked += 1;
            let words: Vec<String> = command
                .split_whitespace()
                .map(|w| w.trim_matches(['"', '\'']).to_string())
                .collect();
            let mut path: Vec<String> = Vec::new();
            let mut text = help(&path);
            for word in &words {
                if word.starts_with('-') {
                    break;
                }
                let subs = subcommands(&text);
                if subs.contains(word) {
                    path.push(word.clone());
                    text = help(&path);
                } else if !subs.is_empty() && !text.contains("Arguments:") {
                    wrong.push(format!(
                        "{}: `arcade {command}`: no subcommand {word} in `arcade {}`",
                        file.display(),
                        path.join(" ")
                    ));
                    break;
                } else {
                    break;
                }
            }
            for flag in words.iter().filter(|w| w.starts_with("--") && w.len() > 2) {
                let flag = flag.split('=').next().unwrap();
                let listed = text
                    .split(|c: char| !(c.is_alphanumeric() || c == '-'))
                    .any(|w| w == flag);
                if !listed {
                    wrong.push(format!(
                        "{}: `arcade {command}`: `arcade {}` has no {flag}",
                        file.display(),
                        path.join(" ")
                    ));
                }
            }
        }
    }
    assert!(checked > 10, "only {checked} commands found in the docs");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_command_finder_reads_spans_blocks_and_cargo_run() {
    let text = "Run `arcade run --amqp URL` or\n```text\narcade run: ready\n```\n```sh\n$ ARCADE_X=1 arcade tap 'table.#' | head\ncargo run --release -- demo\narcade referee start \\\n  --table t1\necho arcade\n```\n";
    assert_eq!(
        quoted_commands(text),
        [
            "run --amqp URL",
            "tap 'table.#'",
            "demo",
            "referee start --table t1"
        ]
    );
    assert_eq!(anchors("# A title\n## Tokens, and TLS\n## A title"), {
        let mut set = BTreeSet::new();
        set.extend(["a-title", "tokens-and-tls", "a-title-1"].map(String::from));
        set
    });
    assert_eq!(links("see [x](a.md#b) and `[y](z)`"), ["a.md#b"]);
}

/// The environment variables the sources read (string literals `"ARCADE_…"`, `"OTEL_…"`,
/// `"RUST_LOG"`, `"NO_COLOR"`), outside tests and benches.
fn variables_in_sources() -> BTreeMap<String, PathBuf> {
    fn visit(dir: &Path, root: &Path, out: &mut BTreeMap<String, PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), "tests" | "benches" | "testkit" | "target")
                    && !name.ends_with("_tests")
                {
                    visit(&path, root, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                let text = fs::read_to_string(&path).unwrap();
                // The code before its unit tests.
                let text = text.split("#[cfg(test)]").next().unwrap_or_default();
                for piece in text.split('"').skip(1).step_by(2) {
                    let known = ["ARCADE_", "OTEL_"].iter().any(|p| piece.starts_with(p))
                        || piece == "RUST_LOG"
                        || piece == "NO_COLOR";
                    if known
                        && piece.len() > 7
                        && piece
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    {
                        out.entry(piece.to_string())
                            .or_insert_with(|| path.strip_prefix(root).unwrap().to_path_buf());
                    }
                }
            }
        }
    }
    let root = root();
    let mut out = BTreeMap::new();
    for dir in ["services", "crates", "contracts"] {
        visit(&root.join(dir), &root, &mut out);
    }
    out
}

#[test]
fn every_variable_the_sources_read_is_in_the_settings_reference() {
    let settings = fs::read_to_string(root().join("docs/reference/settings.md")).unwrap();
    let variables = variables_in_sources();
    assert!(variables.contains_key("ARCADE_AMQP_URL"), "{variables:?}");
    let missing: Vec<String> = variables
        .iter()
        .filter(|(name, _)| !settings.contains(&format!("| `{name}` |")))
        .map(|(name, path)| format!("{name} (read in {})", path.display()))
        .collect();
    assert!(
        missing.is_empty(),
        "not in docs/reference/settings.md: give them a flag with `env = …`, or list them in \
         ENVIRONMENT_ONLY (services/arcade/src/tools/reference.rs), then {BLESS}:\n{}",
        missing.join("\n")
    );
}
