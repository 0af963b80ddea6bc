//! Why a rules document was refused: the JSON path of the bad node and what is wrong with it.

use std::fmt;

/// Most nested operator levels a rule may have (its root is level 1); variables and literals
/// are not levels.
pub const MAX_DEPTH: usize = 32;
/// Most nodes (operators, variables, literals) one rule may have.
pub const MAX_NODES: usize = 512;

/// A refused rules document: `<path>: <problem>`, e.g.
/// `conditions.tie_break.win_rule.$or[1].$and[0]: unknown operator "$gte"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RulesError {
    /// JSON path of the offending node (`conditions.default.win_rule.$and[0]`); empty for the
    /// document itself.
    pub path: String,
    /// What is wrong there.
    pub problem: Problem,
}

impl RulesError {
    pub(crate) fn new(path: &str, problem: Problem) -> RulesError {
        RulesError {
            path: path.to_string(),
            problem,
        }
    }
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.problem)
        } else {
            write!(f, "{}: {}", self.path, self.problem)
        }
    }
}

/// What is wrong with one node of a rules document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// An operator node whose key is not one of the seven operators.
    #[error("unknown operator \"{0}\"")]
    UnknownOperator(String),
    /// A string that is not one of the four variables.
    #[error("unknown variable \"{0}\"")]
    UnknownVariable(String),
    /// An object with zero or several keys where an operator node `{"$op": [...]}` was expected.
    #[error("an operator node has exactly one key, found {0}")]
    NotOneOperator(String),
    /// The arguments of an operator are not an array.
    #[error("the arguments of {operator} must be an array, found {found}")]
    ArgumentsNotArray {
        /// The operator.
        operator: &'static str,
        /// What was there instead.
        found: String,
    },
    /// An operator with the wrong number of arguments.
    #[error("{operator} takes {expected}, found {found}")]
    Arity {
        /// The operator.
        operator: &'static str,
        /// `exactly 2 arguments`, `at least 1 argument`…
        expected: &'static str,
        /// How many it had.
        found: usize,
    },
    /// An integer where a boolean is needed, or the reverse.
    #[error("expected {expected}, found {found}")]
    Type {
        /// `a boolean` or `an integer`.
        expected: &'static str,
        /// What was there, e.g. `variable "$score" (an integer)`.
        found: String,
    },
    /// A number with a fraction or an exponent, or out of the 64-bit range.
    #[error("{0} is not an integer")]
    NotInteger(String),
    /// A setting outside its range, e.g. a negative `timeout_s`.
    #[error("expected {expected}, found {found}")]
    OutOfRange {
        /// What the setting accepts.
        expected: &'static str,
        /// What was there.
        found: String,
    },
    /// A key that the rules format does not have (often a typo).
    #[error("unknown key (expected {0})")]
    UnknownKey(&'static str),
    /// A required key is absent.
    #[error("missing {0}")]
    Missing(String),
    /// A rule nested deeper than [`MAX_DEPTH`] operator levels.
    #[error("nesting deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// A rule with more than [`MAX_NODES`] nodes.
    #[error("the rule has more than {MAX_NODES} nodes")]
    TooManyNodes,
    /// The initial score already wins the game for one side, before any ball, under the
    /// conditions of the phase the game would be in.
    #[error(
        "{side} already wins at {hinge}–{lock} (hinge–lock) under {conditions}, before any ball is played"
    )]
    AlreadyWon {
        /// The conditions it wins under: `conditions.default`, or `conditions.tie_break` when
        /// its start rule holds at the initial score.
        conditions: &'static str,
        /// The side that would win.
        side: &'static str,
        /// The hinge side's initial score.
        hinge: u64,
        /// The lock side's initial score.
        lock: u64,
    },
    /// A tie-break without a rule that starts it.
    #[error("missing start_rule: without it the tie-break never starts")]
    NoTieBreakStart,
}

/// A short description of a JSON value for error messages: `integer 5`, `string "x"`, `null`…
pub(crate) fn describe(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("integer {n}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(a) => format!("an array of {} items", a.len()),
        Value::Object(o) => format!("an object with {} keys", o.len()),
    }
}
