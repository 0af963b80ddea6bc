//! Every team's own log: its registrations (and refusals), each question the master asked its
//! cars with the answer and how it was closed, its penalties with their reasons, its refused
//! commands, the answers to its budget and state queries, its achievements, grants, modules
//! and stops. (The master sends the answers to the team's queue only; a console reading the
//! topic keeps the entries of those it is given.)
//!
//! **What the console sees of the questions.** The master sends `race.decision.requested.v1`
//! to the team's own queue `race.team.<team>` only (a duel question shows the player's cards,
//! which the opponent must not read); it never reaches the topic, so the console's `race.#`
//! binding never gets it. The console reads `race.decision.closed.v1` (public: the decision,
//! the car, the answer, how it was closed) and takes the question from the public fact that
//! made the master ask, kept per car as it comes: an event drawn (a mine field, a wreck, a
//! garage), a combat paired (whether to fight, and whom), a duel started (the car's answers in
//! it), the state checks (report the state). An answered decision's question is the answer's
//! kind, whatever the context said. The question's private parts (a duel hand) are not shown
//! here; the duel's page shows both hands once the transcript is public.

use std::collections::{BTreeMap, VecDeque};

use arcade_contracts::Message;
use arcade_contracts::race::{
    AchievementAwarded, Answer, BudgetGranted, BudgetReported, CarRegistered, CarStopped,
    CommandRejected, DecisionClosed, DecisionClosure, ModuleChanged, PenaltyGiven,
    RegistrationRejected, StateReported,
};
use serde::{Deserialize, Serialize};

mod questions;

use super::answers::question_of_kind;
pub use super::answers::{answer_kind, answer_text};
use super::lines::{self, penalty_reason};
use super::state::MAX_CARS;
use crate::observed::Observed;

/// Teams kept; beyond this, new teams get no log.
pub const MAX_TEAMS: usize = 200;
/// Entries kept per team (the newest).
pub const MAX_LOG: usize = 500;

/// What the master asked a car, as the console can tell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asked {
    /// The question's kind (`shouldFight`, `crossMineField`, `exploreWreck`, `buyAtGarage`,
    /// `duelAnswer`, `reportState`), or `unknown`.
    pub kind: String,
    /// The question in words.
    pub text: String,
    /// The duel, for a duel answer.
    pub duel_id: Option<u32>,
}

/// One entry of a team's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Its number in the team's log, from 1.
    pub seq: u64,
    /// The turn it came in (0 before the start).
    pub turn: u32,
    /// When the console saw it.
    pub seen_at_ms: u64,
    /// `registered`, `registrationRejected`, `decision`, `penalty`, `rejected`, `budget`,
    /// `state`, `achievement`, `granted`, `module`, `stopped`.
    pub kind: String,
    /// The car it is about.
    pub car: Option<String>,
    /// The decision, for a decision or a penalty.
    pub decision_id: Option<u64>,
    /// The question, for a decision.
    pub question: Option<Asked>,
    /// The answer received, for a decision.
    pub answer: Option<Answer>,
    /// How the decision was closed.
    pub closure: Option<DecisionClosure>,
    /// The penalty the decision brought, in words.
    pub penalty: Option<String>,
    /// What happened, in words.
    pub text: String,
}

/// A team.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Team {
    /// Its cars, in registration order.
    pub cars: Vec<String>,
    /// Its log, oldest first.
    pub log: VecDeque<Entry>,
    /// Entries no longer kept.
    pub dropped: u64,
    next: u64,
}

/// Every team's log, and what each car is being asked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Teams {
    teams: BTreeMap<String, Team>,
    asking: BTreeMap<String, Asked>,
}

fn entry(kind: &str, car: Option<&str>, text: String) -> Entry {
    Entry {
        seq: 0,
        turn: 0,
        seen_at_ms: 0,
        kind: kind.into(),
        car: car.map(str::to_string),
        decision_id: None,
        question: None,
        answer: None,
        closure: None,
        penalty: None,
        text,
    }
}

fn asked(kind: &str, text: String) -> Asked {
    Asked {
        kind: kind.into(),
        text,
        duel_id: None,
    }
}

impl Teams {
    /// A team's log, if the console saw the team.
    pub fn team(&self, team: &str) -> Option<&Team> {
        self.teams.get(team)
    }

    /// The teams seen, by name.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.teams.keys()
    }

    fn team_mut(&mut self, team: &str) -> Option<&mut Team> {
        if !self.teams.contains_key(team) && self.teams.len() >= MAX_TEAMS {
            return None;
        }
        Some(self.teams.entry(team.to_string()).or_default())
    }

    /// An entry of kind `kind` about `car`, saying `text`, in `team`'s log ([`Teams::push`]).
    fn push_car(
        &mut self,
        team: &str,
        car: &str,
        kind: &str,
        text: String,
        turn: u32,
        seen_at_ms: u64,
    ) {
        self.push(team, turn, seen_at_ms, entry(kind, Some(car), text));
    }

    fn push(&mut self, team: &str, turn: u32, seen_at_ms: u64, mut e: Entry) {
        let Some(t) = self.team_mut(team) else { return };
        t.next += 1;
        e.seq = t.next;
        e.turn = turn;
        e.seen_at_ms = seen_at_ms;
        t.log.push_back(e);
        while t.log.len() > MAX_LOG {
            t.log.pop_front();
            t.dropped += 1;
        }
    }

    fn ask(&mut self, team: &str, car: &str, question: Asked) {
        if self
            .teams
            .get(team)
            .is_some_and(|t| t.cars.iter().any(|c| c == car))
        {
            self.asking.insert(car.to_string(), question);
        }
    }

    /// `race.car.registered.v1`.
    pub fn registered(&mut self, m: &CarRegistered, turn: u32, seen_at_ms: u64) {
        let text = format!(
            "{} registered: {}P {}E {}W for ${} (${} left), racing from turn {}",
            m.car,
            m.modules.pilots,
            m.modules.engines,
            m.modules.weapons,
            m.price,
            m.budget_left,
            m.starts_turn
        );
        self.push_car(&m.team, &m.car, "registered", text, turn, seen_at_ms);
        if let Some(t) = self.teams.get_mut(&m.team)
            && !t.cars.contains(&m.car)
            && t.cars.len() < MAX_CARS
        {
            t.cars.push(m.car.clone());
        }
    }

    fn decision(&mut self, m: &DecisionClosed, turn: u32, seen_at_ms: u64) {
        let context = self.asking.get(&m.car).cloned();
        let question = match (&m.closure, &m.answer) {
            // Answered: the answer's kind is the question's.
            (DecisionClosure::Answered, Some(answer)) => {
                let kind = answer_kind(answer);
                match context {
                    Some(asked) if asked.kind == kind => asked,
                    _ => asked(kind, question_of_kind(kind)),
                }
            }
            _ => context.unwrap_or_else(|| asked("unknown", question_of_kind("unknown"))),
        };
        let closure = match m.closure {
            DecisionClosure::Answered => "answered",
            DecisionClosure::WrongAnswer => "answered another question",
            DecisionClosure::NoAnswer => "no answer before the deadline",
        };
        let answer = m
            .answer
            .as_ref()
            .map(answer_text)
            .unwrap_or_else(|| "—".into());
        let mut e = entry(
            "decision",
            Some(&m.car),
            format!(
                "decision {} to {}: {} → {answer} ({closure})",
                m.decision_id, m.car, question.text
            ),
        );
        e.decision_id = Some(m.decision_id);
        e.question = Some(question);
        e.answer = m.answer.clone();
        e.closure = Some(m.closure);
        self.push(&m.team, turn, seen_at_ms, e);
    }

    /// `race.penalty.given.v1`: its own entry, and its reason on the decision's.
    pub fn penalty(&mut self, m: &PenaltyGiven, turn: u32, seen_at_ms: u64) {
        let mut text = lines::penalty(m).text;
        if let Some(c) = &m.correction {
            text.push_str(&format!(
                "; the master's record: square {}, {}P {}E {}W",
                c.square, c.modules.pilots, c.modules.engines, c.modules.weapons
            ));
        }
        if let Some(t) = self.teams.get_mut(&m.team)
            && let Some(decision) = t
                .log
                .iter_mut()
                .rev()
                .find(|e| e.kind == "decision" && e.decision_id == Some(m.decision_id))
        {
            decision.penalty = Some(format!(
                "{}: {} turn(s) to miss",
                penalty_reason(m.reason),
                m.turns_to_miss
            ));
        }
        let mut e = entry("penalty", Some(&m.car), text);
        e.decision_id = Some(m.decision_id);
        self.push(&m.team, turn, seen_at_ms, e);
    }

    /// `race.command.rejected.v1` naming the team.
    pub fn rejected(&mut self, m: &CommandRejected, turn: u32, seen_at_ms: u64) {
        let Some(team) = &m.team else { return };
        let mut e = entry(
            "rejected",
            None,
            format!("{} refused: {}", m.command, m.reason),
        );
        e.decision_id = m.decision_id;
        self.push(team, turn, seen_at_ms, e);
    }

    /// `race.car.stopped.v1`.
    pub fn stopped(&mut self, m: &CarStopped, turn: u32, seen_at_ms: u64) {
        let text = lines::stopped(m).text;
        self.push_car(&m.team, &m.car, "stopped", text, turn, seen_at_ms);
        self.asking.remove(&m.car);
    }

    /// `race.module.changed.v1`.
    pub fn module(&mut self, m: &ModuleChanged, turn: u32, seen_at_ms: u64) {
        let text = lines::module(m).text;
        self.push_car(&m.team, &m.car, "module", text, turn, seen_at_ms);
    }

    /// `race.achievement.awarded.v1`.
    pub fn achievement(&mut self, m: &AchievementAwarded, turn: u32, seen_at_ms: u64) {
        let text = format!(
            "{} earned “{}”: +{} point(s), +${} (${} left)",
            m.car, m.title, m.points, m.money, m.budget_left
        );
        self.push_car(&m.team, &m.car, "achievement", text, turn, seen_at_ms);
    }

    /// The team's other facts: a refused registration, a closed decision, the answers to its
    /// queries, a grant. `None` when the event is none of them.
    pub fn fold_other(&mut self, event: &Observed, turn: u32) -> Option<()> {
        let at = event.seen_at_ms;
        match event.message_type.as_str() {
            RegistrationRejected::TYPE => {
                let m: RegistrationRejected = event.payload_as().ok()?;
                let text = format!("registration of {} refused: {}", m.car, m.reason);
                self.push_car(&m.team, &m.car, "registrationRejected", text, turn, at);
            }
            DecisionClosed::TYPE => {
                let m: DecisionClosed = event.payload_as().ok()?;
                self.decision(&m, turn, at);
            }
            BudgetReported::TYPE => {
                let m: BudgetReported = event.payload_as().ok()?;
                let text = format!(
                    "budget asked: ${} left, {} point(s), cars {}",
                    m.budget,
                    m.points,
                    m.cars.join(", ")
                );
                self.push(&m.team, turn, at, entry("budget", None, text));
            }
            StateReported::TYPE => {
                let m: StateReported = event.payload_as().ok()?;
                let cars: Vec<String> = m
                    .cars
                    .iter()
                    .map(|c| {
                        format!(
                            "{} on {} ({}P {}E {}W)",
                            c.car, c.square, c.modules.pilots, c.modules.engines, c.modules.weapons
                        )
                    })
                    .collect();
                let text = format!(
                    "state asked (turn {}): ${} left, {} point(s); {}",
                    m.turn,
                    m.budget,
                    m.points,
                    if cars.is_empty() {
                        "no car".into()
                    } else {
                        cars.join("; ")
                    }
                );
                self.push(&m.team, turn, at, entry("state", None, text));
            }
            BudgetGranted::TYPE => {
                let m: BudgetGranted = event.payload_as().ok()?;
                let why = m.reason.map(|r| format!(": {r}")).unwrap_or_default();
                let text = format!(
                    "granted ${} by the organiser{why} (${} left)",
                    m.amount, m.budget_left
                );
                self.push(&m.team, turn, at, entry("granted", None, text));
            }
            _ => return None,
        }
        Some(())
    }
}
