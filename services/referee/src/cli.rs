//! `arcade referee …`: tools for rule authors. `replay` plays a script of balls and clock
//! readings against a rules document and prints, per script line, the score, phase, winner and
//! ball locks; `check` validates a rules document, and with `--explain` prints it in plain words.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::domain::referee::{BallSeen, StartGame};
use crate::domain::{BallKind, Input, Referee, Rules, Side, TableState};

/// The referee's subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// Replays SCRIPT (JSON lines: `{"ball":{"side":"hinge","kind":"goal"}}` or
    /// `{"clock_s": 901}`, seconds since game start) against RULES; prints one JSON line per
    /// script line.
    Replay {
        /// The rules document (JSON).
        #[arg(long, value_name = "RULES.json")]
        rules: PathBuf,
        /// The script (JSON lines), or `-` for standard input.
        #[arg(long, value_name = "SCRIPT.jsonl|-")]
        script: PathBuf,
    },
    /// Checks a rules document; prints the first problem with its JSON path.
    Check {
        /// The rules document (JSON).
        #[arg(long, value_name = "RULES.json")]
        rules: PathBuf,
        /// Print the checked rules in plain words instead, one line per rule.
        #[arg(long)]
        explain: bool,
    },
}

/// Exit code of a run that did what was asked.
pub const EXIT_OK: u8 = 0;
/// Exit code when the output could not be written.
pub const EXIT_IO: u8 = 1;
/// Exit code for invalid input: rules, script, or a file that cannot be read.
pub const EXIT_INVALID: u8 = 2;

/// Runs a subcommand, a script `-` being read from the process's standard input; returns the
/// process exit code.
pub fn run(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    run_with_input(command, &mut std::io::stdin().lock(), out, err)
}

/// Runs a subcommand, a script `-` being read from `input`; returns the process exit code.
pub fn run_with_input(
    command: Command,
    input: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let result = match command {
        Command::Replay { rules, script } => replay(&rules, &script, input, out),
        Command::Check { rules, explain } => load_rules(&rules).and_then(|document| {
            if explain {
                let lines = Rules::parse(&document)
                    .map(|checked| checked.explain())
                    .map_err(|e| Failure::Invalid(e.to_string()))?;
                lines
                    .iter()
                    .try_for_each(|line| writeln!(out, "{line}"))
                    .map_err(Failure::Output)
            } else {
                writeln!(out, "{}: valid rules", rules.display()).map_err(Failure::Output)
            }
        }),
    };
    match result {
        Ok(()) => EXIT_OK,
        Err(Failure::Invalid(message)) => {
            // Nothing more can be done if stderr is gone too.
            let _ = writeln!(err, "error: {message}");
            EXIT_INVALID
        }
        Err(Failure::Output(e)) => {
            let _ = writeln!(err, "error: writing the output: {e}");
            EXIT_IO
        }
    }
}

enum Failure {
    Invalid(String),
    Output(std::io::Error),
}

/// One script line.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    Ball(Side, BallKind),
    Clock { ms: u64 },
}

/// One output line; field order is the output's key order.
#[derive(Serialize)]
struct Line {
    score: LineScore,
    phase: &'static str,
    winner: Option<&'static str>,
    ibr: LineIbr,
}

#[derive(Serialize)]
struct LineScore {
    hinge: u64,
    lock: u64,
}

#[derive(Serialize)]
struct LineIbr {
    hinge: &'static str,
    lock: &'static str,
}

const TABLE: &str = "replay";

fn replay(
    rules_path: &Path,
    script_path: &Path,
    input: &mut dyn Read,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let rules = load_rules(rules_path)?;
    let from_stdin = script_path == Path::new("-");
    let name = if from_stdin {
        "<stdin>".to_string()
    } else {
        script_path.display().to_string()
    };
    let mut text = String::new();
    let read = if from_stdin {
        input.read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(script_path).map(|t| text = t)
    };
    read.map_err(|e| Failure::Invalid(format!("cannot read {name}: {e}")))?;
    let mut steps = Vec::new();
    let mut clock_ms = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let invalid = |problem: String| {
            Failure::Invalid(format!("invalid script {name}: line {}: {problem}", i + 1))
        };
        let step = parse_step(line).map_err(invalid)?;
        if let Step::Clock { ms } = step {
            if ms < clock_ms {
                return Err(invalid(format!(
                    "the clock goes backwards: clock_s {} after {}",
                    seconds(ms),
                    seconds(clock_ms)
                )));
            }
            clock_ms = ms;
        }
        steps.push(step);
    }
    for line in replay_steps(rules, &steps) {
        writeln!(out, "{line}").map_err(Failure::Output)?;
    }
    Ok(())
}

/// Plays the steps through the referee itself (the same decide/evolve as the service) and
/// renders one line per step.
fn replay_steps(rules: Value, steps: &[Step]) -> Vec<String> {
    let referee = Referee::new(TABLE);
    let mut state = TableState::default();
    let start = StartGame {
        table_id: TABLE.into(),
        game_id: "replay".into(),
        rules,
        players: None,
        at_ms: 0,
    };
    let mut lines = Vec::with_capacity(steps.len());
    apply(&referee, &mut state, &Input::Start(start));
    let mut clock_ms = 0;
    for step in steps {
        let input = match *step {
            Step::Ball(side, kind) => Input::Ball(BallSeen {
                side,
                kind,
                at_ms: clock_ms,
            }),
            Step::Clock { ms } => {
                clock_ms = ms;
                Input::Tick { now_ms: ms }
            }
        };
        apply(&referee, &mut state, &input);
        lines.push(render(&state));
    }
    lines
}

/// Milliseconds of script clock as the seconds the script wrote.
fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{}", ms as f64 / 1000.0)
    }
}

fn apply(referee: &Referee, state: &mut TableState, input: &Input) {
    // The rules were checked before, and balls and ticks are never refused.
    if let Ok(events) = referee.decide(state, input) {
        for event in &events {
            Referee::evolve(state, event);
        }
    }
}

fn render(state: &TableState) -> String {
    let Some(game) = state.game() else {
        return String::new();
    };
    let play = game.play();
    let ibr = state.ibr().unwrap_or_else(|| play.ibr(game.rules()));
    let line = Line {
        score: LineScore {
            hinge: play.score.hinge,
            lock: play.score.lock,
        },
        phase: play.phase.name(),
        winner: play.winner.map(Side::name),
        ibr: LineIbr {
            hinge: ibr.hinge.name(),
            lock: ibr.lock.name(),
        },
    };
    serde_json::to_string(&line).unwrap_or_default()
}

fn load_rules(path: &Path) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Invalid(format!("cannot read {}: {e}", path.display())))?;
    let invalid =
        |problem: String| Failure::Invalid(format!("invalid rules {}: {problem}", path.display()));
    let document: Value =
        serde_json::from_str(&text).map_err(|e| invalid(format!("not JSON: {e}")))?;
    Rules::parse(&document).map_err(|e| invalid(e.to_string()))?;
    Ok(document)
}

fn parse_step(line: &str) -> Result<Step, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(map) = &value else {
        return Err(format!(
            "expected {{\"ball\": …}} or {{\"clock_s\": …}}, found {value}"
        ));
    };
    let mut entries = map.iter();
    let (Some((key, body)), None) = (entries.next(), entries.next()) else {
        return Err("expected exactly one key, \"ball\" or \"clock_s\"".into());
    };
    match key.as_str() {
        "ball" => parse_ball(body),
        "clock_s" => match body.as_f64() {
            Some(s) if s >= 0.0 && s.is_finite() => Ok(Step::Clock {
                ms: (s * 1000.0).round() as u64,
            }),
            _ => Err(format!(
                "clock_s: expected a number of seconds ≥ 0, found {body}"
            )),
        },
        other => Err(format!(
            "unknown key \"{other}\" (expected \"ball\" or \"clock_s\")"
        )),
    }
}

fn parse_ball(body: &Value) -> Result<Step, String> {
    let Value::Object(ball) = body else {
        return Err(format!(
            "ball: expected {{\"side\": …, \"kind\": …}}, found {body}"
        ));
    };
    if let Some(key) = ball.keys().find(|k| *k != "side" && *k != "kind") {
        return Err(format!(
            "ball: unknown key \"{key}\" (expected side and kind)"
        ));
    }
    let side = match ball.get("side") {
        Some(Value::String(s)) if s == "hinge" => Side::Hinge,
        Some(Value::String(s)) if s == "lock" => Side::Lock,
        found => return Err(unknown("side", found, "hinge", "lock")),
    };
    let kind = match ball.get("kind") {
        Some(Value::String(s)) if s == "goal" => BallKind::Goal,
        Some(Value::String(s)) if s == "inout" => BallKind::Inout,
        found => return Err(unknown("kind", found, "goal", "inout")),
    };
    Ok(Step::Ball(side, kind))
}

fn unknown(field: &str, found: Option<&Value>, a: &str, b: &str) -> String {
    match found {
        Some(value) => format!("ball.{field}: unknown {field} {value} (expected {a} or {b})"),
        None => format!("ball.{field}: missing (expected \"{a}\" or \"{b}\")"),
    }
}
