//! The rules in plain words, one line per rule, rendered from the checked rules (their trees,
//! settings and goal strengths), e.g. `default: wins with 5 or more and a lead of 2 or more`.

use super::document::PLAIN_BALL;
use super::expr::{Cmp, Expr, Int, Var};
use super::{Conditions, Rules, Strength};
use crate::domain::terms::{BallKind, Phase, Score, Side};

impl Rules {
    /// The rules in plain words, one line per rule: the initial score and rehearsal balls when
    /// they are not the plain ones, goal values that are not +1, then one line per phase that
    /// has conditions (when it starts, how a side wins or loses).
    pub fn explain(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let Score { hinge, lock } = self.initial_score;
        if hinge != 0 || lock != 0 {
            lines.push(format!("start: {hinge}–{lock} (hinge–lock)"));
        }
        match self.rehearsal_balls {
            0 => {}
            1 => lines.push("rehearsal: the first ball counts for nothing".into()),
            n => lines.push(format!("rehearsal: the first {n} balls count for nothing")),
        }
        let default = self.strength[Phase::Default as usize];
        if default != [[PLAIN_BALL; 2]; 2] {
            lines.push(format!("goals: {}", strengths(&default)));
        }
        for phase in [Phase::TieBreak, Phase::Timeout] {
            let table = self.strength[phase as usize];
            if self.conditions(phase).is_some() && table != default {
                lines.push(format!("goals in {}: {}", label(phase), strengths(&table)));
            }
        }
        for phase in Phase::ALL {
            if let Some(conditions) = self.conditions(phase) {
                lines.push(format!(
                    "{}: {}",
                    self.heading(phase),
                    self.outcome(conditions)
                ));
            }
        }
        lines
    }

    fn tree(&self, rule: super::RuleRef) -> &Expr {
        // Every RuleRef of a Rules was made by its own program, which keeps the tree.
        const NEVER: Expr = Expr::Const(false);
        self.program.tree(rule.0).unwrap_or(&NEVER)
    }

    /// `default`, `tie-break from 5 for either side`, `timeout after 900 s`.
    fn heading(&self, phase: Phase) -> String {
        match phase {
            Phase::Default => "default".into(),
            Phase::TieBreak => match self.tie_break_start.map(|r| self.tree(r)) {
                Some(Expr::Cmp(Cmp::Geq, Int::Var(Var::MaxScore), Int::Lit(n))) => {
                    format!("tie-break from {n} for either side")
                }
                Some(Expr::Cmp(cmp, Int::Var(Var::MaxScore), Int::Lit(n))) => {
                    format!("tie-break at {} for either side", amount(*cmp, *n))
                }
                Some(start) => format!("tie-break when a side has {}", condition(start)),
                None => "tie-break (never starts: no start_rule)".into(),
            },
            Phase::Timeout => match self.timeout_s {
                0 => "timeout (never reached: no timeout_s)".into(),
                s => format!("timeout after {s} s"),
            },
        }
    }

    /// `wins with …`, and `; loses with …` when there is a lose rule.
    fn outcome(&self, conditions: Conditions) -> String {
        let win = match self.tree(conditions.win) {
            Expr::Const(true) => "wins at once".to_string(),
            Expr::Const(false) => "never wins by score".to_string(),
            rule => format!("wins with {}", condition(rule)),
        };
        match conditions.lose.map(|r| self.tree(r)) {
            None => win,
            Some(Expr::Const(true)) => format!("{win}; loses at once"),
            Some(Expr::Const(false)) => win,
            Some(rule) => format!("{win}; loses with {}", condition(rule)),
        }
    }
}

fn label(phase: Phase) -> &'static str {
    match phase {
        Phase::Default => "default",
        Phase::TieBreak => "tie-break",
        Phase::Timeout => "timeout",
    }
}

/// `a goal +1, an in-out +2`, or per side when the sides differ.
fn strengths(table: &[[Strength; 2]; 2]) -> String {
    let side = |t: &[Strength; 2]| {
        let goal = points(t[BallKind::Goal as usize]);
        let inout = points(t[BallKind::Inout as usize]);
        format!("a goal {goal}, an in-out {inout}")
    };
    let [hinge, lock] = table;
    if hinge == lock {
        side(hinge)
    } else {
        format!(
            "{}: {}; {}: {}",
            Side::Hinge,
            side(hinge),
            Side::Lock,
            side(lock)
        )
    }
}

/// `+2`, or `+2 and -1 to the other side`.
fn points([scorer, opponent]: Strength) -> String {
    if opponent == 0 {
        format!("{scorer:+}")
    } else {
        format!("{scorer:+} and {opponent:+} to the other side")
    }
}

/// A rule as the end of `wins with …`.
fn condition(expr: &Expr) -> String {
    match expr {
        Expr::Const(true) => "anything".into(),
        Expr::Const(false) => "nothing".into(),
        Expr::Cmp(cmp, a, b) => comparison(*cmp, *a, *b),
        Expr::EqInt(args) => match args.as_slice() {
            [a, b] => equality(*a, *b),
            _ => {
                let names: Vec<String> = args.iter().map(|i| int(*i)).collect();
                format!("{} all equal", list(&names, "and"))
            }
        },
        Expr::EqBool(args) => {
            let parts: Vec<String> = args.iter().map(|e| format!("({})", condition(e))).collect();
            format!("{} all true or all false", list(&parts, "and"))
        }
        Expr::And(args) => {
            let parts: Vec<String> = flatten(args, true)
                .into_iter()
                .map(|e| match e {
                    Expr::Or(_) => format!("({})", condition(e)),
                    _ => condition(e),
                })
                .collect();
            list(&parts, "and")
        }
        Expr::Or(args) => {
            let parts: Vec<String> = flatten(args, false).into_iter().map(condition).collect();
            parts.join(", or ")
        }
    }
}

/// The arguments of an `$and` (`and == true`) or `$or`, nested ones of the same kind inlined.
fn flatten(args: &[Expr], and: bool) -> Vec<&Expr> {
    let mut out = Vec::new();
    for arg in args {
        match arg {
            Expr::And(inner) if and => out.extend(flatten(inner, and)),
            Expr::Or(inner) if !and => out.extend(flatten(inner, and)),
            other => out.push(other),
        }
    }
    out
}

/// `a, b and c`.
fn list(parts: &[String], word: &str) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

/// `5 or more`, `more than 5`, `5 or less`, `less than 5`, `exactly 5`.
fn amount(cmp: Cmp, n: i64) -> String {
    match cmp {
        Cmp::Geq => format!("{n} or more"),
        Cmp::Gt => format!("more than {n}"),
        Cmp::Leq => format!("{n} or less"),
        Cmp::Lt => format!("less than {n}"),
    }
}

/// A variable compared with a number, in the words of what it measures.
fn about(var: Var, amount: String) -> String {
    match var {
        Var::Score => amount,
        Var::OtherScore => format!("the other side at {amount}"),
        Var::ScoreDelta => format!("a lead of {amount}"),
        Var::MaxScore => format!("{amount} for either side"),
    }
}

fn name(var: Var) -> &'static str {
    match var {
        Var::Score => "its score",
        Var::OtherScore => "the other side's score",
        Var::ScoreDelta => "the lead",
        Var::MaxScore => "the higher score",
    }
}

fn int(i: Int) -> String {
    match i {
        Int::Lit(n) => n.to_string(),
        Int::Var(v) => name(v).to_string(),
    }
}

fn flip(cmp: Cmp) -> Cmp {
    match cmp {
        Cmp::Gt => Cmp::Lt,
        Cmp::Geq => Cmp::Leq,
        Cmp::Lt => Cmp::Gt,
        Cmp::Leq => Cmp::Geq,
    }
}

fn comparison(cmp: Cmp, a: Int, b: Int) -> String {
    match (a, b) {
        (Int::Lit(x), Int::Lit(y)) => {
            let holds = match cmp {
                Cmp::Gt => x > y,
                Cmp::Geq => x >= y,
                Cmp::Lt => x < y,
                Cmp::Leq => x <= y,
            };
            if holds { "anything" } else { "nothing" }.into()
        }
        (Int::Var(v), Int::Lit(n)) => about(v, amount(cmp, n)),
        (Int::Lit(_), Int::Var(_)) => comparison(flip(cmp), b, a),
        // Said from its own score when it is one of the two.
        (Int::Var(x), Int::Var(Var::Score)) if x != Var::Score => comparison(flip(cmp), b, a),
        (Int::Var(x), Int::Var(y)) => {
            let relation = match cmp {
                Cmp::Geq => "at least",
                Cmp::Gt => "more than",
                Cmp::Leq => "at most",
                Cmp::Lt => "less than",
            };
            match x {
                Var::Score => format!("{relation} {}", name(y)),
                _ => format!("{} {relation} {}", name(x), name(y)),
            }
        }
    }
}

fn equality(a: Int, b: Int) -> String {
    match (a, b) {
        (Int::Lit(x), Int::Lit(y)) => if x == y { "anything" } else { "nothing" }.into(),
        (Int::Var(v), Int::Lit(n)) | (Int::Lit(n), Int::Var(v)) => about(v, format!("exactly {n}")),
        (Int::Var(Var::Score), Int::Var(y)) | (Int::Var(y), Int::Var(Var::Score)) => {
            format!("as much as {}", name(y))
        }
        (Int::Var(x), Int::Var(y)) => format!("{} equal to {}", name(x), name(y)),
    }
}
