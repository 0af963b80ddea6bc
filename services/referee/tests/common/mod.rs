//! Helpers shared by the referee's integration tests: the example rules and short builders.
#![allow(dead_code)]

use arcade_contracts::table::{
    FinishReason, TableGameFinished, TableGoalScored, TableIbrChanged, TablePhaseChanged,
};
use arcade_referee::{
    BallKind, Event, Ibr, Input, Phase, Referee, Rejection, Rules, Score, Side, TableState,
};
use arcade_runtime::testkit::Scenario;
use arcade_runtime::{Context, Decided, Decider};
use serde_json::{Value, json};

/// The referee's rules as a decider: the domain's inputs, each carrying its own time. (The
/// runtime's `Decider` of the referee, `RefereeService`, takes the wire commands and stamps them
/// with the host's clock; these tests speak the domain's inputs.)
#[derive(Debug)]
pub struct TableRules(pub Referee);

impl Decider for TableRules {
    type State = TableState;
    type Input = Input;
    type Event = Event;
    type Rejection = Rejection;

    fn decide(&self, state: &TableState, input: &Input, _: &Context) -> Decided<Self> {
        self.0.decide(state, input)
    }

    fn evolve(state: &mut TableState, event: &Event) {
        Referee::evolve(state, event);
    }

    fn next_deadline(&self, state: &TableState) -> Option<u64> {
        Referee::next_deadline(state)
    }
}

/// Table t1, given these past events.
pub fn table(events: impl IntoIterator<Item = Event>) -> Scenario<TableRules> {
    Scenario::given(TableRules(Referee::new("t1")), events)
}

/// The source's "bar" rules (examples/bar.rules.json).
pub fn bar_document() -> Value {
    serde_json::from_str(include_str!("../../examples/bar.rules.json")).unwrap()
}

pub fn bar() -> Rules {
    Rules::parse(&bar_document()).unwrap()
}

/// A document with only a default win rule.
pub fn with_win_rule(rule: Value) -> Value {
    json!({"conditions": {"default": {"win_rule": rule}}})
}

/// The error message of a document that must be refused.
pub fn refusal(document: Value) -> String {
    match Rules::parse(&document) {
        Ok(_) => panic!("{document} was accepted"),
        Err(e) => e.to_string(),
    }
}

/// `table.ibr.changed.v1` of game `game_id` on t1.
pub fn ibr_changed(game_id: &str, ibr: Ibr) -> Event {
    Event::IbrChanged(TableIbrChanged {
        table_id: "t1".into(),
        game_id: game_id.into(),
        hinge: ibr.hinge,
        lock: ibr.lock,
    })
}

/// A counted or rehearsal ball of g1 on t1, by nobody named.
pub fn scored(
    side: Side,
    kind: BallKind,
    counted: bool,
    (hinge, lock): (u64, u64),
    phase: Phase,
    ball: u64,
    clock_ms: u64,
) -> Event {
    Event::GoalScored(TableGoalScored {
        table_id: "t1".into(),
        game_id: "g1".into(),
        side,
        kind,
        counted,
        score: Score::new(hinge, lock),
        phase,
        ball,
        clock_ms,
        player: None,
        own_goal: false,
    })
}

/// g1 on t1 enters phase `to` at hinge–lock.
pub fn phase_changed(from: Phase, to: Phase, (hinge, lock): (u64, u64), clock_ms: u64) -> Event {
    Event::PhaseChanged(TablePhaseChanged {
        table_id: "t1".into(),
        game_id: "g1".into(),
        from,
        to,
        score: Score::new(hinge, lock),
        clock_ms,
    })
}

/// g1 on t1 won by `winner` at hinge–lock in `phase`, after `duration_ms`.
pub fn won(
    winner: Side,
    (hinge, lock): (u64, u64),
    phase: Phase,
    duration_ms: u64,
    reason: FinishReason,
) -> Event {
    Event::GameFinished(TableGameFinished {
        table_id: "t1".into(),
        game_id: "g1".into(),
        winner: Some(winner),
        score: Score::new(hinge, lock),
        phase,
        duration_ms,
        reason,
        abort_reason: None,
    })
}
