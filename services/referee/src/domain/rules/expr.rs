//! One rule (`{"$and": [{"$geq": ["$score", 5]}, …]}`), type-checked and compiled once into a
//! flat program, then evaluated without allocating.
//!
//! Integers are only literals and variables (no operator yields one), so a comparison holds its
//! two operands inline; boolean nodes refer to their arguments by index.

use std::fmt;

use serde_json::Value;

use super::error::{MAX_DEPTH, MAX_NODES, Problem, RulesError, describe};

/// A variable, resolved for the side being evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Var {
    Score = 0,
    OtherScore = 1,
    ScoreDelta = 2,
    MaxScore = 3,
}

impl Var {
    fn parse(name: &str) -> Option<Var> {
        Some(match name {
            "$score" => Var::Score,
            "$other_score" => Var::OtherScore,
            "$score_delta" => Var::ScoreDelta,
            "$max_score" => Var::MaxScore,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Var::Score => "$score",
            Var::OtherScore => "$other_score",
            Var::ScoreDelta => "$score_delta",
            Var::MaxScore => "$max_score",
        }
    }
}

/// The four variables' values for one side: `[$score, $other_score, $score_delta, $max_score]`.
pub(crate) type Vars = [i64; 4];

pub(crate) fn vars(score: i64, other: i64) -> Vars {
    [
        score,
        other,
        score.abs_diff(other).min(i64::MAX as u64) as i64,
        score.max(other),
    ]
}

#[derive(Debug, Clone, Copy)]
enum Operand {
    Lit(i64),
    Var(Var),
}

impl Operand {
    #[inline(always)]
    fn get(self, vars: &Vars) -> i64 {
        match self {
            Operand::Lit(n) => n,
            Operand::Var(v) => vars[v as usize],
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Cmp {
    Gt,
    Geq,
    Lt,
    Leq,
}

/// A boolean node. `start`/`len` index `Program::operands` (integer `$eq`) or
/// `Program::children` (the others).
#[derive(Debug, Clone, Copy)]
enum Node {
    Const(bool),
    Cmp(Cmp, Operand, Operand),
    EqInt { start: u32, len: u32 },
    EqBool { start: u32, len: u32 },
    All { start: u32, len: u32 },
    Any { start: u32, len: u32 },
}

/// Every rule of one document, compiled side by side.
#[derive(Debug, Clone, Default)]
pub(crate) struct Program {
    nodes: Vec<Node>,
    operands: Vec<Operand>,
    children: Vec<u32>,
}

/// What a compiled argument turned out to be.
#[derive(Clone, Copy)]
enum Typed {
    Int(Operand),
    Bool(u32),
}

/// What the author wrote, for type errors.
enum Found {
    Integer(i64),
    Boolean(bool),
    Variable(Var),
    Operator(&'static str),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Integer(n) => write!(f, "integer {n}"),
            Found::Boolean(b) => write!(f, "boolean {b}"),
            Found::Variable(v) => write!(f, "variable \"{}\" (an integer)", v.name()),
            Found::Operator(op) => write!(f, "operator {op} (a boolean)"),
        }
    }
}

const OPERATORS: [&str; 7] = ["$eq", "$gt", "$geq", "$lt", "$leq", "$and", "$or"];

struct Budget<'a> {
    root: &'a str,
    nodes: usize,
}

impl Program {
    /// Compiles the boolean rule at `path`; returns the index of its root node.
    pub(crate) fn compile_rule(&mut self, value: &Value, path: &str) -> Result<u32, RulesError> {
        let mut budget = Budget {
            root: path,
            nodes: 0,
        };
        match self.compile(value, path, 1, &mut budget)? {
            (Typed::Bool(node), _) => Ok(node),
            (Typed::Int(_), found) => Err(type_error(path, "a boolean", &found)),
        }
    }

    fn compile(
        &mut self,
        value: &Value,
        path: &str,
        depth: usize,
        budget: &mut Budget<'_>,
    ) -> Result<(Typed, Found), RulesError> {
        if depth > MAX_DEPTH {
            return Err(RulesError::new(path, Problem::TooDeep));
        }
        budget.nodes += 1;
        if budget.nodes > MAX_NODES {
            return Err(RulesError::new(budget.root, Problem::TooManyNodes));
        }
        match value {
            Value::Bool(b) => Ok((Typed::Bool(self.push(Node::Const(*b))), Found::Boolean(*b))),
            Value::Number(n) => match n.as_i64() {
                Some(n) => Ok((Typed::Int(Operand::Lit(n)), Found::Integer(n))),
                None => Err(RulesError::new(path, Problem::NotInteger(n.to_string()))),
            },
            Value::String(name) => match Var::parse(name) {
                Some(var) => Ok((Typed::Int(Operand::Var(var)), Found::Variable(var))),
                None => Err(RulesError::new(
                    path,
                    Problem::UnknownVariable(name.clone()),
                )),
            },
            Value::Object(map) => {
                let mut entries = map.iter();
                let (Some((key, args)), None) = (entries.next(), entries.next()) else {
                    let keys: Vec<String> = map.keys().map(|k| format!("{k:?}")).collect();
                    let found = match keys.len() {
                        0 => "none".to_string(),
                        n => format!("{n} ({})", keys.join(", ")),
                    };
                    return Err(RulesError::new(path, Problem::NotOneOperator(found)));
                };
                let Some(operator) = OPERATORS.iter().copied().find(|op| op == key) else {
                    return Err(RulesError::new(path, Problem::UnknownOperator(key.clone())));
                };
                let node = self.compile_operator(operator, args, path, depth, budget)?;
                Ok((Typed::Bool(node), Found::Operator(operator)))
            }
            Value::Null | Value::Array(_) => Err(RulesError::new(
                path,
                Problem::Type {
                    expected: "a rule (an operator, a variable, an integer or a boolean)",
                    found: describe(value),
                },
            )),
        }
    }

    fn compile_operator(
        &mut self,
        operator: &'static str,
        args: &Value,
        path: &str,
        depth: usize,
        budget: &mut Budget<'_>,
    ) -> Result<u32, RulesError> {
        let Value::Array(args) = args else {
            let found = describe(args);
            return Err(RulesError::new(
                path,
                Problem::ArgumentsNotArray { operator, found },
            ));
        };
        let (expected, ok) = match operator {
            "$eq" => ("at least 2 arguments", args.len() >= 2),
            "$and" | "$or" => ("at least 1 argument", !args.is_empty()),
            _ => ("exactly 2 arguments", args.len() == 2),
        };
        if !ok {
            let found = args.len();
            return Err(RulesError::new(
                path,
                Problem::Arity {
                    operator,
                    expected,
                    found,
                },
            ));
        }
        let mut typed = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            let arg_path = format!("{path}.{operator}[{i}]");
            let (t, found) = self.compile(arg, &arg_path, depth + 1, budget)?;
            typed.push((t, found, arg_path));
        }
        let want_int = match operator {
            "$eq" => matches!(typed[0].0, Typed::Int(_)),
            "$and" | "$or" => false,
            _ => true,
        };
        let mut ints = Vec::new();
        let mut bools = Vec::new();
        for (t, found, arg_path) in &typed {
            match (t, want_int) {
                (Typed::Int(op), true) => ints.push(*op),
                (Typed::Bool(node), false) => bools.push(*node),
                (Typed::Bool(_), true) => return Err(type_error(arg_path, "an integer", found)),
                (Typed::Int(_), false) => return Err(type_error(arg_path, "a boolean", found)),
            }
        }
        let node = match operator {
            "$gt" | "$geq" | "$lt" | "$leq" => {
                let cmp = match operator {
                    "$gt" => Cmp::Gt,
                    "$geq" => Cmp::Geq,
                    "$lt" => Cmp::Lt,
                    _ => Cmp::Leq,
                };
                Node::Cmp(cmp, ints[0], ints[1])
            }
            "$eq" if want_int => {
                let (start, len) = (index(self.operands.len()), index(ints.len()));
                self.operands.extend(ints);
                Node::EqInt { start, len }
            }
            _ => {
                let (start, len) = (index(self.children.len()), index(bools.len()));
                self.children.extend(bools);
                match operator {
                    "$eq" => Node::EqBool { start, len },
                    "$and" => Node::All { start, len },
                    _ => Node::Any { start, len },
                }
            }
        };
        Ok(self.push(node))
    }

    fn push(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        index(self.nodes.len() - 1)
    }

    /// Whether the rule rooted at `node` holds with these variables.
    pub(crate) fn eval(&self, node: u32, vars: &Vars) -> bool {
        match self.nodes[node as usize] {
            Node::Const(b) => b,
            Node::Cmp(cmp, a, b) => {
                let (a, b) = (a.get(vars), b.get(vars));
                match cmp {
                    Cmp::Gt => a > b,
                    Cmp::Geq => a >= b,
                    Cmp::Lt => a < b,
                    Cmp::Leq => a <= b,
                }
            }
            Node::EqInt { start, len } => {
                let operands = &self.operands[start as usize..(start + len) as usize];
                let first = operands[0].get(vars);
                operands[1..].iter().all(|o| o.get(vars) == first)
            }
            Node::EqBool { start, len } => {
                let children = self.children(start, len);
                let first = self.eval(children[0], vars);
                children[1..].iter().all(|&c| self.eval(c, vars) == first)
            }
            Node::All { start, len } => self
                .children(start, len)
                .iter()
                .all(|&c| self.eval(c, vars)),
            Node::Any { start, len } => self
                .children(start, len)
                .iter()
                .any(|&c| self.eval(c, vars)),
        }
    }

    fn children(&self, start: u32, len: u32) -> &[u32] {
        &self.children[start as usize..(start + len) as usize]
    }
}

/// A document holds at most 7 rules of at most 512 nodes, so every index fits in a `u32`.
fn index(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn type_error(path: &str, expected: &'static str, found: &Found) -> RulesError {
    RulesError::new(
        path,
        Problem::Type {
            expected,
            found: found.to_string(),
        },
    )
}
