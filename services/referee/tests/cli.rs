//! `arcade referee replay` and `check`: exact output lines and exit codes.

use std::path::{Path, PathBuf};

use arcade_referee::cli::{Command, run};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn run_command(command: Command) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(command, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn replay(rules: &Path, script: &Path) -> (u8, String, String) {
    run_command(Command::Replay {
        rules: rules.to_path_buf(),
        script: script.to_path_buf(),
    })
}

fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn line(
    hinge: u32,
    lock: u32,
    phase: &str,
    winner: &str,
    ibr_hinge: &str,
    ibr_lock: &str,
) -> String {
    format!(
        r#"{{"score":{{"hinge":{hinge},"lock":{lock}}},"phase":"{phase}","winner":{winner},"ibr":{{"hinge":"{ibr_hinge}","lock":"{ibr_lock}"}}}}"#
    )
}

#[test]
fn replays_the_example_game_line_by_line() {
    let (code, out, err) = replay(&example("bar.rules.json"), &example("bar.script.jsonl"));
    assert_eq!((code, err.as_str()), (0, ""));
    let (r, l) = ("released", "locked");
    let expected = [
        line(1, 0, "default", "null", r, r),
        line(1, 1, "default", "null", r, r),
        line(2, 1, "default", "null", r, r),
        line(2, 2, "default", "null", r, r),
        line(3, 2, "default", "null", r, r),
        line(4, 2, "default", "null", l, r),
        line(4, 3, "default", "null", l, r), // the source's 4–3: hinge locked, lock released
        line(4, 3, "default", "null", l, r), // clock 600 s: nothing
        line(4, 4, "default", "null", r, r),
        line(5, 4, "tie_break", "null", l, r), // 4–4, hinge goal → tie-break
        line(5, 5, "tie_break", "null", r, r),
        line(5, 5, "timeout", "null", l, l), // clock 901 s: timeout at a tie, no winner yet
        line(6, 5, "timeout", "\"hinge\"", l, l),
        line(6, 5, "timeout", "\"hinge\"", l, l), // balls after a win change nothing
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn the_first_line_matches_the_documented_shape() {
    let dir = tempfile::tempdir().unwrap();
    let script = file(
        &dir,
        "s.jsonl",
        "{\"ball\":{\"side\":\"hinge\",\"kind\":\"goal\"}}\n",
    );
    let (_, out, _) = replay(&example("bar.rules.json"), &script);
    assert_eq!(
        out,
        "{\"score\":{\"hinge\":1,\"lock\":0},\"phase\":\"default\",\"winner\":null,\"ibr\":{\"hinge\":\"released\",\"lock\":\"released\"}}\n"
    );
}

#[test]
fn invalid_rules_exit_2_with_the_error_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let rules = file(
        &dir,
        "r.json",
        r#"{"conditions":{"default":{"win_rule":{"$gte":["$score",5]}}}}"#,
    );
    let (code, out, err) = replay(&rules, &example("bar.script.jsonl"));
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "error: invalid rules {}: conditions.default.win_rule: unknown operator \"$gte\"\n",
            rules.display()
        )
    );
    let not_json = file(&dir, "n.json", "{");
    let (code, _, err) = replay(&not_json, &example("bar.script.jsonl"));
    assert_eq!(code, 2);
    assert!(err.contains("not JSON"), "{err}");
}

#[test]
fn an_invalid_script_line_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = file(
        &dir,
        "s.jsonl",
        "{\"ball\":{\"side\":\"hinge\",\"kind\":\"goal\"}}\n{\"clock_s\":3}\n{\"ball\":{\"side\":\"hing\",\"kind\":\"goal\"}}\n",
    );
    let (code, out, err) = replay(&example("bar.rules.json"), &script);
    assert_eq!(
        (code, out.as_str()),
        (2, ""),
        "nothing is printed for a script that does not parse"
    );
    assert_eq!(
        err,
        format!(
            "error: invalid script {}: line 3: ball.side: unknown side \"hing\" (expected hinge or lock)\n",
            script.display()
        )
    );
    for (text, problem) in [
        (
            "{\"clock_s\":-1}",
            "clock_s: expected a number of seconds ≥ 0, found -1",
        ),
        (
            "{\"goal\":1}",
            "unknown key \"goal\" (expected \"ball\" or \"clock_s\")",
        ),
        (
            "{\"ball\":{\"side\":\"lock\"}}",
            "ball.kind: missing (expected \"goal\" or \"inout\")",
        ),
        (
            "[1]",
            "expected {\"ball\": …} or {\"clock_s\": …}, found [1]",
        ),
    ] {
        let script = file(&dir, "bad.jsonl", &format!("{{\"clock_s\":1}}\n{text}\n"));
        let (code, _, err) = replay(&example("bar.rules.json"), &script);
        assert_eq!(code, 2);
        assert!(err.ends_with(&format!("line 2: {problem}\n")), "{err}");
    }
}

#[test]
fn a_missing_file_exits_2() {
    let (code, out, err) = replay(
        Path::new("/nonexistent/rules.json"),
        &example("bar.script.jsonl"),
    );
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("error: cannot read /nonexistent/rules.json"),
        "{err}"
    );
}

#[test]
fn check_accepts_every_example_and_refuses_bad_rules() {
    for name in [
        "bar.rules.json",
        "tournament.rules.json",
        "aggressive.rules.json",
    ] {
        let (code, out, err) = run_command(Command::Check {
            rules: example(name),
            explain: false,
        });
        assert_eq!((code, err.as_str()), (0, ""), "{name}");
        assert!(out.ends_with(": valid rules\n"));
    }
    let dir = tempfile::tempdir().unwrap();
    let rules = file(
        &dir,
        "r.json",
        r#"{"conditions":{"default":{"win_rule":{"$and":[]}}}}"#,
    );
    let (code, _, err) = run_command(Command::Check {
        rules,
        explain: true,
    });
    assert_eq!(code, 2);
    assert!(
        err.ends_with("conditions.default.win_rule: $and takes at least 1 argument, found 0\n")
    );
}

#[test]
fn check_refuses_an_initial_score_that_already_wins_the_tie_break() {
    let dir = tempfile::tempdir().unwrap();
    let rules = file(
        &dir,
        "r.json",
        r#"{"initial_score":{"hinge":6,"lock":0},
            "conditions":{"default":{"win_rule":{"$geq":["$score",10]}},
                          "tie_break":{"start_rule":{"$geq":["$max_score",5]},"win_rule":{"$geq":["$score",6]}}}}"#,
    );
    let (code, out, err) = run_command(Command::Check {
        rules,
        explain: false,
    });
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.ends_with(
            "initial_score: hinge already wins at 6–0 (hinge–lock) under conditions.tie_break (its start_rule holds at that score), before any ball is played\n"
        ),
        "{err}"
    );
}

fn explain(name: &str) -> String {
    let (code, out, err) = run_command(Command::Check {
        rules: example(name),
        explain: true,
    });
    assert_eq!((code, err.as_str()), (0, ""), "{name}");
    out
}

#[test]
fn check_explain_says_the_shipped_rules_in_plain_words_one_line_per_rule() {
    assert_eq!(
        explain("bar.rules.json"),
        "default: wins with 5 or more and a lead of 2 or more\n\
         tie-break from 5 for either side: wins with 7 or more, or at least the other side's score and a lead of 2 or more\n\
         timeout after 900 s: wins with at least the other side's score\n"
    );
    assert_eq!(
        explain("tournament.rules.json"),
        "rehearsal: the first ball counts for nothing\n\
         goals: a goal +1, an in-out +2\n\
         default: wins with 5 or more and a lead of 2 or more\n\
         tie-break from 7 for either side: wins with 10 or more, or more than the other side's score and a lead of 2 or more\n"
    );
}

#[test]
fn check_explain_renders_every_kind_of_node() {
    let dir = tempfile::tempdir().unwrap();
    let rules = file(
        &dir,
        "r.json",
        r#"{"initial_score":{"hinge":2,"lock":1},"rehearsal_balls":3,
            "goal_strength":{"default":{"hinge":{"goal":[1,0],"inout":[2,-1]},"lock":{"goal":[1,0],"inout":[1,0]}}},
            "conditions":{
              "default":{"win_rule":{"$and":[{"$gt":[9,"$score"]},{"$or":[{"$eq":["$score",4]},{"$lt":["$other_score",1]}]}]},
                         "lose_rule":{"$leq":["$score_delta",-1]}},
              "tie_break":{"start_rule":{"$eq":["$score","$other_score",3]},"win_rule":true},
              "timeout":{"win_rule":{"$gt":["$other_score","$score"]}}}}"#,
    );
    let (code, out, err) = run_command(Command::Check {
        rules,
        explain: true,
    });
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "start: 2–1 (hinge–lock)\n\
         rehearsal: the first 3 balls count for nothing\n\
         goals: hinge: a goal +1, an in-out +2 and -1 to the other side; lock: a goal +1, an in-out +1\n\
         default: wins with less than 9 and (exactly 4, or the other side at less than 1); loses with a lead of -1 or less\n\
         tie-break when a side has its score, the other side's score and 3 all equal: wins at once\n\
         timeout (never reached: no timeout_s): wins with less than the other side's score\n"
    );
}

#[test]
fn a_script_on_standard_input_replays_like_a_file() {
    let script = std::fs::read(example("bar.script.jsonl")).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = arcade_referee::cli::run_with_input(
        Command::Replay {
            rules: example("bar.rules.json"),
            script: PathBuf::from("-"),
        },
        &mut script.as_slice(),
        &mut out,
        &mut err,
    );
    let (_, from_file, _) = replay(&example("bar.rules.json"), &example("bar.script.jsonl"));
    assert_eq!((code, String::from_utf8(err).unwrap().as_str()), (0, ""));
    assert_eq!(String::from_utf8(out).unwrap(), from_file);
}

#[test]
fn a_script_whose_clock_goes_backwards_is_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = file(
        &dir,
        "s.jsonl",
        "{\"clock_s\":901}\n\n{\"ball\":{\"side\":\"hinge\",\"kind\":\"goal\"}}\n{\"clock_s\":100}\n",
    );
    let (code, out, err) = replay(&example("bar.rules.json"), &script);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "error: invalid script {}: line 4: the clock goes backwards: clock_s 100 after 901\n",
            script.display()
        )
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = arcade_referee::cli::run_with_input(
        Command::Replay {
            rules: example("bar.rules.json"),
            script: PathBuf::from("-"),
        },
        &mut b"{\"clock_s\":2.5}\n{\"clock_s\":2}\n".as_slice(),
        &mut out,
        &mut err,
    );
    assert_eq!(code, 2);
    assert_eq!(
        String::from_utf8(err).unwrap(),
        "error: invalid script <stdin>: line 2: the clock goes backwards: clock_s 2 after 2.5\n"
    );
}
