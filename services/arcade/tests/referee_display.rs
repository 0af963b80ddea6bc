//! `arcade referee display`: one frame of the table's score display, without hardware, as text
//! or PBM; a text wider than `--columns` scrolls.

use std::process::{Command, Output};

use arcade_scoreboard::{Marquee, render};

fn display(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["referee", "display"])
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn a_score_is_eight_rows_of_hashes_and_dots() {
    let output = display(&["--text", "5-4", "--format", "text"]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 8, "{text}");
    assert!(rows.iter().all(|r| r.len() == 14), "5n-1 columns: {text}");
    assert!(rows.iter().all(|r| r.chars().all(|c| c == '#' || c == '.')));
    assert!(rows[0].chars().all(|c| c == '.'), "row 0 stays dark");
    assert!(text.contains('#'));
    assert_eq!(text, render("5-4").to_text());
    assert!(output.stderr.is_empty());
}

#[test]
fn pbm_is_a_plain_bitmap_of_the_same_pixels() {
    let output = display(&["--text", "5-4", "--format", "pbm", "--columns", "16"]);
    assert!(output.status.success(), "{output:?}");
    let pbm = stdout(&output);
    assert!(pbm.starts_with("P1\n16 8\n"), "{pbm}");
    assert_eq!(pbm, Marquee::new("5-4", 16).frame(0).to_pbm());
}

#[test]
fn a_text_wider_than_the_columns_scrolls() {
    let output = display(&["--text", "TIE-BREAK", "--columns", "16"]);
    assert!(output.status.success(), "{output:?}");
    let marquee = Marquee::new("TIE-BREAK", 16);
    assert_eq!(stdout(&output), marquee.frame(0).to_text());
    let note = String::from_utf8(output.stderr).unwrap();
    assert!(note.contains("it scrolls"), "{note}");

    let output = display(&["--text", "TIE-BREAK", "--columns", "16", "--scroll"]);
    assert!(output.status.success(), "{output:?}");
    let frames: Vec<String> = stdout(&output)
        .split("\n\n")
        .map(|f| format!("{}\n", f.trim_end()))
        .collect();
    assert_eq!(frames.len() as u64, marquee.period());
    assert_eq!(frames[0], marquee.frame(0).to_text());
    assert_eq!(frames[1], marquee.frame(1).to_text());
    // One column per step: the second frame is the first moved left by one column.
    let first: Vec<&str> = frames[0].lines().collect();
    let second: Vec<&str> = frames[1].lines().collect();
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(&a[1..], &b[..15]);
    }
}

#[test]
fn bad_input_exits_2_naming_the_flag() {
    let output = display(&["--text", ""]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr).unwrap().contains("--text"));
    let output = display(&["--text", "5-4", "--columns", "0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("--columns")
    );
}
