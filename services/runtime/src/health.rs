//! Liveness and readiness of a process. Live: it answers. Ready: every service has replayed its
//! log and consumes its queue, none has stopped on an error, the broker is connected when one
//! is configured, every relay's backlog (log entries the bus has not confirmed) is under a
//! threshold, and no part of the process ([`crate::parts`]: a table's sensors) is failing. The
//! report names each condition that fails.

use std::sync::atomic::Ordering;

use serde::Serialize;

use crate::runtime::Runtime;

/// The relay backlog above which a process is not ready, by default.
pub const DEFAULT_MAX_BACKLOG: u64 = 10_000;

/// A condition that does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failing {
    /// What: `broker`, `broker_setup`, `service`, `replay`, `consuming`, `relay_backlog` or
    /// `part`.
    pub check: &'static str,
    /// The service concerned, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    /// The part concerned (check `part`: a table's `goal_sensors`…), if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// Why, for a person.
    pub reason: String,
}

/// The answer of `/ready`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Readiness {
    /// `ready` or `not ready`.
    pub status: &'static str,
    /// The transport.
    pub transport: &'static str,
    /// The services hosted.
    pub services: Vec<String>,
    /// Each condition that fails (empty when ready).
    pub failing: Vec<Failing>,
}

impl Readiness {
    /// Whether every condition holds.
    pub fn is_ready(&self) -> bool {
        self.failing.is_empty()
    }
}

/// The readiness of the process running `runtime`.
pub fn readiness(runtime: &Runtime, max_backlog: u64) -> Readiness {
    let mut failing = Vec::new();
    if let Some(broker) = runtime.bus().broker_status()
        && !broker.connected
    {
        failing.push(Failing {
            check: "broker",
            service: None,
            part: None,
            reason: format!("not connected to the broker at {}", broker.address),
        });
    }
    if let Some(reason) = runtime.failed() {
        failing.push(Failing {
            check: "service",
            service: None,
            part: None,
            reason: format!("a service stopped: {reason}"),
        });
    }
    let services = runtime.metrics().services();
    for (name, counters) in &services {
        let mut fail = |check, reason: String| {
            failing.push(Failing {
                check,
                service: Some(name.clone()),
                part: None,
                reason,
            });
        };
        if !counters.replayed.load(Ordering::Relaxed) {
            fail("replay", "its log is not replayed yet".into());
        }
        let misconfigured = counters.misconfigured.lock().ok().and_then(|m| m.clone());
        if let Some(reason) = misconfigured {
            fail("broker_setup", reason);
        }
        if !counters.consuming.load(Ordering::Relaxed) {
            let queue = counters.queue.get().map_or("its queue", String::as_str);
            fail("consuming", format!("not consuming {queue}"));
        }
        let backlog = counters.relay_backlog();
        if backlog >= max_backlog {
            fail(
                "relay_backlog",
                format!("{backlog} events wait to be published (threshold {max_backlog})"),
            );
        }
    }
    for (name, state) in runtime.parts().states() {
        if let Some(reason) = state.failing {
            failing.push(Failing {
                check: "part",
                service: None,
                part: Some(name),
                reason,
            });
        }
    }
    Readiness {
        status: if failing.is_empty() {
            "ready"
        } else {
            "not ready"
        },
        transport: runtime.bus().name(),
        services: services.into_iter().map(|(name, _)| name).collect(),
        failing,
    }
}
