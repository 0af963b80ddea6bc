//! A reported goal's player against the game's players (one of the scoring side, an own goal
//! by the other side, refused when not in the game), and a start refused when its initial
//! score already wins under the tie-break.

mod common;

use arcade_referee::domain::referee::{GameRefusal, GoalReport, Players, StartGame};
use arcade_referee::{BallKind, Event, Input, Rejection, Side};
use arcade_runtime::testkit::Scenario;
use common::{TableRules, bar_document};
use serde_json::{Value, json};

const T0: u64 = 1_717_243_200_000;

fn start(rules: Value, players: Option<Players>) -> Input {
    Input::Start(StartGame {
        table_id: "t1".into(),
        game_id: "g1".into(),
        rules,
        players,
        at_ms: T0,
    })
}

fn goal(side: Side, player: Option<&str>) -> Input {
    Input::Report(GoalReport {
        table_id: "t1".into(),
        game_id: None,
        side,
        kind: BallKind::Goal,
        player: player.map(str::to_string),
        at_ms: T0 + 1_000,
    })
}

/// Table t1 once g1 started with these players.
fn started_with(players: Option<Players>) -> Scenario<TableRules> {
    let mut table = common::table([]);
    table.run(start(bar_document(), players));
    table
}

/// The table once g1 started with alice and carol on hinge, bob on lock.
fn started() -> Scenario<TableRules> {
    started_with(Some(Players {
        hinge: vec!["alice".into(), "carol".into()],
        lock: vec!["bob".into()],
    }))
}

/// `(side, player, own_goal)` of the goal a report gives.
fn scored(table: &Scenario<TableRules>, input: Input) -> (Side, Option<String>, bool) {
    match &table.when(input).events()[0] {
        Event::GoalScored(m) => (m.side, m.player.clone(), m.own_goal),
        other => panic!("expected a goal, got {other:?}"),
    }
}

#[test]
fn a_player_of_the_scoring_side_scores_and_one_of_the_other_side_scores_an_own_goal() {
    let table = started();
    let own = |side, player: &str| scored(&table, goal(side, Some(player)));
    assert_eq!(
        own(Side::Hinge, "carol"),
        (Side::Hinge, Some("carol".into()), false)
    );
    assert_eq!(
        own(Side::Lock, "bob"),
        (Side::Lock, Some("bob".into()), false)
    );
    // bob (lock) puts the ball in his own goal: it counts for hinge.
    assert_eq!(
        own(Side::Hinge, "bob"),
        (Side::Hinge, Some("bob".into()), true)
    );
    assert_eq!(
        own(Side::Lock, "alice"),
        (Side::Lock, Some("alice".into()), true)
    );
    // Nobody named: nothing to check.
    assert_eq!(
        scored(&table, goal(Side::Lock, None)),
        (Side::Lock, None, false)
    );
}

#[test]
fn a_player_not_in_the_game_is_refused_with_the_game_s_players() {
    let refused = started()
        .when(goal(Side::Hinge, Some("mallory")))
        .rejection();
    match &refused {
        Rejection::Report {
            game_id, reason, ..
        } => {
            assert_eq!(game_id, "g1");
            assert!(matches!(reason, GameRefusal::NotAPlayer { .. }));
        }
        other => panic!("expected a refused report, got {other:?}"),
    }
    assert_eq!(
        refused.to_string(),
        r#""mallory" does not play in game "g1" (hinge: alice, carol; lock: bob)"#
    );
}

#[test]
fn a_game_without_named_players_takes_any_player() {
    assert_eq!(
        scored(&started_with(None), goal(Side::Hinge, Some("mallory"))),
        (Side::Hinge, Some("mallory".into()), false)
    );
}

#[test]
fn a_start_whose_initial_score_wins_the_tie_break_is_refused_naming_the_phase() {
    let rules = json!({
        "initial_score": {"hinge": 6, "lock": 0},
        "conditions": {
            "default": {"win_rule": {"$and": [{"$geq": ["$score", 10]}, {"$geq": ["$score_delta", 2]}]}},
            "tie_break": {"start_rule": {"$geq": ["$max_score", 5]}, "win_rule": {"$geq": ["$score", 6]}}
        }
    });
    let refused = common::table([]).when(start(rules, None)).rejection();
    assert_eq!(
        refused.to_string(),
        "invalid rules: initial_score: hinge already wins at 6–0 (hinge–lock) under conditions.tie_break (its start_rule holds at that score), before any ball is played"
    );
}
