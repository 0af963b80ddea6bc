//! AMQP topic-exchange matching: words separated by `.`, `*` matches exactly one word, `#`
//! matches zero or more words.

/// A compiled binding pattern, e.g. `game.#` or `table.*.scored.v1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    words: Vec<Word>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Word {
    Exact(String),
    One,
    Any,
}

impl Pattern {
    /// Compiles a pattern. Every pattern is valid in AMQP, so this cannot fail.
    pub fn new(text: &str) -> Self {
        let words = text
            .split('.')
            .map(|w| match w {
                "*" => Word::One,
                "#" => Word::Any,
                other => Word::Exact(other.to_string()),
            })
            .collect();
        Pattern {
            text: text.to_string(),
            words,
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether a routing key matches.
    pub fn matches(&self, key: &str) -> bool {
        let key: Vec<&str> = key.split('.').collect();
        matches_from(&self.words, &key)
    }
}

fn matches_from(pattern: &[Word], key: &[&str]) -> bool {
    match pattern.split_first() {
        None => key.is_empty(),
        Some((Word::Any, rest)) => (0..=key.len()).any(|skip| matches_from(rest, &key[skip..])),
        Some((Word::One, rest)) => !key.is_empty() && matches_from(rest, &key[1..]),
        Some((Word::Exact(w), rest)) => {
            key.first().is_some_and(|k| k == w) && matches_from(rest, &key[1..])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;
    use proptest::prelude::*;

    #[test]
    fn amqp_topic_semantics() {
        let cases = [
            ("game.#", "game.session.completed.v1", true),
            ("game.#", "game", true),
            ("game.#", "table.goal.scored.v1", false),
            ("#", "anything.at.all", true),
            ("*.goal.*.v1", "table.goal.scored.v1", true),
            ("*.goal.*.v1", "table.goal.v1", false),
            ("table.*", "table.goal.scored.v1", false),
            ("table.*.*.v1", "table.goal.scored.v1", true),
            ("#.v1", "bingo.card.won.v1", true),
            ("#.v2", "bingo.card.won.v1", false),
            ("bingo.#.won.v1", "bingo.won.v1", true),
            ("bingo.#.won.v1", "bingo.card.won.v1", true),
            (
                "game.session.completed.v1",
                "game.session.completed.v1",
                true,
            ),
            (
                "game.session.completed.v1",
                "game.session.completed.v2",
                false,
            ),
        ];
        for (pattern, key, expected) in cases {
            assert_eq!(
                Pattern::new(pattern).matches(key),
                expected,
                "{pattern} vs {key}"
            );
        }
    }

    proptest! {
        #[test]
        fn hash_matches_everything_and_exact_matches_itself(key in "[a-z]{1,5}(\\.[a-z0-9]{1,5}){0,5}") {
            prop_assert!(Pattern::new("#").matches(&key));
            prop_assert!(Pattern::new(&key).matches(&key));
            let words = key.split('.').count();
            let stars = vec!["*"; words].join(".");
            prop_assert!(Pattern::new(&stars).matches(&key));
        }
    }
}
