//! What a team sees of its rivals while the race runs: every `race.*` fact on the topic is
//! either one a team's queue is bound to (`TEAM_FACTS`) or one that tells a team's money or
//! points (`TEAM_SECRETS`), never both, never neither; a team's own account goes to its own
//! queue only.

use arcade_contracts::catalog::all_types;
use arcade_contracts::race::{TEAM_FACTS, TEAM_SECRETS, team_queue};
use arcade_contracts::{MessageKind, Route};

#[test]
fn every_race_fact_on_the_topic_is_either_seen_by_the_teams_or_secret() {
    let mut on_topic = Vec::new();
    for t in all_types()
        .into_iter()
        .filter(|t| t.name.starts_with("race.") && t.kind == MessageKind::Event)
    {
        if t.route(&t.example()) == Ok(Route::Topic) {
            on_topic.push(t.name);
        }
    }
    for name in &on_topic {
        let seen = TEAM_FACTS.contains(name);
        let secret = TEAM_SECRETS.contains(name);
        assert!(
            seen != secret,
            "{name}: in TEAM_FACTS {seen}, in TEAM_SECRETS {secret}; it must be in exactly one"
        );
    }
    for name in TEAM_FACTS.iter().chain(&TEAM_SECRETS) {
        assert!(
            on_topic.contains(name),
            "{name} is not a race fact on the topic"
        );
    }
}

#[test]
fn a_teams_account_goes_to_its_own_queue_only() {
    for name in ["race.state.reported.v1", "race.budget.reported.v1"] {
        let t = all_types().into_iter().find(|t| t.name == name).unwrap();
        let example = t.example();
        let team = example["team"].as_str().unwrap();
        assert_eq!(
            t.route(&example),
            Ok(Route::Queue(team_queue(team))),
            "{name}"
        );
    }
    for name in TEAM_SECRETS {
        let t = all_types().into_iter().find(|t| t.name == name).unwrap();
        let example = serde_json::to_string(&t.example()).unwrap();
        assert!(
            example.contains("budget") || example.contains("points"),
            "{name} tells no money or points: it need not be secret"
        );
    }
}
