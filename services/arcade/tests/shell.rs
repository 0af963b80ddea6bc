//! The `arcade` binary as a Unix tool: a closed stdout ends any command quietly with exit 0;
//! completions and a manual page come from the command line itself; logs honour `NO_COLOR`.

use std::path::Path;
use std::process::{Command, Stdio};

fn arcade() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command.env_remove("ARCADE_AMQP_URL").env_remove("RUST_LOG");
    command
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../referee/examples")
        .join(name)
        .display()
        .to_string()
}

/// Runs `args` with a stdout whose reader is gone before the command starts, so its first
/// write fails with EPIPE, every time.
fn with_closed_stdout(args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = arcade()
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_ends_every_command_quietly_with_exit_0() {
    let rules = example("bar.rules.json");
    let script = example("bar.script.jsonl");
    for args in [
        vec!["types"],
        vec!["types", "--schema", "table.game.start.v1"],
        vec!["types", "--example", "table.game.abort.v1"],
        vec!["referee", "replay", "--rules", &rules, "--script", &script],
        vec!["referee", "check", "--rules", &rules],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["--help"],
    ] {
        let output = with_closed_stdout(&args);
        assert_eq!(
            (
                output.status.code(),
                String::from_utf8_lossy(&output.stderr)
            ),
            (Some(0), "".into()),
            "arcade {args:?}"
        );
    }
}

#[test]
fn completions_cover_every_command_and_refuse_an_unknown_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = arcade().args(["completions", shell]).output().unwrap();
        assert!(output.status.success(), "{shell}");
        let script = String::from_utf8(output.stdout).unwrap();
        for word in ["referee", "abort", "completions", "table"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let output = arcade().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("tcsh"));
}

#[test]
fn the_manual_page_is_roff_and_every_command_gets_one_with_dir() {
    let output = arcade().arg("man").output().unwrap();
    assert!(output.status.success());
    let page = String::from_utf8(output.stdout).unwrap();
    assert!(page.contains(".TH arcade 1"), "{page}");
    assert!(page.contains("referee"), "the page lists the commands");

    let dir = tempfile::tempdir().unwrap();
    let output = arcade()
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    for page in [
        "arcade.1",
        "arcade-referee.1",
        "arcade-referee-start.1",
        "arcade-man.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(page))
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.starts_with(".ie"), "{page} is roff");
    }
}

#[test]
fn logs_on_a_terminal_are_plain_when_no_color_is_set() {
    // `script` gives the command a terminal (util-linux); without one the test cannot see
    // colours at all.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to run the command on a terminal");
        return;
    }
    let command = format!("{} demo", env!("CARGO_BIN_EXE_arcade"));
    let on_terminal = |no_color: Option<&str>| {
        let mut script = Command::new("script");
        script
            .args(["-qefc", &command, "/dev/null"])
            .env("RUST_LOG", "info")
            .env_remove("ARCADE_AMQP_URL")
            .env_remove("NO_COLOR");
        if let Some(value) = no_color {
            script.env("NO_COLOR", value);
        }
        let output = script.output().unwrap();
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let plain = on_terminal(Some("1"));
    assert!(plain.contains(" INFO "), "the demo logged: {plain}");
    assert!(
        !plain.contains('\u{1b}'),
        "no escape sequence with NO_COLOR=1"
    );
}
