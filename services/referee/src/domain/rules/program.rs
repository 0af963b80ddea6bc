//! Rules compiled for speed: each rule becomes a short run of instructions with short-circuit
//! jumps, evaluated by a loop over one boolean accumulator — no recursion, no allocation.
//! Comparisons are specialised at compile time (variable against literal, variable against
//! variable; `>`/`<` against a literal become `>=`/`<=`; literal-only nodes are folded).

use super::error::MAX_DEPTH;
use super::expr::{Cmp, Expr, Int, Var};

/// The four variables' values for one side: `[$score, $other_score, $score_delta, $max_score]`.
pub(crate) type Vars = [i64; 4];

/// The variables for the side whose score is `score` (scores beyond `i64::MAX` count as it).
#[inline]
pub(crate) fn vars(score: u64, other: u64) -> Vars {
    let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    [
        int(score),
        int(other),
        int(score.abs_diff(other)),
        int(score.max(other)),
    ]
}

#[derive(Debug, Clone, Copy)]
enum Op {
    /// `acc = b`
    Const(bool),
    /// `acc = var >= lit`
    GeVL(Var, i64),
    /// `acc = var <= lit`
    LeVL(Var, i64),
    /// `acc = var == lit`
    EqVL(Var, i64),
    /// `acc = a >= b`
    GeVV(Var, Var),
    /// `acc = a > b`
    GtVV(Var, Var),
    /// `acc = a == b`
    EqVV(Var, Var),
    /// `acc = all of operands[start..start + len] are equal`
    EqMany { start: u32, len: u32 },
    /// `if !acc { pc = target }`
    JumpIfFalse(u32),
    /// `if acc { pc = target }`
    JumpIfTrue(u32),
    /// Saves `acc` (the first argument of a boolean `$eq`).
    Push,
    /// `acc = acc == saved`; `if !acc { pc = target }` (the matching `Pop`).
    EqSaved(u32),
    /// Drops the saved value; `acc` is the `$eq`'s result.
    Pop,
    /// The rule's value is `acc`.
    End,
}

/// Every rule of one document, compiled side by side.
#[derive(Debug, Clone, Default)]
pub(crate) struct Program {
    code: Vec<Op>,
    operands: Vec<Int>,
    /// Each rule's checked tree, by where its code starts (for [`super::explain`]).
    trees: Vec<(u32, Expr)>,
}

impl Program {
    /// Compiles a rule; returns where it starts.
    pub(crate) fn add(&mut self, rule: &Expr) -> u32 {
        let start = self.here();
        self.emit(rule);
        self.code.push(Op::End);
        self.trees.push((start, rule.clone()));
        start
    }

    /// The checked tree of the rule starting at `start`.
    pub(crate) fn tree(&self, start: u32) -> Option<&Expr> {
        self.trees
            .iter()
            .find_map(|(at, tree)| (*at == start).then_some(tree))
    }

    fn here(&self) -> u32 {
        // A document has at most 7 rules of at most 512 nodes: a few thousand instructions.
        u32::try_from(self.code.len()).unwrap_or(u32::MAX)
    }

    fn emit(&mut self, expr: &Expr) {
        match expr {
            Expr::Const(b) => self.code.push(Op::Const(*b)),
            Expr::Cmp(cmp, a, b) => self.code.push(comparison(*cmp, *a, *b)),
            Expr::EqInt(args) => self.code.push(equality(args, &mut self.operands)),
            Expr::And(args) => self.chain(args, Op::JumpIfFalse),
            Expr::Or(args) => self.chain(args, Op::JumpIfTrue),
            Expr::EqBool(args) => {
                self.emit(&args[0]);
                self.code.push(Op::Push);
                let mut exits = Vec::with_capacity(args.len() - 1);
                for arg in &args[1..] {
                    self.emit(arg);
                    exits.push(self.code.len());
                    self.code.push(Op::EqSaved(0));
                }
                let pop = self.here();
                for exit in exits {
                    self.code[exit] = Op::EqSaved(pop);
                }
                self.code.push(Op::Pop);
            }
        }
    }

    /// `$and` / `$or`: each argument but the last may decide the result and jump to the end.
    fn chain(&mut self, args: &[Expr], jump: fn(u32) -> Op) {
        let mut exits = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            self.emit(arg);
            if i + 1 < args.len() {
                exits.push(self.code.len());
                self.code.push(jump(0));
            }
        }
        let end = self.here();
        for exit in exits {
            self.code[exit] = jump(end);
        }
    }

    /// Whether the rule starting at `start` holds with these variables.
    pub(crate) fn eval(&self, start: u32, vars: &Vars) -> bool {
        let var = |v: Var| vars[v as usize];
        let mut saved = [false; MAX_DEPTH];
        let mut depth = 0;
        let mut acc = false;
        let mut pc = start as usize;
        loop {
            match self.code[pc] {
                Op::Const(b) => acc = b,
                Op::GeVL(v, lit) => acc = var(v) >= lit,
                Op::LeVL(v, lit) => acc = var(v) <= lit,
                Op::EqVL(v, lit) => acc = var(v) == lit,
                Op::GeVV(a, b) => acc = var(a) >= var(b),
                Op::GtVV(a, b) => acc = var(a) > var(b),
                Op::EqVV(a, b) => acc = var(a) == var(b),
                Op::EqMany { start, len } => {
                    let operands = &self.operands[start as usize..(start + len) as usize];
                    let value = |i: &Int| match *i {
                        Int::Lit(n) => n,
                        Int::Var(v) => var(v),
                    };
                    let first = value(&operands[0]);
                    acc = operands[1..].iter().all(|o| value(o) == first);
                }
                Op::JumpIfFalse(target) if !acc => {
                    pc = target as usize;
                    continue;
                }
                Op::JumpIfTrue(target) if acc => {
                    pc = target as usize;
                    continue;
                }
                Op::JumpIfFalse(_) | Op::JumpIfTrue(_) => {}
                Op::Push => {
                    saved[depth] = acc;
                    depth += 1;
                }
                Op::EqSaved(target) => {
                    acc = acc == saved[depth - 1];
                    if !acc {
                        pc = target as usize;
                        continue;
                    }
                }
                Op::Pop => depth -= 1,
                Op::End => return acc,
            }
            pc += 1;
        }
    }
}

/// One comparison instruction for `a cmp b`.
fn comparison(cmp: Cmp, a: Int, b: Int) -> Op {
    match (a, b) {
        (Int::Lit(a), Int::Lit(b)) => Op::Const(match cmp {
            Cmp::Gt => a > b,
            Cmp::Geq => a >= b,
            Cmp::Lt => a < b,
            Cmp::Leq => a <= b,
        }),
        (Int::Var(v), Int::Lit(lit)) => match cmp {
            Cmp::Geq => Op::GeVL(v, lit),
            Cmp::Leq => Op::LeVL(v, lit),
            Cmp::Gt => lit
                .checked_add(1)
                .map_or(Op::Const(false), |lit| Op::GeVL(v, lit)),
            Cmp::Lt => lit
                .checked_sub(1)
                .map_or(Op::Const(false), |lit| Op::LeVL(v, lit)),
        },
        // `lit cmp var` is `var flipped-cmp lit`
        (Int::Lit(_), Int::Var(_)) => comparison(flip(cmp), b, a),
        (Int::Var(a), Int::Var(b)) => match cmp {
            Cmp::Geq => Op::GeVV(a, b),
            Cmp::Gt => Op::GtVV(a, b),
            Cmp::Leq => Op::GeVV(b, a),
            Cmp::Lt => Op::GtVV(b, a),
        },
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

/// One instruction for an integer `$eq`.
fn equality(args: &[Int], operands: &mut Vec<Int>) -> Op {
    if let [Int::Lit(first), rest @ ..] = args
        && rest.iter().all(|i| matches!(i, Int::Lit(_)))
    {
        return Op::Const(rest.iter().all(|i| *i == Int::Lit(*first)));
    }
    match *args {
        [Int::Var(v), Int::Lit(lit)] | [Int::Lit(lit), Int::Var(v)] => Op::EqVL(v, lit),
        [Int::Var(a), Int::Var(b)] => Op::EqVV(a, b),
        _ => {
            let start = u32::try_from(operands.len()).unwrap_or(u32::MAX);
            let len = u32::try_from(args.len()).unwrap_or(u32::MAX);
            operands.extend_from_slice(args);
            Op::EqMany { start, len }
        }
    }
}
