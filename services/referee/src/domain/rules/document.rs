//! Parses the whole rules document: settings, goal strengths and conditions, each error naming
//! the JSON path of what is wrong.

use serde_json::{Map, Value};

use super::error::{Problem, RulesError, describe};
use super::expr::parse_rule;
use super::program::Program;
use super::{Conditions, RuleRef, Rules, Strength};
use crate::domain::terms::{BallKind, Phase, Score, Side};

/// What a ball is worth when the document has no `goal_strength`: +1 to the scorer.
pub(super) const PLAIN_BALL: Strength = [1, 0];

pub(super) fn parse(document: &Value) -> Result<Rules, RulesError> {
    let root = object(document, "")?;
    check_keys(
        root,
        "",
        &[
            "timeout_s",
            "rehearsal_balls",
            "initial_score",
            "goal_strength",
            "conditions",
        ],
        "timeout_s, rehearsal_balls, initial_score, goal_strength or conditions",
    )?;
    let timeout_s = match field(root, "timeout_s") {
        Some(v) => natural(v, "timeout_s")?,
        None => 0,
    };
    let rehearsal_balls = match field(root, "rehearsal_balls") {
        Some(v) => natural(v, "rehearsal_balls")?,
        None => 0,
    };
    let initial_score = match field(root, "initial_score") {
        Some(v) => initial_score(v)?,
        None => Score::default(),
    };
    let strength = match field(root, "goal_strength") {
        Some(v) => goal_strength(v)?,
        None => [[[PLAIN_BALL; 2]; 2]; 3],
    };
    let mut program = Program::default();
    let Some(conditions_doc) = field(root, "conditions") else {
        return Err(RulesError::new("", Problem::Missing("conditions".into())));
    };
    let conditions_map = object(conditions_doc, "conditions")?;
    check_keys(
        conditions_map,
        "conditions",
        &PHASE_NAMES,
        "default, tie_break or timeout",
    )?;
    if field(conditions_map, "default").is_none() {
        return Err(RulesError::new(
            "conditions",
            Problem::Missing("default".into()),
        ));
    }
    let mut conditions = [None; 3];
    let mut tie_break_start = None;
    for phase in Phase::ALL {
        let Some(doc) = field(conditions_map, phase.name()) else {
            continue;
        };
        let path = format!("conditions.{}", phase.name());
        let map = object(doc, &path)?;
        let start = if phase == Phase::TieBreak {
            check_keys(
                map,
                &path,
                &["start_rule", "win_rule", "lose_rule"],
                TIE_BREAK_KEYS,
            )?;
            rule(&mut program, map, &path, "start_rule")?
        } else {
            check_keys(
                map,
                &path,
                &["win_rule", "lose_rule"],
                "win_rule or lose_rule",
            )?;
            None
        };
        let Some(win) = rule(&mut program, map, &path, "win_rule")? else {
            return Err(RulesError::new(&path, Problem::Missing("win_rule".into())));
        };
        let lose = rule(&mut program, map, &path, "lose_rule")?;
        conditions[phase as usize] = Some(Conditions { win, lose });
        if phase == Phase::TieBreak {
            tie_break_start = start;
        }
    }
    Ok(Rules {
        source: root.clone(),
        timeout_s,
        rehearsal_balls,
        initial_score,
        strength,
        conditions,
        tie_break_start,
        program,
    })
}

const PHASE_NAMES: [&str; 3] = ["default", "tie_break", "timeout"];
const TIE_BREAK_KEYS: &str = "start_rule, win_rule or lose_rule";

fn rule(
    program: &mut Program,
    map: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Option<RuleRef>, RulesError> {
    match field(map, key) {
        Some(doc) => {
            let rule = parse_rule(doc, &format!("{path}.{key}"))?;
            Ok(Some(RuleRef(program.add(&rule))))
        }
        None => Ok(None),
    }
}

fn initial_score(doc: &Value) -> Result<Score, RulesError> {
    let map = object(doc, "initial_score")?;
    check_keys(map, "initial_score", &["hinge", "lock"], "hinge or lock")?;
    let mut score = Score::default();
    for side in Side::ALL {
        if let Some(v) = field(map, side.name()) {
            let path = format!("initial_score.{side}");
            let points = i64::try_from(natural(v, &path)?).map_err(|_| {
                let found = describe(v);
                RulesError::new(
                    &path,
                    Problem::OutOfRange {
                        expected: "a score",
                        found,
                    },
                )
            })?;
            score.add(side, points);
        }
    }
    Ok(score)
}

fn goal_strength(doc: &Value) -> Result<[[[Strength; 2]; 2]; 3], RulesError> {
    let map = object(doc, "goal_strength")?;
    check_keys(
        map,
        "goal_strength",
        &PHASE_NAMES,
        "default, tie_break or timeout",
    )?;
    let Some(default_doc) = field(map, "default") else {
        return Err(RulesError::new(
            "goal_strength",
            Problem::Missing("default".into()),
        ));
    };
    let default = phase_strength(default_doc, "goal_strength.default", None)?;
    let mut table = [default; 3];
    for phase in [Phase::TieBreak, Phase::Timeout] {
        if let Some(doc) = field(map, phase.name()) {
            let path = format!("goal_strength.{phase}");
            table[phase as usize] = phase_strength(doc, &path, Some(&default))?;
        }
    }
    Ok(table)
}

/// One phase's table; a side or kind it lacks comes from `fallback` (the `default` table),
/// and without a fallback (the `default` table itself) it is an error.
fn phase_strength(
    doc: &Value,
    path: &str,
    fallback: Option<&[[Strength; 2]; 2]>,
) -> Result<[[Strength; 2]; 2], RulesError> {
    let map = object(doc, path)?;
    check_keys(map, path, &["hinge", "lock"], "hinge or lock")?;
    let mut table = [[PLAIN_BALL; 2]; 2];
    for side in Side::ALL {
        let side_path = format!("{path}.{side}");
        let side_map = match field(map, side.name()) {
            Some(v) => Some(object(v, &side_path)?),
            None => None,
        };
        if let Some(side_map) = side_map {
            check_keys(side_map, &side_path, &["goal", "inout"], "goal or inout")?;
        }
        for kind in BallKind::ALL {
            let given = side_map.and_then(|m| field(m, kind.name()));
            table[side as usize][kind as usize] = match (given, fallback) {
                (Some(v), _) => strength(v, &format!("{side_path}.{kind}"))?,
                (None, Some(fallback)) => fallback[side as usize][kind as usize],
                (None, None) if side_map.is_none() => {
                    return Err(RulesError::new(
                        path,
                        Problem::Missing(format!("side \"{side}\"")),
                    ));
                }
                (None, None) => {
                    let missing = Problem::Missing(format!("kind \"{kind}\""));
                    return Err(RulesError::new(&side_path, missing));
                }
            };
        }
    }
    Ok(table)
}

fn strength(doc: &Value, path: &str) -> Result<Strength, RulesError> {
    let wrong = || {
        let expected = "[scorer points, opponent points] (2 integers)";
        RulesError::new(
            path,
            Problem::Type {
                expected,
                found: describe(doc),
            },
        )
    };
    let Value::Array(items) = doc else {
        return Err(wrong());
    };
    if items.len() != 2 {
        return Err(wrong());
    }
    let mut points = [0; 2];
    for (i, item) in items.iter().enumerate() {
        points[i] = integer(item, &format!("{path}[{i}]"))?;
    }
    Ok(points)
}

fn integer(doc: &Value, path: &str) -> Result<i64, RulesError> {
    match doc {
        Value::Number(n) => n
            .as_i64()
            .ok_or_else(|| RulesError::new(path, Problem::NotInteger(n.to_string()))),
        _ => Err(RulesError::new(
            path,
            Problem::Type {
                expected: "an integer",
                found: describe(doc),
            },
        )),
    }
}

fn natural(doc: &Value, path: &str) -> Result<u64, RulesError> {
    match doc {
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(natural), _) => Ok(natural),
            (None, Some(_)) => Err(RulesError::new(
                path,
                Problem::OutOfRange {
                    expected: "a non-negative integer",
                    found: n.to_string(),
                },
            )),
            (None, None) => Err(RulesError::new(path, Problem::NotInteger(n.to_string()))),
        },
        _ => Err(RulesError::new(
            path,
            Problem::Type {
                expected: "a non-negative integer",
                found: describe(doc),
            },
        )),
    }
}

fn object<'a>(doc: &'a Value, path: &str) -> Result<&'a Map<String, Value>, RulesError> {
    match doc {
        Value::Object(map) => Ok(map),
        _ => {
            let expected = if path.is_empty() {
                "a rules document (a JSON object)"
            } else {
                "an object"
            };
            Err(RulesError::new(
                path,
                Problem::Type {
                    expected,
                    found: describe(doc),
                },
            ))
        }
    }
}

/// A key whose value is `null` counts as absent.
fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|v| !v.is_null())
}

fn check_keys(
    map: &Map<String, Value>,
    path: &str,
    known: &[&str],
    expected: &'static str,
) -> Result<(), RulesError> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(key) if path.is_empty() => Err(RulesError::new(key, Problem::UnknownKey(expected))),
        Some(key) => Err(RulesError::new(
            &format!("{path}.{key}"),
            Problem::UnknownKey(expected),
        )),
        None => Ok(()),
    }
}
