//! A naive referee written straight from the semantics, interpreting the rules
//! document as `serde_json::Value` at every step (like the source's Ruby `run_rule`). It shares
//! no code with the crate: the property tests compare the two.
#![allow(dead_code)]

use serde_json::Value;

pub const SIDES: [&str; 2] = ["hinge", "lock"];
pub const KINDS: [&str; 2] = ["goal", "inout"];

#[derive(Debug, Clone, PartialEq)]
pub struct NaiveState {
    pub scores: [i64; 2],
    pub phase: &'static str,
    pub balls: u64,
    pub winner: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum V {
    Int(i64),
    Bool(bool),
}

fn get<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|v| !v.is_null())
}

fn run_rule(side: usize, scores: [i64; 2], rule: &Value) -> V {
    let other = 1 - side;
    match rule {
        Value::Object(map) => {
            let (op, args) = map.iter().next().unwrap();
            let values: Vec<V> = args
                .as_array()
                .unwrap()
                .iter()
                .map(|a| run_rule(side, scores, a))
                .collect();
            let int = |v: &V| match v {
                V::Int(n) => *n,
                V::Bool(_) => panic!("type"),
            };
            let boolean = |v: &V| match v {
                V::Bool(b) => *b,
                V::Int(_) => panic!("type"),
            };
            V::Bool(match op.as_str() {
                "$eq" => values.iter().all(|x| *x == values[0]),
                "$gt" => int(&values[0]) > int(&values[1]),
                "$geq" => int(&values[0]) >= int(&values[1]),
                "$lt" => int(&values[0]) < int(&values[1]),
                "$leq" => int(&values[0]) <= int(&values[1]),
                "$and" => values.iter().all(boolean),
                "$or" => values.iter().any(boolean),
                other => panic!("operator {other}"),
            })
        }
        Value::String(var) => V::Int(match var.as_str() {
            "$score" => scores[side],
            "$other_score" => scores[other],
            "$score_delta" => (scores[side] - scores[other]).abs(),
            "$max_score" => scores[side].max(scores[other]),
            other => panic!("variable {other}"),
        }),
        Value::Number(n) => V::Int(n.as_i64().unwrap()),
        Value::Bool(b) => V::Bool(*b),
        other => panic!("rule {other}"),
    }
}

pub fn rule_holds(side: usize, scores: [i64; 2], rule: &Value) -> bool {
    run_rule(side, scores, rule) == V::Bool(true)
}

pub struct Naive<'a> {
    pub doc: &'a Value,
}

impl Naive<'_> {
    pub fn start(&self) -> NaiveState {
        let initial = |side| {
            get(self.doc, "initial_score")
                .and_then(|s| get(s, side))
                .map_or(0, |v| v.as_i64().unwrap())
        };
        NaiveState {
            scores: [initial("hinge"), initial("lock")],
            phase: "default",
            balls: 0,
            winner: None,
        }
    }

    fn conditions(&self, phase: &str) -> Option<&Value> {
        get(self.doc, "conditions").and_then(|c| get(c, phase))
    }

    pub fn qualifies(&self, phase: &str, side: usize, scores: [i64; 2]) -> bool {
        let Some(conditions) = self.conditions(phase) else {
            return false;
        };
        let win = get(conditions, "win_rule").is_some_and(|r| rule_holds(side, scores, r));
        let lose = get(conditions, "lose_rule").is_some_and(|r| rule_holds(1 - side, scores, r));
        win || lose
    }

    pub fn winner(&self, phase: &str, scores: [i64; 2]) -> Option<usize> {
        match (
            self.qualifies(phase, 0, scores),
            self.qualifies(phase, 1, scores),
        ) {
            (true, false) => Some(0),
            (false, true) => Some(1),
            _ => None,
        }
    }

    fn strength(&self, phase: &str, side: usize, kind: usize) -> (i64, i64) {
        let Some(table) = get(self.doc, "goal_strength") else {
            return (1, 0);
        };
        let entry = |phase: &str| {
            get(table, phase)
                .and_then(|p| get(p, SIDES[side]))
                .and_then(|s| get(s, KINDS[kind]))
        };
        let pair = entry(phase).or_else(|| entry("default")).unwrap();
        (pair[0].as_i64().unwrap(), pair[1].as_i64().unwrap())
    }

    pub fn ball(&self, state: &NaiveState, side: usize, kind: usize) -> NaiveState {
        let mut s = state.clone();
        if s.winner.is_some() {
            return s;
        }
        s.balls += 1;
        let rehearsal = get(self.doc, "rehearsal_balls").map_or(0, |v| v.as_u64().unwrap());
        if state.balls < rehearsal {
            return s;
        }
        let (a, b) = self.strength(s.phase, side, kind);
        s.scores[side] = (s.scores[side] + a).max(0);
        s.scores[1 - side] = (s.scores[1 - side] + b).max(0);
        s.winner = self.winner(s.phase, s.scores);
        if s.winner.is_none() && s.phase == "default" {
            let start = self
                .conditions("tie_break")
                .and_then(|c| get(c, "start_rule"));
            if let Some(start) = start
                && (rule_holds(0, s.scores, start) || rule_holds(1, s.scores, start))
            {
                s.phase = "tie_break";
                s.winner = self.winner("tie_break", s.scores);
            }
        }
        s
    }

    pub fn clock(&self, state: &NaiveState, clock_s: u64) -> NaiveState {
        let mut s = state.clone();
        let timeout_s = get(self.doc, "timeout_s").map_or(0, |v| v.as_u64().unwrap());
        let has_timeout = self.conditions("timeout").is_some();
        if timeout_s > 0
            && has_timeout
            && clock_s >= timeout_s
            && s.winner.is_none()
            && s.phase != "timeout"
        {
            s.phase = "timeout";
            s.winner = self.winner("timeout", s.scores);
        }
        s
    }

    /// Locked per side: the winner of any of the four next balls; both after a win.
    pub fn ibr(&self, state: &NaiveState) -> [bool; 2] {
        if state.winner.is_some() {
            return [true, true];
        }
        let mut locked = [false, false];
        for side in 0..2 {
            for kind in 0..2 {
                if let Some(w) = self.ball(state, side, kind).winner {
                    locked[w] = true;
                }
            }
        }
        locked
    }
}
