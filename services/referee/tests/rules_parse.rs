//! The rules document is checked once, and every refusal names the JSON path of the bad node.

mod common;

use arcade_referee::domain::rules::{MAX_DEPTH, MAX_NODES};
use arcade_referee::{BallKind, Phase, Rules, Score, Side};
use common::{bar, refusal, with_win_rule};
use serde_json::{Value, json};

fn tie_break_win_rule(rule: Value) -> Value {
    json!({"conditions": {
        "default": {"win_rule": true},
        "tie_break": {"start_rule": true, "win_rule": rule}
    }})
}

#[test]
fn the_sources_rules_are_accepted_with_their_settings() {
    let rules = bar();
    assert_eq!(rules.timeout_s(), 900);
    assert_eq!(rules.timeout_ms(), Some(900_000));
    assert_eq!(rules.rehearsal_balls(), 0);
    assert_eq!(rules.initial_score(), Score::new(0, 0));
    assert!(rules.conditions(Phase::TieBreak).is_some());
    assert!(rules.tie_break_start().is_some());
    assert_eq!(
        rules.strength(Phase::TieBreak, Side::Lock, BallKind::Inout),
        [1, 0]
    );
}

#[test]
fn unknown_operator_is_named_with_its_path() {
    let rule = json!({"$or": [{"$geq": ["$score", 7]}, {"$and": [{"$gte": ["$score", 1]}]}]});
    assert_eq!(
        refusal(tie_break_win_rule(rule)),
        r#"conditions.tie_break.win_rule.$or[1].$and[0]: unknown operator "$gte""#
    );
}

#[test]
fn unknown_variable_is_refused() {
    assert_eq!(
        refusal(with_win_rule(json!({"$geq": ["$points", 5]}))),
        r#"conditions.default.win_rule.$geq[0]: unknown variable "$points""#
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$geq": ["score", 5]}))),
        r#"conditions.default.win_rule.$geq[0]: unknown variable "score""#
    );
}

#[test]
fn wrong_arity_is_refused_for_each_family() {
    assert_eq!(
        refusal(with_win_rule(json!({"$gt": ["$score", 5, 6]}))),
        "conditions.default.win_rule: $gt takes exactly 2 arguments, found 3"
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$leq": ["$score"]}))),
        "conditions.default.win_rule: $leq takes exactly 2 arguments, found 1"
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$eq": ["$score"]}))),
        "conditions.default.win_rule: $eq takes at least 2 arguments, found 1"
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$and": []}))),
        "conditions.default.win_rule: $and takes at least 1 argument, found 0"
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$or": []}))),
        "conditions.default.win_rule: $or takes at least 1 argument, found 0"
    );
}

#[test]
fn arguments_must_be_an_array() {
    assert_eq!(
        refusal(with_win_rule(json!({"$and": {"$geq": ["$score", 5]}}))),
        "conditions.default.win_rule: the arguments of $and must be an array, found an object with 1 keys"
    );
}

#[test]
fn an_operator_node_has_exactly_one_key() {
    assert_eq!(
        refusal(with_win_rule(json!({"$and": [true], "$or": [true]}))),
        r#"conditions.default.win_rule: an operator node has exactly one key, found 2 ("$and", "$or")"#
    );
    assert_eq!(
        refusal(with_win_rule(json!({}))),
        "conditions.default.win_rule: an operator node has exactly one key, found none"
    );
}

#[test]
fn an_integer_where_a_boolean_is_needed_is_refused() {
    assert_eq!(
        refusal(with_win_rule(json!({"$and": [{"$geq": ["$score", 5]}, 2]}))),
        "conditions.default.win_rule.$and[1]: expected a boolean, found integer 2"
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$or": ["$score_delta"]}))),
        r#"conditions.default.win_rule.$or[0]: expected a boolean, found variable "$score_delta" (an integer)"#
    );
}

#[test]
fn a_boolean_where_an_integer_is_needed_is_refused() {
    assert_eq!(
        refusal(with_win_rule(json!({"$geq": [true, 5]}))),
        "conditions.default.win_rule.$geq[0]: expected an integer, found boolean true"
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$lt": ["$score", {"$eq": [1, 1]}]}))),
        "conditions.default.win_rule.$lt[1]: expected an integer, found operator $eq (a boolean)"
    );
}

#[test]
fn eq_arguments_must_share_the_type_of_the_first() {
    assert_eq!(
        refusal(with_win_rule(json!({"$eq": ["$score", 5, true]}))),
        "conditions.default.win_rule.$eq[2]: expected an integer, found boolean true"
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$eq": [true, "$score"]}))),
        r#"conditions.default.win_rule.$eq[1]: expected a boolean, found variable "$score" (an integer)"#
    );
}

#[test]
fn a_top_level_rule_must_be_boolean() {
    assert_eq!(
        refusal(with_win_rule(json!("$score"))),
        r#"conditions.default.win_rule: expected a boolean, found variable "$score" (an integer)"#
    );
    assert_eq!(
        refusal(with_win_rule(json!(5))),
        "conditions.default.win_rule: expected a boolean, found integer 5"
    );
    let lose = json!({"conditions": {"default": {"win_rule": false, "lose_rule": 0}}});
    assert_eq!(
        refusal(lose),
        "conditions.default.lose_rule: expected a boolean, found integer 0"
    );
    let start = json!({"conditions": {
        "default": {"win_rule": false},
        "tie_break": {"start_rule": "$max_score", "win_rule": true}
    }});
    assert_eq!(
        refusal(start),
        r#"conditions.tie_break.start_rule: expected a boolean, found variable "$max_score" (an integer)"#
    );
}

#[test]
fn non_integer_numbers_are_refused_in_rules_and_settings() {
    assert_eq!(
        refusal(with_win_rule(json!({"$geq": ["$score", 4.5]}))),
        "conditions.default.win_rule.$geq[1]: 4.5 is not an integer"
    );
    assert_eq!(
        refusal(with_win_rule(json!({"$geq": ["$score", 5.0]}))),
        "conditions.default.win_rule.$geq[1]: 5.0 is not an integer"
    );
    let mut doc = with_win_rule(json!(true));
    doc["timeout_s"] = json!(90.5);
    assert_eq!(refusal(doc), "timeout_s: 90.5 is not an integer");
    let mut doc = with_win_rule(json!(true));
    doc["goal_strength"] = json!({"default": {
        "hinge": {"goal": [1, 0], "inout": [1.5, 0]},
        "lock": {"goal": [1, 0], "inout": [1, 0]}
    }});
    assert_eq!(
        refusal(doc),
        "goal_strength.default.hinge.inout[0]: 1.5 is not an integer"
    );
}

#[test]
fn null_strings_and_arrays_are_not_rules() {
    assert_eq!(
        refusal(with_win_rule(json!({"$and": [null]}))),
        "conditions.default.win_rule.$and[0]: expected a rule (an operator, a variable, an integer or a boolean), found null"
    );
    assert_eq!(
        refusal(with_win_rule(json!([true]))),
        "conditions.default.win_rule: expected a rule (an operator, a variable, an integer or a boolean), found an array of 1 items"
    );
}

#[test]
fn goal_strength_default_must_have_every_side_and_kind() {
    let mut doc = with_win_rule(json!(true));
    doc["goal_strength"] = json!({"default": {"hinge": {"goal": [1, 0], "inout": [1, 0]}}});
    assert_eq!(
        refusal(doc.clone()),
        r#"goal_strength.default: missing side "lock""#
    );
    doc["goal_strength"]["default"]["lock"] = json!({"goal": [1, 0]});
    assert_eq!(
        refusal(doc),
        r#"goal_strength.default.lock: missing kind "inout""#
    );
    let mut doc = with_win_rule(json!(true));
    doc["goal_strength"] = json!({"tie_break": {}});
    assert_eq!(refusal(doc), "goal_strength: missing default");
}

#[test]
fn goal_strength_entries_are_pairs_of_integers() {
    let mut doc = with_win_rule(json!(true));
    doc["goal_strength"] = json!({"default": {
        "hinge": {"goal": [1], "inout": [1, 0]},
        "lock": {"goal": [1, 0], "inout": [1, 0]}
    }});
    assert_eq!(
        refusal(doc),
        "goal_strength.default.hinge.goal: expected [scorer points, opponent points] (2 integers), found an array of 1 items"
    );
}

#[test]
fn nesting_deeper_than_32_operator_levels_is_refused() {
    /// `operators` nested `$and`s around a comparison of a variable and a literal: the
    /// innermost operator is `$geq`, whose arguments are not levels.
    fn nested(operators: usize) -> Value {
        let leaf = json!({"$geq": ["$score", 5]});
        (1..operators).fold(leaf, |inner, _| json!({"$and": [inner]}))
    }
    assert_eq!(MAX_DEPTH, 32);
    assert!(Rules::parse(&with_win_rule(nested(MAX_DEPTH))).is_ok());
    let message = refusal(with_win_rule(nested(MAX_DEPTH + 1)));
    let path = format!(
        "conditions.default.win_rule{}",
        ".$and[0]".repeat(MAX_DEPTH)
    );
    assert_eq!(message, format!("{path}: nesting deeper than 32 levels"));
}

#[test]
fn a_tie_break_without_start_rule_is_refused_with_its_path() {
    let document = json!({"conditions": {
        "default": {"win_rule": {"$geq": ["$score", 5]}},
        "tie_break": {"win_rule": {"$geq": ["$score_delta", 2]}}
    }});
    assert_eq!(
        refusal(document),
        "conditions.tie_break: missing start_rule: without it the tie-break never starts"
    );
}

#[test]
fn an_initial_score_that_already_wins_is_refused_naming_the_side() {
    let document = json!({
        "initial_score": {"hinge": 9},
        "conditions": {"default": {"win_rule": {"$geq": ["$score", 5]}}}
    });
    assert_eq!(
        refusal(document),
        "initial_score: hinge already wins at 9–0 (hinge–lock) under conditions.default, before any ball is played"
    );
    let lose_rule = json!({
        "initial_score": {"hinge": 0, "lock": 4},
        "conditions": {"default": {"win_rule": false, "lose_rule": {"$geq": ["$other_score", 4]}}}
    });
    assert!(refusal(lose_rule).starts_with("initial_score: lock already wins at 0–4"));
    let both_qualify = json!({
        "initial_score": {"hinge": 9, "lock": 9},
        "conditions": {"default": {"win_rule": {"$geq": ["$score", 5]}}}
    });
    assert!(
        Rules::parse(&both_qualify).is_ok(),
        "nobody wins while both qualify"
    );
}

/// The issue's case: 6–0 does not win under `default`, but the tie-break's start rule already
/// holds there and its win rule gives hinge the game at the first ball of either side.
#[test]
fn an_initial_score_that_already_wins_the_tie_break_is_refused_naming_the_phase() {
    let document = json!({
        "initial_score": {"hinge": 6, "lock": 0},
        "conditions": {
            "default": {"win_rule": {"$and": [{"$geq": ["$score", 10]}, {"$geq": ["$score_delta", 2]}]}},
            "tie_break": {
                "start_rule": {"$geq": ["$max_score", 5]},
                "win_rule": {"$geq": ["$score", 6]}
            }
        }
    });
    assert_eq!(
        refusal(document.clone()),
        "initial_score: hinge already wins at 6–0 (hinge–lock) under conditions.tie_break (its start_rule holds at that score), before any ball is played"
    );
    // The log replays a game started before the check existed.
    assert!(Rules::reload(&document).is_ok());
    // The same score with a tie-break that starts later is playable.
    let mut later = document;
    later["conditions"]["tie_break"]["start_rule"] = json!({"$geq": ["$max_score", 7]});
    assert!(Rules::parse(&later).is_ok());
}

#[test]
fn more_than_512_nodes_are_refused() {
    // {"$and": [true × n]} has n + 1 nodes.
    let flat = |n: usize| with_win_rule(json!({"$and": vec![json!(true); n]}));
    assert!(Rules::parse(&flat(MAX_NODES - 1)).is_ok());
    assert_eq!(
        refusal(flat(MAX_NODES)),
        "conditions.default.win_rule: the rule has more than 512 nodes"
    );
}

#[test]
fn unknown_keys_and_missing_conditions_are_refused() {
    let mut doc = with_win_rule(json!(true));
    doc["timeout"] = json!(900);
    assert_eq!(
        refusal(doc),
        "timeout: unknown key (expected timeout_s, rehearsal_balls, initial_score, goal_strength or conditions)"
    );
    let doc = json!({"conditions": {"default": {"win_rul": true}}});
    assert_eq!(
        refusal(doc),
        "conditions.default.win_rul: unknown key (expected win_rule or lose_rule)"
    );
    let doc =
        json!({"conditions": {"default": {"win_rule": true}, "overtime": {"win_rule": true}}});
    assert_eq!(
        refusal(doc),
        "conditions.overtime: unknown key (expected default, tie_break or timeout)"
    );
    assert_eq!(
        refusal(json!({"conditions": {"default": {}}})),
        "conditions.default: missing win_rule"
    );
    assert_eq!(
        refusal(json!({"conditions": {}})),
        "conditions: missing default"
    );
    assert_eq!(refusal(json!({})), "missing conditions");
    assert_eq!(
        refusal(json!([1])),
        "expected a rules document (a JSON object), found an array of 1 items"
    );
}

#[test]
fn settings_must_be_non_negative_integers() {
    let mut doc = with_win_rule(json!(true));
    doc["rehearsal_balls"] = json!(-1);
    assert_eq!(
        refusal(doc),
        "rehearsal_balls: expected a non-negative integer, found -1"
    );
    let mut doc = with_win_rule(json!(true));
    doc["initial_score"] = json!({"hinge": "2"});
    assert_eq!(
        refusal(doc),
        r#"initial_score.hinge: expected a non-negative integer, found string "2""#
    );
}

#[test]
fn defaults_apply_when_settings_are_absent_or_null() {
    let mut doc = with_win_rule(json!(true));
    doc["timeout_s"] = Value::Null;
    let rules = Rules::parse(&doc).unwrap();
    assert_eq!(rules.timeout_s(), 0);
    assert_eq!(rules.timeout_ms(), None);
    assert_eq!(rules.rehearsal_balls(), 0);
    assert_eq!(rules.initial_score(), Score::new(0, 0));
    for phase in Phase::ALL {
        for side in Side::ALL {
            for kind in BallKind::ALL {
                assert_eq!(
                    rules.strength(phase, side, kind),
                    [1, 0],
                    "{phase} {side} {kind}"
                );
            }
        }
    }
}

#[test]
fn a_phase_missing_from_goal_strength_uses_default() {
    let mut doc = with_win_rule(json!(true));
    doc["goal_strength"] = json!({
        "default": {"hinge": {"goal": [1, 0], "inout": [2, -1]}, "lock": {"goal": [1, 0], "inout": [3, -2]}},
        "tie_break": {"lock": {"inout": [0, -1]}}
    });
    let rules = Rules::parse(&doc).unwrap();
    assert_eq!(
        rules.strength(Phase::Timeout, Side::Lock, BallKind::Inout),
        [3, -2]
    );
    assert_eq!(
        rules.strength(Phase::TieBreak, Side::Lock, BallKind::Inout),
        [0, -1]
    );
    assert_eq!(
        rules.strength(Phase::TieBreak, Side::Hinge, BallKind::Inout),
        [2, -1]
    );
    assert_eq!(
        rules.strength(Phase::TieBreak, Side::Lock, BallKind::Goal),
        [1, 0]
    );
}

#[test]
fn timeout_needs_timeout_conditions() {
    let mut doc = with_win_rule(json!(true));
    doc["timeout_s"] = json!(60);
    let rules = Rules::parse(&doc).unwrap();
    assert_eq!(rules.timeout_s(), 60);
    assert_eq!(
        rules.timeout_ms(),
        None,
        "no conditions.timeout: the clock changes nothing"
    );
}
