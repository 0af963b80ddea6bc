//! Counters of what each service did with messages: consumed, published, deduplicated,
//! dead-lettered, refused by the domain, ignored (not addressed to this instance); and what
//! its health and Prometheus metrics read (`crate::health`, `crate::metrics`): whether it
//! replayed and consumes, its log's and relay's positions, its inbox size, its last commit,
//! its latency and batch histograms.

mod extra;

pub use extra::ExtraCounters;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use serde::Serialize;

/// One service's counters.
#[derive(Debug, Default)]
pub struct Counters {
    /// Messages taken from the bus and settled (acked or dead-lettered).
    pub consumed: AtomicU64,
    /// Events confirmed by the bus.
    pub published: AtomicU64,
    /// Deliveries of a message already processed.
    pub deduplicated: AtomicU64,
    /// Messages moved to the dead letters.
    pub dead_lettered: AtomicU64,
    /// Inputs the domain refused (each answered by a `*.rejected.v1` where it was a request).
    pub rejected: AtomicU64,
    /// Valid messages addressed to another instance (another table, another game).
    pub ignored: AtomicU64,
    /// Events appended to the log.
    pub appended: AtomicU64,
    /// Its log is replayed into its state (the host is open).
    pub replayed: AtomicBool,
    /// Its queue is declared, bound and consumed now.
    pub consuming: AtomicBool,
    /// Its queue.
    pub queue: OnceLock<String>,
    /// Why its queue cannot be consumed until the broker's operator acts (a plugin missing),
    /// if so.
    pub misconfigured: Mutex<Option<String>>,
    /// One past the last entry committed to its log.
    pub log_end: AtomicU64,
    /// The relay's cursor: the first entry of the log not yet confirmed by the bus.
    pub relay_cursor: AtomicU64,
    /// Keys in its inbox.
    pub inbox_keys: AtomicU64,
    /// When it last committed a batch, ms since the epoch (0: not since start).
    pub last_commit_ms: AtomicU64,
    /// The last log entry its newest snapshot covers (0: none).
    pub snapshot_seq: AtomicU64,
    /// When its newest snapshot was taken, ms since the epoch (0: none).
    pub snapshot_taken_ms: AtomicU64,
    /// Its handle-latency and batch-size histograms.
    pub histograms: Histograms,
    /// The service's own counters ([`ExtraCounters::counter`]).
    pub extra: ExtraCounters,
}

/// A copy of the counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    /// See [`Counters::consumed`].
    pub consumed: u64,
    /// See [`Counters::published`].
    pub published: u64,
    /// See [`Counters::deduplicated`].
    pub deduplicated: u64,
    /// See [`Counters::dead_lettered`].
    pub dead_lettered: u64,
    /// See [`Counters::rejected`].
    pub rejected: u64,
    /// See [`Counters::ignored`].
    pub ignored: u64,
    /// See [`Counters::appended`].
    pub appended: u64,
}

impl Counters {
    /// Adds one to a counter.
    pub fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Log entries not yet confirmed by the bus.
    pub fn relay_backlog(&self) -> u64 {
        let end = self.log_end.load(Ordering::Relaxed);
        end.saturating_sub(self.relay_cursor.load(Ordering::Relaxed).max(1))
    }

    /// The current values.
    pub fn snapshot(&self) -> Snapshot {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Snapshot {
            consumed: get(&self.consumed),
            published: get(&self.published),
            deduplicated: get(&self.deduplicated),
            dead_lettered: get(&self.dead_lettered),
            rejected: get(&self.rejected),
            ignored: get(&self.ignored),
            appended: get(&self.appended),
        }
    }
}

/// The counters of every service in the process, by service name.
#[derive(Debug, Clone)]
pub struct Metrics {
    services: Arc<Mutex<BTreeMap<String, Arc<Counters>>>>,
    handle_latency: bool,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            services: Arc::default(),
            handle_latency: true,
        }
    }
}

impl Metrics {
    /// Counters whose services keep no handle-latency histogram (the benchmark of its cost).
    pub fn without_handle_latency() -> Self {
        Metrics {
            handle_latency: false,
            ..Metrics::default()
        }
    }

    /// The counters of a service, created on first use.
    pub fn service(&self, name: &str) -> Arc<Counters> {
        let mut services = self.services.lock().unwrap_or_else(|p| p.into_inner());
        services
            .entry(name.to_string())
            .or_insert_with(|| {
                Arc::new(Counters {
                    histograms: Histograms::new(self.handle_latency),
                    ..Counters::default()
                })
            })
            .clone()
    }

    /// Every service's counters, by name.
    pub fn services(&self) -> Vec<(String, Arc<Counters>)> {
        let services = self.services.lock().unwrap_or_else(|p| p.into_inner());
        services
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Every service's counters.
    pub fn snapshot(&self) -> BTreeMap<String, Snapshot> {
        let services = self.services.lock().unwrap_or_else(|p| p.into_inner());
        services
            .iter()
            .map(|(k, v)| (k.clone(), v.snapshot()))
            .collect()
    }
}

/// A service's histograms.
#[derive(Debug, Clone)]
pub struct Histograms {
    /// Seconds from the host taking a delivery to its ack; `None` when not measured.
    pub handle_latency: Option<Histogram>,
    /// Inputs per committed batch.
    pub batch_size: Histogram,
}

impl Default for Histograms {
    fn default() -> Self {
        Histograms::new(true)
    }
}

impl Histograms {
    /// Histograms, with or without the handle latency.
    pub fn new(handle_latency: bool) -> Self {
        Histograms {
            // 0.25 ms … 8 s.
            handle_latency: handle_latency
                .then(|| Histogram::new(exponential_buckets(0.000_25, 2.0, 16))),
            // 1 … 1024.
            batch_size: Histogram::new(exponential_buckets(1.0, 2.0, 11)),
        }
    }
}
