//! The pool of squares a game's cards are drawn from, and the triggers that say which gestures
//! tick a square in an activity game.

use std::collections::HashMap;

use super::config_error::ConfigError;
use super::limits::{MAX_LABEL_BYTES, MAX_POOL, MAX_TEXT_BYTES};

/// The id of a square, distinct within its pool.
pub type SquareId = u32;

/// A square as the organiser describes it, not yet checked (its id, what it says, and in an
/// activity game the verb and optional object of the gestures that tick it): the contract's
/// type, the same thing.
pub use arcade_contracts::bingo::SquareSpec;
use arcade_contracts::bingo::TriggerSpec;

/// Which verbs a trigger accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
enum VerbPattern {
    /// `*`: any verb.
    Any,
    /// `talk.*`: any verb starting with `talk.` (stored with its dot).
    Prefix(String),
    /// `talk.hello`: that verb only.
    Exact(String),
}

/// What a gesture must be to tick a square: a verb (exact, `prefix.*` or `*`) and optionally
/// the one object it must concern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trigger {
    verb: VerbPattern,
    object: Option<String>,
}

/// Why a verb is refused, or `None` when it is well formed. `wildcards` allows `*` and `x.*`.
pub(crate) fn verb_problem(verb: &str, wildcards: bool) -> Option<&'static str> {
    if verb.is_empty() {
        return Some("is empty");
    }
    if verb.len() > MAX_TEXT_BYTES {
        return Some("is longer than 200 bytes");
    }
    if !wildcards {
        return verb
            .contains('*')
            .then_some("may not contain *: a mapped message is one verb");
    }
    if verb == "*" {
        return None;
    }
    let body = verb.strip_suffix(".*").unwrap_or(verb);
    if body.is_empty() || body.contains('*') {
        return Some("may use * only alone (any verb) or at the end after a dot, as in talk.*");
    }
    None
}

impl Trigger {
    /// A trigger from its verb pattern and object; the error says what is wrong.
    pub fn new(id: SquareId, verb: &str, object: Option<&str>) -> Result<Trigger, ConfigError> {
        if let Some(problem) = verb_problem(verb, true) {
            return Err(ConfigError::BadVerb {
                id,
                verb: verb.to_string(),
                problem,
            });
        }
        if let Some(object) = object
            && (object.is_empty() || object.len() > MAX_TEXT_BYTES)
        {
            return Err(ConfigError::ObjectLength {
                id,
                len: object.len(),
            });
        }
        let pattern = if verb == "*" {
            VerbPattern::Any
        } else if let Some(prefix) = verb.strip_suffix('*') {
            VerbPattern::Prefix(prefix.to_string())
        } else {
            VerbPattern::Exact(verb.to_string())
        };
        Ok(Trigger {
            verb: pattern,
            object: object.map(str::to_string),
        })
    }

    /// Whether a gesture with this verb and object ticks the square.
    pub fn matches(&self, verb: &str, object: Option<&str>) -> bool {
        let verb_ok = match &self.verb {
            VerbPattern::Any => true,
            VerbPattern::Prefix(prefix) => verb.starts_with(prefix.as_str()),
            VerbPattern::Exact(exact) => verb == exact,
        };
        verb_ok
            && self
                .object
                .as_deref()
                .is_none_or(|wanted| object == Some(wanted))
    }

    /// The verb pattern as written (`*`, `talk.*`, `talk.hello`).
    pub fn verb(&self) -> String {
        match &self.verb {
            VerbPattern::Any => "*".to_string(),
            VerbPattern::Prefix(prefix) => format!("{prefix}*"),
            VerbPattern::Exact(exact) => exact.clone(),
        }
    }

    /// The object it must concern, if any.
    pub fn object(&self) -> Option<&str> {
        self.object.as_deref()
    }
}

/// A checked square.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Square {
    /// Its id.
    pub id: SquareId,
    /// What it says (1 to 200 bytes).
    pub label: String,
    /// What ticks it, in an activity game.
    pub trigger: Option<Trigger>,
}

/// A checked pool: 1 to 500 squares with distinct ids and labels of 1 to 200 bytes. Cards hold
/// squares by their index in the pool (`u16`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pool {
    squares: Vec<Square>,
    index: HashMap<SquareId, u16>,
}

impl Pool {
    /// Checks the squares. Triggers are checked here for form only; whether a square must or
    /// must not have one depends on the tick mode (see the game configuration).
    pub fn new(specs: &[SquareSpec]) -> Result<Pool, ConfigError> {
        if specs.is_empty() || specs.len() > MAX_POOL {
            return Err(ConfigError::PoolSize(specs.len()));
        }
        let mut squares = Vec::with_capacity(specs.len());
        let mut index = HashMap::with_capacity(specs.len());
        for (i, spec) in specs.iter().enumerate() {
            // At most 500 squares, so the index fits.
            if index.insert(spec.id, i as u16).is_some() {
                return Err(ConfigError::DuplicateSquare(spec.id));
            }
            if spec.label.is_empty() || spec.label.len() > MAX_LABEL_BYTES {
                return Err(ConfigError::LabelLength {
                    id: spec.id,
                    len: spec.label.len(),
                });
            }
            let trigger = match &spec.trigger {
                Some(t) => Some(Trigger::new(spec.id, &t.verb, t.object.as_deref())?),
                None => None,
            };
            squares.push(Square {
                id: spec.id,
                label: spec.label.clone(),
                trigger,
            });
        }
        Ok(Pool { squares, index })
    }

    /// Number of squares.
    pub fn len(&self) -> usize {
        self.squares.len()
    }

    /// Whether the pool is empty (never, once checked).
    pub fn is_empty(&self) -> bool {
        self.squares.is_empty()
    }

    /// The squares, in pool order.
    pub fn squares(&self) -> &[Square] {
        &self.squares
    }

    /// The square at a pool index.
    pub fn at(&self, index: u16) -> Option<&Square> {
        self.squares.get(usize::from(index))
    }

    /// The pool index of a square id.
    pub fn index_of(&self, id: SquareId) -> Option<u16> {
        self.index.get(&id).copied()
    }

    /// The specs the pool was made from (to put it back on the wire).
    pub fn specs(&self) -> Vec<SquareSpec> {
        self.squares
            .iter()
            .map(|s| SquareSpec {
                id: s.id,
                label: s.label.clone(),
                trigger: s.trigger.as_ref().map(|t| TriggerSpec {
                    verb: t.verb(),
                    object: t.object().map(str::to_string),
                }),
            })
            .collect()
    }
}
