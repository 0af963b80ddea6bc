//! Parts of a process that are not services but that its readiness and metrics must show: a
//! table's goal sensors, its display. Each part is up or failing (with a reason, named in
//! `/ready`), counts its failures, and counts named events (e.g. balls sensed between games).
//! The code that drives the part reports through its [`Part`] handle; [`crate::health`] and
//! [`crate::metrics`] read them all.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// The parts of one process, by name.
#[derive(Debug, Clone, Default)]
pub struct Parts {
    parts: Arc<Mutex<BTreeMap<String, Arc<Mutex<PartState>>>>>,
}

/// What a part reported, at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartState {
    /// Why it is failing; `None` while it works.
    pub failing: Option<String>,
    /// How many times it went from working to failing.
    pub failures: u64,
    /// Counted events, by name.
    pub events: BTreeMap<&'static str, u64>,
}

/// One part's handle: cheap to clone, shared with the code that drives it.
#[derive(Debug, Clone)]
pub struct Part {
    name: String,
    state: Arc<Mutex<PartState>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Plain data: a panic while holding it leaves nothing half-done worth refusing.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Parts {
    /// The part named `name`, registered (working, no events) on first use.
    pub fn part(&self, name: &str) -> Part {
        let state = locked(&self.parts)
            .entry(name.to_string())
            .or_default()
            .clone();
        Part {
            name: name.to_string(),
            state,
        }
    }

    /// Every part's state, by name.
    pub fn states(&self) -> Vec<(String, PartState)> {
        locked(&self.parts)
            .iter()
            .map(|(name, state)| (name.clone(), locked(state).clone()))
            .collect()
    }
}

impl Part {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// It cannot work, for `reason`. Returns whether it was working until now (the caller
    /// logs a failure once, not at every retry).
    pub fn fail(&self, reason: impl Into<String>) -> bool {
        let mut state = locked(&self.state);
        let was_up = state.failing.is_none();
        if was_up {
            state.failures += 1;
        }
        state.failing = Some(reason.into());
        was_up
    }

    /// It works (again). Returns whether it was failing until now.
    pub fn recover(&self) -> bool {
        locked(&self.state).failing.take().is_some()
    }

    /// Counts one `event`.
    pub fn count(&self, event: &'static str) {
        *locked(&self.state).events.entry(event).or_default() += 1;
    }

    /// Its state now.
    pub fn state(&self) -> PartState {
        locked(&self.state).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_fails_once_per_outage_and_counts_its_events() {
        let parts = Parts::default();
        let sensors = parts.part("goal_sensors");
        assert!(sensors.fail("bus error"));
        assert!(!sensors.fail("bus error again"));
        sensors.count("ball_while_idle");
        assert_eq!(
            parts.states(),
            vec![(
                "goal_sensors".to_string(),
                PartState {
                    failing: Some("bus error again".into()),
                    failures: 1,
                    events: [("ball_while_idle", 1)].into_iter().collect(),
                }
            )]
        );
        assert!(sensors.recover());
        assert!(!sensors.recover());
        assert!(parts.part("goal_sensors").fail("again"));
        assert_eq!(sensors.state().failures, 2);
    }
}
