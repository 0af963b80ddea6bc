//! `arcade bingo print`: exact output lines, where the secret comes from, and exit codes.

mod common;

use std::ffi::OsString;
use std::path::PathBuf;

use arcade_bingo::Outgoing;
use arcade_bingo::cli::{Command, PrintArgs, run, run_with_env};
use arcade_bingo::domain::{Action, PatternKind};
use clap::Parser;
use common::*;

#[derive(Debug, Parser)]
struct Arcade {
    #[command(subcommand)]
    bingo: Command,
}

fn secret_file(dir: &tempfile::TempDir, contents: &[u8]) -> PathBuf {
    let path = dir.path().join("secret");
    std::fs::write(&path, contents).unwrap();
    path
}

fn args(game: &str, grid: u32, pool: u32, count: u32, secret: Option<PathBuf>) -> Command {
    Command::Print(PrintArgs {
        game: game.into(),
        grid,
        pool,
        count,
        no_free_centre: false,
        secret_file: secret,
    })
}

/// Runs with this environment secret; (exit code, stdout, stderr).
fn print(command: Command, env: Option<&str>) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_with_env(command, env.map(OsString::from), &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn prints_one_exact_json_line_per_card() {
    let dir = tempfile::tempdir().unwrap();
    let file = secret_file(&dir, b"test-secret-of-arcade-bingo\n");
    let (code, out, err) = print(args("friday-quiz", 3, 8, 3, Some(file)), None);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out, GOLDEN);
}

const GOLDEN: &str = concat!(
    "{\"serial\":1,\"label\":\"e393-5c3c-7564-4346\",\"cells\":[5,6,8,1,null,2,7,3,4]}\n",
    "{\"serial\":2,\"label\":\"1841-1e31-fb33-6525\",\"cells\":[5,6,3,8,null,7,1,4,2]}\n",
    "{\"serial\":3,\"label\":\"55c4-606b-2f30-e354\",\"cells\":[7,3,6,4,null,1,8,5,2]}\n",
);

#[test]
fn the_printed_cards_are_those_the_service_prints_for_a_fresh_game() {
    let dir = tempfile::tempdir().unwrap();
    let file = secret_file(&dir, b"test-secret-of-arcade-bingo");
    let (code, out, _) = print(args("friday-quiz", 5, 75, 1200, Some(file)), None);
    assert_eq!(code, 0);
    let mut s = Scenario::new();
    s.run(cmd(
        "friday-quiz",
        Action::Open(called_spec(5, 75, vec![PatternKind::Row])),
    ));
    let mut expected = String::new();
    for count in [1000, 200] {
        for event in s.run(cmd("friday-quiz", Action::Print { count })) {
            let Outgoing::CardsPrinted(batch) = event.to_contract() else {
                continue;
            };
            for card in batch.cards {
                expected.push_str(&serde_json::to_string(&card).unwrap());
                expected.push('\n');
            }
        }
    }
    assert_eq!(out.lines().count(), 1200);
    assert!(
        out == expected,
        "the command and the service print different cards"
    );
}

#[test]
fn the_environment_secret_is_used_when_no_file_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let file = secret_file(&dir, b"test-secret-of-arcade-bingo\r\n");
    let from_file = print(
        args("g", 5, 75, 2, Some(file.clone())),
        Some("ignored-when-a-file-is-given"),
    );
    let from_env = print(
        args("g", 5, 75, 2, None),
        Some("test-secret-of-arcade-bingo"),
    );
    assert_eq!(from_file.0, 0);
    assert_eq!(from_file, from_env);
}

#[test]
fn no_secret_is_a_clear_error_with_exit_code_two() {
    let (code, out, err) = print(args("g", 5, 75, 2, None), None);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "arcade bingo print: no secret: cards are dealt from the server secret; set \
         ARCADE_BINGO_SECRET or pass --secret-file FILE\n"
    );
}

#[test]
fn unusable_secrets_are_refused_with_exit_code_two() {
    let (code, _, err) = print(args("g", 5, 75, 2, None), Some("short"));
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "arcade bingo print: the bingo secret is 5 bytes; it must be at least 16 bytes \
         (ARCADE_BINGO_SECRET)\n"
    );
    let (code, _, err) = print(args("g", 5, 75, 2, None), Some(""));
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "arcade bingo print: the bingo secret is empty (ARCADE_BINGO_SECRET)\n"
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let (code, _, err) = print(args("g", 5, 75, 2, Some(missing.clone())), None);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "arcade bingo print: cannot read the secret file {}: ",
            missing.display()
        )),
        "{err}"
    );
    let empty = secret_file(&dir, b"\n");
    let (code, _, err) = print(args("g", 5, 75, 2, Some(empty.clone())), None);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "arcade bingo print: the bingo secret is empty (secret file {})\n",
            empty.display()
        )
    );
}

#[test]
fn bad_arguments_are_refused_with_exit_code_two() {
    let env = Some("test-secret-of-arcade-bingo");
    for (command, message) in [
        (
            args("g", 5, 75, 0, None),
            "--count is 1 to 100000 cards, not 0",
        ),
        (
            args("g", 5, 75, 100_001, None),
            "--count is 1 to 100000 cards, not 100001",
        ),
        (
            args("g", 10, 75, 1, None),
            "game \"g\" cannot be opened: a grid is 3 to 9 cells wide, not 10",
        ),
        (
            args("g", 5, 20, 1, None),
            "game \"g\" cannot be opened: a 5×5 card draws 24 squares (every cell but the free \
             centre), but the pool holds only 20",
        ),
        (
            args("g", 3, 501, 1, None),
            "game \"g\" cannot be opened: a pool holds 1 to 500 squares, not 501",
        ),
        (
            args("", 3, 8, 1, None),
            "the game id must be 1 to 200 bytes, not 0",
        ),
    ] {
        let (code, out, err) = print(command, env);
        assert_eq!((code, out.as_str()), (2, ""));
        assert_eq!(err, format!("arcade bingo print: {message}\n"));
    }
}

#[test]
fn grids_without_a_centre_print_a_square_in_every_cell() {
    let env = Some("test-secret-of-arcade-bingo");
    let mut no_centre = PrintArgs {
        game: "g".into(),
        grid: 5,
        pool: 75,
        count: 1,
        no_free_centre: true,
        secret_file: None,
    };
    for command in [Command::Print(no_centre.clone()), {
        no_centre.grid = 4;
        Command::Print(no_centre)
    }] {
        let (code, out, _) = print(command, env);
        assert_eq!(code, 0);
        let line: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
        assert!(
            line["cells"].as_array().unwrap().iter().all(|c| c.is_u64()),
            "{line}"
        );
    }
}

struct Broken;

impl std::io::Write for Broken {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::new(
            std::io::ErrorKind::BrokenPipe,
            "pipe closed",
        ))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failed_output_is_exit_code_one() {
    let mut err = Vec::new();
    let code = run_with_env(
        args("g", 5, 75, 1, None),
        Some("test-secret-of-arcade-bingo".into()),
        &mut Broken,
        &mut err,
    );
    assert_eq!(code, 1);
    assert_eq!(
        String::from_utf8(err).unwrap(),
        "arcade bingo print: cannot write the cards: pipe closed\n"
    );
}

#[test]
fn the_flags_parse_as_documented() {
    let parsed = Arcade::try_parse_from([
        "bingo",
        "print",
        "--game",
        "friday-quiz",
        "--grid",
        "5",
        "--pool",
        "75",
        "--count",
        "10",
        "--secret-file",
        "/run/secrets/bingo",
    ])
    .unwrap();
    let Command::Print(a) = parsed.bingo;
    assert_eq!(
        (a.game.as_str(), a.grid, a.pool, a.count, a.no_free_centre),
        ("friday-quiz", 5, 75, 10, false)
    );
    assert_eq!(a.secret_file, Some(PathBuf::from("/run/secrets/bingo")));
    assert!(
        Arcade::try_parse_from(["bingo", "print", "--game", "g", "--pool", "75"]).is_err(),
        "--count is required"
    );
}

#[test]
fn run_reads_the_secret_file_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let file = secret_file(&dir, b"test-secret-of-arcade-bingo");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        run(args("friday-quiz", 3, 8, 3, Some(file)), &mut out, &mut err),
        0
    );
    assert_eq!(String::from_utf8(out).unwrap(), GOLDEN);
}
