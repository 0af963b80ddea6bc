//! A service's own counters (a referee's display failures, say), beside the runtime's: each is
//! named and described once by the service and exported by `crate::metrics` with the label
//! `service`, like the runtime's counters.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

/// The service's own counters, by metric name.
#[derive(Debug, Default)]
pub struct ExtraCounters {
    counters: Mutex<BTreeMap<&'static str, (&'static str, Arc<AtomicU64>)>>,
}

impl ExtraCounters {
    /// The counter `name` (a Prometheus counter name without `_total`), described by `help`;
    /// created at its first use, the same counter after.
    pub fn counter(&self, name: &'static str, help: &'static str) -> Arc<AtomicU64> {
        let mut counters = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        counters
            .entry(name)
            .or_insert_with(|| (help, Arc::default()))
            .1
            .clone()
    }

    /// Every counter: name, help and the counter.
    pub fn all(&self) -> Vec<(&'static str, &'static str, Arc<AtomicU64>)> {
        let counters = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        counters
            .iter()
            .map(|(name, (help, counter))| (*name, *help, counter.clone()))
            .collect()
    }
}
