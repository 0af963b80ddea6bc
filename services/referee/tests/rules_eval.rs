//! Every operator and every variable, evaluated for each side: the same rule gives different
//! answers for hinge and lock because `$score` and `$other_score` swap.

mod common;

use arcade_referee::{Phase, Rules, Score, Side};
use common::with_win_rule;
use serde_json::{Value, json};

/// Whether `rule` holds for `side` at hinge–lock.
fn holds(rule: Value, side: Side, hinge: u64, lock: u64) -> bool {
    let rules =
        Rules::parse(&with_win_rule(rule.clone())).unwrap_or_else(|e| panic!("{rule}: {e}"));
    let win = rules.conditions(Phase::Default).unwrap().win;
    rules.holds(win, side, Score::new(hinge, lock))
}

#[test]
fn variables_resolve_for_the_evaluated_side() {
    // hinge 6 – lock 4
    for (var, for_hinge, for_lock) in [
        ("$score", 6, 4),
        ("$other_score", 4, 6),
        ("$score_delta", 2, 2),
        ("$max_score", 6, 6),
    ] {
        assert!(
            holds(json!({"$eq": [var, for_hinge]}), Side::Hinge, 6, 4),
            "{var} for hinge"
        );
        assert!(
            holds(json!({"$eq": [var, for_lock]}), Side::Lock, 6, 4),
            "{var} for lock"
        );
        assert!(
            !holds(json!({"$eq": [var, for_hinge + 1]}), Side::Hinge, 6, 4),
            "{var} for hinge"
        );
    }
}

#[test]
fn score_delta_is_absolute() {
    assert!(holds(
        json!({"$eq": ["$score_delta", 3]}),
        Side::Hinge,
        1,
        4
    ));
    assert!(holds(json!({"$eq": ["$score_delta", 3]}), Side::Lock, 1, 4));
}

#[test]
fn eq_holds_when_all_arguments_are_equal() {
    assert!(holds(
        json!({"$eq": ["$score", "$other_score"]}),
        Side::Hinge,
        3,
        3
    ));
    assert!(!holds(
        json!({"$eq": ["$score", "$other_score"]}),
        Side::Hinge,
        3,
        2
    ));
    assert!(holds(
        json!({"$eq": [3, "$score", "$max_score"]}),
        Side::Lock,
        1,
        3
    ));
    assert!(!holds(
        json!({"$eq": [3, "$score", "$max_score", 4]}),
        Side::Lock,
        1,
        3
    ));
    // booleans
    assert!(holds(
        json!({"$eq": [false, {"$gt": ["$score", 5]}]}),
        Side::Hinge,
        1,
        3
    ));
    assert!(!holds(
        json!({"$eq": [true, {"$gt": ["$score", 5]}]}),
        Side::Hinge,
        1,
        3
    ));
}

#[test]
fn comparisons_compare_the_first_argument_to_the_second() {
    let cases = [
        ("$gt", [false, false, true]),
        ("$geq", [false, true, true]),
        ("$lt", [true, false, false]),
        ("$leq", [true, true, false]),
    ];
    for (op, expected) in cases {
        // $score compared with 5 at scores 4, 5, 6
        for (score, want) in [4, 5, 6].into_iter().zip(expected) {
            assert_eq!(
                holds(json!({op: ["$score", 5]}), Side::Hinge, score, 0),
                want,
                "{op} {score} 5"
            );
        }
    }
}

#[test]
fn and_needs_every_argument_and_or_any() {
    let five_and_two = json!({"$and": [{"$geq": ["$score", 5]}, {"$geq": ["$score_delta", 2]}]});
    assert!(holds(five_and_two.clone(), Side::Hinge, 6, 4));
    assert!(!holds(five_and_two.clone(), Side::Hinge, 5, 4));
    assert!(!holds(five_and_two, Side::Lock, 6, 4));
    let seven_or_two = json!({"$or": [{"$geq": ["$score", 7]}, {"$geq": ["$score_delta", 2]}]});
    assert!(holds(seven_or_two.clone(), Side::Hinge, 7, 6));
    assert!(holds(seven_or_two.clone(), Side::Hinge, 3, 1));
    assert!(!holds(seven_or_two, Side::Hinge, 6, 5));
    assert!(holds(json!({"$and": [true]}), Side::Hinge, 0, 0));
    assert!(!holds(json!({"$or": [false, false]}), Side::Hinge, 0, 0));
}

#[test]
fn literals_are_rules_too() {
    assert!(holds(json!(true), Side::Hinge, 0, 0));
    assert!(!holds(json!(false), Side::Lock, 0, 0));
    assert!(holds(json!({"$gt": [2, 1]}), Side::Lock, 0, 0));
}

#[test]
fn the_sources_worked_evaluation_six_four() {
    // "évaluation pour hinge, score 6-4 … → true"
    let rule = json!({"$and": [{"$geq": ["$score", 5]}, {"$geq": ["$score_delta", 2]}]});
    assert!(holds(rule.clone(), Side::Hinge, 6, 4));
    assert!(!holds(rule, Side::Lock, 6, 4));
}

#[test]
fn the_tie_break_win_rule_of_the_source() {
    let rules = common::bar();
    let win = rules.conditions(Phase::TieBreak).unwrap().win;
    let at = |h, l, side| rules.holds(win, side, Score::new(h, l));
    assert!(at(7, 6, Side::Hinge), "7 points win outright");
    assert!(at(6, 4, Side::Hinge), "2 ahead wins");
    assert!(!at(6, 5, Side::Hinge));
    assert!(!at(6, 5, Side::Lock));
    assert!(!at(4, 6, Side::Hinge));
}

#[test]
fn comparisons_with_extreme_literals_hold_exactly() {
    assert!(!holds(
        json!({"$gt": ["$score", i64::MAX]}),
        Side::Hinge,
        5,
        0
    ));
    assert!(!holds(
        json!({"$lt": ["$score", i64::MIN]}),
        Side::Hinge,
        5,
        0
    ));
    assert!(holds(
        json!({"$lt": ["$score", i64::MAX]}),
        Side::Hinge,
        5,
        0
    ));
    assert!(holds(
        json!({"$gt": ["$score", i64::MIN]}),
        Side::Hinge,
        5,
        0
    ));
    assert!(holds(
        json!({"$lt": [i64::MIN, "$score"]}),
        Side::Hinge,
        5,
        0
    ));
    assert!(!holds(
        json!({"$gt": [i64::MIN, "$score"]}),
        Side::Hinge,
        5,
        0
    ));
}

#[test]
fn literal_only_rules_are_evaluated_too() {
    assert!(holds(json!({"$eq": [2, 2, 2]}), Side::Hinge, 0, 0));
    assert!(!holds(json!({"$eq": [2, 2, 3]}), Side::Hinge, 0, 0));
    assert!(!holds(json!({"$leq": [3, 2]}), Side::Lock, 0, 0));
    assert!(holds(
        json!({"$eq": [true, true, {"$lt": [1, 2]}]}),
        Side::Lock,
        0,
        0
    ));
    assert!(!holds(
        json!({"$eq": [true, {"$eq": [false, true]}, true]}),
        Side::Lock,
        0,
        0
    ));
}

#[test]
fn nested_boolean_equalities_keep_their_own_first_value() {
    // $eq[ $eq[a, b], $eq[c, d] ] with inner results false, false → true
    let rule = json!({"$eq": [
        {"$eq": [{"$gt": ["$score", 5]}, {"$lt": ["$score", 5]}]},
        {"$eq": [{"$eq": ["$score", 1]}, true]}
    ]});
    assert!(holds(rule.clone(), Side::Hinge, 0, 0));
    assert!(!holds(rule, Side::Hinge, 1, 0));
}
