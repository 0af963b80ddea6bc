//! The achievements are hidden at the start (the rule book): the published contract names them
//! and their rewards, never what earns them; `race.hint.published.v1` gives that during the race.

use arcade_contracts::catalog::all_types;

#[test]
fn the_published_achievements_say_their_name_and_reward_but_not_how_to_earn_them() {
    let types = all_types();
    let awarded = types
        .iter()
        .find(|t| t.name == "race.achievement.awarded.v1")
        .expect("race.achievement.awarded.v1 is in the catalog");
    let schema = awarded.schema();
    let variants = schema["$defs"]["Achievement"]["oneOf"]
        .as_array()
        .expect("the achievements are a oneOf of constants");
    assert_eq!(variants.len(), 13, "12 of the notes and Picsou");
    for variant in variants {
        let name = variant["const"].as_str().unwrap();
        let description = variant["description"].as_str().unwrap();
        // `"Title" (reward).` and nothing else.
        let rest = description
            .strip_prefix('"')
            .and_then(|d| d.split_once('"'))
            .map(|(_, rest)| rest)
            .unwrap_or_else(|| panic!("{name}: {description:?} opens with its quoted title"));
        assert!(
            rest.starts_with(" (") && rest.ends_with(").") && !rest.contains(':'),
            "{name}: {description:?} tells only its title and reward"
        );
    }
    assert!(types.iter().any(|t| t.name == "race.hint.published.v1"));
}
