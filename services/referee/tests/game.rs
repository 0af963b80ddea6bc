//! The game's exact semantics, ball by ball: initial score, rehearsal balls, goal strengths per
//! phase, flooring at 0, winners with win and lose rules, tie-break, timeout, and the ball-lock
//! decision by simulating the four possible next balls.

mod common;

use arcade_referee::{BallKind, Ibr, IbrLock, Phase, Play, Rules, Score, Side};
use common::bar;
use serde_json::{Value, json};

use BallKind::{Goal, Inout};
use Side::{Hinge, Lock};

fn rules(document: Value) -> Rules {
    Rules::parse(&document).unwrap()
}

fn example(name: &str) -> Rules {
    let text =
        std::fs::read_to_string(format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    rules(serde_json::from_str(&text).unwrap())
}

fn at(hinge: u64, lock: u64, phase: Phase) -> Play {
    Play {
        score: Score::new(hinge, lock),
        phase,
        balls: hinge + lock,
        winner: None,
    }
}

fn play(rules: &Rules, balls: &[(Side, BallKind)]) -> Play {
    balls.iter().fold(Play::start(rules), |p, &(side, kind)| {
        p.after_ball(rules, side, kind)
    })
}

const IBR_HINGE_ONLY: Ibr = Ibr {
    hinge: IbrLock::Locked,
    lock: IbrLock::Released,
};

#[test]
fn a_game_starts_at_the_initial_score_in_default() {
    let r = rules(
        json!({"initial_score": {"hinge": 2, "lock": 1}, "conditions": {"default": {"win_rule": false}}}),
    );
    assert_eq!(
        Play::start(&r),
        Play {
            score: Score::new(2, 1),
            phase: Phase::Default,
            balls: 0,
            winner: None
        }
    );
}

#[test]
fn rehearsal_balls_change_nothing_then_balls_count() {
    let r = rules(
        json!({"rehearsal_balls": 2, "conditions": {"default": {"win_rule": {"$geq": ["$score", 1]}}}}),
    );
    let p = play(&r, &[(Hinge, Goal), (Lock, Inout)]);
    assert_eq!((p.score, p.balls, p.winner), (Score::new(0, 0), 2, None));
    assert_eq!(
        p.ibr(&r),
        Ibr::LOCKED,
        "the next ball counts, and either side would win"
    );
    let p = p.after_ball(&r, Lock, Goal);
    assert_eq!((p.score, p.winner), (Score::new(0, 1), Some(Lock)));
}

#[test]
fn during_rehearsal_the_locks_are_released_even_when_a_counted_ball_would_win() {
    let r = rules(
        json!({"rehearsal_balls": 1, "conditions": {"default": {"win_rule": {"$geq": ["$score", 1]}}}}),
    );
    assert_eq!(Play::start(&r).ibr(&r), Ibr::RELEASED);
}

#[test]
fn goal_strength_of_the_current_phase_counts() {
    let r = example("aggressive.rules.json");
    let p = at(2, 2, Phase::Default).after_ball(&r, Lock, Inout);
    assert_eq!(
        p.score,
        Score::new(0, 5),
        "lock inout is [3, -2] in default"
    );
    let p = at(5, 5, Phase::TieBreak).after_ball(&r, Lock, Inout);
    assert_eq!(p.score, Score::new(4, 5), "inout is [0, -1] in tie-break");
    let p = at(5, 5, Phase::Timeout).after_ball(&r, Hinge, Inout);
    assert_eq!(
        p.score,
        Score::new(6, 4),
        "timeout has no table: default's [1, -1]"
    );
}

#[test]
fn scores_are_floored_at_zero() {
    let r = example("aggressive.rules.json");
    let p = Play::start(&r).after_ball(&r, Hinge, Inout);
    assert_eq!(p.score, Score::new(1, 0));
    let p = at(1, 0, Phase::Default).after_ball(&r, Lock, Inout);
    assert_eq!(p.score, Score::new(0, 3));
}

#[test]
fn a_side_wins_by_its_win_rule() {
    let r = bar();
    assert_eq!(
        at(4, 2, Phase::Default).after_ball(&r, Hinge, Goal).winner,
        Some(Hinge)
    );
    assert_eq!(
        at(2, 4, Phase::Default).after_ball(&r, Lock, Inout).winner,
        Some(Lock)
    );
    assert_eq!(
        at(4, 3, Phase::Default).after_ball(&r, Hinge, Goal).winner,
        Some(Hinge)
    );
}

#[test]
fn a_side_wins_when_the_lose_rule_holds_for_the_other() {
    // aggressive: losing 0 against 4 or more ends the game in default.
    let r = example("aggressive.rules.json");
    let p = at(3, 0, Phase::Default).after_ball(&r, Hinge, Goal);
    assert_eq!((p.score, p.winner), (Score::new(4, 0), Some(Hinge)));
}

#[test]
fn no_winner_when_both_sides_qualify() {
    let r = rules(json!({"conditions": {"default": {"win_rule": {"$geq": ["$max_score", 1]}}}}));
    assert_eq!(Play::start(&r).after_ball(&r, Hinge, Goal).winner, None);
}

#[test]
fn four_four_then_a_hinge_goal_starts_the_tie_break() {
    let r = bar();
    let p = at(4, 4, Phase::Default).after_ball(&r, Hinge, Goal);
    assert_eq!(
        (p.score, p.phase, p.winner),
        (Score::new(5, 4), Phase::TieBreak, None)
    );
    let p = p.after_ball(&r, Lock, Goal).after_ball(&r, Lock, Goal);
    assert_eq!(
        (p.score, p.phase, p.winner),
        (Score::new(5, 6), Phase::TieBreak, None)
    );
    let p = p.after_ball(&r, Lock, Goal);
    assert_eq!(
        (p.score, p.winner),
        (Score::new(5, 7), Some(Lock)),
        "7 wins outright"
    );
}

#[test]
fn the_winner_is_computed_again_under_the_tie_break_conditions() {
    let r = rules(json!({"conditions": {
        "default": {"win_rule": {"$geq": ["$score", 9]}},
        "tie_break": {"start_rule": {"$geq": ["$max_score", 5]}, "win_rule": {"$and": [{"$gt": ["$score", "$other_score"]}, {"$geq": ["$score_delta", 3]}]}}
    }}));
    let p = at(4, 1, Phase::Default).after_ball(&r, Hinge, Goal);
    assert_eq!((p.phase, p.winner), (Phase::TieBreak, Some(Hinge)));
    assert_eq!(
        at(4, 1, Phase::Default).ibr(&r),
        IBR_HINGE_ONLY,
        "the simulation follows the phase change"
    );
}

#[test]
fn a_tie_break_that_could_never_start_is_refused_with_its_path() {
    let refused = Rules::parse(
        &json!({"conditions": {"default": {"win_rule": false}, "tie_break": {"win_rule": true}}}),
    )
    .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "conditions.tie_break: missing start_rule: without it the tie-break never starts"
    );
}

#[test]
fn the_timeout_starts_when_the_clock_reaches_timeout_s() {
    let r = bar();
    let p = at(3, 2, Phase::TieBreak);
    assert_eq!(p.after_clock(&r, 899_999), None);
    let t = p.after_clock(&r, 900_000).unwrap();
    assert_eq!(
        (t.phase, t.winner),
        (Phase::Timeout, Some(Hinge)),
        "the leader wins at once"
    );
    assert_eq!(t.after_clock(&r, 1_000_000), None);
}

#[test]
fn a_tie_at_timeout_waits_for_the_next_goal() {
    let r = bar();
    let t = at(3, 3, Phase::Default).after_clock(&r, 900_000).unwrap();
    assert_eq!((t.phase, t.winner), (Phase::Timeout, None));
    assert_eq!(t.ibr(&r), Ibr::LOCKED, "any next ball decides");
    let p = t.after_ball(&r, Lock, Inout);
    assert_eq!(
        (p.score, p.phase, p.winner),
        (Score::new(3, 4), Phase::Timeout, Some(Lock))
    );
}

#[test]
fn no_timeout_without_timeout_s_or_timeout_conditions() {
    let r = rules(
        json!({"timeout_s": 0, "conditions": {"default": {"win_rule": false}, "timeout": {"win_rule": true}}}),
    );
    assert_eq!(Play::start(&r).after_clock(&r, u64::MAX), None);
    let r = rules(json!({"timeout_s": 10, "conditions": {"default": {"win_rule": false}}}));
    assert_eq!(Play::start(&r).after_clock(&r, u64::MAX), None);
}

#[test]
fn nothing_changes_after_a_win() {
    let r = bar();
    let won = at(4, 2, Phase::Default).after_ball(&r, Hinge, Goal);
    assert_eq!(won.winner, Some(Hinge));
    assert_eq!(won.after_ball(&r, Lock, Goal), won);
    assert_eq!(won.after_clock(&r, 10_000_000), None);
    assert_eq!(won.ibr(&r), Ibr::LOCKED);
}

#[test]
fn four_three_locks_hinge_and_releases_lock() {
    // The source's simulation: 4–3, hinge goal or inout → 5–3 hinge wins; lock → 4–4.
    assert_eq!(at(4, 3, Phase::Default).ibr(&bar()), IBR_HINGE_ONLY);
}

#[test]
fn four_four_releases_both() {
    assert_eq!(at(4, 4, Phase::Default).ibr(&bar()), Ibr::RELEASED);
    assert_eq!(Play::start(&bar()).ibr(&bar()), Ibr::RELEASED);
}

#[test]
fn the_decision_counts_inouts_too() {
    let r = example("aggressive.rules.json");
    // lock goal → 2–3, no; lock inout [3, -2] → 0–5, lock wins.
    assert_eq!(
        at(2, 2, Phase::Default).ibr(&r),
        Ibr {
            hinge: IbrLock::Released,
            lock: IbrLock::Locked
        }
    );
}
