//! One rule (`{"$and": [{"$geq": ["$score", 5]}, …]}`) read from JSON into a typed tree, with
//! every check of the format: operators, variables, arity, types, integers, depth and size.
//! [`super::program`] then compiles the tree for evaluation.

use std::fmt;

use serde_json::Value;

use super::error::{MAX_DEPTH, MAX_NODES, Problem, RulesError, describe};

/// A variable, resolved for the side being evaluated; its value is `Vars[var as usize]`.
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

/// An integer: only literals and variables (no operator yields one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Int {
    Lit(i64),
    Var(Var),
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Gt,
    Geq,
    Lt,
    Leq,
}

/// A boolean rule, type-checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expr {
    Const(bool),
    Cmp(Cmp, Int, Int),
    EqInt(Vec<Int>),
    EqBool(Vec<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
}

/// What a node turned out to be.
enum Typed {
    Int(Int),
    Bool(Expr),
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

/// Reads the boolean rule at `path`.
pub(crate) fn parse_rule(value: &Value, path: &str) -> Result<Expr, RulesError> {
    let mut budget = Budget {
        root: path,
        nodes: 0,
    };
    match parse(value, path, 1, &mut budget)? {
        (Typed::Bool(expr), _) => Ok(expr),
        (Typed::Int(_), found) => Err(type_error(path, "a boolean", &found)),
    }
}

fn parse(
    value: &Value,
    path: &str,
    depth: usize,
    budget: &mut Budget<'_>,
) -> Result<(Typed, Found), RulesError> {
    budget.nodes += 1;
    if budget.nodes > MAX_NODES {
        return Err(RulesError::new(budget.root, Problem::TooManyNodes));
    }
    match value {
        Value::Bool(b) => Ok((Typed::Bool(Expr::Const(*b)), Found::Boolean(*b))),
        Value::Number(n) => match n.as_i64() {
            Some(n) => Ok((Typed::Int(Int::Lit(n)), Found::Integer(n))),
            None => Err(RulesError::new(path, Problem::NotInteger(n.to_string()))),
        },
        Value::String(name) => match Var::parse(name) {
            Some(var) => Ok((Typed::Int(Int::Var(var)), Found::Variable(var))),
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
            // Only operators are levels: `depth` counts the operators from the root to here.
            if depth > MAX_DEPTH {
                return Err(RulesError::new(path, Problem::TooDeep));
            }
            let expr = parse_operator(operator, args, path, depth, budget)?;
            Ok((Typed::Bool(expr), Found::Operator(operator)))
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

fn parse_operator(
    operator: &'static str,
    args: &Value,
    path: &str,
    depth: usize,
    budget: &mut Budget<'_>,
) -> Result<Expr, RulesError> {
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
    let mut ints = Vec::new();
    let mut bools = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let arg_path = format!("{path}.{operator}[{i}]");
        let (typed, found) = parse(arg, &arg_path, depth + 1, budget)?;
        // `$eq` takes the type of its first argument; comparisons want integers.
        let want_int = match operator {
            "$eq" => i == 0 && matches!(typed, Typed::Int(_)) || !ints.is_empty(),
            "$and" | "$or" => false,
            _ => true,
        };
        match (typed, want_int) {
            (Typed::Int(int), true) => ints.push(int),
            (Typed::Bool(expr), false) => bools.push(expr),
            (Typed::Bool(_), true) => return Err(type_error(&arg_path, "an integer", &found)),
            (Typed::Int(_), false) => return Err(type_error(&arg_path, "a boolean", &found)),
        }
    }
    Ok(match operator {
        "$gt" => Expr::Cmp(Cmp::Gt, ints[0], ints[1]),
        "$geq" => Expr::Cmp(Cmp::Geq, ints[0], ints[1]),
        "$lt" => Expr::Cmp(Cmp::Lt, ints[0], ints[1]),
        "$leq" => Expr::Cmp(Cmp::Leq, ints[0], ints[1]),
        "$eq" if !ints.is_empty() => Expr::EqInt(ints),
        "$eq" => Expr::EqBool(bools),
        "$and" => Expr::And(bools),
        _ => Expr::Or(bools),
    })
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
