//! The shipped example mapping (`schemas/examples/bingo.game.open.v1.json`, what the bingo README
//! sends) credits the referee's counted goals, and neither its rehearsal balls nor own goals;
//! the referee's cancel of a goal names the same occurrence as the goal.

use arcade_bingo::domain::{ActivitySource, SourceSpec};
use serde_json::Value;

fn example(message_type: &str) -> Value {
    let path = format!(
        "{}/../../schemas/examples/{message_type}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[test]
fn the_example_mapping_credits_counted_goals_but_not_own_goals() {
    let open = example("bingo.game.open.v1");
    let spec: SourceSpec = serde_json::from_value(open["activitySources"][0].clone()).unwrap();
    assert_eq!(spec.message_type, "table.goal.scored.v1");
    let source = ActivitySource::new(1, spec).unwrap();
    // The committed goal, as referees before `ownGoal` and after write it.
    let goal = example("table.goal.scored.v1");
    assert!(goal.get("ownGoal").is_none(), "left out when false: {goal}");
    let cancel = example("table.goal.cancelled.v1");
    let key = source.undo_key(&goal);
    assert!(key.is_some());
    assert_eq!(
        source.undo_key(&cancel),
        key,
        "the example cancel undoes the example goal"
    );
    assert!(source.admits(&goal));
    let mut explicit = goal.clone();
    explicit["ownGoal"] = Value::Bool(false);
    assert!(source.admits(&explicit));
    let mut own = goal.clone();
    own["ownGoal"] = Value::Bool(true);
    assert!(!source.admits(&own), "an own goal credits nobody");
    let mut rehearsal = goal;
    rehearsal["counted"] = Value::Bool(false);
    assert!(!source.admits(&rehearsal));
}
