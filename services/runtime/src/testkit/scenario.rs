//! Given/when/then for any [`Decider`], as cqrs-es tests its aggregates: **given** past events
//! (folded with `evolve` onto the decider's initial state, as the host folds its log), **at** a
//! time, **when** an input arrives, **then** these events or this refusal.
//!
//! ```ignore
//! Scenario::given(decider, past).at(now_ms).when(input).then_expect([event]);
//! Scenario::given(decider, past).when(input).then_reject(rejection);
//! let events = scenario.run(input); // accepted, and applied before the next input
//! ```
//!
//! `when` never changes the scenario; `run` (an input that must be accepted) and `try_run`
//! apply what was decided, so accepted inputs chain: given → when → apply → when.

use std::fmt;

use crate::decider::{Context, Decider};

/// A decider, the state its past events fold to, those events, and the clock.
pub struct Scenario<D: Decider> {
    decider: D,
    state: D::State,
    history: Vec<D::Event>,
    ctx: Context,
}

impl<D: Decider> Scenario<D> {
    /// Nothing has happened yet: the decider's [`Decider::initial_state`]; the clock at 0 ms.
    pub fn new(decider: D) -> Self {
        let state = decider.initial_state();
        Scenario {
            decider,
            state,
            history: Vec::new(),
            ctx: Context { now_ms: 0 },
        }
    }

    /// Given these past events, applied in order without deciding.
    pub fn given(decider: D, events: impl IntoIterator<Item = D::Event>) -> Self {
        let mut scenario = Scenario::new(decider);
        scenario.apply(events);
        scenario
    }

    /// The same scenario with the clock at `now_ms` (ms since the epoch).
    pub fn at(mut self, now_ms: u64) -> Self {
        self.set_now(now_ms);
        self
    }

    /// Moves the clock to `now_ms`.
    pub fn set_now(&mut self, now_ms: u64) {
        self.ctx.now_ms = now_ms;
    }

    /// The clock, in ms since the epoch.
    pub fn now_ms(&self) -> u64 {
        self.ctx.now_ms
    }

    /// The decider under test.
    pub fn decider(&self) -> &D {
        &self.decider
    }

    /// The fold of every event so far.
    pub fn state(&self) -> &D::State {
        &self.state
    }

    /// Every event so far, in order: the given ones and those of accepted inputs.
    pub fn history(&self) -> &[D::Event] {
        &self.history
    }

    /// The events so far, to give to another scenario (a replay).
    pub fn into_history(self) -> Vec<D::Event> {
        self.history
    }

    /// When the decider next wants a tick, in this state.
    pub fn next_deadline(&self) -> Option<u64> {
        self.decider.next_deadline(&self.state)
    }

    /// Applies facts without deciding (more of "given").
    pub fn apply(&mut self, events: impl IntoIterator<Item = D::Event>) {
        for event in events {
            D::evolve(&mut self.state, &event);
            self.history.push(event);
        }
    }

    /// What the decider says to `input` now; the scenario does not change.
    pub fn decide(&self, input: &D::Input) -> Result<Vec<D::Event>, D::Rejection> {
        self.decider.decide(&self.state, input, &self.ctx)
    }

    /// When `input` arrives now: the outcome, to check with [`Then`]'s methods. The scenario
    /// does not change.
    pub fn when(&self, input: D::Input) -> Then<D> {
        let outcome = self.decide(&input);
        Then { input, outcome }
    }

    /// Decides `input` now and, if it is accepted, applies its events; returns the outcome.
    pub fn try_run(&mut self, input: D::Input) -> Result<Vec<D::Event>, D::Rejection>
    where
        D::Event: Clone,
    {
        let events = self.decide(&input)?;
        self.apply(events.iter().cloned());
        Ok(events)
    }

    /// Decides an input that must be accepted (panics with the refusal otherwise), applies its
    /// events and returns them.
    pub fn run(&mut self, input: D::Input) -> Vec<D::Event>
    where
        D::Input: fmt::Debug,
        D::Event: Clone,
    {
        let events = self.when(input).events();
        self.apply(events.iter().cloned());
        events
    }
}

impl<D> fmt::Debug for Scenario<D>
where
    D: Decider + fmt::Debug,
    D::State: fmt::Debug,
    D::Event: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scenario")
            .field("decider", &self.decider)
            .field("state", &self.state)
            .field("history", &self.history)
            .field("now_ms", &self.ctx.now_ms)
            .finish()
    }
}

/// What the decider said to one input.
#[must_use = "a Then checks nothing until one of its methods is called"]
pub struct Then<D: Decider> {
    input: D::Input,
    outcome: Result<Vec<D::Event>, D::Rejection>,
}

impl<D: Decider> Then<D> {
    /// Then exactly these events (panics otherwise); returns them.
    pub fn then_expect(self, expected: impl IntoIterator<Item = D::Event>) -> Vec<D::Event>
    where
        D::Input: fmt::Debug,
        D::Event: PartialEq + fmt::Debug,
    {
        let expected: Vec<D::Event> = expected.into_iter().collect();
        let input = format!("{:?}", self.input);
        let events = self.events();
        assert_eq!(events, expected, "the events of {input}");
        events
    }

    /// Then this refusal (panics otherwise).
    pub fn then_reject(self, expected: D::Rejection)
    where
        D::Input: fmt::Debug,
        D::Event: fmt::Debug,
        D::Rejection: PartialEq + fmt::Debug,
    {
        let input = format!("{:?}", self.input);
        assert_eq!(self.rejection(), expected, "the refusal of {input}");
    }

    /// The events of an accepted input (panics with the refusal if it was refused).
    pub fn events(self) -> Vec<D::Event>
    where
        D::Input: fmt::Debug,
    {
        match self.outcome {
            Ok(events) => events,
            Err(rejection) => panic!("{:?} was refused: {rejection}", self.input),
        }
    }

    /// The refusal of a refused input (panics with the events if it was accepted).
    pub fn rejection(self) -> D::Rejection
    where
        D::Input: fmt::Debug,
        D::Event: fmt::Debug,
    {
        match self.outcome {
            Ok(events) => panic!("{:?} was accepted: {events:?}", self.input),
            Err(rejection) => rejection,
        }
    }

    /// Whether the input was accepted.
    pub fn is_accepted(&self) -> bool {
        self.outcome.is_ok()
    }

    /// The outcome as the decider returned it.
    pub fn outcome(self) -> Result<Vec<D::Event>, D::Rejection> {
        self.outcome
    }
}

impl<D> fmt::Debug for Then<D>
where
    D: Decider,
    D::Input: fmt::Debug,
    D::Event: fmt::Debug,
    D::Rejection: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Then")
            .field("input", &self.input)
            .field("outcome", &self.outcome)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter: `Add(n)` adds n, refused past 10; a tick is due at 100 ms once it counts.
    #[derive(Debug)]
    struct Counter;

    #[derive(Debug, Clone, PartialEq)]
    struct Added {
        n: u32,
        at_ms: u64,
    }

    impl Decider for Counter {
        type State = u32;
        type Input = u32;
        type Event = Added;
        type Rejection = String;

        fn decide(&self, total: &u32, n: &u32, ctx: &Context) -> Result<Vec<Added>, String> {
            if total + n > 10 {
                return Err(format!("{total} + {n} is over 10"));
            }
            Ok(vec![Added {
                n: *n,
                at_ms: ctx.now_ms,
            }])
        }

        fn evolve(total: &mut u32, event: &Added) {
            *total += event.n;
        }

        fn next_deadline(&self, total: &u32) -> Option<u64> {
            (*total > 0).then_some(100)
        }
    }

    fn added(n: u32, at_ms: u64) -> Added {
        Added { n, at_ms }
    }

    #[test]
    fn given_events_then_the_input_is_decided_on_their_fold_at_the_clock() {
        let events = Scenario::given(Counter, [added(4, 0), added(5, 1)])
            .at(7)
            .when(1)
            .then_expect([added(1, 7)]);
        assert_eq!(events, [added(1, 7)]);
        Scenario::given(Counter, [added(4, 0), added(5, 1)])
            .when(2)
            .then_reject("9 + 2 is over 10".to_string());
    }

    #[test]
    fn when_changes_nothing_and_run_applies_what_was_accepted() {
        let mut s = Scenario::new(Counter);
        assert_eq!(s.next_deadline(), None);
        assert!(s.when(3).is_accepted());
        assert_eq!((*s.state(), s.history()), (0, &[][..]));
        assert_eq!(s.run(3), [added(3, 0)]);
        s.set_now(50);
        assert_eq!(s.try_run(8), Err("3 + 8 is over 10".to_string()));
        assert_eq!(s.try_run(7), Ok(vec![added(7, 50)]));
        assert_eq!(
            (*s.state(), s.now_ms(), s.next_deadline()),
            (10, 50, Some(100))
        );
        let replayed = Scenario::given(Counter, s.into_history());
        assert_eq!(*replayed.state(), 10);
    }

    #[test]
    #[should_panic(expected = "4 was refused: 9 + 4 is over 10")]
    fn an_input_that_must_be_accepted_and_is_refused_panics_with_the_refusal() {
        Scenario::given(Counter, [added(9, 0)]).run(4);
    }

    #[test]
    #[should_panic(expected = "1 was accepted")]
    fn a_refusal_expected_of_an_accepted_input_panics_with_the_events() {
        Scenario::new(Counter).when(1).then_reject(String::new());
    }
}
