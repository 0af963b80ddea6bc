//! The rules document of a game (the source's `rules` hash, as JSON), parsed and checked once at
//! game start into [`Rules`]: settings, goal strengths per phase, and the compiled conditions.
//!
//! Format (every key optional but `conditions.default.win_rule`):
//! `timeout_s`, `rehearsal_balls`, `initial_score {hinge, lock}`,
//! `goal_strength {<phase>: {<side>: {goal: [a, b], inout: [a, b]}}}`,
//! `conditions {default: {win_rule, lose_rule?}, tie_break: {start_rule?, win_rule, lose_rule?},
//! timeout: {win_rule, lose_rule?}}`. A rule is `{"$op": [args…]}`, a variable (`$score`,
//! `$other_score`, `$score_delta`, `$max_score`) or a literal (integer or boolean).

mod document;
mod error;
mod explain;
mod expr;
mod program;

use serde_json::{Map, Value};

pub use error::{MAX_DEPTH, MAX_NODES, Problem, RulesError};

use super::terms::{BallKind, Phase, Score, Side};
use program::Program;

/// One compiled rule of a [`Rules`] document. Only meaningful with the `Rules` it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleRef(u32);

/// The conditions of one phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conditions {
    /// `win_rule`: the evaluated side qualifies when it holds.
    pub win: RuleRef,
    /// `lose_rule`: the *other* side qualifies when it holds for the evaluated side.
    pub lose: Option<RuleRef>,
}

/// Points a ball gives: `[scorer, opponent]`, e.g. `[2, -1]`.
pub type Strength = [i64; 2];

/// Rules stored as their document (a snapshot's), checked again when read back
/// (`#[serde(with = "as_document")]` on an `Arc<Rules>`).
pub(crate) mod as_document {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error};
    use serde_json::{Map, Value};

    use super::Rules;

    pub(crate) fn serialize<S: Serializer>(rules: &Arc<Rules>, to: S) -> Result<S::Ok, S::Error> {
        rules.source().serialize(to)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Arc<Rules>, D::Error> {
        let document = Map::<String, Value>::deserialize(from)?;
        Rules::reload(&Value::Object(document))
            .map(Arc::new)
            .map_err(D::Error::custom)
    }
}

/// A checked, compiled rules document. Cheap to evaluate: no allocation, no JSON.
#[derive(Debug, Clone)]
pub struct Rules {
    source: Map<String, Value>,
    timeout_s: u64,
    rehearsal_balls: u64,
    initial_score: Score,
    /// `[phase][side][kind]`, with the `default` fallback already applied.
    strength: [[[Strength; 2]; 2]; 3],
    conditions: [Option<Conditions>; 3],
    tie_break_start: Option<RuleRef>,
    program: Program,
}

impl Rules {
    /// Parses and checks a rules document for a new game. The error names the JSON path of the
    /// bad node. Beyond the format, a game must be playable: a tie-break needs its
    /// `start_rule`, and the initial score must not already win.
    pub fn parse(document: &Value) -> Result<Rules, RulesError> {
        let rules = document::parse(document)?;
        if rules.conditions[Phase::TieBreak as usize].is_some() && rules.tie_break_start.is_none() {
            return Err(RulesError::new(
                "conditions.tie_break",
                Problem::NoTieBreakStart,
            ));
        }
        if let Some((side, phase)) = rules.initial_winner() {
            let Score { hinge, lock } = rules.initial_score;
            let side = side.name();
            return Err(RulesError::new(
                "initial_score",
                Problem::AlreadyWon {
                    side,
                    hinge,
                    lock,
                    conditions: match phase {
                        Phase::TieBreak => {
                            "conditions.tie_break (its start_rule holds at that score)"
                        }
                        _ => "conditions.default",
                    },
                },
            ));
        }
        Ok(rules)
    }

    /// A side that wins at the initial score, before any ball, with the phase it wins in: the
    /// `default` conditions, or the `tie_break` ones when its start rule already holds there
    /// (the first ball is then played in the tie-break, and any ball ends the game).
    fn initial_winner(&self) -> Option<(Side, Phase)> {
        let score = self.initial_score;
        if let Some(side) = self.winner(Phase::Default, score) {
            return Some((side, Phase::Default));
        }
        let start = self.tie_break_start?;
        if !Side::ALL.iter().any(|&s| self.holds(start, s, score)) {
            return None;
        }
        self.winner(Phase::TieBreak, score)
            .map(|side| (side, Phase::TieBreak))
    }

    /// Parses the rules of a game already in the log, with the checks of the format only: the
    /// referee that logged it accepted it, perhaps before a playability check existed, and the
    /// log must replay all the same.
    pub fn reload(document: &Value) -> Result<Rules, RulesError> {
        document::parse(document)
    }

    /// The document as it was received (kept to publish it in `table.game.started.v1`).
    pub fn source(&self) -> &Map<String, Value> {
        &self.source
    }

    /// `timeout_s`; 0 means no timeout.
    pub fn timeout_s(&self) -> u64 {
        self.timeout_s
    }

    /// When the game times out, in milliseconds of game clock: only when `timeout_s > 0` and
    /// `conditions.timeout` exists.
    pub fn timeout_ms(&self) -> Option<u64> {
        (self.timeout_s > 0 && self.conditions[Phase::Timeout as usize].is_some())
            .then(|| self.timeout_s.saturating_mul(1000))
    }

    /// How many balls at the start of a game change nothing.
    pub fn rehearsal_balls(&self) -> u64 {
        self.rehearsal_balls
    }

    /// The score at game start.
    pub fn initial_score(&self) -> Score {
        self.initial_score
    }

    /// The points a ball of `kind` by `side` gives in `phase`: `[scorer, opponent]`.
    pub fn strength(&self, phase: Phase, side: Side, kind: BallKind) -> Strength {
        self.strength[phase as usize][side as usize][kind as usize]
    }

    /// The conditions of a phase, if the document has them.
    pub fn conditions(&self, phase: Phase) -> Option<Conditions> {
        self.conditions[phase as usize]
    }

    /// `conditions.tie_break.start_rule`, if any.
    pub fn tie_break_start(&self) -> Option<RuleRef> {
        self.tie_break_start
    }

    /// Whether `rule` holds for `side` at `score`.
    #[inline]
    pub fn holds(&self, rule: RuleRef, side: Side, score: Score) -> bool {
        let vars = program::vars(score.of(side), score.of(side.other()));
        self.program.eval(rule.0, &vars)
    }
}

/// Two documents are the same rules when their sources are equal (parsing is deterministic).
impl PartialEq for Rules {
    fn eq(&self, other: &Rules) -> bool {
        self.source == other.source
    }
}
