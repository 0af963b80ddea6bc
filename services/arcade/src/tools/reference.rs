//! `arcade docs --dir DIR`: the reference written from the code, so that it cannot drift: the
//! command line (every subcommand's `--help`, from clap), the settings and their environment
//! variables (every clap argument with an `env`), and the message types (from the catalog).
//! The committed `docs/reference/` is compared with it by `tests/docs.rs`.

mod messages;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::CommandFactory;

use crate::cli::{Cli, DocsArgs};

/// How to regenerate the reference (named in the files it writes).
pub const REGENERATE: &str = "cargo run -p arcade -- docs --dir docs/reference";

/// Writes every reference file into `args.dir`.
pub fn run(args: &DocsArgs) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("--dir {}: cannot create it", args.dir.display()))?;
    for (name, text) in files() {
        let path = args.dir.join(name);
        std::fs::write(&path, text)
            .with_context(|| format!("--dir {}: cannot write {name}", args.dir.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Every reference file: its name and its text.
pub fn files() -> Vec<(&'static str, String)> {
    let command = deterministic(Cli::command().bin_name("arcade"));
    vec![
        ("cli.md", cli(&command)),
        ("settings.md", settings(&command)),
        ("messages.md", messages::document()),
    ]
}

/// The command with no environment value shown and every subcommand built, so that the text
/// depends on the code only.
fn deterministic(command: clap::Command) -> clap::Command {
    // Built once, from the root: a subcommand built before its parent would miss the parent's
    // global arguments (`--log-format`) in a usable state.
    let mut command = hide_env_values(command);
    command.build();
    command
}

fn hide_env_values(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| arg.hide_env_values(true))
        .mut_subcommands(hide_env_values)
}

/// Every command of the tree, depth first, with its path (`["arcade", "referee", "start"]`).
fn walk<'a>(
    command: &'a clap::Command,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, &'a clap::Command)>,
) {
    path.push(command.get_name().to_string());
    out.push((path.clone(), command));
    for sub in command.get_subcommands() {
        if sub.get_name() != "help" {
            walk(sub, path, out);
        }
    }
    path.pop();
}

fn commands(root: &clap::Command) -> Vec<(Vec<String>, &clap::Command)> {
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), &mut out);
    out
}

fn header(title: &str, what: &str) -> String {
    format!(
        "# {title}\n\n{what}\n\nGenerated from the code by `{REGENERATE}`; `cargo test -p arcade \
         --test docs` fails when it differs. Do not edit.\n"
    )
}

/// `cli.md`: an index, then each command's `--help`.
fn cli(root: &clap::Command) -> String {
    let all = commands(root);
    let mut text = header(
        "The `arcade` command line",
        "Every command and its `--help`. The settings with an environment variable are also in \
         [settings.md](settings.md).",
    );
    text.push('\n');
    for (path, command) in &all {
        let depth = path.len() - 1;
        let about = command
            .get_about()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "{}- [`{}`](#{}) {}",
            "  ".repeat(depth),
            path.join(" "),
            path.join("-"),
            first_sentence(&about)
        );
    }
    for (path, command) in &all {
        let mut command = (*command).clone();
        let help = command.render_long_help().to_string();
        let help: Vec<&str> = help.lines().map(str::trim_end).collect();
        let _ = write!(
            text,
            "\n## {}\n\n```text\n{}\n```\n",
            path.join(" "),
            help.join("\n").trim_end()
        );
    }
    text
}

fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    line.replace('|', "\\|")
}

/// Variables read from the environment with no flag: the bingo secret (so that it is never on
/// a command line), OpenTelemetry's and the logs'. `tests/docs.rs` fails when the sources read a
/// variable that is neither a flag's nor listed here.
const ENVIRONMENT_ONLY: &[(&str, &str, &str)] = &[
    (
        arcade_bingo::SECRET_ENV,
        "run",
        "The bingo server secret, at least 16 bytes; absent: `--bingo-secret-file`, else \
         `DATA/bingo-secret`, generated at the first start (never beside an existing bingo log)",
    ),
    (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "every command",
        "Export traces over OTLP to this collector; empty or absent: no export",
    ),
    (
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "every command",
        "The traces' endpoint, used as is (wins over `OTEL_EXPORTER_OTLP_ENDPOINT`)",
    ),
    (
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "every command",
        "`http/protobuf` (default) or `grpc`",
    ),
    (
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "every command",
        "The traces' protocol (wins over `OTEL_EXPORTER_OTLP_PROTOCOL`)",
    ),
    (
        "OTEL_SERVICE_NAME",
        "every command",
        "The traces' `service.name`; default: the hosted service's, `arcade` for several",
    ),
    (
        "RUST_LOG",
        "every command",
        "Which logs are written (tracing's filter syntax); sled's own stay at warnings unless it \
         names `sled`",
    ),
    (
        "NO_COLOR",
        "every command",
        "Set to anything: logs are not coloured (they are only on a terminal anyway)",
    ),
    (
        "OTEL_SDK_DISABLED",
        "every command",
        "`true`: no trace is exported (contexts are still made and carried)",
    ),
    (
        "OTEL_TRACES_EXPORTER",
        "every command",
        "`otlp` (default) or `none`: no trace is exported",
    ),
    (
        "ARCADE_BUILD_COMMIT",
        "the build (`cargo build`)",
        "The commit `arcade_build_info` names; absent: `git`'s, else `unknown`",
    ),
];

/// One setting read from the environment.
struct Setting {
    flag: String,
    default: String,
    help: String,
    commands: Vec<String>,
}

/// `settings.md`: every environment variable a command reads, with its flag and default.
fn settings(root: &clap::Command) -> String {
    let mut by_env: BTreeMap<String, Setting> = BTreeMap::new();
    for (path, command) in commands(root) {
        let name = path[1..].join(" ");
        for arg in command.get_arguments() {
            let Some(env) = arg.get_env() else { continue };
            let env = env.to_string_lossy().into_owned();
            let setting = by_env.entry(env).or_insert_with(|| Setting {
                flag: arg
                    .get_long()
                    .map(|l| format!("--{l}"))
                    .unwrap_or_else(|| arg.get_id().to_string()),
                default: arg
                    .get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(","),
                help: arg
                    .get_long_help()
                    .or(arg.get_help())
                    .map(|h| h.to_string())
                    .unwrap_or_default(),
                commands: Vec::new(),
            });
            setting.commands.push(name.clone());
        }
    }
    let mut text = header(
        "Settings and their environment variables",
        "Every setting a command reads from the environment: the variable, the flag that \
         overrides it, its default and the commands that take it. A flag on the command line \
         wins over the variable. Secrets (URLs with passwords, tokens) are never shown in \
         `--help` or in logs.",
    );
    text.push_str(
        "\n| Variable | Flag | Default | Commands | What it sets |\n|---|---|---|---|---|\n",
    );
    for (env, commands, help) in ENVIRONMENT_ONLY {
        by_env.insert(
            (*env).to_string(),
            Setting {
                flag: "(none)".to_string(),
                default: String::new(),
                help: (*help).to_string(),
                commands: vec![(*commands).to_string()],
            },
        );
    }
    for (env, s) in &by_env {
        let default = if s.default.is_empty() {
            String::new()
        } else {
            format!("`{}`", s.default)
        };
        let flag = if s.flag.starts_with('-') {
            format!("`{}`", s.flag)
        } else {
            s.flag.clone()
        };
        let _ = writeln!(
            text,
            "| `{env}` | {flag} | {default} | {} | {} |",
            s.commands.join(", "),
            s.help
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .replace('|', "\\|")
        );
    }
    text
}
